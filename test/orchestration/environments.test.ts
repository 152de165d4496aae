import t from 'tap';
import Stripe from 'stripe';
import { advanceSettled, startOrchestratedControlPlane, stripe, waitFor, waitReady } from './helpers.js';
import type { ProcessDriver } from '../../control-plane/orchestration/drivers/process.js';

t.test('an environment with a Stripe twin: ready, credential, gateway, records, logs, isolation', async (t) => {
  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const a = await cp.token({ email: 'ada@example.com', org: 'org-a' });
  const b = await cp.token({ email: 'bob@example.com', org: 'org-b' });

  const created = await cp.call('POST', '/environments', { token: a, body: { name: 'Checkout flow', twins: [{ twin: 'stripe' }] } });
  t.equal(created.status, 201);
  t.equal(created.body.twins.length, 1);
  t.equal(created.body.twins[0].twin_slug, 'stripe');
  t.match(created.body.status, /^(provisioning|ready)$/);
  const envId = created.body.id;
  const env = await waitReady(cp, a, envId);
  const twin = env.twins[0];
  t.equal(twin.state, 'ready');
  t.ok(twin.ready_at, 'ready_at is filled in');
  t.match(twin.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const cred = await cp.call('POST', `/twins/${twin.id}/credential`, { token: a });
  t.equal(cred.status, 200);
  t.match(cred.body.api_key, /^sk_test_/);
  const key = cred.body.api_key;

  const made = await stripe(twin.url, key, 'POST', '/v1/customers', { email: 'jenny@example.com' });
  t.equal(made.status, 200);
  t.match(made.body.id, /^cus_/);
  const got = await stripe(twin.url, key, 'GET', `/v1/customers/${made.body.id}`);
  t.equal(got.body.email, 'jenny@example.com');
  t.equal((await stripe(twin.url, 'sk_test_wrong', 'GET', '/v1/customers')).status, 401, 'another key is refused');

  // The official SDK, pointed at the twin URL, works unchanged.
  const gateway = new URL(twin.url);
  const sdk = new Stripe(key, { host: gateway.hostname, port: Number(gateway.port), protocol: 'http', maxNetworkRetries: 0 });
  const viaSdk = await sdk.customers.create({ email: 'sdk@example.com', name: 'Via SDK' });
  t.match(viaSdk.id, /^cus_/);
  t.equal(((await sdk.customers.retrieve(viaSdk.id)) as Stripe.Customer).email, 'sdk@example.com');
  await sdk.customers.del(viaSdk.id);

  // The admin API is never reachable through the gateway, with or without the secret.
  for (const p of ['/_twin/health', '/_twin/credential', '/_twin/records/customer', '//_twin/health', '/%5Ftwin/health']) {
    const res = await fetch(twin.url + p, { headers: { 'x-twin-admin-secret': 'guess' } });
    t.equal(res.status, 404, `${p} is 404 through the gateway`);
    t.notMatch(await res.text(), /sk_test_/);
  }

  // Records: list, PUT seen at once by the twin's own API, unknown kinds 404, delete.
  const records = await cp.call('GET', `/environments/${envId}/twins/${twin.id}/records/customer`, { token: a });
  t.equal(records.status, 200);
  t.same(
    records.body.map((r: any) => r.external_id),
    [made.body.id, viaSdk.id],
    'insertion order (a deleted customer is kept, as Stripe does)',
  );
  const replaced = await cp.call('PUT', `/environments/${envId}/twins/${twin.id}/records/customer/${made.body.id}`, {
    token: a,
    body: { fields: { ...got.body, email: 'changed@example.com', name: 'Changed' } },
  });
  t.equal(replaced.status, 200);
  t.equal(replaced.body.body.email, 'changed@example.com');
  const seen = await stripe(twin.url, key, 'GET', `/v1/customers/${made.body.id}`);
  t.equal(seen.body.email, 'changed@example.com', 'the twin serves the replaced record at once');
  t.equal((await cp.call('GET', `/environments/${envId}/twins/${twin.id}/records/widgets`, { token: a })).status, 404);
  t.equal((await cp.call('DELETE', `/environments/${envId}/twins/${twin.id}/records/customer/cus_missing`, { token: a })).status, 404);

  // Logs: every gateway request, newest first, with the contract's fields.
  const logs = await cp.call('GET', `/environments/${envId}/logs?size=100`, { token: a });
  t.equal(logs.status, 200);
  t.equal(logs.body.total, 12, 'three raw calls, three SDK calls, five refused admin paths, the read after PUT');
  t.equal(logs.body.items[0].path, `/v1/customers/${made.body.id}`);
  t.equal(logs.body.items.at(-1).method, 'POST');
  t.equal(logs.body.items.at(-1).status_code, 200);
  t.same(Object.keys(logs.body.items[0]).sort(), [
    'duration_ms',
    'environment_id',
    'environment_twin_id',
    'fault',
    'fidelity',
    'id',
    'method',
    'occurred_at',
    'path',
    'query_string',
    'status_code',
  ]);
  const stored = cp.services.orchestration.requestLogs.page(envId, 100, 0).at(-1)!;
  t.equal(stored.actor, 'agent');
  t.match(stored.request_body, /email=jenny%40example.com/);
  t.match(stored.response_body, /"email":\s*"jenny@example.com"/);
  t.notMatch(stored.request_headers, /authorization|sk_test/i, 'no credentials in stored headers');

  // Organization B sees nothing of A's.
  const sandboxId = env.sandbox_id;
  for (const [method, path] of [
    ['GET', `/environments/${envId}`],
    ['PATCH', `/environments/${envId}`],
    ['GET', `/environments/${envId}/logs`],
    ['GET', `/sandboxes/${sandboxId}`],
    ['GET', `/twins/${twin.id}`],
    ['POST', `/twins/${twin.id}/credential`],
    ['POST', `/twins/${twin.id}/advance`],
    ['GET', `/environments/${envId}/twins/${twin.id}/records/customer`],
    ['DELETE', `/environments/${envId}`],
  ] as const) {
    const res = await cp.call(method, path, { token: b, body: method === 'PATCH' ? { name: 'x' } : undefined });
    t.equal(res.status, 404, `org B: ${method} ${path}`);
  }
  t.equal((await cp.call('GET', '/environments', { token: b })).body.total, 0);
  t.equal((await cp.call('GET', '/sandboxes', { token: a })).body.items[0].id, sandboxId);

  // A second environment's twin refuses the first twin's key.
  const other = await cp.call('POST', '/environments', { token: b, body: { name: 'B', twins: [{ twin: 'stripe' }] } });
  const otherEnv = await waitReady(cp, b, other.body.id);
  const otherUrl = otherEnv.twins[0].url;
  t.equal((await stripe(otherUrl, key, 'GET', '/v1/customers')).status, 401, "one twin's key is refused by another");
  const otherKey = (await cp.call('POST', `/twins/${otherEnv.twins[0].id}/credential`, { token: b })).body.api_key;
  t.not(otherKey, key);
  t.equal((await stripe(otherUrl, otherKey, 'GET', '/v1/customers')).body.data.length, 0, 'twins do not share records');

  // Advance: forward moves the clock, backward is 409.
  const at = new Date(Date.parse(env.clock) + 86_400_000).toISOString();
  const adv = await advanceSettled(cp, a, await cp.call('POST', `/twins/${twin.id}/advance`, { token: a, body: { at } }));
  t.equal(adv.status, 200);
  t.same(adv.body, {}, 'a finished advance answers {}');
  // A living clock (the default) runs on from the instant the advance reached.
  const clockAfter = Date.parse((await cp.call('GET', `/environments/${envId}`, { token: a })).body.clock);
  t.ok(clockAfter >= Date.parse(at) && clockAfter < Date.parse(at) + 60_000, 'the clock moved to the instant and runs on');
  const back = await cp.call('POST', `/twins/${twin.id}/advance`, { token: a, body: { at: env.clock } });
  t.equal(back.status, 409);

  // Delete tears the twin down.
  const pid = (cp.services.orchestration.driver as ProcessDriver).pidOf(twin.id)!;
  t.equal((await cp.call('DELETE', `/environments/${envId}`, { token: a })).status, 204);
  t.equal((await cp.call('GET', `/environments/${envId}`, { token: a })).status, 404);
  t.throws(() => process.kill(pid, 0), 'the twin process is gone');
  // Its request log goes with it: no row listed at once, none left in the file soon after.
  t.equal(cp.services.orchestration.requestLogs.count(envId), 0);
  await waitFor('log rows purged', async () => {
    const n = (cp.services.db.prepare('SELECT COUNT(*) AS n FROM request_logs WHERE environment_id = ?').get(envId) as { n: number }).n;
    return n === 0;
  });
  await waitFor('gateway closed', async () => (await fetch(twin.url).catch(() => undefined)) === undefined);
});
