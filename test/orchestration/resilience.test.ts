import t from 'tap';
import { advanceSettled, startOrchestratedControlPlane, stripe, waitFor, waitReady } from './helpers.js';
import type { ProcessDriver } from '../../control-plane/orchestration/drivers/process.js';

t.test('SIGKILL a twin: the reconciler restarts it, records survive, a new key is minted', async (t) => {
  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ org: 'crashy' });
  const created = await cp.call('POST', '/environments', { token, body: { name: 'crash', twins: [{ twin: 'stripe' }] } });
  const env = await waitReady(cp, token, created.body.id);
  const twin = env.twins[0];
  const oldKey = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const made = await stripe(twin.url, oldKey, 'POST', '/v1/customers', { email: 'survivor@example.com' });
  t.equal(made.status, 200);

  const driver = cp.services.orchestration.driver as ProcessDriver;
  const pid = driver.pidOf(twin.id)!;
  process.kill(pid, 'SIGKILL');
  const degraded = await waitFor('status leaves ready', async () => {
    const res = await cp.call('GET', `/environments/${env.id}`, { token });
    return res.body.status !== 'ready' ? res.body : undefined;
  });
  t.match(degraded.status, /^(degraded|provisioning)$/);
  const back = await waitReady(cp, token, env.id);
  t.not(driver.pidOf(twin.id), pid, 'a new process');
  t.equal(back.twins[0].url, twin.url, 'same gateway URL');
  const newKey = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  t.not(newKey, oldKey, 'a new key is minted');
  t.equal((await stripe(twin.url, oldKey, 'GET', `/v1/customers/${made.body.id}`)).status, 401, 'the old key is refused');
  const got = await stripe(twin.url, newKey, 'GET', `/v1/customers/${made.body.id}`);
  t.equal(got.status, 200);
  t.equal(got.body.email, 'survivor@example.com', 'records survive the crash');
});

t.test('a twin that does not answer its health check in time is degraded, then restarted with its records', async (t) => {
  // Short deadlines for the test (read when the orchestration is built).
  const settings = {
    TWINS_TWIN_HEALTH_DEADLINE_MS: '2000',
    TWINS_TWIN_HEALTH_INTERVAL_MS: '200',
    TWINS_TWIN_RESTART_GRACE_MS: '2000',
    TWINS_RECONCILE_MS: '200',
  };
  const before = Object.fromEntries(Object.keys(settings).map((k) => [k, process.env[k]]));
  Object.assign(process.env, settings);
  const cp = await startOrchestratedControlPlane();
  for (const [k, v] of Object.entries(before))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  t.teardown(() => cp.stop());
  const token = await cp.token({ org: 'busy' });
  const created = await cp.call('POST', '/environments', { token, body: { name: 'busy', twins: [{ twin: 'stripe' }] } });
  const env = await waitReady(cp, token, created.body.id, 60_000);
  const twin = env.twins[0];
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const made = await stripe(twin.url, key, 'POST', '/v1/customers', { email: 'committed@example.com' });
  t.equal(made.status, 200);

  // A twin whose event loop is held answers nothing: stopping its process is the same to a caller.
  const driver = cp.services.orchestration.driver as ProcessDriver;
  const pid = driver.pidOf(twin.id)!;
  process.kill(pid, 'SIGSTOP');
  t.teardown(() => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // restarted: gone
    }
  });
  const degraded = await waitFor(
    'the twin reported degraded',
    async () => {
      const res = await cp.call('GET', `/environments/${env.id}`, { token });
      return res.body.twins[0].state === 'degraded' ? res.body : undefined;
    },
    30_000,
  );
  t.equal(degraded.status, 'degraded', 'the environment says so');
  t.match(degraded.twins[0].failure, /did not answer \d+ health checks in a row within 2000 ms/, 'and why');
  t.equal((await waitReady(cp, token, env.id, 60_000)).status, 'ready', 'ready again');
  t.not(driver.pidOf(twin.id), pid, 'restarted after the grace period: a new process');
  const newKey = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const got = await stripe(twin.url, newKey, 'GET', `/v1/customers/${made.body.id}`);
  t.equal(got.body.email, 'committed@example.com', 'no committed write lost');
});

