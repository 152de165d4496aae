// The seeds and scenarios areas through the real control plane: plan gating, the Seed fields,
// the worker's lifecycle (including a crash left mid-generation), nonsense prompts, usability
// across storage versions, deleting seeds in use, and scenario CRUD.

import t from 'tap';
import { existsSync, statSync } from 'node:fs';
import { startTestControlPlane, type TestControlPlane } from '../helpers/control-plane.js';
import { SeedStore } from '../../control-plane/store/seeds.js';
import { seedFilePath } from '../../control-plane/seeds/files.js';

const EXAMPLE =
  'A Stripe account with 40 customers, 12 on the Pro monthly plan, 3 of them past due, and a customer named Ana Lima with two charges of $42, one a duplicate';

async function paygo(cp: TestControlPlane, org: string): Promise<string> {
  const token = await cp.token({ email: `admin@${org}.example.com`, org, role: 'admin' });
  // First call creates the organization from the token's claims; then move it to pay as you go.
  await cp.call('GET', '/seeds', { token });
  cp.services.db.prepare("UPDATE organizations SET plan = 'paygo' WHERE external_id = ?").run(org);
  return token;
}

async function settled(cp: TestControlPlane, token: string, id: string): Promise<any> {
  await cp.services.seedWorker.idle();
  for (let i = 0; i < 200; i++) {
    const res = await cp.call('GET', `/seeds/${id}`, { token });
    if (res.body.status === 'ready' || res.body.status === 'failed') return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('seed did not settle');
}

t.test('seeds API', async (t) => {
  const cp = await startTestControlPlane({ defaultPlan: 'free' });
  t.teardown(() => cp.stop());

  await t.test('a free plan cannot generate seeds (402)', async (t) => {
    const token = await cp.token({ email: 'ada@free.example.com', org: 'free-org', role: 'admin' });
    const res = await cp.call('POST', '/seeds', { token, body: { name: 'x', twin: 'stripe', prompt: '3 customers' } });
    t.equal(res.status, 402);
    t.match(res.body.detail, /AI generation/);
    t.same((await cp.call('GET', '/seeds', { token })).body, [], 'nothing was created');
  });

  const token = await paygo(cp, 'acme');

  await t.test('validation: unknown twin, missing prompt, extra field', async (t) => {
    const res = await cp.call('POST', '/seeds', { token, body: { name: 'x', twin: 'paypal', extra: 1 } });
    t.equal(res.status, 422);
    const types = res.body.detail.map((d: any) => `${d.loc.join('.')}:${d.type}`).sort();
    t.same(types, ['body.extra:extra_forbidden', 'body.prompt:missing', 'body.twin:enum']);
    const bad = await cp.call('GET', '/seeds/not-a-uuid', { token });
    t.equal(bad.status, 422);
    t.equal(bad.body.detail[0].type, 'uuid_parsing');
  });

  let seedId = '';
  await t.test('the issue example: 201 pending, then ready with every field filled', async (t) => {
    const res = await cp.call('POST', '/seeds', { token, body: { name: 'Billing demo', twin: 'stripe', prompt: EXAMPLE } });
    t.equal(res.status, 201);
    t.equal(res.body.status, 'pending');
    t.equal(res.body.usable, true);
    t.equal(res.body.failure, null);
    t.equal(res.body.completed_at, null);
    t.equal(res.body.size_bytes, 0);
    t.equal(res.body.twin_version, '1.0.0');
    seedId = res.body.id;
    const seed = await settled(cp, token, seedId);
    t.equal(seed.status, 'ready', seed.failure ?? 'ready');
    t.equal(seed.usable, true);
    t.equal(seed.name, 'Billing demo');
    t.equal(seed.prompt, EXAMPLE);
    t.equal(seed.size_bytes, statSync(seedFilePath(cp.dataDir, seedId)).size, 'size_bytes is the file size');
    t.ok(Date.parse(seed.completed_at) >= Date.parse(seed.created_at));
    const row = new SeedStore(cp.services.db).byId(seedId)!;
    const plan = JSON.parse(row.plan!);
    t.equal(plan.groups.length, 6, 'the plan is stored with the seed');
    t.equal(row.planner, 'builtin');
    t.equal(row.clock, '2026-02-01T02:00:00.000Z', 'the clock advanced past the failed renewal');
  });

  await t.test('list, filter by twin, and 404 across organizations', async (t) => {
    const list = await cp.call('GET', '/seeds', { token });
    t.same(
      list.body.map((s: any) => s.id),
      [seedId],
    );
    t.same((await cp.call('GET', '/seeds?twin=github', { token })).body, []);
    t.equal((await cp.call('GET', '/seeds?twin=stripe', { token })).body.length, 1);
    const other = await paygo(cp, 'globex');
    t.equal((await cp.call('GET', `/seeds/${seedId}`, { token: other })).status, 404);
    t.equal((await cp.call('DELETE', `/seeds/${seedId}`, { token: other })).status, 404);
    t.same((await cp.call('GET', '/seeds', { token: other })).body, []);
  });

  await t.test('suggestions', async (t) => {
    const all = await cp.call('GET', '/seeds/suggestions', { token });
    t.equal(all.status, 200);
    const stripe = all.body.filter((s: any) => s.twin === 'stripe');
    t.ok(stripe.length >= 5);
    t.ok(stripe.some((s: any) => s.prompt === EXAMPLE));
    const only = await cp.call('GET', '/seeds/suggestions?twin=stripe', { token });
    t.same(only.body, stripe);
  });

  await t.test('a nonsense prompt fails with a sentence naming what was not understood', async (t) => {
    const res = await cp.call('POST', '/seeds', { token, body: { name: 'n', twin: 'stripe', prompt: 'purple elephants dancing on the moon' } });
    t.equal(res.status, 201);
    const seed = await settled(cp, token, res.body.id);
    t.equal(seed.status, 'failed');
    t.match(seed.failure, /could not use "purple elephants dancing moon"/);
    t.match(seed.failure, /customer/, 'and says what it does understand');
    t.equal(seed.usable, false);
    t.ok(seed.completed_at);
    t.notOk(existsSync(seedFilePath(cp.dataDir, res.body.id)), 'no file is kept');
  });

  await t.test('a seed generated for an older storage version is not usable', async (t) => {
    cp.services.db.prepare('UPDATE seeds SET storage_version = 0 WHERE id = ?').run(seedId);
    t.equal((await cp.call('GET', `/seeds/${seedId}`, { token })).body.usable, false);
    cp.services.db.prepare('UPDATE seeds SET storage_version = 1 WHERE id = ?').run(seedId);
    t.equal((await cp.call('GET', `/seeds/${seedId}`, { token })).body.usable, true);
  });

  await t.test('scenarios: CRUD, paging newest first, and a seed in use cannot be deleted', async (t) => {
    const created = await cp.call('POST', '/scenarios', {
      token,
      body: { name: 'Billing', description: 'Stripe with the demo seed', twins: [{ twin: 'stripe', seed_id: seedId }, { twin: 'slack' }] },
    });
    t.equal(created.status, 201);
    t.same(created.body.twins, [
      { twin: 'stripe', seed_id: seedId },
      { twin: 'slack', seed_id: null },
    ]);
    t.equal(created.body.description, 'Stripe with the demo seed');
    const id = created.body.id;

    const wrongTwin = await cp.call('POST', '/scenarios', { token, body: { name: 'x', twins: [{ twin: 'github', seed_id: seedId }] } });
    t.equal(wrongTwin.status, 409);
    const unknownSeed = await cp.call('POST', '/scenarios', {
      token,
      body: { name: 'x', twins: [{ twin: 'stripe', seed_id: '00000000-0000-4000-8000-000000000000' }] },
    });
    t.equal(unknownSeed.status, 404);
    t.equal((await cp.call('POST', '/scenarios', { token, body: { name: 'x', twins: [] } })).status, 422);

    const second = await cp.call('POST', '/scenarios', { token, body: { name: 'Second', twins: [{ twin: 'github' }] } });
    const page = await cp.call('GET', '/scenarios?size=1', { token });
    t.same([page.body.total, page.body.pages, page.body.items[0].id], [2, 2, second.body.id], 'newest first');

    const del = await cp.call('DELETE', `/seeds/${seedId}`, { token });
    t.equal(del.status, 409);
    t.match(del.body.detail, /'Billing'/);

    const patched = await cp.call('PATCH', `/scenarios/${id}`, { token, body: { name: 'Billing v2', twins: [{ twin: 'stripe' }] } });
    t.equal(patched.status, 200);
    t.equal(patched.body.name, 'Billing v2');
    t.same(patched.body.twins, [{ twin: 'stripe', seed_id: null }]);
    t.equal(patched.body.description, 'Stripe with the demo seed', 'untouched fields kept');

    const other = await paygo(cp, 'initech');
    t.equal((await cp.call('GET', `/scenarios/${id}`, { token: other })).status, 404);
    t.equal((await cp.call('DELETE', `/scenarios/${id}`, { token })).status, 204);
    t.equal((await cp.call('GET', `/scenarios/${id}`, { token })).status, 404);

    const gone = await cp.call('DELETE', `/seeds/${seedId}`, { token });
    t.equal(gone.status, 204);
    t.notOk(existsSync(seedFilePath(cp.dataDir, seedId)), 'the file is removed');
    t.equal((await cp.call('GET', `/seeds/${seedId}`, { token })).status, 404);
  });
});

t.test('a generation interrupted by a crash is picked up at the next start', async (t) => {
  const first = await startTestControlPlane();
  const token = await paygo(first, 'crashco');
  const org = first.services.db.prepare("SELECT id FROM organizations WHERE external_id = 'crashco'").get() as { id: string };
  // What a crash mid-generation leaves: a row marked running and a partial file beside it.
  const store = new SeedStore(first.services.db);
  const row = store.create({ orgId: org.id, name: 'crashed', twin: 'stripe', prompt: '5 customers on the Pro monthly plan', twinVersion: '1.0.0' });
  store.markRunning(row.id);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${seedFilePath(first.dataDir, row.id)}.partial`, 'half a file');
  await first.stop({ keepData: true });

  const second = await startTestControlPlane({ dataDir: first.dataDir });
  t.teardown(() => second.stop());
  const seed = await settled(second, token, row.id);
  t.equal(seed.status, 'ready', seed.failure ?? 'ready');
  t.ok(seed.size_bytes > 0);
  t.notOk(existsSync(`${seedFilePath(first.dataDir, row.id)}.partial`), 'the partial file is gone');
  t.equal(new SeedStore(second.services.db).byId(row.id)!.attempts, 2, 'second attempt');
});
