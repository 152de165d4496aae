// An environment's fidelity and clock (decisions §15) through the API, the twins and a restart: the
// options round-trip and reach every twin; a living clock runs with wall time, and every advance,
// reset and restart leaves the environment and each twin at exactly the same offset from wall
// time; a frozen environment answers byte for byte the same on a second run; the request log keeps
// each answer's Twin-Fidelity level and filters on it.

import t, { type Test } from 'tap';
import { advanceSettled, startOrchestratedControlPlane, stripe, waitFor, waitReady } from './helpers.js';
import { environmentPosition, twinPosition } from '../../control-plane/orchestration/clock.js';
import type { TestControlPlane } from '../helpers/control-plane.js';

// It restarts a control plane and its twins once: on a loaded machine that is slow.
t.setTimeout(300_000);
let cp: TestControlPlane = await startOrchestratedControlPlane({ defaultPlan: 'paygo' });
t.teardown(() => cp.stop());
let token = await cp.token({});

/** Each ready twin's clock health, and the environment row, for comparing positions. */
async function clocks(envId: string) {
  const o = cp.services.orchestration;
  const env = o.store.environmentById(envId)!;
  const twins = await Promise.all(o.store.twinsOf(envId).map((tw) => o.admin.health(tw.address!, tw.admin_secret)));
  return { env, twins };
}

/** Every twin at the environment's own position: the same instant (frozen) or the same offset from wall time (living). */
async function aligned(t: Test, envId: string, what: string): Promise<void> {
  const { env, twins } = await clocks(envId);
  t.ok(twins.length > 0, 'the environment has twins');
  t.same(
    twins.map((h) => twinPosition(env.clock_mode, h)),
    twins.map(() => environmentPosition(env)),
    `${what}: every twin at the environment's ${env.clock_mode === 'living' ? 'offset from wall time' : 'instant'}`,
  );
}

t.test('the options: defaults, round trip, refusals, and every twin gets them', async (t) => {
  const plain = await cp.call('POST', '/environments', { token, body: { name: 'defaults', twins: [{ twin: 'stripe' }] } });
  t.equal(plain.status, 201);
  t.match(plain.body, { fidelity: 'strict', clock_mode: 'living' }, 'strict and living unless asked');
  const chosen = await cp.call('POST', '/environments', {
    token,
    body: { name: 'chosen', twins: [{ twin: 'stripe' }, { twin: 'slack' }], fidelity: 'lenient', clock: 'frozen' },
  });
  t.equal(chosen.status, 201);
  t.match(chosen.body, { fidelity: 'lenient', clock_mode: 'frozen' });
  for (const body of [
    { name: 'x', twins: [{ twin: 'stripe' }], fidelity: 'loose' },
    { name: 'x', twins: [{ twin: 'stripe' }], clock: 'stopped' },
  ]) {
    const refused = await cp.call('POST', '/environments', { token, body });
    t.equal(refused.status, 422, `${JSON.stringify(body)} is refused`);
  }
  const env = await waitReady(cp, token, chosen.body.id, 60_000);
  t.match(env, { fidelity: 'lenient', clock_mode: 'frozen' }, 'kept on the resource');
  const listed = (await cp.call('GET', '/environments', { token })).body.items.find((e: { id: string }) => e.id === env.id);
  t.match(listed, { fidelity: 'lenient', clock_mode: 'frozen' }, 'and in the list');
  const { twins } = await clocks(env.id);
  t.same(
    twins.map((h) => [h.clock_mode, h.fidelity]),
    [
      ['frozen', 'lenient'],
      ['frozen', 'lenient'],
    ],
    'each twin started with them',
  );
  await waitReady(cp, token, plain.body.id, 60_000);
  t.same(
    (await clocks(plain.body.id)).twins.map((h) => [h.clock_mode, h.fidelity]),
    [['living', 'strict']],
  );
});

