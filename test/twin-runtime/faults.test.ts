// Fault injection in the twin runtime (issue 38): matching by method, path template and body
// field; each effect (the provider's rate limit and 5xx, latency, a dropped connection, answered
// to the gateway as a marked answer); the probability drawn from the twin's seeded source, the
// same for two twins of one seed and continued by a snapshot's copy; faults kept across a reset;
// bad faults refused. Each provider's own rate-limit shape: Stripe, GitHub, Slack, OpenAI.

import t, { type Test } from 'tap';
import { join } from 'node:path';
import { startTwin, type RunningTwin } from '../helpers/twin.js';

const admin = (twin: RunningTwin, method: string, path: string, body?: unknown) =>
  fetch(`${twin.url}/_twin/${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

let n = 0;
const fault = (fields: Record<string, unknown>) => ({ id: `flt_test${++n}`, match: {}, probability: 1, created_at: '2026-03-02T08:00:00.000Z', ...fields });

async function setFaults(t: Test, twin: RunningTwin, faults: unknown[]): Promise<void> {
  const res = await admin(twin, 'PUT', 'faults', { faults });
  t.equal(res.status, 200, await res.clone().text());
}

const stripeCall = (twin: RunningTwin, method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${twin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${twin.apiKey}`, ...headers },
    body: form ? new URLSearchParams(form) : undefined,
  });

t.test('effects and matching (Stripe)', async (t) => {
  const twin = await startTwin('stripe');
  t.teardown(() => twin.close());
  const boom = fault({ match: { method: 'POST', path: '/v1/customers', body: { name: 'Boom' } }, effect: { type: 'server_error' } });
  const slow = fault({ match: { method: 'GET', path: '/v1/customers/{customer}' }, effect: { type: 'latency', ms: 20, jitter_ms: 10 } });
  const drop = fault({ match: { method: 'DELETE' }, effect: { type: 'drop' } });
  await setFaults(t, twin, [boom, slow, drop]);
  t.same(((await (await admin(twin, 'GET', 'faults')).json()) as any).faults, [boom, slow, drop], 'kept as given');

  const fine = await stripeCall(twin, 'POST', '/v1/customers', { name: 'Fine' });
  t.equal(fine.status, 200, 'a body that does not match is answered');
  t.equal(fine.headers.get('twin-fault'), null);
  const customer = (await fine.json()) as { id: string };

  const failed = await stripeCall(twin, 'POST', '/v1/customers', { name: 'Boom' });
  t.equal(failed.status, 500);
  t.equal(failed.headers.get('twin-fault'), `${boom.id} server_error`);
  t.equal(failed.headers.get('stripe-should-retry'), 'true');
  t.match(await failed.json(), { error: { type: 'api_error', message: /unknown error/ } });
  const listed = (await (await stripeCall(twin, 'GET', '/v1/customers')).json()) as { data: unknown[] };
  t.equal(listed.data.length, 1, 'the route did not run: nothing was created');

  const delayed = await stripeCall(twin, 'GET', `/v1/customers/${customer.id}`);
  t.equal(delayed.status, 200, 'a latency fault delays the real answer');
  t.equal(delayed.headers.get('twin-fault'), `${slow.id} latency`);
  t.match(await delayed.json(), { id: customer.id });

  // Straight to the twin the connection closes; behind the gateway (X-Forwarded-Host) it gets the marked answer and closes its client's.
  await t.rejects(stripeCall(twin, 'DELETE', `/v1/customers/${customer.id}`), 'a dropped connection');
  const marked = await stripeCall(twin, 'DELETE', `/v1/customers/${customer.id}`, undefined, { 'x-forwarded-host': 'gateway' });
  t.equal(marked.status, 502);
  t.equal(marked.headers.get('twin-fault'), `${drop.id} drop`);
  t.equal((await stripeCall(twin, 'GET', `/v1/customers/${customer.id}`)).status, 200, 'the dropped delete ran nothing');

  // A reset keeps the faults (they are the environment's setting, not its records).
  t.equal((await admin(twin, 'POST', 'reset')).status, 200);
  t.equal(((await (await admin(twin, 'GET', 'faults')).json()) as any).faults.length, 3);
  t.equal((await stripeCall(twin, 'POST', '/v1/customers', { name: 'Boom' })).status, 500);

  // Bad faults: refused with a sentence, the list unchanged.
  for (const bad of [
    [fault({ effect: { type: 'explode' } })],
    [fault({ effect: { type: 'drop' }, probability: 0 })],
    [fault({ effect: { type: 'latency', ms: 120_000 } })],
    [fault({ effect: { type: 'drop' }, match: { path: 'x' } })],
    [{ ...fault({ effect: { type: 'drop' } }), id: '../etc' }],
    Array.from({ length: 51 }, () => fault({ effect: { type: 'drop' } })),
  ]) {
    const res = await admin(twin, 'PUT', 'faults', { faults: bad });
    t.equal(res.status, 400, JSON.stringify(bad).slice(0, 100));
    t.type(((await res.json()) as any).detail, 'string');
  }
  t.equal(((await (await admin(twin, 'GET', 'faults')).json()) as any).faults.length, 3);
  await setFaults(t, twin, []);
  t.equal((await stripeCall(twin, 'POST', '/v1/customers', { name: 'Boom' })).status, 200, 'no faults: answered');
});

