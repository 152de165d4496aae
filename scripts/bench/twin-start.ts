// Twin process cold start and idle memory, side by side with a bare Node.js HTTP server on the same
// machine in one run:
//   cold start  spawn → first answered request (`GET /_twin/health` for a twin, `GET /` for the bare
//               server), the way a driver starts a twin (`node dist/twin-runtime/main.js --twin …`);
//   idle RSS    VmRSS of the process after its first answer and a short idle;
//   start CPU   CPU time (user + system, every thread, from /proc/<pid>/task/*/schedstat) the
//               process spent from spawn to that first answer: steadier than wall time on a
//               loaded machine, so the ratio to the bare server is the figure to compare;
//   in use      VmRSS after it has also answered one generic operation (the spec-driven layer's
//               router and the pieces that call read are then loaded).
// Every twin of the catalog starts as a driver starts it (`dist/twin-runtime/main.js`) and, for
// Stripe and GitHub, as a user does (`twins twin <slug>`, bin/twins.js: the CLI, then the twin
// runtime alone). Rounds alternate (bare, anthropic, github, …, then reversed) and the median of
// each is reported with its ratio to the bare server. Needs a build (`make build`).
//
//   node --import=tsx scripts/bench/twin-start.ts [--rounds 7] [--twins stripe,github] [--json] [--root DIR] [--baseline DIR]
//   node --import=tsx scripts/bench/twin-start.ts --alive 100   (N twins alive: summed PSS and RSS, vs N bare servers)

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { TWIN_SLUGS } from '../../twin-runtime/registry.js';

