// Create-customer and retrieve-customer throughput: the Stripe twin vs the `stripe-stateful-mock`
// package, same machine, one run side by side. Each server runs in its own child process on a
// loopback port; the load generator (undici, keep-alive, fixed concurrency) sends the same
// form-encoded requests to both and prints requests/s, p50/p99 latency and the ratio.
//
//   npx tsx scripts/bench/stripe-vs-stateful-mock.ts [--creates 3000] [--retrieves 10000] [--concurrency 16] [--rounds 3] [--render-only]
//
// The two servers are measured in alternating rounds (twin, mock, mock, twin, …) and the median
// round of each is reported, so a burst of other load on the machine does not favour either. The
// twin is also measured answering for a connected account (`Stripe-Account`), whose requests run
// in that account's records, to show what the scoping costs, and pinned to an old API version
// (`Stripe-Version: 2022-08-01`), whose answers are rendered through twins/stripe/wire/versions.ts;
// last, the rendering itself is timed in-process on a paid invoice and a charge the twin answered.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { renderInVersion } from '../../twins/stripe/wire/versions.js';
import { STRIPE_API_VERSION } from '../../twins/stripe/wire/api-version.js';

const { values } = parseArgs({
  options: {
    creates: { type: 'string', default: '3000' },
    retrieves: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    'render-only': { type: 'boolean', default: false },
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

async function load(
  server: Server,
  count: number,
  request: (i: number) => { method: 'GET' | 'POST'; path: string; body?: string },
  onBody?: (b: any) => void,
): Promise<Result> {
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

/** The old version the pinned runs ask for (before every change wire/versions.ts models). */
const OLD_VERSION = '2022-08-01';

/**
 * What rendering a body costs per call, in-process, on objects the twin answered: a paid invoice
 * (stripped of its stored pre-basil fields on the default version; rebuilt for 2022-08-01) and a
 * customer (no change applies), next to what printing the same body costs.
 */
async function renderingCost(twin: Server): Promise<void> {
  const post = async (path: string, body: string) =>
    (
      await fetch(`${twin.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${twin.key}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })
    ).json() as Promise<any>;
  const product = await post('/v1/products', 'name=Bench');
  const price = await post('/v1/prices', `product=${product.id}&unit_amount=1000&currency=usd&recurring[interval]=month`);
  const customer = await post('/v1/customers', 'email=render%40example.com');
  const card = await post('/v1/payment_methods/pm_card_visa/attach', `customer=${customer.id}`);
  await post(`/v1/customers/${customer.id}`, `invoice_settings[default_payment_method]=${card.id}`);
  const sub = await post('/v1/subscriptions', `customer=${customer.id}&items[0][price]=${price.id}&expand[0]=latest_invoice`);
  if (sub.latest_invoice?.status !== 'paid') throw new Error(`no paid invoice: ${JSON.stringify(sub).slice(0, 300)}`);
  // The stored record (what a route hands the renderer), through the twin's admin records API.
  const stored = ((await (await fetch(`${twin.url}/_twin/records/invoice/${sub.latest_invoice.id}`)).json()) as { body: unknown }).body;
  const N = 20_000;
  const noCtx = undefined as never;
  /** µs per render of a fresh copy of `body` (copies made before the clock starts; median of 5). */
  const renderTime = (body: unknown, version: string) => {
    const runs: number[] = [];
    for (let r = 0; r < 5; r++) {
      const copies = Array.from({ length: N }, () => structuredClone(body));
      const t0 = performance.now();
      for (const c of copies) renderInVersion(noCtx, c, version);
      runs.push(((performance.now() - t0) * 1000) / N);
    }
    return runs.sort((a, b) => a - b)[2]!;
  };
  const printTime = (body: unknown) => {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) JSON.stringify(body, null, 2);
    return ((performance.now() - t0) * 1000) / N;
  };
  console.log(`rendering per body, in-process (µs/call, median of 5 × ${N}), next to printing the same body:`);
  for (const [name, body] of [
    ['paid invoice', stored],
    ['customer', customer],
  ] as const) {
    console.log(
      `  ${name.padEnd(13)} default ${renderTime(body, STRIPE_API_VERSION).toFixed(2)}  ${OLD_VERSION} ${renderTime(body, OLD_VERSION).toFixed(2)}  (printing it: ${printTime(body).toFixed(2)})`,
    );
  }
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
    await fetch(`${twin.url}/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${twin.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'type=custom',
    })
  ).json()) as { id: string };
  const connected: Server = { ...twin, name: 'twin (Stripe-Account)', headers: { 'stripe-account': account.id } };
  const pinned: Server = { ...twin, name: 'twin (Stripe-Version)', headers: { 'stripe-version': OLD_VERSION } };
  await warmUp(twin);
  await warmUp(mock);
  await warmUp(connected);
  await warmUp(pinned);
  type Round = { create: Result; retrieve: Result };
  const contenders = { twin, mock, connected, pinned };
  const rounds: Record<keyof typeof contenders, Round[]> = { twin: [], mock: [], connected: [], pinned: [] };
  const names = Object.keys(contenders) as (keyof typeof contenders)[];
  for (let r = 0; r < (values['render-only'] ? 0 : ROUNDS); r++) {
    // Each round starts with another contender, so none is always measured first.
    const order = names.map((_, i) => names[(i + r) % names.length]!);
    for (const which of order) rounds[which].push(await benchOne(contenders[which]));
  }
  const median = (rs: Round[], k: 'create' | 'retrieve'): Result => rs.map((x) => x[k]).sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]!;
  if (values['render-only']) {
    await renderingCost(twin);
  } else {
    const [t, m, c, v] = names.map((n) => ({ create: median(rounds[n], 'create'), retrieve: median(rounds[n], 'retrieve') }));
    for (const k of ['create', 'retrieve'] as const) {
      console.log(k === 'create' ? 'create customer (POST /v1/customers)' : 'retrieve customer (GET /v1/customers/{id})');
      console.log(row('  twin', t![k]));
      console.log(row('  stripe-stateful-mock', m![k]));
      console.log(row('  twin, Stripe-Account', c![k]));
      console.log(row(`  twin, ${OLD_VERSION}`, v![k]));
      console.log(
        `  ratio twin / mock: ${(t![k].rps / m![k].rps).toFixed(2)}x; Stripe-Account / platform: ${(c![k].rps / t![k].rps).toFixed(2)}x; ` +
          `pinned ${OLD_VERSION} / default: ${(v![k].rps / t![k].rps).toFixed(2)}x\n`,
      );
    }
    await renderingCost(twin);
  }
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  rmSync(dataDir, { recursive: true, force: true });
}
