// The evaluator over logged traffic in a real SQLite file: every operator, every assertion kind,
// every matcher field, the reasons of each failure kind, and determinism.

import t, { type Test } from 'tap';
import { evaluate } from '../../control-plane/testing/evaluator.js';
import { evaluateOperator } from '../../control-plane/testing/operators.js';
import { normalizeAssertion, assertionsSchema, type Assertion } from '../../control-plane/testing/matcher-language.js';
import { TrafficLog } from './traffic.js';

const log = new TrafficLog();
t.teardown(() => log.close());

// An agent's session against Stripe, GitHub and Slack, plus one seeding request.
const [seedCustomer, customer, badRefund, refund, deleteCustomer, issue, close, message] = log.log(
  { actor: 'seed', method: 'POST', path: '/v1/customers', form: { email: 'seed@example.com' }, response: { id: 'cus_seed', object: 'customer' } },
  {
    method: 'POST',
    path: '/v1/customers',
    headers: { 'Idempotency-Key': 'key-123', 'stripe-version': '2024-06-20' },
    form: { email: 'ada@example.com', name: 'Ada Lovelace', 'metadata[tier]': 'gold', 'preferred_locales[0]': 'en', 'preferred_locales[1]': 'fr' },
    response: { id: 'cus_ada', object: 'customer', email: 'ada@example.com', created: 1767225600 },
  },
  {
    method: 'POST',
    path: '/v1/refunds',
    form: { charge: 'ch_dup', amount: '5000' },
    status: 400,
    response: { error: { type: 'invalid_request_error', code: 'amount_too_large' } },
  },
  {
    method: 'POST',
    path: '/v1/refunds',
    form: { charge: 'ch_dup', amount: '4200' },
    response: { id: 're_1', object: 'refund', amount: 4200, charge: 'ch_dup', status: 'succeeded' },
  },
  { method: 'DELETE', path: '/v1/customers/cus_old', status: 200, response: { id: 'cus_old', deleted: true } },
  {
    twin: 'github',
    method: 'POST',
    path: '/repos/acme/web/issues',
    query: 'per_page=5',
    json: { title: 'Crash on start', labels: ['bug', 'p1'], body: 'It crashes.' },
    status: 201,
    response: { id: 9001, number: 12, title: 'Crash on start', state: 'open' },
  },
  { twin: 'github', method: 'PATCH', path: '/repos/acme/web/issues/12', json: { state: 'closed' }, response: { number: 12, state: 'closed' } },
  {
    twin: 'slack',
    method: 'POST',
    path: '/api/chat.postMessage',
    form: { channel: '#general', text: 'Deploy finished :rocket:' },
    response: { ok: true, channel: 'C0123456789', ts: '1767225601.000100' },
  },
);

function judge(raw: unknown[]): ReturnType<typeof evaluate> {
  const parsed = assertionsSchema.parse(raw);
  const assertions: Assertion[] = parsed.map((a) => normalizeAssertion(a, ['stripe', 'github', 'slack']));
  return evaluate(assertions, log.window());
}

function holds(tt: Test, says: string, match: Record<string, unknown>, expected: boolean) {
  const r = judge([{ says, match }]).results[0]!;
  tt.equal(r.passed, expected, says);
}

