// The API's own fairness (issue 33): another organization at its full allowed rate must not move my
// API latency (target: p99 + ≤ 25 ms). Organization A lists its environment's log at a fixed, modest
// rate (20/s), alone and then while organization B sends TWINS_API_RATE (200) requests a second of
// an expensive kind: a filtered listing of a 200,000-row log (each reads up to 50,000 rows).
// A's p99 alone and with B are printed side by side, with B's own latency and statuses.
//   node --import=tsx scripts/bench/api-fairness.ts [seconds=10] [rows=200000] [b_rate=200] [a_rate=20]
// Loopback only; the load generators run in their own processes (load-clients.ts).

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { mintLocalToken } from '../../control-plane/auth/local-idp.js';
import { LOG_FILE_NAME, RequestLogStore, type RequestLogRow } from '../../control-plane/store/request-logs.js';
import { percentile, startBenchControlPlane } from './control-plane.js';
import { ClientProcess } from './load-clients.js';

const SECONDS = Number(process.argv[2] ?? 10);
const ROWS = Number(process.argv[3] ?? 200_000);
const B_RATE = Number(process.argv[4] ?? 200);
const A_RATE = Number(process.argv[5] ?? 20);

const bench = await startBenchControlPlane();
const base = bench.cp.url;
const tokenA = bench.token;
const tokenB = await mintLocalToken(bench.cp.services.localKeys!, { email: 'bob@example.com', org: 'tenant-b', role: 'admin' });

async function envWithTwin(token: string, name: string) {
  const res = await fetch(base + '/environments', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, twins: [{ twin: 'stripe' }] }),
  });
  return (await res.json()) as { id: string; twins: { id: string }[] };
}

/** Log rows written straight into the log file (setup, not a tenant's traffic). */
function fill(environmentId: string, twinId: string, organizationId: string, rows: number): void {
  const db = new Database(join(bench.cp.services.config.dataDir, LOG_FILE_NAME));
  db.pragma('busy_timeout = 10000');
  const store = new RequestLogStore(db);
  const startMs = Date.now() - rows * 5;
  for (let at = 0; at < rows; at += 10_000) {
    const batch: RequestLogRow[] = [];
    for (let i = at; i < Math.min(rows, at + 10_000); i++) {
      batch.push({
        id: randomUUID(),
        organization_id: organizationId,
        environment_id: environmentId,
        environment_twin_id: twinId,
        twin_slug: 'stripe',
        actor: 'agent',
        method: 'GET',
        path: `/v1/customers/cus_${i}`,
        query_string: '',
        status_code: i % 50 === 0 ? 404 : 200,
        duration_ms: 1,
        occurred_at: new Date(startMs + i * 5).toISOString(),
        request_headers: '{"user-agent":"bench"}',
        request_content_type: null,
        request_body: null,
        request_body_truncated: 0,
        response_content_type: 'application/json',
        response_body: `{"id":"cus_${i}","object":"customer"}`,
        response_body_truncated: 0,
      });
    }
    store.append(batch);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

const summary = (xs: number[]) => ({
  n: xs.length,
  p50_ms: +percentile(xs, 50).toFixed(2),
  p99_ms: +percentile(xs, 99).toFixed(2),
  max_ms: +Math.max(...xs).toFixed(1),
});

const clientA = new ClientProcess();
const clientB = new ClientProcess();
type FixedRun = { sinceScheduled: number[]; sinceSent: number[]; failed: number; late: number; total: number; statuses: Record<string, number> };
try {
  const a = await envWithTwin(tokenA, 'tenant A');
  const b = await envWithTwin(tokenB, 'tenant B');
  const orgOf = (id: string) => bench.cp.services.orchestration.store.environmentById(id)!.organization_id;
  fill(a.id, a.twins[0]!.id, orgOf(a.id), 2_000);
  fill(b.id, b.twins[0]!.id, orgOf(b.id), ROWS);

  const aRun = (seconds: number) =>
    clientA.run<FixedRun>('fixed', {
      origin: base,
      path: `/environments/${a.id}/logs?size=20`,
      headers: { authorization: `Bearer ${tokenA}` },
      rate: A_RATE,
      seconds,
    });
  await aRun(3); // warm-up, not counted
  // The control plane's CPU (this process: API thread and its workers) per phase, from the kernel:
  // steadier than wall time on a busy machine.
  const cpuMs = (from: NodeJS.CpuUsage) => {
    const u = process.cpuUsage(from);
    return (u.user + u.system) / 1000;
  };
  let cpuFrom = process.cpuUsage();
  const alone = await aRun(SECONDS);
  const aloneCpuMs = cpuMs(cpuFrom);
  const bRun = clientB.run<FixedRun>('fixed', {
    origin: base,
    path: `/environments/${b.id}/logs?size=100&status_code=404`,
    headers: { authorization: `Bearer ${tokenB}` },
    rate: B_RATE,
    seconds: SECONDS + 2,
  });
  await new Promise((r) => setTimeout(r, 1000));
  cpuFrom = process.cpuUsage();
  const withB = await aRun(SECONDS);
  const withBCpuMs = cpuMs(cpuFrom);
  const bStarted = performance.now();
  const bDone = await bRun;
  const bSeconds = SECONDS + 1 + (performance.now() - bStarted) / 1000;
  const report = {
    bench: `API fairness: A lists its log at ${A_RATE}/s, alone and while B sends ${B_RATE}/s filtered listings of a ${ROWS}-row log`,
    seconds_per_phase: SECONDS,
    a_alone: { ...summary(alone.sinceSent), failed: alone.failed, statuses: alone.statuses },
    a_with_b: { ...summary(withB.sinceSent), failed: withB.failed, statuses: withB.statuses },
    a_p99_moved_ms: +(percentile(withB.sinceSent, 99) - percentile(alone.sinceSent, 99)).toFixed(2),
    control_plane_cpu_ms_per_s: { alone: Math.round(aloneCpuMs / SECONDS), with_b: Math.round(withBCpuMs / SECONDS) },
    b: {
      ...summary(bDone.sinceSent),
      answered_per_second: Math.round((bDone.statuses['200'] ?? 0) / bSeconds),
      approx_cpu_ms_per_b_request: +((withBCpuMs - aloneCpuMs) / Math.max(1, (bDone.statuses['200'] ?? 0) * (SECONDS / bSeconds))).toFixed(2),
      statuses: bDone.statuses,
    },
    target: { a_p99_moved_ms: 25 },
  };
  console.log(JSON.stringify(report));
  console.error(
    `A p99 alone ${report.a_alone.p99_ms} ms, with B ${report.a_with_b.p99_ms} ms (moved ${report.a_p99_moved_ms} ms, failed ${withB.failed}); B answered ${report.b.answered_per_second}/s, p99 ${report.b.p99_ms} ms`,
  );
} finally {
  clientA.close();
  clientB.close();
  await bench.stop();
}
