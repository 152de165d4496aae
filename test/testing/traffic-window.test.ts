// The traffic window answers matchers partly in SQL. These tests hold that to the JavaScript
// checks, which define the matcher language: for every operator SQL is given, on every logged row,
// SQL plus the residual checks pick exactly the rows all checks accept; more matchers than fit one
// mask column; and near misses ranked by SQLite equal those ranked in JavaScript.

import t from 'tap';
import { evaluate } from '../../control-plane/testing/evaluator.js';
import { compileMatcher } from '../../control-plane/testing/request-matcher.js';
import { ObservedRequest } from '../../control-plane/testing/observed-request.js';
import { normalizeAssertion, assertionsSchema, type Assertion, type Matcher } from '../../control-plane/testing/matcher-language.js';
import { TrafficLog, type LoggedRequest } from './traffic.js';

const log = new TrafficLog();
t.teardown(() => log.close());

const traffic: LoggedRequest[] = [
  { method: 'POST', path: '/v1/customers', form: { email: 'a@example.com' }, response: { id: 'cus_1' } },
  { method: 'POST', path: '/v1/customers/', form: { email: 'b@example.com' }, status: 400 },
  { method: 'GET', path: '/v1/customers/cus_1', status: 200 },
  { method: 'GET', path: '/v1/customers/cus_1/balance_transactions', status: 200 },
  { method: 'DELETE', path: '/v1/customers/cus%201', status: 404 },
  { method: 'GET', path: '/v1/customers/%E0%A4%A', status: 404 },
  { method: 'POST', path: '/v1/refunds', form: { charge: 'ch_1', amount: '500' }, status: 402 },
  { actor: 'seed', method: 'POST', path: '/v1/customers', form: { email: 'seed@example.com' } },
  { actor: 'lifecycle', method: 'POST', path: '/v1/invoices/in_1/pay', status: 200 },
  { twin: 'github', method: 'POST', path: '/repos/acme/web/issues', json: { title: 't', labels: ['bug'] }, status: 201 },
  { twin: 'github', method: 'GET', path: '/repos/acme/web/issues/', status: 200 },
  { twin: 'github', method: 'PATCH', path: '/repos/acme/we*b/issues/12', json: { state: 'closed' }, status: 200 },
  { twin: 'github', method: 'GET', path: '/repos/a[1]/web/issues', status: 200 },
  { twin: 'github', method: 'GET', path: '/repos//web/issues', status: 404 },
  { twin: 'github', method: 'GET', path: '/repos/acme/web/pulls', status: 500 },
  { twin: 'slack', method: 'POST', path: '/api/chat.postMessage', form: { channel: '#general', text: 'hi' }, response: { ok: true } },
  { twin: 'slack', method: 'POST', path: '/api/chatXpostMessage', form: { channel: '#general' }, response: { ok: false }, status: 200 },
  { twin: 'slack', method: 'GET', path: '/api/users.list?', status: 301 },
];
log.log(...traffic);

const all = ['stripe', 'github', 'slack'];
const normalize = (raw: unknown[]): Assertion[] => assertionsSchema.parse(raw).map((a) => normalizeAssertion(a, all));

/** Log ids every check of the matcher accepts, decided in JavaScript alone over whole rows. */
function byJavaScript(matcher: Matcher): string[] {
  const m = compileMatcher(matcher);
  return log
    .rows()
    .map((row) => new ObservedRequest(row))
    .filter((r) => m.checks.every((c) => c.test(r, {})))
    .map((r) => r.row.id);
}

const matchers: Record<string, Matcher> = {
  'twin eq': { twin: 'github' },
  'twin ne': { twin: { ne: 'github' } },
  'twin one_of': { twin: { one_of: ['slack', 'github'] } },
  'twin eq a number (JavaScript only)': { twin: 5 as never },
  'twin contains': { twin: { contains: 'hu' } },
  'twin contains the empty string': { twin: { contains: '' } },
  'twin not': { twin: { not: { one_of: ['stripe'] } } },
  'twin all_of / any_of': { twin: { all_of: [{ any_of: ['stripe', 'slack'] }, { ne: 'slack' }] } },
  'twin present / absent': { twin: { present: true, absent: false } },
  'twin absent': { twin: { absent: true } },
  'twin matches (JavaScript only)': { twin: { matches: '^s' } },
  'method bare, any case': { method: 'post' },
  'method operator, exact case': { method: { one_of: ['GET', 'delete'] } },
  'method ne': { method: { ne: 'GET' } },
  'path exact, trailing slash allowed': { path: '/v1/customers' },
  'path template': { path: '/v1/customers/{id}' },
  'path template list': { path: ['/repos/{owner}/{repo}/issues', '/repos/{owner}/{repo}/issues/{number}'] },
  'path template with glob characters in a segment value': { path: '/repos/{owner}/{repo}/issues/{n}', params: { repo: 'we*b' } },
  'path literal with a dot': { path: '/api/chat.postMessage' },
  'path literal with brackets and a question mark': { path: '/repos/a[1]/web/issues' },
  'path literal ending in ?': { path: '/api/users.list?' },
  'path template with an empty segment': { path: '/repos/{owner}/web/issues' },
  'path operator contains': { path: { contains: 'customers' } },
  'path operator matches (JavaScript only)': { path: { matches: 'cus_[0-9]+$' } },
  'status number': { response: { status: 404 } },
  'status class': { response: { status: '4xx' } },
  'status list of class and number': { response: { status: ['5xx', 301] } },
  'status range operators': { response: { status: { gte: 300, lt: 500 } } },
  'status eq a numeric string (JavaScript only)': { response: { status: { eq: '200' } } },
  'status not': { response: { status: { not: { one_of: [200, 201] } } } },
  'actor default is the agent': { path: '/v1/customers' },
  'actor list': { actor: ['seed', 'lifecycle'] },
  'actor any': { actor: 'any', method: 'POST' },
  'mixed with body': { twin: 'stripe', method: 'POST', path: '/v1/customers', body: { '/email': { contains: '@' } } },
  'params decode a bad escape as written': { path: '/v1/customers/{id}', params: { id: '%E0%A4%A' } },
};

