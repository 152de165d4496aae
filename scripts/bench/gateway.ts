// Requests through the gateway vs straight to the twin: p50 latency of sequential requests and
// throughput with concurrent keep-alive clients (targets: gateway p50 ≤ 1 ms, ≥ 5,000 req/s).
//   node --import=tsx scripts/bench/gateway.ts [sequential] [total] [concurrency]

import { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import { fmt, percentile, startBenchControlPlane } from './control-plane.js';

const SEQUENTIAL = Math.min(50_000, Number(process.argv[2] ?? 3000));
const TOTAL = Math.min(200_000, Number(process.argv[3] ?? 20_000));
const CONCURRENCY = Math.min(256, Number(process.argv[4] ?? 32));

const bench = await startBenchControlPlane();
try {
  const created = await bench.call('POST', '/environments', { name: 'gateway bench', twins: [{ twin: 'stripe' }] });
  let env = created.body;
  for (let i = 0; env.status !== 'ready'; i++) {
    if (i > 3000) throw new Error('twin not ready');
    await new Promise((r) => setTimeout(r, 10));
    env = (await bench.call('GET', `/environments/${env.id}`)).body;
  }
  const twin = env.twins[0];
  const key = (await bench.call('POST', `/twins/${twin.id}/credential`)).body.api_key as string;
  const direct = bench.cp.services.orchestration.store.twinById(twin.id)!.address!;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' };

  const customer = await new Pool(twin.url).request({ path: '/v1/customers', method: 'POST', headers, body: 'email=bench%40example.com' });
  const id = ((await customer.body.json()) as { id: string }).id;
  const path = `/v1/customers/${id}`;

  async function sequential(origin: string): Promise<number[]> {
    const pool = new Pool(origin, { connections: 1 });
    const times: number[] = [];
    for (let i = 0; i < SEQUENTIAL + 200; i++) {
      const t0 = performance.now();
      const res = await pool.request({ path, method: 'GET', headers });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      if (i >= 200) times.push(performance.now() - t0); // first 200: warm-up
    }
    await pool.close();
    return times;
  }

  // The load comes from a worker thread so the client does not share the gateway's event loop.
  const CLIENT = `
    const { workerData, parentPort } = require('node:worker_threads');
    const { Pool } = require('undici');
    (async () => {
      const { origin, path, headers, total, concurrency } = workerData;
      const pool = new Pool(origin, { connections: concurrency });
      let issued = 0;
      let failed = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (issued < total) {
          issued++;
          const res = await pool.request({ path, method: 'GET', headers });
          await res.body.arrayBuffer();
          if (res.statusCode !== 200) failed++;
        }
      }));
      const seconds = (performance.now() - t0) / 1000;
      await pool.close();
      parentPort.postMessage({ rps: total / seconds, failed });
    })();
  `;

  function throughput(origin: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(CLIENT, { eval: true, workerData: { origin, path, headers, total: TOTAL, concurrency: CONCURRENCY } });
      worker.once('message', (m: { rps: number; failed: number }) => {
        if (m.failed > 0) reject(new Error(`${m.failed} requests failed`));
        else resolve(m.rps);
        void worker.terminate();
      });
      worker.once('error', reject);
    });
  }

  const directTimes = await sequential(direct);
  const gatewayTimes = await sequential(twin.url);
  const directRps = await throughput(direct);
  const gatewayRps = await throughput(twin.url);
  const logged = bench.cp.services.orchestration.requestLogs.count(env.id);
  const expectedLogs = 1 + SEQUENTIAL + 200 + TOTAL;

  console.log(
    JSON.stringify({
      bench: 'gateway vs direct (GET /v1/customers/{id}, keep-alive)',
      sequential_requests: SEQUENTIAL,
      direct_p50_ms: +percentile(directTimes, 50).toFixed(3),
      gateway_p50_ms: +percentile(gatewayTimes, 50).toFixed(3),
      gateway_added_p50_ms: +(percentile(gatewayTimes, 50) - percentile(directTimes, 50)).toFixed(3),
      direct_p99_ms: +percentile(directTimes, 99).toFixed(3),
      gateway_p99_ms: +percentile(gatewayTimes, 99).toFixed(3),
      throughput_requests: TOTAL,
      concurrency: CONCURRENCY,
      direct_rps: Math.round(directRps),
      gateway_rps: Math.round(gatewayRps),
      log_entries: logged,
      log_entries_expected: expectedLogs,
      targets: { gateway_p50_ms: 1, gateway_rps: 5000 },
    }),
  );
  console.error(
    `p50 direct ${fmt(percentile(directTimes, 50))}, gateway ${fmt(percentile(gatewayTimes, 50))}; ` +
      `throughput direct ${Math.round(directRps)} req/s, gateway ${Math.round(gatewayRps)} req/s; logs ${logged}/${expectedLogs}`,
  );
} finally {
  await bench.stop();
}
