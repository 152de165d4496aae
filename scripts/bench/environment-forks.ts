// Forks of an environment (issue 38): a Stripe environment started from a seed of PROMPT (default
// 5,000 customers = 10,000 records with their events) plus TRAFFIC requests (default 1,000: creates,
// updates, reads), then `POST /environments/{id}/fork` → the fork `ready`, RUNS times (p50 target
// ≤ 200 ms, process driver), beside its two halves (the snapshot alone, an environment from it);
// then the disk that CLONES clones of one snapshot's file take against the file once, made as the
// control plane makes them (`copyFile` with COPYFILE_FICLONE), and whether this filesystem clones.
//   node --import=tsx scripts/bench/environment-forks.ts [runs] [traffic] [clones] ["prompt"]
// Build first (`make build`): twins run compiled. (scripts/bench/forks.ts is the GitHub twin's
// repository forks.)
// Measured 2026-12-02 on the shared 2-core machine at load average 11–17 (10 runs, 10 MiB snapshot):
// fork → ready p50 845–1045 ms, its CPU ~110–130 ms in the control plane (with the bench's polls
// and the gateway's threads) + ~10 ms in the parent twin (+ ~35 ms to open the clone in the fork's
// twin, measured in-process); the snapshot alone p50 66–98 ms; ext4 here does not clone files, so
// 100 clones of the snapshot file take 100× its size (~10 ms of copying each). The wall time is the
// machine's queue: the ≤ 200 ms target is not shown at this load. Measured again 2026-12-02 at load
// 0.4 (7 runs): fork → ready p50 56 ms / max 72 ms, its CPU 37 ms; snapshot alone 14 ms; an
// environment from it 51 ms; 100 plain copies 4.6 ms each (ext4, no reflink).

