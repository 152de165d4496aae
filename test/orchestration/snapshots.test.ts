// Snapshots, forks and diffs of environments (issue 38, decisions §13), end to end with twin child
// processes and the official Stripe SDK: a snapshot, then one record updated, one deleted and one
// created, and the diff names exactly those three (with the changed field); a fork answers the same
// records as its parent and diverges independently; an environment starts from a snapshot; a
// snapshot in use is not deleted, and one of another storage version is refused with a sentence.

import t from 'tap';
import Stripe from 'stripe';
import { existsSync } from 'node:fs';
import { startOrchestratedControlPlane, waitReady } from './helpers.js';
import type { TestControlPlane } from '../helpers/control-plane.js';

async function stripeOf(cp: TestControlPlane, token: string, env: any): Promise<Stripe> {
  const twin = env.twins[0];
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const url = new URL(twin.url);
  return new Stripe(key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
}

const ids = (list: { id: string }[]) => list.map((c) => c.id).sort();

t.test('snapshots, forks and diffs', async (t) => {
  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ email: 'ada@snap.example.com', org: 'snap', role: 'admin' });
  await cp.call('GET', '/environments', { token });
  cp.services.db.prepare("UPDATE organizations SET plan = 'paygo' WHERE external_id = 'snap'").run();

  const created = await cp.call('POST', '/environments', { token, body: { name: 'parent', twins: [{ twin: 'stripe' }] } });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const parent = await waitReady(cp, token, created.body.id);
  const stripe = await stripeOf(cp, token, parent);
  const kept = await stripe.customers.create({ name: 'Kept', email: 'kept@example.com' });
  const renamed = await stripe.customers.create({ name: 'Before', email: 'renamed@example.com' });
  const removed = await stripe.customers.create({ name: 'Removed' });

  const snap = await cp.call('POST', `/environments/${parent.id}/snapshots`, { token, body: { name: 'before the agent' } });
  t.equal(snap.status, 201, JSON.stringify(snap.body));
  const s = snap.body;
  t.equal(s.name, 'before the agent');
  t.equal(s.environment_id, parent.id);
  t.equal(s.twins.length, 1);
  t.equal(s.twins[0].twin_id, parent.twins[0].id);
  t.equal(s.twins[0].twin_slug, 'stripe');
  t.ok(s.twins[0].size_bytes > 0 && s.size_bytes === s.twins[0].size_bytes, 'the size is the files');
  t.ok(Math.abs(Date.parse(s.clock) - Date.parse(parent.clock)) < 120_000, 'the clock is the environment clock');
  t.equal(s.clock_mode, 'living');
  t.same((await cp.call('GET', `/snapshots/${s.id}`, { token })).body, s);
  t.equal(
    (await cp.call('GET', '/organizations/current/billing', { token })).body.storage_bytes,
    s.size_bytes,
    "a snapshot counts toward the organization's storage",
  );

  // What the "agent" does: one record updated, one deleted, one created.
  await stripe.customers.update(renamed.id, { name: 'After' });
  await stripe.customers.del(removed.id);
  const added = await stripe.customers.create({ name: 'Added' });

  const diff = await cp.call('GET', `/environments/${parent.id}/diff?snapshot_id=${s.id}`, { token });
  t.equal(diff.status, 200, JSON.stringify(diff.body));
  t.same(diff.body, {
    twins: [
      {
        twin_id: parent.twins[0].id,
        added: [{ resource: 'customer', external_id: added.id }],
        changed: [{ resource: 'customer', external_id: renamed.id, fields: ['name'] }],
        removed: [{ resource: 'customer', external_id: removed.id }],
        truncated: false,
      },
    ],
  });
  const bounded = await cp.call('GET', `/environments/${parent.id}/diff?snapshot_id=${s.id}&limit=1`, { token });
  t.equal(bounded.body.twins[0].added.length + bounded.body.twins[0].changed.length + bounded.body.twins[0].removed.length, 1);
  t.equal(bounded.body.twins[0].truncated, true, 'a bounded diff says it is cut short');
  t.equal((await cp.call('GET', `/environments/${parent.id}/diff`, { token })).status, 422, 'a diff needs a snapshot');
  t.equal((await cp.call('GET', `/environments/${parent.id}/diff?snapshot_id=${s.id}&from=${s.id}`, { token })).status, 422);

  // A fork answers the same records (and clock) as its parent, then diverges independently.
  const forked = await cp.call('POST', `/environments/${parent.id}/fork`, { token, body: { name: 'child' } });
  t.equal(forked.status, 201, JSON.stringify(forked.body));
  t.equal(forked.body.name, 'child');
  t.equal(forked.body.clock_mode, parent.clock_mode);
  const child = await waitReady(cp, token, forked.body.id);
  t.not(child.twins[0].id, parent.twins[0].id);
  t.ok(Math.abs(Date.parse(child.clock) - Date.parse((await cp.call('GET', `/environments/${parent.id}`, { token })).body.clock)) < 60_000);
  const childStripe = await stripeOf(cp, token, child);
  const parentList = (await stripe.customers.list({ limit: 100 })).data;
  const childList = (await childStripe.customers.list({ limit: 100 })).data;
  t.equal(parentList.length, 3);
  t.same(childList, parentList, 'the fork answers the same records');
  const onlyInChild = await childStripe.customers.create({ name: 'Only in the fork' });
  await stripe.customers.update(kept.id, { name: 'Changed in the parent' });
  t.same(ids((await stripe.customers.list({ limit: 100 })).data), ids(parentList), 'the parent does not see the fork');
  t.equal(((await childStripe.customers.retrieve(kept.id)) as Stripe.Customer).name, 'Kept', 'the fork does not see the parent');
  t.ok(ids((await childStripe.customers.list({ limit: 100 })).data).includes(onlyInChild.id));

  // The fork's twin is compared with the snapshot twin it continues.
  const childDiff = (await cp.call('GET', `/environments/${child.id}/diff?snapshot_id=${s.id}`, { token })).body;
  t.equal(childDiff.twins.length, 1);
  t.equal(childDiff.twins[0].twin_id, child.twins[0].id);
  t.same(childDiff.twins[0].added.map((r: any) => r.external_id).sort(), [added.id, onlyInChild.id].sort());
  t.same(childDiff.twins[0].removed, [{ resource: 'customer', external_id: removed.id }]);

  const listed = await cp.call('GET', `/environments/${parent.id}/snapshots?size=10`, { token });
  t.equal(listed.status, 200);
  t.equal(listed.body.total, 2, 'the snapshot and the fork');
  t.equal(listed.body.items[1].id, s.id, 'newest first');
  const forkSnapshot = listed.body.items[0];
  t.equal(forkSnapshot.name, 'fork: child');
  const between = (await cp.call('GET', `/environments/${parent.id}/diff?from=${s.id}&to=${forkSnapshot.id}`, { token })).body;
  t.same(between.twins[0].changed, [{ resource: 'customer', external_id: renamed.id, fields: ['name'] }], 'two snapshots compare too');

  // An environment starts from a snapshot: its records and clock.
  const fromSnap = await cp.call('POST', '/environments', { token, body: { name: 'from the snapshot', snapshot_id: s.id } });
  t.equal(fromSnap.status, 201, JSON.stringify(fromSnap.body));
  const third = await waitReady(cp, token, fromSnap.body.id);
  t.ok(Date.parse(third.clock) - Date.parse(s.clock) < 60_000, `it starts at the snapshot's clock (${third.clock} vs ${s.clock})`);
  const thirdStripe = await stripeOf(cp, token, third);
  const thirdList = (await thirdStripe.customers.list({ limit: 100 })).data;
  t.same(ids(thirdList), [kept.id, renamed.id, removed.id].sort());
  t.equal(thirdList.find((c) => c.id === renamed.id)?.name, 'Before');
  const emptyDiff = (await cp.call('GET', `/environments/${third.id}/diff?snapshot_id=${s.id}`, { token })).body;
  t.same(emptyDiff.twins[0], { twin_id: third.twins[0].id, added: [], changed: [], removed: [], truncated: false }, 'no change since the start');
  // Its reset returns to the snapshot.
  await thirdStripe.customers.create({ name: 'Gone after the reset' });
  const reset = await cp.call('POST', `/environments/${third.id}/reset`, { token });
  t.equal(reset.status, 200, JSON.stringify(reset.body));
  const resetStripe = await stripeOf(cp, token, await waitReady(cp, token, third.id));
  t.same(ids((await resetStripe.customers.list({ limit: 100 })).data), ids(thirdList), 'reset goes back to the snapshot');

  // Another organization sees none of it.
  const other = await cp.token({ email: 'bob@other.example.com', org: 'other', role: 'admin' });
  t.equal((await cp.call('GET', `/snapshots/${s.id}`, { token: other })).status, 404);
  t.equal((await cp.call('POST', '/environments', { token: other, body: { name: 'x', snapshot_id: s.id } })).status, 404);

  // A snapshot in use stays; once unused it goes with its files.
  const refused = await cp.call('DELETE', `/snapshots/${s.id}`, { token });
  t.equal(refused.status, 409);
  t.match(refused.body.detail, /starting point/);
  t.equal((await cp.call('DELETE', `/environments/${third.id}`, { token })).status, 204);
  t.equal((await cp.call('DELETE', `/snapshots/${s.id}`, { token })).status, 204);
  t.equal((await cp.call('GET', `/snapshots/${s.id}`, { token })).status, 404);
  t.notOk(existsSync(`${cp.dataDir}/snapshots/${s.id}`), 'its files are gone');

  // A snapshot written in another storage version is refused with a sentence, like a seed.
  cp.services.db.prepare("UPDATE snapshots SET twins = json_replace(twins, '$[0].storage_version', 0) WHERE id = ?").run(forkSnapshot.id);
  const stale = await cp.call('POST', '/environments', { token, body: { name: 'stale', snapshot_id: forkSnapshot.id } });
  t.equal(stale.status, 409);
  t.match(stale.body.detail, /storage version 0/);
});
