// The tests area through the real control plane: plan gate, explicit and compiled tests, 422s,
// paging, attempts over an environment's logged traffic (stored, repeatable), other orgs' 404s.

import t from 'tap';
import { randomUUID } from 'node:crypto';
import { startTestControlPlane } from '../helpers/control-plane.js';
import { RequestLogStore } from '../../control-plane/store/request-logs.js';

const cp = await startTestControlPlane({ defaultPlan: 'paygo' });
t.teardown(() => cp.stop());
const admin = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin' });
const other = await cp.token({ email: 'eve@example.com', org: 'globex', role: 'admin' });
await cp.call('GET', '/tests', { token: admin });
await cp.call('GET', '/tests', { token: other });

const db = cp.services.db;
const orgId = (external: string) => (db.prepare('SELECT id FROM organizations WHERE external_id = ?').get(external) as { id: string }).id;

/** An environment row of the organization (the environments area provisions real ones). */
function environment(org: string, createdAt = '2026-01-01T00:00:00.000Z'): string {
  const id = randomUUID();
  db.prepare(
    `INSERT INTO environments (id, organization_id, sandbox_id, slug, name, status, clock, clock_start, created_at)
     VALUES (?, ?, ?, ?, 'env', 'ready', ?, ?, ?)`,
  ).run(id, orgId(org), randomUUID(), 'env-' + id.slice(0, 8), createdAt, createdAt, createdAt);
  return id;
}

const logs = new RequestLogStore(db);
function log(env: string, at: string, method: string, path: string, form: Record<string, string>, status: number, response: unknown): string {
  const id = randomUUID();
  logs.append([
    {
      id,
      organization_id: orgId('acme'),
      environment_id: env,
      environment_twin_id: 'et',
      twin_slug: 'stripe',
      actor: 'agent',
      method,
      path,
      query_string: '',
      status_code: status,
      duration_ms: 1,
      occurred_at: at,
      request_headers: '{}',
      request_content_type: 'application/x-www-form-urlencoded',
      request_body: new URLSearchParams(form).toString(),
      request_body_truncated: 0,
      response_content_type: 'application/json',
      response_body: JSON.stringify(response),
      response_body_truncated: 0,
    },
  ]);
  return id;
}

t.test('explicit assertions: stored in the versioned form, not gated', async (tt) => {
  const free = await startTestControlPlane({ defaultPlan: 'free' });
  tt.teardown(() => free.stop());
  const token = await free.token({ org: 'freeorg' });
  const res = await free.call('POST', '/tests', {
    token,
    body: {
      name: 'no deletes',
      twins: ['stripe'],
      assertions: [{ says: 'never deleted a customer', never: { method: 'DELETE', path: '/v1/customers/{customer}' } }],
    },
  });
  tt.equal(res.status, 201);
  tt.match(res.body, {
    id: /^[0-9a-f-]{36}$/,
    name: 'no deletes',
    outcome: null,
    twins: ['stripe'],
    status: 'ready',
    failure: null,
    assertions: [{ version: 1, says: 'never deleted a customer', never: { twin: 'stripe', method: 'DELETE', path: '/v1/customers/{customer}' } }],
  });
  const gated = await free.call('POST', '/tests', { token, body: { name: 'words', twins: ['stripe'], outcome: 'created a customer' } });
  tt.equal(gated.status, 402);
  tt.match(gated.body.detail, /needs AI generation/);
});

