// Every operation walked over HTTP against a twin on loopback (the twin's own URL, not through the
// gateway): the share of each provider's surface that does not answer the route miss (Stripe
// `Unrecognized request URL`, GitHub's route 404, Slack `unknown_method`), and every generic
// operation a scripted walk reaches answering what the spec's response schema describes (ajv +
// ajv-formats).

import t from 'tap';
import { prepareFixtures, schemaWalk, servedWalk } from '../../scripts/bench/walk.js';
import { startTwin } from '../helpers/twin.js';

/** Done-when floors: Stripe ≥ 95 %, GitHub ≥ 90 %, Slack ≥ 90 %. */
const FLOOR: Record<string, number> = { stripe: 0.95, github: 0.9, slack: 0.9 };

for (const slug of ['stripe', 'github', 'slack']) {
  t.test(`${slug}: share of the surface served`, async (t) => {
    const twin = await startTwin(slug);
    t.teardown(() => twin.close());
    const walk = await servedWalk(twin, slug, await prepareFixtures(twin, slug));
    t.ok(walk.counted > 150, `${walk.counted} operations counted`);
    const share = walk.served / walk.counted;
    t.comment(`${slug}: ${walk.served}/${walk.counted} served (${(100 * share).toFixed(1)} %)`);
    t.ok(share >= FLOOR[slug]!, `${(100 * share).toFixed(1)} % ≥ ${100 * FLOOR[slug]!} %`, { misses: walk.misses.slice(0, 20) });
  });

  t.test(`${slug}: generic answers match the spec's response schemas`, async (t) => {
    const twin = await startTwin(slug);
    t.teardown(() => twin.close());
    const walk = await schemaWalk(twin, slug, await prepareFixtures(twin, slug));
    t.comment(
      `${slug}: ${walk.walked} generic operations walked, ${walk.reached} answered 2xx with a body, ${walk.valid} valid, ${walk.noBody} without a body or schema, ${walk.refused.length} refused by their preconditions`,
    );
    // At least a third of what is walked: as operations become modelled, fewer are left generic
    // (Slack: 114 generic methods, 42 reachable by a scripted walk).
    t.ok(walk.reached >= 30 && walk.reached >= walk.walked / 3, `${walk.reached} of ${walk.walked} answers checked`);
    t.same(walk.failures, [], 'every checked answer validates');
    t.equal(walk.valid, walk.reached);
  });
}
