// The limits lift for the very next request: on free, the 4th twin and AI generation answer 402;
// after checkout and upgrade the same requests succeed.

import t from 'tap';
import { startBillingControlPlane, upgradeWithCard, waitBillingReady } from './helpers.js';
import { waitReady } from '../orchestration/helpers.js';

t.test('402 → upgrade → the 4th twin starts on the very next request', async (t) => {
  const cp = await startBillingControlPlane();
  t.teardown(() => cp.stop());
  const admin = await cp.token({ email: 'ada@example.com', org: 'initech', role: 'admin' });
  await waitBillingReady(cp, admin);
  const env = await cp.call('POST', '/environments', {
    token: admin,
    body: { name: 'three', twins: [{ twin: 'stripe' }, { twin: 'github' }, { twin: 'slack' }] },
  });
  t.equal(env.status, 201);
  await waitReady(cp, admin, env.body.id, 60_000);
  const fourth = await cp.call('POST', `/environments/${env.body.id}/twins`, { token: admin, body: { twin: 'stripe' } });
  t.equal(fourth.status, 402, 'the free plan allows three');
  t.match(fourth.body.detail, /max_parallel_twins/);
  const seed = await cp.call('POST', '/seeds', { token: admin, body: { name: 's', twin: 'stripe', prompt: 'two customers' } });
  t.equal(seed.status, 402, 'no AI generation on free');

  const summary = await upgradeWithCard(cp, admin);
  t.match(summary, { plan: 'paygo', max_parallel_twins: null, active_twins: 3 });
  const now = await cp.call('POST', `/environments/${env.body.id}/twins`, { token: admin, body: { twin: 'stripe' } });
  t.equal(now.status, 201, 'the limit lifted at once');
  t.equal((await cp.call('POST', '/seeds', { token: admin, body: { name: 's', twin: 'stripe', prompt: 'two customers' } })).status, 201);
  const ready = await waitReady(cp, admin, env.body.id, 60_000);
  t.equal(ready.twins.length, 4);
  t.equal((await cp.call('GET', '/organizations/current/billing', { token: admin })).body.active_twins, 4);
});