t.test('control plane stop and start: environments and twins come back', async (t) => {
  const first = await startOrchestratedControlPlane();
  const dataDir = first.dataDir;
  const token = await first.token({ org: 'restarts' });
  const created = await first.call('POST', '/environments', { token, body: { name: 'durable', twins: [{ twin: 'stripe' }] } });
  const env = await waitReady(first, token, created.body.id);
  const twin = env.twins[0];
  const key = (await first.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const made = await stripe(twin.url, key, 'POST', '/v1/customers', { email: 'kept@example.com' });
  const oldPid = (first.services.orchestration.driver as ProcessDriver).pidOf(twin.id)!;
  await first.stop({ keepData: true });
  t.throws(() => process.kill(oldPid, 0), 'a clean stop stops its twins');

  const second = await startOrchestratedControlPlane({ dataDir });
  t.teardown(async () => {
    await second.stop();
  });
  const again = await waitReady(second, token, env.id);
  t.equal(again.twins[0].id, twin.id);
  t.equal(again.twins[0].url, twin.url, 'the gateway port is reused');
  const newKey = (await second.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const got = await stripe(twin.url, newKey, 'GET', `/v1/customers/${made.body.id}`);
  t.equal(got.body.email, 'kept@example.com');
  const logs = await second.call('GET', `/environments/${env.id}/logs`, { token });
  t.equal(logs.body.total, 2, 'the log written before the restart is kept (flushed on shutdown)');
});

t.test('orphans of a crashed control plane are found and stopped at start', async (t) => {
  const { ProcessDriver } = await import('../../control-plane/orchestration/drivers/process.js');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'twins-orphans-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // An earlier run's workload: started by a driver that then vanished without stopping it.
  const earlier = new ProcessDriver({ stateDir: join(dir, 'workloads') });
  const labels = { 'twins.managed-by': 'twins-control-plane', 'twins.twin-id': 'orphan-1' };
  const { address } = await earlier.start({
    twinId: 'orphan-1',
    environmentId: 'e',
    orgId: 'o',
    slug: 'stripe',
    dataFile: join(dir, 'orphan.sqlite'),
    clockStart: new Date(),
    adminSecret: 's',
    publicUrl: 'http://127.0.0.1:1',
    labels,
  });
  const pid = earlier.pidOf('orphan-1')!;
  t.equal((await fetch(address + '/_twin/health', { headers: { 'x-twin-admin-secret': 's' } })).status, 200);

  const later = new ProcessDriver({ stateDir: join(dir, 'workloads') });
  const found = await later.list({ 'twins.managed-by': 'twins-control-plane' });
  t.same(
    found.map((w) => [w.twinId, w.state]),
    [['orphan-1', 'running']],
    'a later driver finds it by label',
  );
  await later.stop('orphan-1');
  await waitFor('orphan gone', async () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  });
  t.same(await later.list({}), [], 'nothing left');
  await earlier.close();
});

t.test('1,000 requests through the gateway give 1,000 log entries', async (t) => {
  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ org: 'busy' });
  const created = await cp.call('POST', '/environments', { token, body: { name: 'busy', twins: [{ twin: 'stripe' }] } });
  const env = await waitReady(cp, token, created.body.id);
  const twin = env.twins[0];
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const statuses: number[] = [];
  for (let batch = 0; batch < 20; batch++) {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => stripe(twin.url, key, 'GET', `/v1/customers?limit=${((batch * 50 + i) % 10) + 1}`)));
    statuses.push(...results.map((r) => r.status));
  }
  t.equal(statuses.filter((s) => s === 200).length, 1000);
  const logs = await cp.call('GET', `/environments/${env.id}/logs?size=100&page=1`, { token });
  t.equal(logs.body.total, 1000);
  t.equal(logs.body.pages, 10);
  t.equal(logs.body.items.length, 100);
  const last = await cp.call('GET', `/environments/${env.id}/logs?size=100&page=11`, { token });
  t.same(last.body.items, []);
  t.equal((await cp.call('GET', `/environments/${env.id}/logs?size=101`, { token })).status, 422);
});

