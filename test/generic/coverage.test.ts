// The coverage matrices: COVERAGE.md is what the code and the operation table give today (a change
// to routes or spec without `npm run gen:coverage` fails here), hand-written routes show as
// `modelled`, and the control plane serves the matrix at GET /twins/catalog/{slug}/coverage.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { coverageMarkdown, coveragePath } from '../../scripts/gen/coverage.js';
import { coverageOf, summarize } from '../../twin-runtime/generic/coverage.js';
import { templateShape } from '../../twin-runtime/path-template.js';
import { TWIN_SLUGS, loadTwin } from '../../twin-runtime/registry.js';
import { startTestControlPlane } from '../helpers/control-plane.js';

for (const slug of TWIN_SLUGS) {
  t.test(`${slug}: COVERAGE.md is current`, async (t) => {
    t.ok(readFileSync(coveragePath(slug), 'utf8') === (await coverageMarkdown(slug)), `twins/${slug}/COVERAGE.md (run npm run gen:coverage if not)`);
  });

  t.test(`${slug}: every hand-written route of a spec operation is modelled, nothing else is`, async (t) => {
    const def = await loadTwin(slug);
    const rows = coverageOf(def);
    const hand = new Set(def.routes.map((r) => `${r.method} ${templateShape(r.path)}`));
    const modelled = rows.filter((r) => r.status === 'modelled');
    t.ok(modelled.length > 30, `${modelled.length} modelled operations`);
    for (const r of rows) {
      const isHand = hand.has(`${r.method} ${templateShape(r.path)}`);
      if (isHand !== (r.status === 'modelled')) t.fail(`${r.method} ${r.path} is ${r.status} but ${isHand ? 'has' : 'has no'} hand-written route`);
    }
    for (const r of rows) if (r.status === 'not_served' && !r.reason) t.fail(`${r.method} ${r.path} is not served without a reason`);
    const sum = summarize(def);
    t.comment(`${slug}: ${sum.modelled} modelled, ${sum.generic} generic, ${sum.not_served} not served; counted ${sum.served}/${sum.counted}`);
  });
}

t.test('GET /twins/catalog/{slug}/coverage', async (t) => {
  const cp = await startTestControlPlane();
  t.teardown(() => cp.stop());
  const token = await cp.token({});
  const anonymous = await cp.call('GET', '/twins/catalog/stripe/coverage');
  t.equal(anonymous.status, 401, 'needs a credential like the other catalog routes');
  const unknown = await cp.call('GET', '/twins/catalog/nope/coverage', { token });
  t.equal(unknown.status, 404);
  t.match(unknown.body, { detail: String });
  const res = await cp.call('GET', '/twins/catalog/github/coverage', { token });
  t.equal(res.status, 200);
  t.ok(Array.isArray(res.body) && res.body.length > 1000, `${res.body.length} rows`);
  const row = res.body.find((r: { operation_id: string }) => r.operation_id === 'repos/create-release');
  t.same(row, { method: 'POST', path: '/repos/{owner}/{repo}/releases', operation_id: 'repos/create-release', status: 'generic' });
  const modelled = res.body.find((r: { operation_id: string }) => r.operation_id === 'repos/get');
  t.equal(modelled.status, 'modelled');
  const excluded = res.body.find((r: { path: string }) => r.path.startsWith('/enterprises/'));
  t.equal(excluded.status, 'not_served');
  t.type(excluded.reason, 'string');
  const doc = await cp.call('GET', '/openapi.json');
  t.equal(doc.body.paths['/twins/catalog/{twin_slug}/coverage'].get.operationId, 'getCatalogTwinCoverage');
});
