import t from 'tap';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { startOrchestratedControlPlane, stripe, waitReady } from './helpers.js';
import { startTwin } from '../helpers/twin.js';
import { SeedStore } from '../../control-plane/store/seeds.js';
import { seedFilePath } from '../../control-plane/seeds/files.js';

t.test('a twin created from a seed starts with its records and clock; reset goes back to them', async (t) => {
  const cp = await startOrchestratedControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({ org: 'seeded' });
  await cp.call('GET', '/environments', { token });
  const orgId = (cp.services.db.prepare("SELECT id FROM organizations WHERE external_id = 'seeded'").get() as { id: string }).id;

  // A seed file written the way the seed worker writes one: a twin's own storage, then copied.
  const seedClock = new Date('2031-05-01T12:00:00Z');
  const source = await startTwin('stripe', { clockStart: seedClock });
  const seeded = await stripe(source.url, source.apiKey, 'POST', '/v1/customers', { email: 'seeded@example.com' });
  const seeds = new SeedStore(cp.services.db);
  const seed = seeds.create({ orgId, name: 'one customer', twin: 'stripe', prompt: 'one customer', twinVersion: source.server.twin.version });
  await source.server.close();
  const file = seedFilePath(cp.dataDir, seed.id);
  mkdirSync(dirname(file), { recursive: true });
  copyFileSync(source.dataFile, file);
  rmSync(dirname(source.dataFile), { recursive: true, force: true });
  seeds.markReady(seed.id, {
    planner: 'test',
    plan: {},
    twinVersion: source.server.twin.version,
    storageVersion: source.server.twin.storageVersion,
    sizeBytes: 1,
    recordCount: 1,
    clock: seedClock.toISOString(),
  });

  const wrongTwin = await cp.call('POST', '/environments', { token, body: { name: 'x', twins: [{ twin: 'github', seed_id: seed.id }] } });
  t.equal(wrongTwin.status, 409, 'a stripe seed cannot load into github');
  const created = await cp.call('POST', '/environments', { token, body: { name: 'from seed', twins: [{ twin: 'stripe', seed_id: seed.id }] } });
  t.equal(created.status, 201);
  // A living clock (the default) starts at the seed's frozen time and runs on from there.
  const sinceSeed = Date.parse(created.body.clock) - seedClock.getTime();
  t.ok(sinceSeed >= 0 && sinceSeed < 10_000, `the environment clock starts at the seed's frozen time (${created.body.clock})`);
  t.equal(created.body.twins[0].seed_id, seed.id);
  const env = await waitReady(cp, token, created.body.id);
  const twin = env.twins[0];
  const key = (await cp.call('POST', `/twins/${twin.id}/credential`, { token })).body.api_key;
  const got = await stripe(twin.url, key, 'GET', `/v1/customers/${seeded.body.id}`);
  t.equal(got.status, 200);
  t.equal(got.body.email, 'seeded@example.com', 'the twin holds the seed records');

  await stripe(twin.url, key, 'POST', '/v1/customers', { email: 'later@example.com' });
  t.equal((await stripe(twin.url, key, 'GET', '/v1/customers')).body.data.length, 2);
  const reset = await cp.call('POST', `/environments/${env.id}/reset`, { token });
  t.equal(reset.status, 200);
  const after = (await stripe(twin.url, key, 'GET', '/v1/customers')).body.data;
  t.same(
    after.map((c: any) => c.id),
    [seeded.body.id],
    'reset goes back to the seed',
  );
});
