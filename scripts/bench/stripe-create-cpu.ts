// CPU per `POST /v1/customers` of the Stripe twin, in-process: the twin's server and an undici
// client (keep-alive, fixed concurrency) share one process, whose CPU (utime + stime from
// /proc/self/stat) divided by the creates is the figure, client included. Given several checkouts
// (`--roots`), each runs in a child process of its own, in alternating rounds, the median round of
// each shown side by side: a change is measured against its base in one run.
//
//   npx tsx scripts/bench/stripe-create-cpu.ts [--creates 4000] [--concurrency 16] [--rounds 3] [--roots DIR,DIR] [--direct]
//
// `--direct` leaves HTTP out: bursts of `--concurrency` requests go to the twin's host (what the
// server calls once it has read a request), so the figure is the twin's own work.
//
// With `--cpu-prof` (a node flag) a child writes a V8 profile of its rounds.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    creates: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    roots: { type: 'string' },
    child: { type: 'string' },
    direct: { type: 'boolean', default: false },
  },
});
const CREATES = Number(values.creates);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const TICKS_PER_SECOND = 100;

/** CPU milliseconds of this process (user + system) from /proc/self/stat. */
function procCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** In the child: serve the twin of `root` in-process and print the CPU µs per create of each round. */
async function child(root: string): Promise<void> {
  const { loadTwin } = (await import(join(root, 'twin-runtime/registry.ts'))) as typeof import('../../twin-runtime/registry.js');
  const { TwinServer } = (await import(join(root, 'twin-runtime/server.ts'))) as typeof import('../../twin-runtime/server.js');
  const dir = mkdtempSync(join(tmpdir(), 'bench-create-cpu-'));
  const server = new TwinServer(await loadTwin('stripe'), { dataFile: join(dir, 'stripe.sqlite') });
  try {
    const url = await server.listen(0, '127.0.0.1');
    const pool = new Pool(url, { connections: CONCURRENCY, pipelining: 1 });
    let sent = 0;
    const direct = async (count: number) => {
      for (let done = 0; done < count; done += CONCURRENCY) {
        const burst = Array.from({ length: Math.min(CONCURRENCY, count - done) }, () => {
          const i = sent++;
          const body = `email=bench${i}%40example.com&name=Bench+${i}&metadata[n]=${i}`;
          return server.host.handle({
            method: 'POST',
            path: '/v1/customers',
            params: {},
            queryString: '',
            query: {},
            headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
            rawBody: Buffer.from(body),
            body: { email: `bench${i}@example.com`, name: `Bench ${i}`, metadata: { n: String(i) } },
            bodyKind: 'form',
          });
        });
        for (const res of await Promise.all(burst)) if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    };
    const overHttp = async (count: number) => {
      let next = 0;
      const worker = async () => {
        while (next < count) {
          next++;
          const i = sent++;
          const res = await pool.request({
            method: 'POST',
            path: '/v1/customers',
            headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
            body: `email=bench${i}%40example.com&name=Bench+${i}&metadata[n]=${i}`,
          });
          const text = await res.body.text();
          if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text.slice(0, 200)}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };
    const creates = values.direct ? direct : overHttp;
    await creates(500); // JIT and statement caches: not counted
    for (let r = 0; r < ROUNDS; r++) {
      const cpu0 = procCpuMs();
      const t0 = performance.now();
      await creates(CREATES);
      const cpu = procCpuMs() - cpu0;
      const wall = performance.now() - t0;
      process.stdout.write(JSON.stringify({ cpuUs: (cpu * 1000) / CREATES, rps: (CREATES * 1000) / wall }) + '\n');
    }
    await pool.close();
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runChild(root: string): Promise<{ cpuUs: number; rps: number }[]> {
  const proc = spawn(process.execPath, [...process.execArgv, import.meta.filename, ...process.argv.slice(2), '--child', root], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c));
  const code = await new Promise<number | null>((done) => proc.once('exit', done));
  if (code !== 0) throw new Error(`child for ${root} exited with ${code}`);
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { cpuUs: number; rps: number });
}

if (values.child) await child(values.child);
else {
  const roots = (values.roots ?? resolve(import.meta.dirname, '..', '..')).split(',').map((r) => resolve(r));
  const runs = new Map<string, { cpuUs: number; rps: number }[]>(roots.map((r) => [r, []]));
  // One child per checkout per pass, alternating, so a burst of load elsewhere favours none.
  for (let pass = 0; pass < 2; pass++) {
    for (const root of pass % 2 ? [...roots].reverse() : roots) runs.get(root)!.push(...(await runChild(root)));
  }
  console.log(`${CREATES} creates per round, concurrency ${CONCURRENCY}, ${ROUNDS} rounds × 2 children per checkout; median round`);
  for (const [root, rs] of runs) {
    const median = (k: 'cpuUs' | 'rps') => rs.map((x) => x[k]).sort((a, b) => a - b)[Math.floor(rs.length / 2)]!;
    console.log(
      `  ${root.padEnd(28)} ${median('cpuUs').toFixed(0).padStart(5)} µs CPU per create (server + client)  ${median('rps').toFixed(0).padStart(6)} req/s`,
    );
  }
}