import { constants, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { ProcessDriver } from '../../control-plane/orchestration/drivers/process.js';
import { fmt, percentile, startBenchControlPlane, type BenchControlPlane } from './control-plane.js';

const RUNS = Math.min(50, Math.max(1, Number(process.argv[2] ?? 10)));
const TRAFFIC = Math.min(100_000, Math.max(0, Number(process.argv[3] ?? 1000)));
const CLONES = Math.min(1000, Math.max(1, Number(process.argv[4] ?? 100)));
const PROMPT = process.argv[5] ?? '5000 customers';
// The time is read from the twins' `ready_at` (set by the control plane when it saw the twin ready),
// so polling slowly keeps the poll's own CPU out of the measurement.
const POLL_MS = 50;
// Between runs (untimed) the fork is deleted and the driver's warm pool refills, as between forks a person or CI makes.
const PAUSE_MS = 1000;

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string, pollMs = POLL_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const ready = (bench: BenchControlPlane, id: string) =>
  until(
    async () => {
      const e = (await bench.call('GET', `/environments/${id}`)).body;
      if (e.status === 'failed') throw new Error(`environment failed: ${JSON.stringify(e.twins.map((t: { failure: string }) => t.failure))}`);
      return e.status === 'ready' ? e : undefined;
    },
    60_000,
    `environment ${id}`,
  );

/** When the last twin of an environment was seen ready (ms since the epoch, the control plane's clock: this process's). */
const readyAt = (env: { twins: { ready_at: string }[] }) => Math.max(...env.twins.map((t) => Date.parse(t.ready_at)));

const expect = (res: { status: number; body: unknown }, status: number, what: string) => {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as any;
};

/** CPU ms a process has used (utime + stime from /proc, in clock ticks of 10 ms). */
const processCpuMs = (pid: number | undefined): number => {
  if (pid === undefined) return Number.NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Free bytes of the filesystem holding `dir`. */
const freeBytes = (dir: string) => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};

const bench = await startBenchControlPlane();
try {
  const dataDir = bench.cp.services.config.dataDir;
  const seed = expect(await bench.call('POST', '/seeds', { name: 'bench', twin: 'stripe', prompt: PROMPT }), 201, 'POST /seeds');
  await until(
    async () => {
      const s = (await bench.call('GET', `/seeds/${seed.id}`)).body;
      if (s.status === 'failed') throw new Error(`seed failed: ${s.failure}`);
      return s.status === 'ready' ? s : undefined;
    },
    600_000,
    'the seed',
    250,
  );
  const records = bench.cp.services.seeds.byId(seed.id)!.record_count;
  const parent = await ready(
    bench,
    expect(await bench.call('POST', '/environments', { name: 'parent', twins: [{ twin: 'stripe', seed_id: seed.id }] }), 201, 'create').id,
  );
  const twin = parent.twins[0];
  const key = expect(await bench.call('POST', `/twins/${twin.id}/credential`), 200, 'credential').api_key;
  const stripe = async (method: string, path: string, form?: Record<string, string>) => {
    const res = await fetch(twin.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    const body = (await res.json()) as { id?: string };
    if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}`);
    return body;
  };
  // Traffic: a third creates, a third updates what it created, a third reads.
  const made: string[] = [];
  for (let i = 0; i < TRAFFIC; i++) {
    if (i % 3 === 0 || made.length === 0) made.push((await stripe('POST', '/v1/customers', { name: `Traffic ${i}` })).id!);
    else if (i % 3 === 1) await stripe('POST', `/v1/customers/${made[i % made.length]}`, { 'metadata[step]': String(i) });
    else await stripe('GET', '/v1/customers?limit=10');
  }

  const driver = bench.cp.services.orchestration.driver as ProcessDriver;
  const parentPid = driver.pidOf?.(twin.id);
  const forks: number[] = [];
  const forkCpu: number[] = [];
  const snapshotTwinCpu: number[] = [];
  const snapshots: number[] = [];
  const fromSnapshot: number[] = [];
  let snapshotBytes = 0;
  for (let run = 0; run < RUNS; run++) {
    const cpu0 = ownCpuMs() + processCpuMs(parentPid);
    let wall0 = Date.now();
    const fork = expect(await bench.call('POST', `/environments/${parent.id}/fork`, { name: `fork ${run}` }), 201, 'fork');
    forks.push(readyAt(await ready(bench, fork.id)) - wall0);
    // This process (the control plane and the bench's polling) and the parent twin; the fork's twin was a warm standby.
    forkCpu.push(ownCpuMs() + processCpuMs(parentPid) - cpu0);
    await bench.call('DELETE', `/environments/${fork.id}`);
    await new Promise((r) => setTimeout(r, PAUSE_MS));

    const t0 = performance.now();
    const twinCpu0 = processCpuMs(parentPid);
    const snap = expect(await bench.call('POST', `/environments/${parent.id}/snapshots`, { name: `snapshot ${run}` }), 201, 'snapshot');
    snapshots.push(performance.now() - t0);
    snapshotTwinCpu.push(processCpuMs(parentPid) - twinCpu0);
    snapshotBytes = snap.size_bytes;
    wall0 = Date.now();
    const env = expect(await bench.call('POST', '/environments', { name: `from ${run}`, snapshot_id: snap.id }), 201, 'from snapshot');
    fromSnapshot.push(readyAt(await ready(bench, env.id)) - wall0);
    await bench.call('DELETE', `/environments/${env.id}`);
    await new Promise((r) => setTimeout(r, PAUSE_MS));
  }

  // Disk: clones of one snapshot file, made as the control plane makes a fork's data files.
  const snap = expect(await bench.call('POST', `/environments/${parent.id}/snapshots`, { name: 'disk' }), 201, 'snapshot');
  const source = join(dataDir, 'snapshots', snap.id, `${twin.id}.sqlite`);
  const probe = join(dataDir, 'clone-probe');
  writeFileSync(probe + '.src', 'x');
  let clones = 'clones files (reflink)';
  try {
    copyFileSync(probe + '.src', probe, constants.COPYFILE_FICLONE_FORCE);
  } catch (e) {
    clones = `does not clone files (${(e as NodeJS.ErrnoException).code}): plain copies`;
  }
  rmSync(probe, { force: true });
  rmSync(probe + '.src', { force: true });
  const dir = join(dataDir, 'clones');
  mkdirSync(dir);
  const before = freeBytes(dir);
  const t0 = performance.now();
  for (let i = 0; i < CLONES; i++) copyFileSync(source, join(dir, `${i}.sqlite`), constants.COPYFILE_FICLONE);
  const cloneMs = (performance.now() - t0) / CLONES;
  const used = Math.max(0, before - freeBytes(dir));
  const size = statSync(source).size;
  rmSync(dir, { recursive: true, force: true });

  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
  console.log(
    `parent: Stripe seed "${PROMPT}" (${records} records) + ${TRAFFIC} requests; snapshot ${mib(snapshotBytes)}; ${RUNS} runs (p50 / max); load average ${loadavg()[0]!.toFixed(1)}:`,
  );
  console.log(`  fork → ready                     ${fmt(percentile(forks, 50))} / ${fmt(Math.max(...forks))}   (target ≤ 200 ms)`);
  console.log(`    CPU: control plane + parent twin ${fmt(percentile(forkCpu, 50))} (10 ms ticks for the twin)`);
  console.log(
    `  snapshot alone                   ${fmt(percentile(snapshots, 50))} / ${fmt(Math.max(...snapshots))}   parent twin CPU ${fmt(percentile(snapshotTwinCpu, 50))}`,
  );
  console.log(`  environment from it → ready      ${fmt(percentile(fromSnapshot, 50))} / ${fmt(Math.max(...fromSnapshot))}`);
  console.log(
    `disk: this filesystem ${clones}; ${CLONES} clones of one ${mib(size)} snapshot file took ${mib(used)} (${(used / size).toFixed(1)}× one file), ${fmt(cloneMs)} each`,
  );
} finally {
  await bench.stop();
}