t.test('a living clock runs with wall time; advance and reset keep every twin at the same offset; a restart resumes it', async (t) => {
  const created = await cp.call('POST', '/environments', {
    token,
    body: { name: 'living', twins: [{ twin: 'stripe' }, { twin: 'github' }], fidelity: 'lenient' },
  });
  const env = await waitReady(cp, token, created.body.id, 60_000);
  // It starts at the creation instant (and has run on a little by the time the answer is made).
  const start = Date.parse(created.body.created_at);
  t.ok(Date.parse(created.body.clock) - start >= 0 && Date.parse(created.body.clock) - start < 1_000, 'it starts at the creation instant');
  await aligned(t, env.id, 'once ready');

  const stripeTwin = env.twins.find((x: { twin_slug: string }) => x.twin_slug === 'stripe');
  const key = (await cp.call('POST', `/twins/${stripeTwin.id}/credential`, { token })).body.api_key as string;
  const before = Date.now();
  const customer = (await stripe(stripeTwin.url, key, 'POST', '/v1/customers', { email: 'now@example.com' })).body;
  t.ok(customer.created >= Math.floor(start / 1000) && customer.created <= Math.ceil(Date.now() / 1000), '`created` is now, not the creation instant');
  t.ok(Date.parse((await cp.call('GET', `/environments/${env.id}`, { token })).body.clock) >= before, 'the resource reads the clock now');

  const at = new Date(Date.now() + 30 * 86_400_000);
  const advanced = await advanceSettled(cp, token, await cp.call('POST', `/environments/${env.id}/advance`, { token, body: { at: at.toISOString() } }));
  t.equal(advanced.status, 200);
  const after = Date.parse((await cp.call('GET', `/environments/${env.id}`, { token })).body.clock);
  t.ok(after >= at.getTime() && after < at.getTime() + 60_000, 'after an advance it runs on from the instant reached');
  await aligned(t, env.id, 'after an advance');
  const back = await cp.call('POST', `/environments/${env.id}/advance`, { token, body: { at: new Date(at.getTime() - 1000).toISOString() } });
  t.equal(back.status, 409, 'an earlier instant is refused');

  const reset = await cp.call('POST', `/environments/${env.id}/reset`, { token });
  t.equal(reset.status, 200);
  const sinceStart = Date.parse(reset.body.clock) - start;
  t.ok(sinceStart >= 0 && sinceStart < 60_000, `reset: back to the start, running again (${sinceStart} ms on)`);
  await aligned(t, env.id, 'after a reset');
  t.equal((await stripe(stripeTwin.url, key, 'GET', '/v1/customers')).body.data.length, 0, 'records gone');
  t.equal((await advanceSettled(cp, token, await cp.call('POST', `/environments/${env.id}/advance`, { token, body: { at: at.toISOString() } }))).status, 200);
  const offset = environmentPosition(cp.services.orchestration.store.environmentById(env.id)!);

  // The control plane restarts (its process-driver twins with it): settings kept, clocks resumed.
  const dataDir = cp.dataDir;
  await cp.stop({ keepData: true });
  cp = await startOrchestratedControlPlane({ defaultPlan: 'paygo', dataDir });
  token = await cp.token({});
  const again = await waitReady(cp, token, env.id, 60_000);
  t.match(again, { fidelity: 'lenient', clock_mode: 'living' }, 'the settings outlive a restart');
  t.equal(environmentPosition(cp.services.orchestration.store.environmentById(env.id)!), offset, 'the environment kept its offset');
  await aligned(t, env.id, 'after a restart');
  t.same(
    (await clocks(env.id)).twins.map((h) => [h.clock_mode, h.fidelity]),
    [
      ['living', 'lenient'],
      ['living', 'lenient'],
    ],
    'and the twins got them again',
  );
});

t.test('a frozen environment answers byte for byte the same on a second run', async (t) => {
  const created = await cp.call('POST', '/environments', { token, body: { name: 'frozen', twins: [{ twin: 'stripe' }], clock: 'frozen' } });
  const env = await waitReady(cp, token, created.body.id, 60_000);
  const twin = env.twins[0];
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key as string;
  const run = async () => {
    const texts: string[] = [];
    const call = async (method: string, path: string, form?: Record<string, string>) => {
      const res = await fetch(twin.url + path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body: form ? new URLSearchParams(form).toString() : undefined,
      });
      texts.push(`${res.status} ${await res.text()}`);
    };
    await call('POST', '/v1/customers', { email: 'ada@example.com', name: 'Ada' });
    await call('POST', '/v1/products', { name: 'Pro' });
    await new Promise((r) => setTimeout(r, 1_100)); // wall time passes: a frozen clock does not see it
    await call('POST', '/v1/customers', { email: 'bob@example.com' });
    await call('GET', '/v1/customers?limit=10');
    return texts;
  };
  const first = await run();
  t.equal(first.length, 4);
  t.ok(
    first.every((x) => x.startsWith('200 ')),
    'every call answered',
  );
  t.equal((await cp.call('POST', `/environments/${env.id}/reset`, { token })).status, 200);
  t.same(await run(), first, 'the second run is byte-identical');
  t.equal((await cp.call('GET', `/environments/${env.id}`, { token })).body.clock, created.body.clock, 'and the clock never moved');
});

t.test('the request log keeps each answer’s fidelity level and filters on it', async (t) => {
  const created = await cp.call('POST', '/environments', { token, body: { name: 'logged', twins: [{ twin: 'stripe' }] } });
  const env = await waitReady(cp, token, created.body.id, 60_000);
  const twin = env.twins[0];
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key as string;
  const answer = await fetch(`${twin.url}/v1/customers`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(answer.headers.get('twin-fidelity'), 'modelled', 'the gateway passes the header on');
  await answer.text();
  const admin = await fetch(`${twin.url}/_twin/health`);
  t.equal(admin.status, 404, "an answer of the gateway's own");
  await admin.text();

  const all = await waitFor('both entries', async () => {
    const res = await cp.call('GET', `/environments/${env.id}/logs`, { token });
    return res.body.total === 2 ? res.body : undefined;
  });
  t.same(
    all.items.map((r: { path: string; fidelity: string | null }) => [r.path, r.fidelity]),
    [
      ['/_twin/health', null],
      ['/v1/customers', 'modelled'],
    ],
    "the twin's level, none for the gateway's own answer",
  );
  const modelled = (await cp.call('GET', `/environments/${env.id}/logs?fidelity=modelled`, { token })).body;
  t.same(
    modelled.items.map((r: { path: string }) => r.path),
    ['/v1/customers'],
  );
  t.equal(modelled.total, 1);
  t.same((await cp.call('GET', `/environments/${env.id}/logs?fidelity=unsupported`, { token })).body, { items: [], total: 0, page: 1, size: 50, pages: 0 });
  t.equal((await cp.call('GET', `/environments/${env.id}/logs?fidelity=perfect`, { token })).status, 422, 'an unknown level is refused');
  const entry = (await cp.call('GET', `/environments/${env.id}/logs/${modelled.items[0].id}`, { token })).body;
  t.equal(entry.fidelity, 'modelled', 'one entry in full carries it too');
});
