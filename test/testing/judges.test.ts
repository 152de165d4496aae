// Test attempts judged on the judges' thread, within a budget: the same results as judging here,
// and past each limit (window size, CPU time, wall-time deadline, compile deadline) an attempt that
// ends with a sentence instead of hanging; the pool keeps serving after a thread was stopped.

import t from 'tap';
import { randomBytes } from 'node:crypto';
import { join, dirname } from 'node:path';
import { evaluate } from '../../control-plane/testing/evaluator.js';
import { Judges } from '../../control-plane/testing/judges.js';
import { normalizeAssertion, assertionsSchema, type Assertion } from '../../control-plane/testing/matcher-language.js';
import { LOG_FILE_NAME } from '../../control-plane/store/request-logs.js';
import { TrafficLog } from './traffic.js';

const log = new TrafficLog();
t.teardown(() => log.close());

// Letters in no repeating order (a periodic text lets RE2's DFA cache answer every row at once).
const body = (i: number) => ({
  email: `user${i}@example.com`,
  note: randomBytes(3000)
    .toString('base64')
    .replace(/[^a-zA-Z0-9]/g, 'x'),
});
log.log(
  ...Array.from({ length: 40 }, (_, i) => ({
    method: 'POST',
    path: '/v1/customers',
    form: body(i) as unknown as Record<string, string>,
    response: { id: `cus_${i}` },
  })),
);

const assertions = (raw: unknown[]): Assertion[] => assertionsSchema.parse(raw).map((a) => normalizeAssertion(a, ['stripe']));
/** No literal RE2 could look for first, so every row runs the NFA: ~0.5 s per 5 KB row on this machine. */
const COSTLY =
  '(?:' +
  'abcd'
    .split('')
    .map((c) => `${c}.{0,999}`)
    .join('|') +
  ')[^a-zA-Z0-9"{}:,.@%=&_]';

const window = { environmentId: log.environmentId, from: '0000', to: '9999' };
// One thread for the whole file (starting one costs seconds under tsx); each attempt names its limits.
const judges = new Judges({ logFile: join(dirname(log.db.name), LOG_FILE_NAME), threads: 1 });
t.teardown(() => judges.close());

t.test('the thread judges as the evaluator does here', async (t) => {
  const list = assertions([
    {
      says: 'forty customers',
      count: { exactly: 40 },
      match: { method: 'POST', path: '/v1/customers', body: { '/email': { matches: '^user\\d+@example\\.com$' } } },
    },
    { says: 'no refunds', never: { path: '/v1/refunds' } },
    { says: 'one customer named x', match: { path: '/v1/customers', body: { '/email': 'x@example.com' } } },
  ]);
  const there = await judges.evaluate(list, window);
  const here = evaluate(list, log.window());
  t.same(there, here);
  t.equal(there.results.length, 3);
  t.same(
    there.results.map((r) => r.passed),
    [true, true, false],
  );
  t.ok(there.results[2]!.near_misses!.length > 0, 'near misses come back too');
});

t.test('a window larger than the row budget is not judged, and says so', async (t) => {
  const out = await judges.evaluate(assertions([{ says: 'any', never: { path: '/v1/refunds' } }]), window, { maxRows: 10 });
  t.equal(out.passed, false);
  t.match(out.results, [{ passed: false, incomplete: true, reason: /more than 10 logged requests/ }]);
});

t.test('past its CPU budget an attempt ends with incomplete results; what was judged before stays', async (t) => {
  const list = assertions([
    { says: 'no refunds', never: { path: '/v1/refunds' } },
    { says: 'costly', never: { path: '/v1/customers', body: { '/note': { matches: COSTLY } } } },
    { says: 'after it', never: { path: '/v1/charges' } },
  ]);
  const started = performance.now();
  const out = await judges.evaluate(list, window, { cpuMs: 300, deadlineMs: 60_000 });
  t.ok(performance.now() - started < 30_000, 'ends long before the 40 costly rows would');
  t.equal(out.passed, false);
  t.match(out.results, [
    { passed: true, reason: null },
    { passed: false, incomplete: true, reason: /used its budget of 0\.3 s of CPU time/ },
    { passed: false, incomplete: true, reason: /used its budget/ },
  ]);
});

t.test('a thread past its deadline is stopped, the results so far kept, and the pool serves the next attempt', async (t) => {
  const out = await judges.evaluate(
    assertions([
      { says: 'no refunds', never: { path: '/v1/refunds' } },
      { says: 'costly', never: { path: '/v1/customers', body: { '/note': { matches: COSTLY } } } },
    ]),
    window,
    { cpuMs: 600_000, deadlineMs: 2000 },
  );
  t.match(out.results, [{ passed: true }, { passed: false, incomplete: true, reason: /did not finish within 2 s/ }]);
  const next = await judges.evaluate(assertions([{ says: 'no refunds', never: { path: '/v1/refunds' } }]), window);
  t.match(next.results, [{ passed: true }], 'a new thread took over');
});

t.test('an assertion whose stored pattern no longer compiles fails with the reason; the others are judged', async (t) => {
  const out = await judges.evaluate(
    assertions([
      { says: 'old pattern', never: { path: '/v1/customers', body: { '/email': { matches: 'user\\y' } } } },
      { says: 'no refunds', never: { path: '/v1/refunds' } },
    ]),
    window,
  );
  t.match(out.results, [{ passed: false, incomplete: true, reason: /patterns cannot be used: Invalid escape sequence/ }, { passed: true }]);
});

t.test('patterns are compiled on the thread: problems come back, a compile past its deadline is refused', async (t) => {
  const problems = await judges.checkPatterns(['^ok$', '(a)\\1', '(?=x)']);
  t.equal(problems[0], undefined);
  t.match(problems[1], /Backreferences/);
  t.match(problems[2], /Lookaround/);
  const late = await judges.checkPatterns(['[a-z]{0,100}'.repeat(100), 'x'], 50);
  t.match(late[0], /took longer than 0\.05 s/);
  t.match(late[1], /earlier pattern/);
});