t.test('operators, each on a value that holds and one that does not', async (tt) => {
  const customers = { twin: 'stripe', method: 'POST', path: '/v1/customers' };
  // eq: a form value "4200" equals the number 4200; a bare value means eq.
  holds(tt, 'eq number vs form string', { path: '/v1/refunds', body: { '/amount': { eq: 4200 } } }, true);
  holds(tt, 'bare value is eq', { path: '/v1/refunds', body: { '/amount': 4200 }, response: { status: 200 } }, true);
  holds(tt, 'eq misses', { path: '/v1/refunds', body: { '/amount': { eq: 4300 } } }, false);
  holds(tt, 'ne', { ...customers, body: { '/email': { ne: 'seed@example.com' } } }, true);
  holds(tt, 'ne on a missing field does not hold', { ...customers, body: { '/phone': { ne: 'x' } } }, false);
  holds(tt, 'one_of', { ...customers, body: { '/name': { one_of: ['Grace Hopper', 'Ada Lovelace'] } } }, true);
  holds(tt, 'one_of misses', { ...customers, body: { '/name': { one_of: ['Grace Hopper'] } } }, false);
  holds(tt, 'contains in a string', { twin: 'slack', body: { '/text': { contains: 'Deploy finished' } } }, true);
  holds(tt, 'contains in an array', { twin: 'github', body: { '/labels': { contains: 'bug' } } }, true);
  holds(tt, 'contains misses', { twin: 'slack', body: { '/text': { contains: 'rollback' } } }, false);
  holds(tt, 'matches', { ...customers, body: { '/email': { matches: '^[a-z]+@example\\.com$' } } }, true);
  holds(tt, 'matches case-insensitive', { twin: 'github', body: { '/title': { matches: '(?i)^crash' } } }, true);
  holds(tt, 'matches misses', { ...customers, body: { '/email': { matches: '^grace@' } } }, false);
  holds(tt, 'present', { ...customers, body: { '/metadata/tier': { present: true } } }, true);
  holds(tt, 'present misses', { ...customers, body: { '/phone': { present: true } } }, false);
  holds(tt, 'absent', { ...customers, body: { '/phone': { absent: true } } }, true);
  holds(tt, 'absent misses', { ...customers, body: { '/email': { absent: true } } }, false);
  holds(tt, 'gt/lt on a form number', { path: '/v1/refunds', response: { status: 200 }, body: { '/amount': { gt: 4000, lt: 4300 } } }, true);
  holds(tt, 'gte/lte bounds are inclusive', { path: '/v1/refunds', response: { status: 200 }, body: { '/amount': { gte: 4200, lte: 4200 } } }, true);
  holds(tt, 'gt misses', { path: '/v1/refunds', response: { status: 200 }, body: { '/amount': { gt: 4200 } } }, false);
  holds(tt, 'json_subset', { ...customers, body: { '': { json_subset: { email: 'ada@example.com', metadata: { tier: 'gold' } } } } }, true);
  holds(tt, 'json_subset misses', { ...customers, body: { '': { json_subset: { metadata: { tier: 'silver' } } } } }, false);
  holds(tt, 'size of an array', { ...customers, body: { '/preferred_locales': { size: 2 } } }, true);
  holds(tt, 'size with an operator', { twin: 'github', body: { '/labels': { size: { gte: 3 } } } }, false);
  holds(tt, 'includes with an operator', { twin: 'github', body: { '/labels': { includes: { matches: '^p[0-9]$' } } } }, true);
  holds(tt, 'includes misses', { twin: 'github', body: { '/labels': { includes: 'wontfix' } } }, false);
  holds(tt, 'all_of', { ...customers, body: { '/email': { all_of: [{ contains: 'ada' }, { contains: 'example' }] } } }, true);
  holds(tt, 'all_of misses', { ...customers, body: { '/email': { all_of: [{ contains: 'ada' }, { contains: 'grace' }] } } }, false);
  holds(tt, 'any_of', { ...customers, body: { '/email': { any_of: [{ contains: 'grace' }, { contains: 'ada' }] } } }, true);
  holds(tt, 'not', { ...customers, body: { '/email': { not: { contains: 'seed' } } } }, true);
  holds(tt, 'not misses', { ...customers, body: { '/email': { not: { contains: 'ada' } } } }, false);
  tt.ok(evaluateOperator({ gt: '2026-01-01T00:00:00Z' }, '2026-02-01T00:00:00Z'), 'gt compares date-times as instants');
  tt.ok(evaluateOperator({ eq: true }, 'true'), 'booleans equal their form spelling');
});

t.test('matcher fields', async (tt) => {
  holds(tt, 'path template', { method: 'DELETE', path: '/v1/customers/{customer}' }, true);
  holds(tt, 'params bound by the template', { method: 'DELETE', path: '/v1/customers/{customer}', params: { customer: 'cus_old' } }, true);
  holds(tt, 'params miss', { method: 'DELETE', path: '/v1/customers/{customer}', params: { customer: 'cus_ada' } }, false);
  holds(tt, 'path list is any of', { method: 'POST', path: ['/user/repos', '/repos/{owner}/{repo}/issues'] }, true);
  holds(tt, 'path as operator', { path: { matches: '^/repos/acme/' }, method: 'PATCH' }, true);
  holds(tt, 'method is case-insensitive', { method: 'patch', twin: 'github' }, true);
  holds(tt, 'twin', { twin: 'slack', path: '/v1/customers' }, false);
  holds(tt, 'query', { twin: 'github', query: { per_page: { eq: 5 } } }, true);
  holds(tt, 'headers by lowercase name', { path: '/v1/customers', headers: { 'idempotency-key': 'key-123' } }, true);
  holds(tt, 'headers by any case', { path: '/v1/customers', headers: { 'Stripe-Version': { matches: '^2024-' } } }, true);
  holds(tt, 'response.status class', { twin: 'github', method: 'POST', response: { status: '2xx' } }, true);
  holds(tt, 'response.status set', { path: '/v1/refunds', response: { status: [400, 402] } }, true);
  holds(tt, 'response.status operator', { path: '/v1/refunds', response: { status: { gte: 500 } } }, false);
  holds(tt, 'response.body pointer', { twin: 'github', response: { body: { '/number': 12 } } }, true);
  holds(tt, 'actor defaults to the agent', { path: '/v1/customers', body: { '/email': 'seed@example.com' } }, false);
  holds(tt, 'actor seed', { path: '/v1/customers', actor: 'seed', body: { '/email': 'seed@example.com' } }, true);
  holds(tt, 'actor any', { path: '/v1/customers', actor: 'any', body: { '/email': 'seed@example.com' } }, true);
});

