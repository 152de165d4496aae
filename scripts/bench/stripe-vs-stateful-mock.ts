// Create-customer and retrieve-customer throughput: the Stripe twin vs the `stripe-stateful-mock`
// package, same machine, one run side by side. Each server runs in its own child process on a
// loopback port; the load generator (undici, keep-alive, fixed concurrency) sends the same
// form-encoded requests to both and prints requests/s, p50/p99 latency and the ratio.
//
//   npx tsx scripts/bench/stripe-vs-stateful-mock.ts [--creates 3000] [--retrieves 10000] [--concurrency 16] [--rounds 3]
//
// The two servers are measured in alternating rounds (twin, mock, mock, twin, …) and the median
// round of each is reported, so a burst of other load on the machine does not favour either. The
// twin is also measured answering for a connected account (`Stripe-Account`), whose requests run
// in that account's records, to show what the scoping costs.

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
  /** Sent with every request (`stripe-account` for the connected-account runs). */
  headers?: Record<string, string>;
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
          ...server.headers,
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
  // A connected account of the twin's platform: the same server, every request scoped to it.
  const account = (await (
    await fetch(`${twin.url}/v1/accounts`, { method: 'POST', headers: { authorization: `Bearer ${twin.key}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'type=custom' })
  ).json()) as { id: string };
  const connected: Server = { ...twin, name: 'twin (Stripe-Account)', headers: { 'stripe-account': account.id } };
  await warmUp(twin);
  await warmUp(mock);
  await warmUp(connected);
  type Round = { create: Result; retrieve: Result };
  const contenders = { twin, mock, connected };
  const rounds: Record<keyof typeof contenders, Round[]> = { twin: [], mock: [], connected: [] };
  const names = Object.keys(contenders) as (keyof typeof contenders)[];
  for (let r = 0; r < ROUNDS; r++) {
    // Each round starts with another contender, so none is always measured first.
    const order = names.map((_, i) => names[(i + r) % names.length]!);
    for (const which of order) rounds[which].push(await benchOne(contenders[which]));
  }
  const median = (rs: Round[], k: 'create' | 'retrieve'): Result => rs.map((x) => x[k]).sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]!;
  const [t, m, c] = names.map((n) => ({ create: median(rounds[n], 'create'), retrieve: median(rounds[n], 'retrieve') }));
  for (const k of ['create', 'retrieve'] as const) {
    console.log(k === 'create' ? 'create customer (POST /v1/customers)' : 'retrieve customer (GET /v1/customers/{id})');
    console.log(row('  twin', t![k]));
    console.log(row('  stripe-stateful-mock', m![k]));
    console.log(row('  twin, Stripe-Account', c![k]));
    console.log(`  ratio twin / mock: ${(t![k].rps / m![k].rps).toFixed(2)}x; Stripe-Account / platform: ${(c![k].rps / t![k].rps).toFixed(2)}x\n`);
  }
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  rmSync(dataDir, { recursive: true, force: true });
}