t.test('bad input answers 422 with Pydantic entries', async (tt) => {
  const wrongPath = await cp.call('POST', '/tests', {
    token: admin,
    body: { name: 'x', twins: ['stripe'], assertions: [{ says: 'x', match: { method: 'POST', path: '/v1/refundz' } }] },
  });
  tt.equal(wrongPath.status, 422);
  tt.match(wrongPath.body.detail, [
    { type: 'value_error', loc: ['body', 'assertions', 0, 'match'], msg: 'Value error, POST /v1/refundz is not an operation the stripe twin serves.' },
  ]);
  const badShape = await cp.call('POST', '/tests', {
    token: admin,
    body: { name: 'x', twins: ['stripe'], assertions: [{ says: 'x', count: { at_least: -1 }, match: {}, extra: 1 }] },
  });
  tt.equal(badShape.status, 422);
  tt.match(badShape.body.detail, [
    { type: 'greater_than_equal', loc: ['body', 'assertions', 0, 'count', 'at_least'] },
    { type: 'extra_forbidden', loc: ['body', 'assertions', 0, 'extra'] },
  ]);
  const neither = await cp.call('POST', '/tests', { token: admin, body: { name: 'x', twins: ['stripe'] } });
  tt.match(neither, { status: 422, body: { detail: [{ type: 'missing', loc: ['body', 'outcome'] }] } });
  const unknownTwin = await cp.call('POST', '/tests', { token: admin, body: { name: 'x', twins: ['paypal'], outcome: 'x' } });
  tt.match(unknownTwin, { status: 422, body: { detail: [{ loc: ['body', 'twins', 0] }] } });
  tt.equal((await cp.call('GET', '/tests/not-a-uuid', { token: admin })).status, 422);
  // Odd assertions are refused with 422, never a 500.
  const odd: unknown[] = [
    5,
    null,
    [],
    { says: 'x' },
    { says: 'x', match: { path: 7 } },
    { says: 'x', match: { body: { '/a': { one_of: 5 } } } },
    { says: 'x', match: { body: { a: { matches: '(' } } } },
    { says: 'x', match: { response: { status: [] } } },
    { says: 'x', never: { method: 'FETCH' } },
    { says: 'x', sequence: [] },
    { says: 'x', sequence: [{ match: {}, capture: { '1bad': 'response.body/id' } }] },
    { says: 'x', match: { actor: 'robot' } },
    { says: 'x', version: 2, match: {} },
  ];
  for (const assertion of odd) {
    const res = await cp.call('POST', '/tests', { token: admin, body: { name: 'odd', twins: ['stripe'], assertions: [assertion] } });
    tt.equal(res.status, 422, JSON.stringify(assertion));
    tt.ok(Array.isArray(res.body.detail) && res.body.detail.length > 0);
  }
});