const isMain = !!process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename);
const { values } = parseArgs({
  args: isMain ? process.argv.slice(2) : [],
  options: {
    rounds: { type: 'string', default: '7' },
    twins: { type: 'string' },
    json: { type: 'boolean', default: false },
    // Another build's root (bin/, dist/, node_modules/) to start instead of this one's: a before/after.
    root: { type: 'string' },
    // Also start each twin from this other build (`before <slug>`), interleaved in the same rounds.
    baseline: { type: 'string' },
    // Instead: start this many twins at once (the catalog in turn) and report their total PSS.
    alive: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds);
/** The twins to start (default: the whole catalog), and through the CLI, Stripe and GitHub. */
const TWINS = values.twins ? values.twins.split(',').filter((s) => TWIN_SLUGS.includes(s)) : [...TWIN_SLUGS];
const ROOT = values.root ? resolve(values.root) : resolve(import.meta.dirname, '..', '..');
/** Data files and the bare server's script, for one twinStart() run. */
let dir = '';
let BARE = '';

function prepare(): void {
  dir = mkdtempSync(join(tmpdir(), 'twin-start-'));
  BARE = join(dir, 'bare.mjs');
  writeFileSync(
    BARE,
    `import { createServer } from 'node:http';
const s = createServer((req, res) => res.end('ok'));
s.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ url: 'http://127.0.0.1:' + s.address().port }) + '\\n'));
`,
  );
}

interface Sample {
  startMs: number;
  /** CPU time (ms) of the process from spawn to its first answer. */
  cpuMs: number;
  rssMiB: number;
  usedMiB: number;
}

/** One operation per twin answered without any setup (a generic, spec-driven one where there is one). */
const GENERIC_CALL: Record<string, { method: string; path: string }> = {
  stripe: { method: 'GET', path: '/v1/coupons' },
  // GET /gists/public now answers an honest 501 (nothing creates public gists).
  github: { method: 'GET', path: '/user' },
  slack: { method: 'POST', path: '/api/team.billing.info' },
};

/** CPU time (ms) of a process so far: the sum of its threads' run time (ns) in schedstat. */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1e6;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

const BASELINE = values.baseline ? resolve(values.baseline) : undefined;

/**
 * `twins twin <slug>` (the CLI a user runs) for a kind `cli <slug>`, else the driver's `main.js`;
 * `before <slug>` from the baseline build.
 */
function command(kind: string, round: number): string[] {
  if (kind === 'bare') return [BARE];
  const data = join(dir, `${kind.replace(' ', '-')}-${round}.sqlite`);
  if (kind.startsWith('cli ')) return [join(ROOT, 'bin', 'twins.js'), 'twin', kind.slice(4), '--port', '0', '--data', data];
  const [root, slug] = kind.startsWith('before ') ? [BASELINE!, kind.slice(7)] : [ROOT, kind];
  return [join(root, 'dist', 'twin-runtime', 'main.js'), '--twin', slug, '--data', data];
}

/** The first line a process prints: JSON `{url, api_key}` (main.js, the bare server) or the CLI's sentence. */
function readyLine(line: string): { url: string; api_key?: string } {
  if (line.startsWith('{')) return JSON.parse(line) as { url: string; api_key?: string };
  const url = /listening on (\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`unexpected first line: ${line}`);
  return { url };
}

async function once(kind: string, round: number): Promise<Sample> {
  const args = command(kind, round);
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((res, rej) => {
    createInterface({ input: child.stdout! }).once('line', res);
    child.once('exit', (code) => rej(new Error(`${kind} exited ${code}`)));
  });
  const { url, api_key: key } = readyLine(line);
  const res = await fetch(url + (kind === 'bare' ? '/' : '/_twin/health'));
  await res.text();
  const startMs = performance.now() - t0;
  const startCpuMs = cpuMs(child.pid!);
  await new Promise((r) => setTimeout(r, 1500));
  const rss = rssMiB(child.pid!);
  let used = rss;
  const call = GENERIC_CALL[kind.replace(/^before /, '')];
  if (call) {
    const g = await fetch(url + call.path, { method: call.method, headers: { authorization: `Bearer ${key}` } });
    if (g.status !== 200) throw new Error(`${kind} ${call.path} answered ${g.status}`);
    await g.text();
    await new Promise((r) => setTimeout(r, 500));
    used = rssMiB(child.pid!);
  }
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { startMs, cpuMs: startCpuMs, rssMiB: rss, usedMiB: used };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function twinStart(rounds = ROUNDS, twins: readonly string[] = TWINS): Promise<Record<string, Sample>> {
  prepare();
  try {
    return await measure(rounds, twins);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(rounds: number, twins: readonly string[]): Promise<Record<string, Sample>> {
  const kinds = [
    'bare',
    ...twins.flatMap((t) => (BASELINE ? [`before ${t}`, t] : [t])),
    ...['stripe', 'github'].filter((s) => twins.includes(s)).map((s) => `cli ${s}`),
  ];
  const samples: Record<string, Sample[]> = Object.fromEntries(kinds.map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? kinds : [...kinds].reverse();
    for (const k of order) samples[k]!.push(await once(k, r));
  }
  return Object.fromEntries(
    kinds.map((k) => [
      k,
      {
        startMs: median(samples[k]!.map((s) => s.startMs)),
        cpuMs: median(samples[k]!.map((s) => s.cpuMs)),
        rssMiB: median(samples[k]!.map((s) => s.rssMiB)),
        usedMiB: median(samples[k]!.map((s) => s.usedMiB)),
      },
    ]),
  );
}

/** Proportional set size (MiB) of a process: its share of pages it shares with others (the Node binary, libraries). */
function pssMiB(pid: number): number {
  const m = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

/** Start `count` processes of a kind at once (twins: the catalog in turn), wait for each to answer, idle, and sum PSS and RSS. */
async function alive(count: number, kinds: (i: number) => string): Promise<{ pssMiB: number; rssMiB: number; cpuS: number }> {
  const children = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const kind = kinds(i);
      const child = spawn(process.execPath, command(kind, 1000 + i), { stdio: ['ignore', 'pipe', 'inherit'] });
      const line = await new Promise<string>((res, rej) => {
        createInterface({ input: child.stdout! }).once('line', res);
        child.once('exit', (code) => rej(new Error(`${kind} exited ${code}`)));
      });
      await (await fetch(readyLine(line).url + (kind === 'bare' ? '/' : '/_twin/health'))).text();
      return child;
    }),
  );
  await new Promise((r) => setTimeout(r, 3000));
  let pss = 0;
  let rss = 0;
  let cpu = 0;
  for (const c of children) {
    pss += pssMiB(c.pid!);
    rss += rssMiB(c.pid!);
    cpu += cpuMs(c.pid!);
  }
  await Promise.all(
    children.map((c) => {
      c.kill('SIGTERM');
      return new Promise((r) => c.once('exit', r));
    }),
  );
  return { pssMiB: pss, rssMiB: rss, cpuS: cpu / 1000 };
}

if (isMain && values.alive) {
  const count = Math.max(1, Math.min(500, Number(values.alive)));
  prepare();
  try {
    const bare = await alive(count, () => 'bare');
    const before = BASELINE ? await alive(count, (i) => `before ${TWINS[i % TWINS.length]!}`) : undefined;
    const twins = await alive(count, (i) => TWINS[i % TWINS.length]!);
    const line = (name: string, v: { pssMiB: number; rssMiB: number; cpuS: number }) =>
      `${name.padEnd(10)} PSS ${(v.pssMiB / 1024).toFixed(2)} GiB (${(v.pssMiB / count).toFixed(1)} MiB each, ${(v.pssMiB / bare.pssMiB).toFixed(2)}× bare)  RSS ${(v.rssMiB / 1024).toFixed(2)} GiB  start CPU ${v.cpuS.toFixed(1)} s`;
    console.log(`${count} processes alive at once, idle 3 s after each answered (target for twins: ≤ 1 GiB PSS)`);
    console.log(line('bare', bare));
    if (before) console.log(line('before', before));
    console.log(line('twins', twins));
    if (values.json) console.log(JSON.stringify({ count, bare, before, twins }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (isMain) {
  const out = await twinStart();
  const bare = out.bare!;
  if (values.json) {
    const ratio = (x: number, b: number) => +(x / b).toFixed(2);
    console.log(
      JSON.stringify(
        Object.fromEntries(
          Object.entries(out).map(([k, v]) => [
            k,
            {
              start_ms: Math.round(v.startMs),
              start_cpu_ms: Math.round(v.cpuMs),
              idle_rss_mib: +v.rssMiB.toFixed(1),
              in_use_mib: +v.usedMiB.toFixed(1),
              start_x: ratio(v.startMs, bare.startMs),
              start_cpu_x: ratio(v.cpuMs, bare.cpuMs),
              idle_rss_x: ratio(v.rssMiB, bare.rssMiB),
            },
          ]),
        ),
      ),
    );
  }
  console.log(`cold start to first answer (wall, CPU) and idle RSS, median of ${ROUNDS} alternating rounds; targets ≤ 2.5× start, ≤ 1.3× RSS`);
  console.log('process                  start      ×bare   CPU        ×bare   idle RSS   ×bare   in use     ×bare');
  for (const [k, v] of Object.entries(out)) {
    console.log(
      `${(k === 'bare' ? 'bare http.createServer' : k.startsWith('cli ') ? `twins twin ${k.slice(4)}` : k.startsWith('before ') ? `  before: ${k.slice(7)}` : `twin-runtime ${k}`).padEnd(24)} ${v.startMs.toFixed(0).padStart(5)} ms  ${(v.startMs / bare.startMs).toFixed(2).padStart(5)}×  ${v.cpuMs.toFixed(0).padStart(5)} ms  ${(v.cpuMs / bare.cpuMs).toFixed(2).padStart(5)}×  ${v.rssMiB.toFixed(1).padStart(6)} MiB  ${(v.rssMiB / bare.rssMiB).toFixed(2).padStart(5)}×  ${v.usedMiB.toFixed(1).padStart(6)} MiB  ${(v.usedMiB / bare.rssMiB).toFixed(2).padStart(5)}×`,
    );
  }
}
