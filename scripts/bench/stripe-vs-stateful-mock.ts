// Create-customer and retrieve-customer throughput: the Stripe twin vs the `stripe-stateful-mock`
// package, same machine, one run side by side. Each server runs in its own child process on a
// loopback port; the load generator (undici, keep-alive, fixed concurrency) sends the same
// form-encoded requests to both and prints requests/s, p50/p99 latency and the ratio.
//
//   npx tsx scripts/bench/stripe-vs-stateful-mock.ts [--creates 3000] [--retrieves 10000] [--concurrency 16] [--rounds 3]
//
// The two servers are measured in alternating rounds (twin, mock, mock, twin, …) and the median
// round of each is reported, so a burst of other load on the machine does not favour either.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    creates: { type: 'string', default: '3000' },
    retrieves: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
  },
});
const CREATES = Number(values.creates);
const RETRIEVES = Number(values.retrieves);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const ROOT = resolve(import.meta.dirname, '..', '..');

interface Server {
  name: string;
  url: string;
  key: string;
  child: ChildProcess;
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolveLine, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (line) => {
      rl.close();
      resolveLine(line);
    });
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
  });
}

async function startTwinServer(dataDir: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'twin-runtime/main.ts'), '--twin', 'stripe', '--data', join(dataDir, 'stripe.sqlite'), '--port', '0'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const info = JSON.parse(await firstLine(child)) as { url: string; api_key: string };
  return { name: 'twin', url: info.url, key: info.api_key, child };
}

async function startStatefulMock(): Promise<Server> {
  // The package's own CLI listens on every interface; its documented createExpressApp() lets the
  // bench bind it to loopback only.
  const script = `
    const http = require('node:http');
    const app = require('stripe-stateful-mock').createExpressApp();
    const server = http.createServer(app).listen(0, '127.0.0.1', () => {
      console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port }));
    });`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  const info = JSON.parse(await firstLine(child)) as { url: string };
  return { name: 'stripe-stateful-mock', url: info.url, key: 'sk_test_bench', child };
}

interface Result {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

async function load(server: Server, count: number, request: (i: number) => { method: 'GET' | 'POST'; path: string; body?: string }, onBody?: (b: any) => void): Promise<Result> {
  const pool = new Pool(server.url, { connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  async function worker(): Promise<void> {
    while (next < count) {
      const i = next++;
      const r = request(i);
      const t0 = performance.now();
      const res = await pool.request({
        origin: server.url,
        method: r.method,
        path: r.path,
        headers: {
          authorization: `Bearer ${server.key}`,
          ...(r.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: r.body,
      });
      const text = await res.body.text();
      latencies.push(performance.now() - t0);
      if (res.statusCode !== 200) throw new Error(`${server.name} ${r.method} ${r.path}: ${res.statusCode} ${text.slice(0, 200)}`);
      onBody?.(JSON.parse(text));
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    requests: count,
    seconds,
    rps: count / seconds,
    p50: latencies[Math.floor(latencies.length * 0.5)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
  };
}

async function warmUp(server: Server): Promise<void> {
  // JIT, SQLite statement cache: not counted.
  await load(server, 200, (i) => ({ method: 'POST', path: '/v1/customers', body: `email=warm${i}%40example.com` }));
}

async function benchOne(server: Server): Promise<{ create: Result; retrieve: Result }> {
  const ids: string[] = [];
  const create = await load(
    server,
    CREATES,
    (i) => ({ method: 'POST', path: '/v1/customers', body: `email=bench${i}%40example.com&name=Bench+${i}&metadata[n]=${i}` }),
    (b) => ids.push(b.id),
  );
  const retrieve = await load(server, RETRIEVES, (i) => ({ method: 'GET', path: `/v1/customers/${ids[i % ids.length]}` }));
  return { create, retrieve };
}

function row(name: string, r: Result): string {
  return `${name.padEnd(22)} ${String(r.requests).padStart(7)} req  ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`;
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-stripe-'));
const servers: Server[] = [];
try {
  const twin = await startTwinServer(dataDir);
  servers.push(twin);
  const mock = await startStatefulMock();
  servers.push(mock);
  console.log(
    `concurrency ${CONCURRENCY}, ${CREATES} creates + ${RETRIEVES} retrieves per round, ${ROUNDS} alternating rounds per server, median round shown\n`,
  );
  await warmUp(twin);
  await warmUp(mock);
  const rounds: { twin: { create: Result; retrieve: Result }[]; mock: { create: Result; retrieve: Result }[] } = { twin: [], mock: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? (['twin', 'mock'] as const) : (['mock', 'twin'] as const);
    for (const which of order) rounds[which].push(await benchOne(which === 'twin' ? twin : mock));
  }
  const median = (rs: { create: Result; retrieve: Result }[], k: 'create' | 'retrieve'): Result =>
    rs.map((x) => x[k]).sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]!;
  const t = { create: median(rounds.twin, 'create'), retrieve: median(rounds.twin, 'retrieve') };
  const m = { create: median(rounds.mock, 'create'), retrieve: median(rounds.mock, 'retrieve') };
  console.log('create customer (POST /v1/customers)');
  console.log(row('  twin', t.create));
  console.log(row('  stripe-stateful-mock', m.create));
  console.log(`  ratio twin / mock: ${(t.create.rps / m.create.rps).toFixed(2)}x\n`);
  console.log('retrieve customer (GET /v1/customers/{id})');
  console.log(row('  twin', t.retrieve));
  console.log(row('  stripe-stateful-mock', m.retrieve));
  console.log(`  ratio twin / mock: ${(t.retrieve.rps / m.retrieve.rps).toFixed(2)}x`);
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  rmSync(dataDir, { recursive: true, force: true });
}
