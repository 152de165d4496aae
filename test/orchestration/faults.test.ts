// Fault injection per twin (issue 38), end to end with twin child processes and the official
// Stripe SDK: a 30 % seeded rate-limit fault on `POST /v1/customers`; the SDK's own retries (it
// retries a 429 Stripe marks `Stripe-Should-Retry: true`) create every customer, the request log
// names the fault on each answer it made, and a second environment started the same way (empty,
// the same seeded source) sees exactly the same requests fail. Then Stripe's shape of the answer,
// a dropped connection through the gateway, the fault's CRUD and bad input.

import t, { type Test } from 'tap';
import Stripe from 'stripe';
import { startOrchestratedControlPlane, waitFor, waitReady } from './helpers.js';
import type { TestControlPlane } from '../helpers/control-plane.js';

const CUSTOMERS = 20;

async function stripeOf(cp: TestControlPlane, token: string, env: any): Promise<Stripe> {
  const twin = env.twins[0];
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const url = new URL(twin.url);
  const stripe = new Stripe(key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 10 });
  // The SDK's own retry decision, with its back-off shortened so the test stays fast (it waits ≥ 0.5 s otherwise).
  (stripe as unknown as { getInitialNetworkRetryDelay: () => number }).getInitialNetworkRetryDelay = () => 0.005;
  (stripe as unknown as { getMaxNetworkRetryDelay: () => number }).getMaxNetworkRetryDelay = () => 0.02;
  return stripe;
}

/** The environment's `POST /v1/customers` log entries, oldest first. */
async function customerPosts(cp: TestControlPlane, token: string, envId: string): Promise<any[]> {
  const res = await cp.call('GET', `/environments/${envId}/logs?size=100`, { token });
  return (res.body.items as any[]).filter((r) => r.method === 'POST' && r.path === '/v1/customers').reverse();
}

/** One environment, one 30 % rate-limit fault, CUSTOMERS creates through the SDK: the statuses its log saw. */
async function run(t: Test, cp: TestControlPlane, token: string, name: string): Promise<{ statuses: number[]; faultId: string; env: any }> {
  const created = await cp.call('POST', '/environments', { token, body: { name, twins: [{ twin: 'stripe' }] } });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const env = await waitReady(cp, token, created.body.id);
  const fault = await cp.call('POST', `/environments/${env.id}/faults`, {
    token,
    body: {
      twin_id: env.twins[0].id,
      match: { method: 'post', path: '/v1/customers' },
      effect: { type: 'rate_limit', retry_after_seconds: 0 },
      probability: 0.3,
    },
  });
  t.equal(fault.status, 201, JSON.stringify(fault.body));
  t.match(fault.body, {
    id: /^flt_/,
    environment_id: env.id,
    twin_id: env.twins[0].id,
    match: { method: 'POST', path: '/v1/customers' },
    effect: { type: 'rate_limit', retry_after_seconds: 0 },
    probability: 0.3,
  });

  const stripe = await stripeOf(cp, token, env);
  const ids: string[] = [];
  for (let i = 0; i < CUSTOMERS; i++) ids.push((await stripe.customers.create({ name: `Customer ${i}` })).id);
  t.equal(new Set(ids).size, CUSTOMERS, "every create succeeded through the SDK's retries");
  const listed = await stripe.customers.list({ limit: 100 });
  t.equal(listed.data.length, CUSTOMERS, 'each customer was created once (a rate-limited request changed nothing)');

  const posts = await customerPosts(cp, token, env.id);
  t.ok(posts.length > CUSTOMERS, `some requests were rate limited and retried (${posts.length} requests for ${CUSTOMERS} customers)`);
  const limited = posts.filter((p) => p.status_code === 429);
  t.equal(limited.length, posts.length - CUSTOMERS, 'every extra request is a rate-limited one');
  t.ok(limited.length > 0, 'the fault struck');
  for (const p of limited) t.equal(p.fault, `${fault.body.id} rate_limit`, 'the log names the fault');
  for (const p of posts.filter((q) => q.status_code !== 429)) t.equal(p.fault, null);
  return { statuses: posts.map((p) => p.status_code), faultId: fault.body.id, env };
}