t.test('the probability is drawn from the seeded source: the same for one seed, continued by a snapshot', async (t) => {
  const pattern = async (twin: RunningTwin, count: number) => {
    const out: number[] = [];
    for (let i = 0; i < count; i++) out.push((await stripeCall(twin, 'POST', '/v1/products', { name: `P${i}` })).status);
    return out;
  };
  const half = fault({ match: { path: '/v1/products' }, effect: { type: 'rate_limit' }, probability: 0.5 });
  const a = await startTwin('stripe');
  const b = await startTwin('stripe');
  t.teardown(() => Promise.all([a.close(), b.close()]));
  await setFaults(t, a, [half]);
  await setFaults(t, b, [half]);
  const first = await pattern(a, 20);
  t.ok(first.includes(429) && first.includes(200), `some fail, some pass: ${first.join(' ')}`);
  t.same(await pattern(b, 20), first, 'the same seed: the same requests fail');
  // Unmatched requests draw nothing: they do not shift the sequence.
  await stripeCall(a, 'GET', '/v1/products');

  const snap = await admin(a, 'POST', 'snapshot', { file: 'copy.sqlite' });
  t.equal(snap.status, 200);
  const copy = await startTwin('stripe', { seedFile: join(a.dataFile, '..', 'copy.sqlite') });
  t.teardown(() => copy.close());
  t.same(((await (await admin(copy, 'GET', 'faults')).json()) as any).faults, [half], 'the copy carries the faults');
  const next = await pattern(a, 10);
  t.same(await pattern(copy, 10), next, 'and continues the same draws');
});

t.test("each provider's rate limit", async (t) => {
  const cases: { slug: string; method: string; path: string; status: number; headers: string[]; body: RegExp }[] = [
    { slug: 'github', method: 'GET', path: '/user', status: 403, headers: ['retry-after'], body: /secondary rate limit/ },
    { slug: 'slack', method: 'POST', path: '/api/auth.test', status: 429, headers: ['retry-after'], body: /"error":"ratelimited"/ },
    {
      slug: 'openai',
      method: 'GET',
      path: '/v1/models',
      status: 429,
      headers: ['retry-after', 'x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests'],
      body: /"code":"rate_limit_exceeded"/,
    },
    { slug: 'sendgrid', method: 'GET', path: '/v3/scopes', status: 429, headers: ['retry-after'], body: /Too many requests/ },
  ];
  for (const c of cases) {
    const twin = await startTwin(c.slug);
    try {
      const f = fault({ match: { method: c.method, path: c.path }, effect: { type: 'rate_limit', retry_after_seconds: 7 } });
      await setFaults(t, twin, [f]);
      const res = await fetch(`${twin.url}${c.path}`, { method: c.method, headers: { authorization: `Bearer ${twin.apiKey}` } });
      t.equal(res.status, c.status, c.slug);
      for (const h of c.headers) t.ok(res.headers.get(h), `${c.slug}: ${h}`);
      t.equal(res.headers.get('retry-after'), '7', `${c.slug}: retry-after`);
      t.equal(res.headers.get('twin-fault'), `${f.id} rate_limit`);
      t.match(await res.text(), c.body, `${c.slug}: its own shape (sendgrid: the generic one)`);
    } finally {
      await twin.close();
    }
  }
});
