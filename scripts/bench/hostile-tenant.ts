// Issue 33's combined scenario: organization X does everything hostile at once (hostile-tenant-
// scenario.ts: a 3,500-character pattern over 3,000 logged 5 KB rows, 30 GraphQL fragments, four
// nested handlebars loops, a JSON body of 300,000 keys, a 10-year advance) while organization V
// reads at a fixed rate through its gateway and through the API. Printed: V's p99 alone and during
// X, side by side (target: ≤ 2 × alone + 25 ms, no failure), how long each of X's requests took to
// end (target ≤ 2 s) and the attempt (≤ 15 s), and the advance job's wall time.
//   node --import=tsx scripts/bench/hostile-tenant.ts [seconds=15] [years=10] [gateway_rate=100] [api_rate=20]
// Loopback only; V's load generators run in their own processes (load-clients.ts). Build first.

import { mintLocalToken } from '../../control-plane/auth/local-idp.js';
import { percentile, startBenchControlPlane } from './control-plane.js';
import { ApiClient, dailySubscription, fillLog, runHostileTenant } from './hostile-tenant-scenario.js';
import { ClientProcess } from './load-clients.js';

const SECONDS = Number(process.argv[2] ?? 15);
const YEARS = Number(process.argv[3] ?? 10);
const GATEWAY_RATE = Number(process.argv[4] ?? 100);
const API_RATE = Number(process.argv[5] ?? 20);

const bench = await startBenchControlPlane();
const api = new ApiClient(bench.cp.url);
const tokenX = bench.token;
const tokenV = await mintLocalToken(bench.cp.services.localKeys!, { email: 'v@example.com', org: 'victim', role: 'admin' });
const gatewayClient = new ClientProcess();
const apiClient = new ClientProcess();

type Fixed = { sinceSent: number[]; failed: number; total: number; statuses: Record<string, number> };
const summary = (r: Fixed) => ({
  n: r.sinceSent.length,
  p50_ms: +percentile(r.sinceSent, 50).toFixed(1),
  p99_ms: +percentile(r.sinceSent, 99).toFixed(1),
  max_ms: +Math.max(...r.sinceSent).toFixed(1),
  failed: r.failed,
});

try {
  const [x, v] = await Promise.all([api.readyTenant(tokenX, 'hostile', ['stripe', 'github', 'sendgrid']), api.readyTenant(tokenV, 'victim', ['stripe'])]);
  const orgX = bench.cp.services.orchestration.store.environmentById(x.environmentId)!.organization_id;
  fillLog(bench.cp.services.config.dataDir, orgX, x, 3000, 5000);
  await dailySubscription(x.twins.stripe!);
  const vStripe = v.twins.stripe!;
  const customer = (await (
    await fetch(`${vStripe.url}/v1/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${vStripe.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=v%40example.com',
    })
  ).json()) as { id: string };
  const victimLoad = (seconds: number) =>
    Promise.all([
      gatewayClient.run<Fixed>('fixed', {
        origin: new URL(vStripe.url).origin,
        path: `${new URL(vStripe.url).pathname.replace(/\/$/, '')}/v1/customers/${customer.id}`,
        headers: { authorization: `Bearer ${vStripe.key}` },
        rate: GATEWAY_RATE,
        seconds,
      }),
      apiClient.run<Fixed>('fixed', {
        origin: bench.cp.url,
        path: `/environments/${v.environmentId}`,
        headers: { authorization: `Bearer ${tokenV}` },
        rate: API_RATE,
        seconds,
      }),
    ]);
  await victimLoad(3); // warm-up, not counted
  const [gatewayAlone, apiAlone] = await victimLoad(SECONDS);
  const during = victimLoad(SECONDS);
  const t0 = performance.now();
  const run = await runHostileTenant(api, x, YEARS);
  const hostileMs = performance.now() - t0;
  const [gatewayDuring, apiDuring] = await during;

  const attempt = run.bodies['test attempt: 3,500-character pattern over the log'];
  const report = {
    bench:
      'hostile tenant: X attempts a 3,500-char pattern over 3,000 5 KB rows, 30 GraphQL fragments, nested handlebars, 300,000 JSON keys and an advance; V reads at a fixed rate',
    seconds_per_phase: SECONDS,
    advance_years: YEARS,
    v_gateway: { rate: GATEWAY_RATE, alone: summary(gatewayAlone), during_x: summary(gatewayDuring) },
    v_api: { rate: API_RATE, alone: summary(apiAlone), during_x: summary(apiDuring) },
    x_requests: run.requests.map((r) => ({ what: r.what, status: r.status, ms: Math.round(r.ms) })),
    x_attempt: { passed: attempt?.passed, reason: attempt?.results?.[0]?.reason ?? attempt?.failure ?? null },
    x_advance_job: { status: run.advance.status, ms: Math.round(run.advance.ms) },
    x_all_ended_ms: Math.round(hostileMs),
    targets: {
      v_p99_ms: 'alone × 2 + 25',
      v_failed: 0,
      x_request_ms: 2000,
      x_attempt_ms: 15000,
    },
  };
  const within = (alone: number, during: number) => during <= 2 * alone + 25;
  console.log(JSON.stringify(report));
  console.error(
    `V gateway p99 ${report.v_gateway.alone.p99_ms} → ${report.v_gateway.during_x.p99_ms} ms (${within(report.v_gateway.alone.p99_ms, report.v_gateway.during_x.p99_ms) ? 'within' : 'OVER'}), ` +
      `API p99 ${report.v_api.alone.p99_ms} → ${report.v_api.during_x.p99_ms} ms (${within(report.v_api.alone.p99_ms, report.v_api.during_x.p99_ms) ? 'within' : 'OVER'}), ` +
      `failed ${gatewayDuring.failed + apiDuring.failed}; X's slowest request ${Math.max(...run.requests.map((r) => Math.round(r.ms)))} ms; ` +
      `advance ${run.advance.status} in ${Math.round(run.advance.ms)} ms`,
  );
} finally {
  gatewayClient.close();
  apiClient.close();
  await bench.stop();
}
