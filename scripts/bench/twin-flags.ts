// Node flags for twin processes, side by side in one run: one Stripe twin per set of flags
// (default: none, and a 1 MiB semi-space), each loaded in alternating rounds with GET /v1/customers and
// POST /v1/customers at 16 keep-alive connections. Reports the twin's CPU per request (every
// thread, from /proc/<pid>/task/*/schedstat; median of the rounds) and its RSS at the end. Needs a
// build (`make build`). Run three times on a loaded 2-core machine, --max-semi-space-size=1 took a
// busy Stripe twin from ~165 to ~120 MiB RSS but cost 10-35 % more CPU per GET (more scavenges), so
// twins run with V8's defaults; repeat an entry (`"" " "`) to see the spread between two twins alike.
//
//   node --import=tsx scripts/bench/twin-flags.ts [rounds=5] [requests per round=3000] ["--flag --flag" …]

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

const ROUNDS = Math.max(1, Math.min(21, Number(process.argv[2] ?? 5)));
const REQUESTS = Math.max(100, Math.min(100_000, Number(process.argv[3] ?? 3000)));
const VARIANTS = process.argv.length > 4 ? process.argv.slice(4) : ['', '--max-semi-space-size=1'];
const CONNECTIONS = 16;
const ROOT = resolve(import.meta.dirname, '..', '..');

/** CPU time (µs) of a process so far, every thread. */
function cpuUs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1000;
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'twin-flags-'));
const twins = await Promise.all(
  VARIANTS.map(async (flags, i) => {
    const child = spawn(
      process.execPath,
      [...flags.split(' ').filter(Boolean), join(ROOT, 'dist', 'twin-runtime', 'main.js'), '--twin', 'stripe', '--data', join(dir, `${i}.sqlite`)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((res, rej) => {
      createInterface({ input: child.stdout! }).once('line', res);
      child.once('exit', (code) => rej(new Error(`twin with '${flags}' exited ${code}`)));
    });
    const { url, api_key: key } = JSON.parse(line) as { url: string; api_key: string };
    return {
      flags,
      child,
      pool: new Pool(url, { connections: CONNECTIONS }),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' },
      perRequest: { GET: [] as number[], POST: [] as number[] },
    };
  }),
);
type Twin = (typeof twins)[number];

/** `total` requests at CONNECTIONS connections; the twin's CPU per request (µs). */
async function load(twin: Twin, method: 'GET' | 'POST', total: number): Promise<number> {
  let issued = 0;
  const before = cpuUs(twin.child.pid!);
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (issued < total) {
        const n = issued++;
        const res = await twin.pool.request({
          path: '/v1/customers',
          method,
          headers: twin.headers,
          body: method === 'POST' ? `email=load${n}%40example.com&name=Load+${n}` : undefined,
        });
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) throw new Error(`${method} /v1/customers answered ${res.statusCode}`);
      }
    }),
  );
  return (cpuUs(twin.child.pid!) - before) / total;
}

try {
  // Warm-up: some customers to list, and the code paths compiled.
  for (const twin of twins) {
    await load(twin, 'POST', 300);
    await load(twin, 'GET', 1000);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const twin of round % 2 === 0 ? twins : [...twins].reverse()) {
      for (const method of ['POST', 'GET'] as const) twin.perRequest[method].push(await load(twin, method, REQUESTS));
    }
  }
  console.log(
    JSON.stringify({
      bench: `Stripe twin per set of Node flags: CPU per request (µs, median of ${ROUNDS} alternating rounds of ${REQUESTS}), RSS after`,
      connections: CONNECTIONS,
      twins: twins.map((t) => ({
        flags: t.flags || '(none)',
        get_cpu_us: Math.round(median(t.perRequest.GET)),
        post_cpu_us: Math.round(median(t.perRequest.POST)),
        rss_mib_after: +rssMiB(t.child.pid!).toFixed(1),
      })),
    }),
  );
} finally {
  for (const twin of twins) {
    await twin.pool.close();
    twin.child.kill('SIGTERM');
  }
  rmSync(dir, { recursive: true, force: true });
}
