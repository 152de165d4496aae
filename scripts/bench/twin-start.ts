// Twin process cold start and idle memory, side by side with a bare Node.js HTTP server on the same
// machine in one run:
//   cold start  spawn → first answered request (`GET /_twin/health` for a twin, `GET /` for the bare
//               server), the way a driver starts a twin (`node dist/twin-runtime/main.js --twin …`);
//   idle RSS    VmRSS of the process after its first answer and a short idle;
//   in use      VmRSS after it has also answered one generic operation (the spec-driven layer's
//               router and the pieces that call read are then loaded).
// The twins start as a driver starts them (`dist/twin-runtime/main.js`) and, for Stripe and GitHub,
// as a user does (`twins twin <slug>`, bin/twins.js: the CLI, then the twin runtime alone).
// Rounds alternate (bare, stripe, github, slack, …) and the median of each is reported with its ratio
// to the bare server. Needs a build (`npx tsc -p tsconfig.json`).
//
//   node --import=tsx scripts/bench/twin-start.ts [--rounds 7]

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const isMain = !!process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename);
const { values } = parseArgs({ args: isMain ? process.argv.slice(2) : [], options: { rounds: { type: 'string', default: '7' } } });
const ROUNDS = Number(values.rounds);
const ROOT = resolve(import.meta.dirname, '..', '..');
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
  rssMiB: number;
  usedMiB: number;
}

/** One generic (spec-driven) operation per twin, answered without any setup. */
const GENERIC_CALL: Record<string, { method: string; path: string }> = {
  stripe: { method: 'GET', path: '/v1/coupons' },
  github: { method: 'GET', path: '/gists/public' },
  slack: { method: 'POST', path: '/api/team.billing.info' },
};

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

/** `twins twin <slug>` (the CLI a user runs) for a kind `cli <slug>`, else the driver's `main.js`. */
function command(kind: string, round: number): string[] {
  if (kind === 'bare') return [BARE];
  const data = join(dir, `${kind.replace(' ', '-')}-${round}.sqlite`);
  if (kind.startsWith('cli ')) return [join(ROOT, 'bin', 'twins.js'), 'twin', kind.slice(4), '--port', '0', '--data', data];
  return [join(ROOT, 'dist', 'twin-runtime', 'main.js'), '--twin', kind, '--data', data];
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
  await new Promise((r) => setTimeout(r, 1500));
  const rss = rssMiB(child.pid!);
  let used = rss;
  const call = GENERIC_CALL[kind];
  if (call) {
    const g = await fetch(url + call.path, { method: call.method, headers: { authorization: `Bearer ${key}` } });
    if (g.status !== 200) throw new Error(`${kind} ${call.path} answered ${g.status}`);
    await g.text();
    await new Promise((r) => setTimeout(r, 500));
    used = rssMiB(child.pid!);
  }
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { startMs, rssMiB: rss, usedMiB: used };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function twinStart(rounds = ROUNDS): Promise<Record<string, { startMs: number; rssMiB: number; usedMiB: number }>> {
  prepare();
  try {
    return await measure(rounds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(rounds: number): Promise<Record<string, { startMs: number; rssMiB: number; usedMiB: number }>> {
  const kinds = ['bare', 'stripe', 'github', 'slack', 'cli stripe', 'cli github'];
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
        rssMiB: median(samples[k]!.map((s) => s.rssMiB)),
        usedMiB: median(samples[k]!.map((s) => s.usedMiB)),
      },
    ]),
  );
}

if (isMain) {
  const out = await twinStart();
  const bare = out.bare!;
  console.log(`cold start to first answer and idle RSS, median of ${ROUNDS} alternating rounds`);
  console.log('process                  start      ×bare   idle RSS   ×bare   in use     ×bare');
  for (const [k, v] of Object.entries(out)) {
    console.log(
      `${(k === 'bare' ? 'bare http.createServer' : k.startsWith('cli ') ? `twins twin ${k.slice(4)}` : `twin-runtime ${k}`).padEnd(24)} ${v.startMs.toFixed(0).padStart(5)} ms  ${(v.startMs / bare.startMs).toFixed(2).padStart(5)}×  ${v.rssMiB.toFixed(1).padStart(6)} MiB  ${(v.rssMiB / bare.rssMiB).toFixed(2).padStart(5)}×  ${v.usedMiB.toFixed(1).padStart(6)} MiB  ${(v.usedMiB / bare.rssMiB).toFixed(2).padStart(5)}×`,
    );
  }
}
