// A twin's first start from a seed (issue 38 item 6), side by side in one run: from a local seed
// file (`--seed`, as the process and docker drivers start it) against fetching the same file from
// the control plane's internal start-file route with its per-twin token (TWIN_START_FILE_URL, as a
// Pod under the kubernetes driver starts), and an empty twin. Each round starts the twin runtime
// (`dist/twin-runtime/main.js`) on a new data directory and times spawn → its first answered
// `GET /v1/customers?limit=1`; the twin's CPU (user + system) is read from /proc at that moment.
// Rounds alternate (empty, local, fetched); medians are reported. Build first (`make build`).
//   node --import=tsx scripts/bench/start-file.ts [rounds] ["prompt"]
// Measured 2026-12-02 on the shared 2-core machine (load average 2.9, 7 rounds, 10,000-record
// 8.8 MiB seed): empty 290 ms (twin CPU 340 ms), local seed 383 ms (410 ms), fetched 484 ms
// (570 ms): fetching over loopback adds ~100 ms wall and ~160 ms CPU to a first start.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import Fastify from 'fastify';
import { StartFileTokens } from '../../control-plane/orchestration/start-files.js';
import startFileRoutes from '../../control-plane/routes/start-files.js';
import { planFromPrompt } from '../../seeds/builtin-planner.js';
import { generateSeedFile } from '../../seeds/generator.js';
import { loadTwin } from '../../twin-runtime/registry.js';
import type { TwinSeeding } from '../../twin-runtime/seeding.js';

const ROUNDS = Math.min(50, Math.max(1, Number(process.argv[2] ?? 7)));
const PROMPT = process.argv[3] ?? '5000 customers';
const ROOT = resolve(import.meta.dirname, '..', '..');
const TWIN_ID = 'b0000000-0000-4000-8000-000000000001';
const TICKS = 100; // clock ticks per second (/proc/<pid>/stat counts in them)

const dir = mkdtempSync(join(tmpdir(), 'start-file-bench-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

try {
  const twin = await loadTwin('stripe');
  const planned = planFromPrompt('stripe', PROMPT, (twin.seeding as TwinSeeding).vocabulary);
  if (!planned.ok) throw new Error(planned.failure);
  const seed = await generateSeedFile(twin, planned.plan, join(dir, 'seed.sqlite'));

  const tokens = new StartFileTokens();
  const cp = Fastify();
  cp.decorate('services', {
    orchestration: { startFiles: tokens, store: { twinById: () => ({ id: TWIN_ID, seed_file: seed.file, deleted_at: null }) } },
  } as never);
  await cp.register(startFileRoutes);
  const cpUrl = await cp.listen({ port: 0, host: '127.0.0.1' });

  async function once(kind: 'empty' | 'local' | 'fetched', round: number): Promise<{ ms: number; cpu: number; customers: number }> {
    const data = join(dir, `${kind}-${round}`);
    mkdirSync(data);
    const args = [join(ROOT, 'dist', 'twin-runtime', 'main.js'), '--twin', 'stripe', '--data', join(data, 'twin.sqlite')];
    if (kind === 'local') args.push('--seed', seed.file);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, TWINS_EGRESS: 'loopback' };
    if (kind === 'fetched') {
      env.TWIN_START_FILE_URL = `${cpUrl}/internal/twins/${TWIN_ID}/start-file`;
      env.TWIN_START_FILE_TOKEN = tokens.mint(TWIN_ID);
    }
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const ready = await new Promise<{ url: string; api_key: string }>((res, rej) => {
      createInterface({ input: child.stdout! }).once('line', (l) => res(JSON.parse(l)));
      child.once('exit', (code) => rej(new Error(`the twin exited (${code})`)));
    });
    const answer = await fetch(`${ready.url}/v1/customers?limit=1`, { headers: { authorization: `Bearer ${ready.api_key}` } });
    const body = (await answer.json()) as { data: unknown[] };
    const ms = performance.now() - t0;
    const cpu = cpuMs(child.pid!);
    await new Promise<void>((r) => {
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
    rmSync(data, { recursive: true, force: true });
    return { ms, cpu, customers: body.data.length };
  }

  const kinds = ['empty', 'local', 'fetched'] as const;
  const samples = Object.fromEntries(kinds.map((k) => [k, [] as { ms: number; cpu: number; customers: number }[]]));
  for (let r = 0; r < ROUNDS; r++) for (const k of kinds) samples[k]!.push(await once(k, r));
  await cp.close();

  const mib = (statSync(seed.file).size / 1024 / 1024).toFixed(1);
  console.log(`Stripe seed "${PROMPT}" (${seed.recordCount} records, ${mib} MiB); ${ROUNDS} rounds; load average ${loadavg()[0]!.toFixed(1)}`);
  const base = median(samples.empty!.map((s) => s.ms));
  for (const k of kinds) {
    const s = samples[k]!;
    const ms = median(s.map((x) => x.ms));
    console.log(
      `  ${k.padEnd(8)} start → first answer p50 ${ms.toFixed(0)} ms (×${(ms / base).toFixed(2)} of empty), twin CPU p50 ${median(s.map((x) => x.cpu)).toFixed(0)} ms, first page ${s[0]!.customers} customer(s)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