t.test('SQL and residual checks pick exactly the rows JavaScript accepts', async (tt) => {
  const names = Object.keys(matchers);
  const result = evaluate(normalize(names.map((says) => ({ says, count: { at_least: 0 }, match: matchers[says] }))), log.window());
  names.forEach((says, i) => {
    const r = result.results[i]!;
    tt.same(r.matching_log_ids, byJavaScript((normalize([{ says, match: matchers[says] }])[0] as { match: Matcher }).match), says);
  });
  // The table is not vacuous: most matchers pick some rows and leave others.
  const picked = result.results.filter((r) => r.observed > 0 && r.observed < traffic.length).length;
  tt.ok(picked >= names.length - 4, `${picked} of ${names.length} matchers split the traffic`);
});

t.test('more matchers than one mask column holds', async (tt) => {
  const paths = traffic.map((r) => r.path);
  const raw = Array.from({ length: 70 }, (_, i) => ({ says: `path ${i}`, count: { at_least: 0 }, match: { actor: 'any', path: paths[i % paths.length] } }));
  const result = evaluate(normalize(raw), log.window());
  for (const [i, a] of raw.entries()) tt.same(result.results[i]!.matching_log_ids, byJavaScript(a.match as Matcher), a.says);
});

t.test('near misses ranked by SQLite equal those ranked in JavaScript', async (tt) => {
  // `matches` cannot be said in SQL, so the second matcher is ranked in JavaScript; both mean the same.
  const bySql = { twin: 'stripe', method: 'POST', path: '/v1/refunds', body: { '/amount': 600 } };
  const byJs = { ...bySql, twin: { matches: '^stripe$' } };
  const [sql, js] = evaluate(
    normalize([
      { says: 'sql', match: bySql },
      { says: 'js', match: byJs },
    ]),
    log.window(),
  ).results;
  tt.equal(sql!.near_misses!.length, 3);
  tt.same(
    sql!.near_misses!.map((m) => m.log_id),
    js!.near_misses!.map((m) => m.log_id),
  );
  tt.equal(sql!.near_misses![0]!.path, '/v1/refunds', 'the same operation comes first');
});

t.test('a near-miss pool filled by candidates equals the ranked one', async (tt) => {
  const many = new TrafficLog();
  tt.teardown(() => many.close());
  // 250 refunds of the wrong amount (more than the pool), then one of the right amount for a seed.
  many.log(...Array.from({ length: 250 }, (_, i): LoggedRequest => ({ method: 'POST', path: '/v1/refunds', form: { amount: String(100 + i) } })));
  many.log({ actor: 'seed', method: 'POST', path: '/v1/refunds', form: { amount: '42' } });
  const bySql = { twin: 'stripe', method: 'POST', path: '/v1/refunds', body: { '/amount': 42 } };
  const byJs = { ...bySql, twin: { matches: '^stripe$' } };
  const [sql, js] = evaluate(
    normalize([
      { says: 'sql', match: bySql },
      { says: 'js', match: byJs },
    ]),
    many.window(),
  ).results;
  tt.equal(sql!.observed, 0);
  tt.same(
    sql!.near_misses!.map((m) => m.log_id),
    js!.near_misses!.map((m) => m.log_id),
  );
  tt.same(
    sql!.near_misses!.map((m) => m.fields.find((f) => f.field === 'body/amount')!.actual),
    ['100', '101', '102'],
    'the earliest of equally near misses',
  );
});

t.test('matchers too large for SQLite are judged in JavaScript', async (tt) => {
  const paths = traffic.map((r) => r.path);
  const longList = [...Array.from({ length: 2000 }, (_, i) => `/nowhere/${i}`), '/v1/refunds'];
  let deep: unknown = { one_of: ['stripe', 'github'] };
  for (let i = 0; i < 60; i++) deep = { not: { not: deep } };
  const raw = [
    { says: 'a list past the parameters one check may carry', count: { at_least: 0 }, match: { path: { one_of: longList } } },
    { says: 'operators nested past the expression depth', count: { at_least: 0 }, match: { twin: deep } },
    // 100 matchers of 400 parameters each: more than one statement may carry, so the later ones
    // are judged in JavaScript alone.
    ...Array.from({ length: 98 }, (_, i) => ({
      says: `budget ${i}`,
      count: { at_least: 0 },
      match: { actor: 'any', path: { one_of: [...Array.from({ length: 399 }, (_, k) => `/x/${k}`), paths[i % paths.length]] } },
    })),
  ];
  const result = evaluate(normalize(raw), log.window());
  for (const [i, a] of raw.entries()) tt.same(result.results[i]!.matching_log_ids, byJavaScript(a.match as Matcher), a.says);
  tt.equal(result.results[0]!.observed, 1);
  tt.equal(result.results[1]!.observed, byJavaScript({ twin: { one_of: ['stripe', 'github'] } }).length);
});