t.test('count assertions and their reasons', async (tt) => {
  const r = judge([
    { says: 'a refund of $42', match: { path: '/v1/refunds', response: { status: '2xx', body: { '/amount': 4200 } } } },
    { says: 'between 1 and 2 refund calls', count: { between: [1, 2] }, match: { path: '/v1/refunds' } },
    { says: 'exactly one refund call', count: { exactly: 1 }, match: { path: '/v1/refunds' } },
    { says: 'at most one customer created', count: { at_most: 0 }, match: { method: 'POST', path: '/v1/customers' } },
    { says: 'a refund of $50', match: { twin: 'stripe', method: 'POST', path: '/v1/refunds', body: { '/amount': 5000 }, response: { status: '2xx' } } },
  ]);
  tt.equal(r.passed, false);
  const [ok, between, exactly, atMost, missing] = r.results;
  tt.match(ok, { passed: true, expected: 'at least 1', observed: 1, matching_log_ids: [refund], reason: null });
  tt.match(between, { passed: true, observed: 2 });
  tt.match(exactly, { passed: false, expected: 'exactly 1', observed: 2, matching_log_ids: [badRefund, refund] });
  tt.match(exactly!.reason, /Expected exactly 1 matching request, observed 2: logs/);
  tt.match(atMost, { passed: false, observed: 1, matching_log_ids: [customer] });

  // Too few: the nearest misses, best first, each with a per-field table; the status is always shown.
  tt.match(missing, { passed: false, observed: 0, expected: 'at least 1' });
  tt.equal(missing!.near_misses!.length, 3, 'three nearest misses');
  const [first, second] = missing!.near_misses!;
  tt.equal(first!.log_id, badRefund, 'the 400 refund of 5000 is nearest: only its status differs');
  tt.match(first, { matched_fields: 5, total_fields: 6, status: 400 });
  tt.same(
    first!.fields.find((f) => f.field === 'response.status'),
    { field: 'response.status', expected: '2xx', actual: 400, ok: false },
  );
  tt.same(
    first!.fields.find((f) => f.field === 'body/amount'),
    { field: 'body/amount', expected: '= 5000', actual: '5000', ok: true },
    'body values are extracted',
  );
  tt.equal(second!.log_id, refund);
  tt.same(
    second!.fields.find((f) => f.field === 'body/amount'),
    { field: 'body/amount', expected: '= 5000', actual: '4200', ok: false },
  );
  tt.match(missing!.reason, /Expected at least 1 matching request, observed 0\. The nearest miss is log .*: response\.status was 400, expected 2xx/);
  tt.notOk(
    missing!.near_misses!.some((m) => m.twin !== 'stripe'),
    'requests to another twin are not near misses',
  );

  // A matcher without a status still shows the status in the table.
  const noStatus = judge([{ says: 'x', match: { path: '/v1/refunds', body: { '/amount': 1 } } }]).results[0]!;
  tt.same(noStatus.near_misses![0]!.fields.at(-1), { field: 'response.status', expected: 'any', actual: 400, ok: true });
});

t.test('never, with the offending requests', async (tt) => {
  const r = judge([
    { says: 'never deleted a customer', never: { method: 'DELETE', path: '/v1/customers/{id}' } },
    { says: 'never deleted a repository', never: { twin: 'github', method: 'DELETE', path: '/repos/{owner}/{repo}' } },
  ]);
  const [deleted, untouched] = r.results;
  tt.match(deleted, { kind: 'never', passed: false, expected: 'none', observed: 1, matching_log_ids: [deleteCustomer] });
  tt.match(deleted!.offending, [{ log_id: deleteCustomer, method: 'DELETE', path: '/v1/customers/cus_old', status: 200, twin: 'stripe' }]);
  tt.match(deleted!.reason, /Expected no matching request, observed 1 request: DELETE \/v1\/customers\/cus_old → 200/);
  tt.match(untouched, { passed: true, observed: 0, reason: null });
});