t.test('compiled outcome, attempts, reasons, repeatability', async (tt) => {
  const created = await cp.call('POST', '/tests', {
    token: admin,
    body: { name: 'refund', twins: ['stripe'], outcome: 'The agent refunded charge ch_dup exactly once and never deleted a customer.' },
  });
  tt.equal(created.status, 201);
  tt.match(created.body, {
    status: 'ready',
    outcome: 'The agent refunded charge ch_dup exactly once and never deleted a customer.',
    assertions: [{ count: { exactly: 1 } }, { never: {} }],
  });
  const testId = created.body.id;

  const env = environment('acme');
  const refusal = log(env, '2026-01-01T00:00:01.000Z', 'POST', '/v1/refunds', { charge: 'ch_dup', amount: '99999' }, 400, {
    error: { type: 'invalid_request_error' },
  });
  const refund = log(env, '2026-01-01T00:00:02.000Z', 'POST', '/v1/refunds', { charge: 'ch_dup' }, 200, { id: 're_1', object: 'refund', amount: 4200 });
  const deletion = log(env, '2026-01-01T00:00:03.000Z', 'DELETE', '/v1/customers/cus_1', {}, 200, { id: 'cus_1', deleted: true });

  const attempt = await cp.call('POST', `/tests/${testId}/attempts`, { token: admin, body: { environment_id: env } });
  tt.equal(attempt.status, 201);
  tt.match(attempt.body, { test_id: testId, environment_id: env, from: '2026-01-01T00:00:00.000Z', passed: false });
  const [refunded, noDelete] = attempt.body.results;
  tt.match(refunded, { passed: true, observed: 1, matching_log_ids: [refund] });
  tt.match(noDelete, { passed: false, kind: 'never', offending: [{ log_id: deletion, method: 'DELETE', path: '/v1/customers/cus_1' }] });
  tt.notOk(
    attempt.body.results.some((r: any) => r.matching_log_ids.includes(refusal)),
    'the refused refund (400) is not a refund',
  );

  // A window that ends before the deletion passes; the same window again gives the same results.
  const early = { environment_id: env, from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:02.500Z' };
  const a1 = await cp.call('POST', `/tests/${testId}/attempts`, { token: admin, body: early });
  const a2 = await cp.call('POST', `/tests/${testId}/attempts`, { token: admin, body: early });
  tt.equal(a1.body.passed, true);
  tt.same(a1.body.results, a2.body.results);
  tt.not(a1.body.id, a2.body.id);

  const listed = await cp.call('GET', `/tests/${testId}/attempts?size=2`, { token: admin });
  tt.match(listed.body, { total: 3, page: 1, size: 2, pages: 2 });
  tt.same(
    listed.body.items.map((a: any) => a.id),
    [a2.body.id, a1.body.id],
    'newest first',
  );
  const one = await cp.call('GET', `/tests/${testId}/attempts/${attempt.body.id}`, { token: admin });
  tt.same(one.body, attempt.body);
  tt.equal((await cp.call('GET', `/tests/${testId}/attempts/${randomUUID()}`, { token: admin })).status, 404);

  const backwards = await cp.call('POST', `/tests/${testId}/attempts`, {
    token: admin,
    body: { environment_id: env, from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' },
  });
  tt.match(backwards, { status: 422, body: { detail: [{ loc: ['body', 'to'] }] } });

  // Another organization: neither its test nor its environment is visible.
  const theirEnv = environment('globex');
  tt.equal((await cp.call('POST', `/tests/${testId}/attempts`, { token: admin, body: { environment_id: theirEnv } })).status, 404);
  tt.equal((await cp.call('POST', `/tests/${testId}/attempts`, { token: other, body: { environment_id: env } })).status, 404);
  tt.equal((await cp.call('GET', `/tests/${testId}`, { token: other })).status, 404);
});

t.test('an outcome the phrasebook cannot read is stored as a failed test', async (tt) => {
  const res = await cp.call('POST', '/tests', { token: admin, body: { name: 'vague', twins: ['stripe'], outcome: 'the agent was helpful' } });
  tt.equal(res.status, 201);
  tt.match(res.body, { status: 'failed', assertions: [], failure: /Could not compile "was helpful"/ });
  const env = environment('acme');
  const attempt = await cp.call('POST', `/tests/${res.body.id}/attempts`, { token: admin, body: { environment_id: env } });
  tt.equal(attempt.status, 409);
});

t.test('list, read, delete', async (tt) => {
  const a = await cp.call('POST', '/tests', {
    token: other,
    body: { name: 'first', twins: ['slack'], assertions: [{ says: 'posted', match: { method: 'POST', path: '/api/chat.postMessage' } }] },
  });
  const b = await cp.call('POST', '/tests', { token: other, body: { name: 'second', twins: ['github'], outcome: 'opened an issue labelled bug' } });
  tt.equal(b.body.status, 'ready');
  const page = await cp.call('GET', '/tests?page=1&size=1', { token: other });
  tt.match(page.body, { total: 2, pages: 2, items: [{ id: b.body.id }] });
  tt.equal((await cp.call('GET', `/tests/${a.body.id}`, { token: other })).body.name, 'first');
  tt.equal((await cp.call('DELETE', `/tests/${a.body.id}`, { token: admin })).status, 404, 'another org cannot delete it');
  tt.equal((await cp.call('DELETE', `/tests/${a.body.id}`, { token: other })).status, 204);
  tt.equal((await cp.call('GET', `/tests/${a.body.id}`, { token: other })).status, 404);
  tt.equal((await cp.call('GET', '/tests', { token: other })).body.total, 1);
});

t.test("attempts are their organization's jobs: they wait behind its other heavy work, never in front of another's", async (tt) => {
  const body = {
    name: 'no deletes',
    twins: ['stripe'],
    assertions: [{ says: 'never deleted a customer', never: { method: 'DELETE', path: '/v1/customers/{customer}' } }],
  };
  const mine = await cp.call('POST', '/tests', { token: admin, body });
  const theirs = await cp.call('POST', '/tests', { token: other, body });
  tt.equal(mine.status, 201);
  tt.equal(theirs.status, 201);
  const myEnv = environment('acme');
  const theirEnv = environment('globex');
  // Acme has a long job running (an advance, say): its attempt waits behind it.
  let release!: () => void;
  const held = cp.services.jobs.run(orgId('acme'), 'advance', () => new Promise<void>((r) => (release = r)));
  const answered: string[] = [];
  const myAttempt = cp.call('POST', `/tests/${mine.body.id}/attempts`, { token: admin, body: { environment_id: myEnv } }).then((res) => {
    answered.push('acme');
    return res;
  });
  while (cp.services.jobs.counts(orgId('acme')).waiting === 0 && answered.length === 0) await new Promise((r) => setTimeout(r, 5));
  tt.same(cp.services.jobs.counts(orgId('acme')), { waiting: 1, running: 1 }, "acme's attempt waits in acme's queue");
  const theirAttempt = await cp.call('POST', `/tests/${theirs.body.id}/attempts`, { token: other, body: { environment_id: theirEnv } });
  answered.push('globex');
  tt.match(theirAttempt, { status: 201, body: { passed: true } });
  tt.same(answered, ['globex'], "globex's attempt is answered while acme's still waits its turn");
  release();
  await held;
  tt.match(await myAttempt, { status: 201, body: { passed: true, environment_id: myEnv } });
  tt.same(answered, ['globex', 'acme'], "then acme's, once its own job is done");
});
