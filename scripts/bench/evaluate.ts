// Bench: evaluate a 10-assertion test over 100,000 logged requests (target ≤ 500 ms on 2 cores).
// The rows go into a real SQLite file through the request-log store; the figure covers reading the
// window back from SQLite and judging it, as POST /tests/{id}/attempts does.
//
//   npx tsx scripts/bench/evaluate.ts [rows=100000] [runs=5]

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { openDatabase } from '../../control-plane/store/database.js';
import { RequestLogStore, type RequestLogRow } from '../../control-plane/store/request-logs.js';
import { AttemptStore } from '../../control-plane/store/attempts.js';
import { evaluate } from '../../control-plane/testing/evaluator.js';
import { assertionsSchema, normalizeAssertion } from '../../control-plane/testing/matcher-language.js';

const ROWS = Number(process.argv[2] ?? 100_000);
const RUNS = Number(process.argv[3] ?? 5);

const dir = mkdtempSync(join(tmpdir(), 'twins-bench-eval-'));
const db = openDatabase(join(dir, 'control-plane.sqlite'));
db.prepare("INSERT INTO organizations (id, external_id, name, plan, created_at) VALUES ('org', 'org', 'org', 'paygo', '2026-01-01T00:00:00Z')").run();
const store = new RequestLogStore(db);
const attempts = new AttemptStore(db);
const env = randomUUID();
const start = Date.parse('2026-01-01T00:00:00.000Z');

// A realistic mix: Stripe form bodies, GitHub JSON bodies, Slack form bodies, some errors.
function row(i: number): RequestLogRow {
  const kind = i % 10;
  const base = {
    id: randomUUID(),
    organization_id: 'org',
    environment_id: env,
    environment_twin_id: 'et',
    actor: 'agent' as const,
    query_string: '',
    duration_ms: 1,
    occurred_at: new Date(start + i * 10).toISOString(),
    request_headers: JSON.stringify({ 'user-agent': 'bench', 'idempotency-key': `k${i}` }),
    request_body_truncated: 0 as const,
    response_content_type: 'application/json',
    response_body_truncated: 0 as const,
  };
  if (kind < 4) {
    return {
      ...base,
      twin_slug: 'stripe',
      method: 'POST',
      path: '/v1/customers',
      status_code: 200,
      request_content_type: 'application/x-www-form-urlencoded',
      request_body: `email=user${i}%40example.com&name=User+${i}&metadata[n]=${i}`,
      response_body: JSON.stringify({ id: `cus_${i}`, object: 'customer', email: `user${i}@example.com` }),
    };
  }
  if (kind < 6) {
    return {
      ...base,
      twin_slug: 'stripe',
      method: 'POST',
      path: '/v1/charges',
      status_code: i % 7 === 0 ? 402 : 200,
      request_content_type: 'application/x-www-form-urlencoded',
      request_body: `amount=${1000 + (i % 50)}&currency=usd&customer=cus_${i - 1}`,
      response_body: JSON.stringify({ id: `ch_${i}`, object: 'charge', amount: 1000 + (i % 50) }),
    };
  }
  if (kind < 8) {
    return {
      ...base,
      twin_slug: 'github',
      method: 'POST',
      path: `/repos/acme/repo${i % 20}/issues`,
      status_code: 201,
      request_content_type: 'application/json',
      request_body: JSON.stringify({ title: `Issue ${i}`, labels: i % 3 === 0 ? ['bug'] : ['feature'], body: 'text' }),
      response_body: JSON.stringify({ number: i, state: 'open' }),
    };
  }
  if (kind < 9) {
    return {
      ...base,
      twin_slug: 'slack',
      method: 'POST',
      path: '/api/chat.postMessage',
      status_code: 200,
      request_content_type: 'application/x-www-form-urlencoded',
      request_body: `channel=%23general&text=message+${i}`,
      response_body: JSON.stringify({ ok: true, ts: `${i}.0001` }),
    };
  }
  return {
    ...base,
    twin_slug: 'stripe',
    method: 'GET',
    path: `/v1/customers/cus_${i}`,
    status_code: 404,
    request_content_type: null,
    request_body: null,
    response_body: JSON.stringify({ error: { type: 'invalid_request_error' } }),
  };
}