t.test('a seeded rate-limit fault', async (t) => {
  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ email: 'ada@faults.example.com', org: 'faults', role: 'admin' });
  await cp.call('GET', '/environments', { token });
  cp.services.db.prepare("UPDATE organizations SET plan = 'paygo' WHERE external_id = 'faults'").run();

  // The provider's own answer, seen through the gateway by a client without retries.
  const first = await run(t, cp, token, 'first');
  const second = await run(t, cp, token, 'second');
  t.same(second.statuses, first.statuses, 'the same seed: the same requests fail');

  // Stripe's shape of the fault's answer.
  const twin = first.env.twins[0];
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const always = await cp.call('POST', `/environments/${first.env.id}/faults`, {
    token,
    body: { twin_id: twin.id, match: { path: '/v1/products' }, effect: { type: 'rate_limit', retry_after_seconds: 2 } },
  });
  t.equal(always.status, 201);
  t.equal(always.body.probability, 1, 'the probability defaults to 1');
  const limited = await fetch(`${twin.url}/v1/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: new URLSearchParams({ name: 'X' }),
  });
  t.equal(limited.status, 429);
  t.equal(limited.headers.get('retry-after'), '2');
  t.equal(limited.headers.get('stripe-should-retry'), 'true');
  t.equal(limited.headers.get('twin-fault'), `${always.body.id} rate_limit`);
  t.match(await limited.json(), { error: { type: 'invalid_request_error', code: 'rate_limit', message: /rate limit/ } });

  // A dropped connection through the gateway: the client's connection closes, the log names the fault with no status.
  const dropped = await cp.call('POST', `/environments/${first.env.id}/faults`, {
    token,
    body: { twin_id: twin.id, match: { method: 'GET', path: '/v1/balance' }, effect: { type: 'drop' } },
  });
  t.equal(dropped.status, 201);
  await t.rejects(fetch(`${twin.url}/v1/balance`, { headers: { authorization: `Bearer ${key}` } }), 'the connection is closed without an answer');
  const logged = await waitFor('the dropped request logged', async () => {
    const items = (await cp.call('GET', `/environments/${first.env.id}/logs?size=5`, { token })).body.items as any[];
    return items.find((r) => r.path === '/v1/balance');
  });
  t.equal(logged.status_code, null);
  t.equal(logged.fault, `${dropped.body.id} drop`);
  t.equal((await cp.call('DELETE', `/environments/${first.env.id}/faults/${dropped.body.id}`, { token })).status, 204);

  // List, one, delete.
  const list = await cp.call('GET', `/environments/${first.env.id}/faults`, { token });
  t.equal(list.status, 200);
  t.same(
    list.body.items.map((f: any) => f.id),
    [first.faultId, always.body.id],
  );
  t.equal((await cp.call('GET', `/environments/${first.env.id}/faults/${always.body.id}`, { token })).body.effect.retry_after_seconds, 2);
  t.equal((await cp.call('DELETE', `/environments/${first.env.id}/faults/${always.body.id}`, { token })).status, 204);
  t.equal((await cp.call('GET', `/environments/${first.env.id}/faults/${always.body.id}`, { token })).status, 404);
  const after = await fetch(`${twin.url}/v1/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: new URLSearchParams({ name: 'X' }),
  });
  t.equal(after.status, 200, 'a deleted fault strikes no more');
  t.equal(after.headers.get('twin-fault'), null);
  t.equal((await cp.call('GET', `/environments/${second.env.id}/faults/${first.faultId}`, { token })).status, 404, "another environment's fault is not found");

  // Bad input: 422 with the field named, before anything reaches the twin.
  for (const body of [
    { twin_id: twin.id, effect: { type: 'rate_limit' }, probability: 0 },
    { twin_id: twin.id, effect: { type: 'explode' } },
    { twin_id: twin.id, effect: { type: 'latency', ms: 600_000 } },
    { twin_id: twin.id, match: { path: 'no-slash' }, effect: { type: 'drop' } },
  ]) {
    const res = await cp.call('POST', `/environments/${first.env.id}/faults`, { token, body });
    t.equal(res.status, 422, JSON.stringify(body));
  }
  const unknownTwin = await cp.call('POST', `/environments/${first.env.id}/faults`, {
    token,
    body: { twin_id: second.env.twins[0].id, effect: { type: 'drop' } },
  });
  t.equal(unknownTwin.status, 404, "a twin of another environment is not this environment's");
});