t.test('sequence: captures, gaps, binding, and where it stopped', async (tt) => {
  const passing = judge([
    {
      says: 'opened an issue, then closed that issue',
      sequence: [
        {
          match: { twin: 'github', method: 'POST', path: '/repos/{owner}/{repo}/issues', response: { status: 201 } },
          capture: { number: 'response.body/number', repo: 'params.repo' },
        },
        {
          match: {
            twin: 'github',
            method: 'PATCH',
            path: '/repos/{owner}/{repo}/issues/{n}',
            params: { n: { var: 'number' }, repo: { var: 'repo' } },
            body: { '/state': 'closed' },
          },
        },
      ],
    },
  ]).results[0]!;
  tt.match(passing, { passed: true, observed: 2, matching_log_ids: [issue, close], stopped_at: null });
  tt.same(passing.steps![0]!.captured, { number: 12, repo: 'web' });

  const wrongOrder = judge([
    {
      says: 'posted to slack, then created a customer',
      sequence: [
        { says: 'posted to slack', match: { twin: 'slack', path: '/api/chat.postMessage' }, capture: { ts: 'response.body/ts' } },
        { says: 'created a customer', match: { twin: 'stripe', method: 'POST', path: '/v1/customers' } },
      ],
    },
  ]).results[0]!;
  tt.match(wrongOrder, { passed: false, stopped_at: 1, observed: 1, matching_log_ids: [message] });
  tt.same(
    wrongOrder.steps!.map((s) => s.bound_log_id),
    [message, null],
  );
  tt.match(wrongOrder.reason, new RegExp(`Step 2 of 2 \\(created a customer\\) matched no request after step 1 bound log ${message}`));
  tt.same(wrongOrder.near_misses, [], 'nothing after the bound step comes near');

  const wrongValue = judge([
    {
      says: 'created a customer, then refunded with that customer as the charge',
      sequence: [
        { match: { method: 'POST', path: '/v1/customers' }, capture: { cus: 'response.body/id' } },
        { match: { method: 'POST', path: '/v1/refunds', body: { '/charge': { var: 'cus' } } } },
      ],
    },
  ]).results[0]!;
  tt.match(wrongValue, { passed: false, stopped_at: 1 });
  tt.equal(wrongValue.steps![0]!.bound_log_id, customer, 'the earliest matching request binds (the seed request is not the agent’s)');
  tt.notOk(wrongValue.steps!.some((s) => s.bound_log_id === seedCustomer));
  tt.same(
    wrongValue.near_misses![0]!.fields.find((f) => f.field === 'body/charge'),
    { field: 'body/charge', expected: '= {cus}', actual: 'ch_dup', ok: false },
  );
});

t.test('the same traffic gives the same result', async (tt) => {
  const raw = [
    { says: 'a', match: { path: '/v1/refunds', body: { '/amount': 1 } } },
    { says: 'b', never: { method: 'DELETE' } },
    { says: 'c', sequence: [{ match: { path: '/v1/customers' } }, { match: { path: '/v1/refunds' } }] },
  ];
  tt.same(judge(raw), judge(raw));
});

t.test('form bodies: a value read by pointer equals the value in the decoded tree', async (tt) => {
  const { ObservedRequest, pointerGet } = await import('../../control-plane/testing/observed-request.js');
  const { parseBracketForm } = await import('../../twin-runtime/form.js');
  const bodies = [
    'email=ada%40example.com&name=Ada+Lovelace&metadata%5Btier%5D=gold&metadata%5Bn%5D=1',
    'metadata[tier]=gold&metadata[tier]=silver&amount=100',
    'items%5b0%5d%5bprice%5d=price_1&items%5b1%5d%5bprice%5d=price_2&expand[]=customer',
    'xemail=no&email=yes&a=1&a[b]=2',
    'text=50%25+off+%26+more&channel=%23general',
    'flag&amount=1&emailx=3&email',
    'a%5Bb%5D=1&metadata%5btier%5d=x&metadata%5Btier%5D=y&name=',
    'a[b]=1&a=2&toString=1&__proto__[x]=1&constructor[prototype][y]=2&metadata[__proto__][z]=3',
    '',
  ];
  const pointers = [
    '/email',
    '/name',
    '/metadata/tier',
    '/metadata',
    '/amount',
    '/items/0/price',
    '/items',
    '/expand/0',
    '/a',
    '/a/b',
    '/text',
    '/channel',
    '/flag',
    '/missing',
    '/toString',
    '/__proto__/x',
    '/constructor/prototype/y',
    '/metadata/__proto__/z',
    '',
  ];
  for (const body of bodies) {
    const tree = parseBracketForm(body);
    for (const pointer of pointers) {
      if (body === '' && pointer === '') continue; // no body at all reads as undefined, not {}
      const req = new ObservedRequest({ ...log.rows()[0]!, request_content_type: 'application/x-www-form-urlencoded', request_body: body });
      tt.same(req.bodyAt(pointer), pointerGet(tree, pointer), `${pointer} in ${body || '(empty)'}`);
    }
  }
});