const t0 = performance.now();
const batch: RequestLogRow[] = [];
for (let i = 0; i < ROWS; i++) {
  batch.push(row(i));
  if (batch.length === 5000) store.append(batch.splice(0));
}
if (batch.length) store.append(batch.splice(0));
const insertMs = performance.now() - t0;

const raw = [
  {
    says: 'created a customer with email user4@example.com',
    match: { twin: 'stripe', method: 'POST', path: '/v1/customers', body: { '/email': 'user4@example.com' }, response: { status: '2xx' } },
  },
  { says: 'charged at least 1000 cents', count: { at_least: 1 }, match: { method: 'POST', path: '/v1/charges', body: { '/amount': { gte: 1000 } } } },
  { says: 'a declined charge', match: { path: '/v1/charges', response: { status: 402 } } },
  {
    says: 'opened an issue labelled bug',
    match: { twin: 'github', method: 'POST', path: '/repos/{owner}/{repo}/issues', body: { '/labels': { includes: 'bug' } } },
  },
  {
    says: 'posted to #general',
    match: {
      twin: 'slack',
      path: '/api/chat.postMessage',
      body: { '/channel': { one_of: ['#general', 'general'] }, '/text': { matches: '^message [0-9]+$' } },
      response: { body: { '/ok': true } },
    },
  },
  { says: 'never deleted a customer', never: { method: 'DELETE', path: '/v1/customers/{id}' } },
  { says: 'never refunded', never: { path: '/v1/refunds' } },
  {
    says: 'created a customer, then charged that customer',
    sequence: [
      { match: { path: '/v1/customers' }, capture: { cus: 'response.body/id' } },
      { match: { path: '/v1/charges', body: { '/customer': { var: 'cus' } } } },
    ],
  },
  { says: 'a refund of $5 (fails: near misses over all rows)', match: { twin: 'stripe', method: 'POST', path: '/v1/refunds', body: { '/amount': 500 } } },
  { says: 'at most 10 not-found lookups (fails: too many)', count: { at_most: 10 }, match: { method: 'GET', response: { status: 404 } } },
];
const assertions = assertionsSchema.parse(raw).map((a) => normalizeAssertion(a, ['stripe', 'github', 'slack']));

const timings: { total: number; cpu: number }[] = [];
let passedCount = 0;
for (let run = 0; run < RUNS; run++) {
  const cpu0 = process.cpuUsage();
  const a = performance.now();
  const window = attempts.traffic(env, '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z');
  const result = evaluate(assertions, window);
  const c = performance.now();
  passedCount = result.results.filter((r) => r.passed).length;
  const cpu = process.cpuUsage(cpu0);
  timings.push({ total: c - a, cpu: (cpu.user + cpu.system) / 1000 });
}
// Where the time goes: each assertion evaluated alone (its own scan of the window).
const perAssertion = assertions.map((a) => {
  const t = performance.now();
  evaluate([a], attempts.traffic(env, '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'));
  return Math.round(performance.now() - t);
});
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
console.log(
  JSON.stringify({
    rows: ROWS,
    assertions: assertions.length,
    assertions_passed: passedCount,
    insert_ms: Math.round(insertMs),
    runs: RUNS,
    total_ms_median: Math.round(median(timings.map((t) => t.total))),
    // CPU time of this process for the same work: closer to the unloaded figure on a busy machine.
    total_cpu_ms_median: Math.round(median(timings.map((t) => t.cpu))),
    load_average_1m: Number(loadavg()[0]!.toFixed(1)),
    target_ms: 500,
    per_assertion_ms: perAssertion,
  }),
);
db.close();
rmSync(dir, { recursive: true, force: true });