t.test('plan limits, expiry, add and remove twins, reset, scenarios, catalog, validation', async (t) => {
  const cp = await startOrchestratedControlPlane({ defaultPlan: 'free' });
  t.teardown(() => cp.stop());
  const token = await cp.token({ org: 'limits' });

  const catalog = await cp.call('GET', '/twins/catalog', { token });
  t.equal(catalog.status, 200);
  const stripeEntry = catalog.body.find((c: any) => c.slug === 'stripe');
  t.ok(stripeEntry, 'stripe is in the catalog');
  t.same(Object.keys(stripeEntry).sort(), ['description', 'mcp', 'name', 'sdk', 'slug', 'version']);
  t.match(stripeEntry.mcp, { server: '@stripe/agent-toolkit', version: String, tools: Number }, 'the catalog says which MCP server a twin mirrors');
  t.equal((await cp.call('GET', '/twins/catalog/stripe', { token })).body.slug, 'stripe');
  t.equal((await cp.call('GET', '/twins/catalog/paypal', { token })).status, 404);

  t.equal((await cp.call('POST', '/environments', { token, body: { name: 'none' } })).status, 422, 'twins or scenario required');
  t.equal((await cp.call('POST', '/environments', { token, body: { name: 'x', twins: [{ twin: 'paypal' }] } })).status, 422);
  const noScenario = await cp.call('POST', '/environments', { token, body: { name: 'x', scenario_id: '2b0f4c55-2a8b-4d6b-9d37-1a1d3f0b8f11' } });
  t.equal(noScenario.status, 404, 'unknown scenario');
  const noSeed = await cp.call('POST', '/environments', {
    token,
    body: { name: 'x', twins: [{ twin: 'stripe', seed_id: '2b0f4c55-2a8b-4d6b-9d37-1a1d3f0b8f11' }] },
  });
  t.equal(noSeed.status, 404, 'unknown seed');
  t.equal((await cp.call('GET', '/environments/not-a-uuid', { token })).status, 422);
  t.equal((await cp.call('GET', '/environments/2b0f4c55-2a8b-4d6b-9d37-1a1d3f0b8f11', { token })).status, 404);

  // free plan: 3 twins at once, environments live at most an hour.
  const env = await cp.call('POST', '/environments', { token, body: { name: 'two', twins: [{ twin: 'stripe' }, { twin: 'stripe' }], ttl_seconds: 7200 } });
  t.equal(env.status, 201);
  t.equal(Date.parse(env.body.expires_at) - Date.parse(env.body.created_at), 3600_000, 'expires_at capped by the plan');
  const over = await cp.call('POST', '/environments', { token, body: { name: 'over', twins: [{ twin: 'stripe' }, { twin: 'stripe' }] } });
  t.equal(over.status, 402);
  t.match(over.body.detail, /max_parallel_twins/);
  t.match(over.body.detail, /at most 3 twins/);
  const ready = await waitReady(cp, token, env.body.id);
  const added = await cp.call('POST', `/environments/${env.body.id}/twins`, { token, body: { twin: 'stripe' } });
  t.equal(added.status, 201);
  t.equal((await cp.call('POST', `/environments/${env.body.id}/twins`, { token, body: { twin: 'stripe' } })).status, 402);
  await waitReady(cp, token, env.body.id);
  t.equal((await cp.call('DELETE', `/environments/${env.body.id}/twins/${added.body.id}`, { token })).status, 204);
  const after = await cp.call('GET', `/environments/${env.body.id}`, { token });
  t.equal(after.body.twins.length, 2);
  t.equal((await cp.call('GET', `/twins/${added.body.id}`, { token })).status, 404);

  // Reset: records gone, clock back to its start.
  const twin = ready.twins[0];
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  await stripe(twin.url, key, 'POST', '/v1/customers', { email: 'gone@example.com' });
  const at = new Date(Date.parse(ready.clock) + 3600_000).toISOString();
  t.equal((await advanceSettled(cp, token, await cp.call('POST', `/twins/${twin.id}/advance`, { token, body: { at } }))).status, 200);
  const reset = await cp.call('POST', `/environments/${env.body.id}/reset`, { token });
  t.equal(reset.status, 200);
  // A living clock (the default) goes back to its start and runs on from there.
  const sinceStart = Date.parse(reset.body.clock) - Date.parse(env.body.clock);
  t.ok(sinceStart >= 0 && sinceStart < 120_000, `the clock is back at its start (${reset.body.clock})`);
  t.equal((await stripe(twin.url, key, 'GET', '/v1/customers')).body.data.length, 0);

  // PATCH: rename and shorten the lifetime; the reconciler expires it and stops its twins.
  const patched = await cp.call('PATCH', `/environments/${env.body.id}`, { token, body: { name: 'renamed', ttl_seconds: 1 } });
  t.equal(patched.status, 200);
  t.equal(patched.body.name, 'renamed');
  const expired = await waitFor('expired and stopped', async () => {
    const res = await cp.call('GET', `/environments/${env.body.id}`, { token });
    return res.body.status === 'expired' && res.body.twins.every((x: any) => x.state === 'stopped') ? res.body : undefined;
  });
  t.ok(expired.twins.every((x: any) => x.desired_state === 'stopped'));
  t.equal((await cp.call('POST', `/twins/${twin.id}/credential`, { token })).status, 409);
  const fresh = await cp.call('POST', '/environments', { token, body: { name: 'room again', twins: [{ twin: 'stripe' }] } });
  t.equal(fresh.status, 201, 'expired twins no longer count against the limit');
});
