// Requests through the gateway vs straight to the twin, side by side in one run: p50 added to
// sequential requests, and throughput at N keep-alive connections for GET /v1/customers (a list)
// and POST /v1/customers (a write), each measured direct / gateway / direct / gateway and the
// better of each pair kept. Reports the ratio (target ≥ 0.7 at 16 connections; architecture
// target 0.8), what the log write costs (commit time per row, from the writer's own counters),
// and that every proxied request was logged.
//   node --import=tsx scripts/bench/gateway.ts [sequential=2000] [requests=20000] [connections=16]
// Under `node --cpu-prof`, every thread writes its own profile (the gateway's: where its time goes).

import { Worker } from 'node:worker_threads';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Pool } from 'undici';
import { fmt, percentile, startBenchControlPlane } from './control-plane.js';

const SEQUENTIAL = Math.min(50_000, Number(process.argv[2] ?? 2000));
const TOTAL = Math.min(200_000, Number(process.argv[3] ?? 20_000));
const CONNECTIONS = Math.min(256, Number(process.argv[4] ?? 16));

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
  const setup = new Pool(twin.url);
  for (let i = 0; i < 10; i++) {
    const res = await setup.request({ path: '/v1/customers', method: 'POST', headers, body: `email=seed${i}%40example.com&name=Seed+${i}` });
    await res.body.dump();
  }
  await setup.close();

  async function sequential(origin: string): Promise<number[]> {
    const pool = new Pool(origin, { connections: 1 });
    const times: number[] = [];
    for (let i = 0; i < SEQUENTIAL + 200; i++) {
      const t0 = performance.now();
      const res = await pool.request({ path: '/v1/customers?limit=3', method: 'GET', headers });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      if (i >= 200) times.push(performance.now() - t0); // first 200: warm-up
    }
    await pool.close();
    return times;
  }

  // The load comes from a worker thread so the client does not share the caller's event loop.
  const CLIENT = `
    const { workerData, parentPort } = require('node:worker_threads');
    const { Pool } = require('undici');
    (async () => {
      const { origin, headers, total, connections, method } = workerData;
      const pool = new Pool(origin, { connections });
      let issued = 0;
      let failed = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: connections }, async () => {
        while (issued < total) {
          const n = issued++;
          const res = method === 'GET'
            ? await pool.request({ path: '/v1/customers', method: 'GET', headers })
            : await pool.request({ path: '/v1/customers', method: 'POST', headers, body: 'email=load' + n + '%40example.com&name=Load+' + n });
          await res.body.arrayBuffer();
          if (res.statusCode !== 200) failed++;
        }
      }));
      const seconds = (performance.now() - t0) / 1000;
      await pool.close();
      parentPort.postMessage({ rps: total / seconds, failed });
    })();
  `;

  function throughput(origin: string, method: 'GET' | 'POST'): Promise<number> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(CLIENT, { eval: true, workerData: { origin, headers, total: TOTAL, connections: CONNECTIONS, method } });
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
  const gw = bench.cp.services.orchestration.gateway;
  const twinPid = (bench.cp.services.orchestration.driver as unknown as { pidOf?(id: string): number | undefined }).pidOf?.(twin.id);
  /** CPU time of the twin's process (ms), from /proc. */
  const twinCpuMs = () => {
    try {
      const f = readFileSync(`/proc/${twinPid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
    } catch {
      return NaN;
    }
  };
  /** CPU time (ms) of each thread of this process, from /proc. */
  const threadCpuMs = () => {
    const out = new Map<string, number>();
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        const f = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        out.set(tid, ((Number(f[11]) + Number(f[12])) * 1000) / 100);
      } catch {
        // thread gone
      }
    }
    return out;
  };
  const results: Record<string, { direct_rps: number; gateway_rps: number; ratio: number; gateway_thread_busy_us_per_request: number; gateway_thread_cpu_us_per_request: number; twin_cpu_us_per_request: number }> = {};
  for (const method of ['GET', 'POST'] as const) {
    let d = 0;
    let g = 0;
    let busy = Infinity;
    let twinCpu = Infinity;
    let gatewayCpu = Infinity;
    for (let round = 0; round < 2; round++) {
      d = Math.max(d, await throughput(direct, method));
      const b0 = gw.stats().thread_busy_ms;
      const c0 = twinCpuMs();
      const t0 = threadCpuMs();
      g = Math.max(g, await throughput(twin.url, method));
      const t1 = threadCpuMs();
      busy = Math.min(busy, ((gw.stats().thread_busy_ms - b0) * 1000) / TOTAL);
      twinCpu = Math.min(twinCpu, ((twinCpuMs() - c0) * 1000) / TOTAL);
      // The gateway's thread: the busiest of those that existed before the client's thread started.
      const deltas = [...t0].map(([tid, ms]) => (t1.get(tid) ?? ms) - ms);
      gatewayCpu = Math.min(gatewayCpu, (Math.max(...deltas) * 1000) / TOTAL);
    }
    results[method] = {
      direct_rps: Math.round(d),
      gateway_rps: Math.round(g),
      ratio: +(g / d).toFixed(2),
      gateway_thread_busy_us_per_request: Math.round(busy),
      gateway_thread_cpu_us_per_request: Math.round(gatewayCpu),
      twin_cpu_us_per_request: Math.round(twinCpu),
    };
  }
  // Every answered request is journaled; the writer's thread moves them into SQLite within ~10 ms.
  await bench.cp.services.orchestration.gateway.awaitLogged();
  const stats = bench.cp.services.orchestration.gateway.stats();
  const logged = bench.cp.services.orchestration.requestLogs.count(env.id);
  const expectedLogs = 10 + (SEQUENTIAL + 200) + 4 * TOTAL;

  console.log(
    JSON.stringify({
      bench: 'gateway vs direct (keep-alive; GET /v1/customers and POST /v1/customers)',
      connections: CONNECTIONS,
      requests_per_run: TOTAL,
      sequential_requests: SEQUENTIAL,
      direct_p50_ms: +percentile(directTimes, 50).toFixed(3),
      gateway_p50_ms: +percentile(gatewayTimes, 50).toFixed(3),
      gateway_added_p50_ms: +(percentile(gatewayTimes, 50) - percentile(directTimes, 50)).toFixed(3),
      direct_p99_ms: +percentile(directTimes, 99).toFixed(3),
      gateway_p99_ms: +percentile(gatewayTimes, 99).toFixed(3),
      get_list: results.GET,
      post_create: results.POST,
      log_commits: stats.log.commits,
      log_rows_per_commit: +(stats.log.written / Math.max(1, stats.log.commits)).toFixed(1),
      log_commit_us_per_row: +((stats.log.commit_ms * 1000) / Math.max(1, stats.log.written)).toFixed(1),
      log_commit_ms_per_commit: +(stats.log.commit_ms / Math.max(1, stats.log.commits)).toFixed(3),
      load_average_1m: +loadavg()[0]!.toFixed(1),
      log_entries: logged,
      log_entries_expected: expectedLogs,
      targets: { ratio_at_16: 0.7, gateway_added_p50_ms: 0.2 },
    }),
  );
  console.error(
    `p50 direct ${fmt(percentile(directTimes, 50))}, gateway ${fmt(percentile(gatewayTimes, 50))}; ` +
      `GET ${results.GET!.gateway_rps}/${results.GET!.direct_rps} req/s (${results.GET!.ratio}), ` +
      `POST ${results.POST!.gateway_rps}/${results.POST!.direct_rps} req/s (${results.POST!.ratio}); logs ${logged}/${expectedLogs}`,
  );
} finally {
  await bench.stop();
}
