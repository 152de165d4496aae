// The coverage matrices: COVERAGE.md is what the code and the operation table give today (a change
// to routes or spec without `npm run gen:coverage` fails here), hand-written routes show as
// `modelled`, and the control plane serves the matrix at GET /twins/catalog/{slug}/coverage.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { coverageMarkdown, coveragePath } from '../../scripts/gen/coverage.js';
import { coverageOf, summarize } from '../../twin-runtime/generic/coverage.js';
import { templateShape } from '../../twin-runtime/path-template.js';
import { TWIN_SLUGS, loadTwin } from '../../twin-runtime/registry.js';
import { FIDELITY_LEVELS, isFidelityLevel } from '../../twin-runtime/fidelity.js';
import { startTestControlPlane } from '../helpers/control-plane.js';

for (const slug of TWIN_SLUGS) {
  // A twin without a spec-driven layer or an operation table of its own has nothing to measure against.
  if (!(await loadTwin(slug)).generic && !(await loadTwin(slug)).operationTable) {
    t.test(`${slug}: coverage`, { skip: `${slug} has no spec-driven layer yet, so no operation table and no COVERAGE.md` }, () => {});
    continue;
  }
  t.test(`${slug}: COVERAGE.md is current`, async (t) => {
    t.ok(readFileSync(coveragePath(slug), 'utf8') === (await coverageMarkdown(slug)), `twins/${slug}/COVERAGE.md (run npm run gen:coverage if not)`);
  });

  if ((await loadTwin(slug)).operationTable) {
    t.test(`${slug}: every root field has a level, refused ones say why`, async (t) => {
      const rows = coverageOf(await loadTwin(slug));
      const modelled = rows.filter((r) => r.level === 'modelled');
      t.ok(modelled.length > 8, `${modelled.length} of ${rows.length} root fields modelled`);
      t.ok(rows.length > modelled.length, 'the schema has more root fields than the twin models');
      for (const r of rows) if (r.level === 'unsupported' && !r.reason) t.fail(`${r.operation_id} is unsupported without a reason`);
      t.ok(
        rows.every((r) => r.level === 'modelled' || r.level === 'unsupported'),
        'modelled or refused: nothing is stored or inferred without a spec-driven layer',
      );
    });
    continue;
  }

  t.test(`${slug}: every hand-written route of a spec operation is modelled, nothing else is`, async (t) => {
    const def = await loadTwin(slug);
    const rows = coverageOf(def);
    const hand = new Set(def.routes.map((r) => `${r.method} ${templateShape(r.path)}`));
    const modelled = rows.filter((r) => r.status === 'modelled');
    // The first three twins model dozens of operations each; the model-provider twins a smaller surface.
    const floor = ['stripe', 'github', 'slack'].includes(slug) ? 30 : 8;
    t.ok(modelled.length > floor, `${modelled.length} modelled operations`);
    for (const r of rows) {
      const isHand = hand.has(`${r.method} ${templateShape(r.path)}`);
      // Modelled without a route of its own: another hand-written route answers its URL, or the provider removed it.
      const answeredElsewhere = r.level === 'modelled' && /answered by the hand-written route|unknown URL/i.test(r.reason ?? '');
      if (isHand !== (r.level === 'modelled') && !answeredElsewhere)
        t.fail(`${r.method} ${r.path} is ${r.level} but ${isHand ? 'has' : 'has no'} hand-written route`);
      if (!isFidelityLevel(r.level) || r.status !== r.level) t.fail(`${r.method} ${r.path}: level ${r.level}, status ${r.status}`);
    }
    for (const r of rows) if (r.level === 'unsupported' && !r.reason) t.fail(`${r.method} ${r.path} is unsupported without a reason`);
    const sum = summarize(def);
    t.equal(sum.modelled + sum.inferred + sum.stored + sum.unsupported, rows.length, 'every row counted at one level');
    t.comment(`${slug}: ${FIDELITY_LEVELS.map((l) => `${sum[l]} ${l}`).join(', ')}; simulated of the counted surface ${sum.served}/${sum.counted}`);
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
  const row = res.body.find((r: { operation_id: string }) => r.operation_id === 'repos/create-autolink');
  t.match(row, {
    method: 'POST',
    path: '/repos/{owner}/{repo}/autolinks',
    operation_id: 'repos/create-autolink',
    level: 'inferred',
    status: 'inferred',
    reason: /owner/,
  });
  const modelled = res.body.find((r: { operation_id: string }) => r.operation_id === 'repos/get');
  t.same([modelled.level, modelled.status], ['modelled', 'modelled']);
  const excluded = res.body.find((r: { path: string }) => r.path.startsWith('/enterprises/'));
  t.equal(excluded.level, 'unsupported');
  t.type(excluded.reason, 'string');
  const computed = res.body.find((r: { operation_id: string }) => r.operation_id === 'agent-tasks/list-tasks');
  t.match(computed, { level: 'unsupported', reason: /computed/ });
  // Then the twin's MCP tools (github-mcp-server's published list), each at the level of its operations.
  const tools = res.body.filter((r: { method: string }) => r.method === 'MCP');
  t.ok(tools.length > 100, `${tools.length} MCP tool rows`);
  t.match(
    tools.find((r: { operation_id: string }) => r.operation_id === 'create_issue'),
    { path: '/mcp', level: 'modelled', reason: /POST \/repos\/\{owner\}\/\{repo\}\/issues/ },
  );
  t.match(
    tools.find((r: { operation_id: string }) => r.operation_id === 'assign_copilot_to_issue'),
    { level: 'unsupported' },
  );
  const entry = await cp.call('GET', '/twins/catalog/github', { token });
  t.match(entry.body.mcp, { server: 'github-mcp-server', version: /^v\d/, tools: tools.length, simulated: Number });
  t.equal((await cp.call('GET', '/twins/catalog/twilio', { token })).body.mcp, null, 'a twin without an MCP server says so');
  const jira = await cp.call('GET', '/twins/catalog/jira/coverage', { token });
  t.equal(jira.status, 200);
  t.ok(Array.isArray(jira.body) && jira.body.length > 400, `jira: ${jira.body.length} rows`);
  t.match(
    jira.body.find((r: { operation_id: string }) => r.operation_id === 'createIssue'),
    { method: 'POST', path: '/rest/api/3/issue', level: 'modelled' },
  );
  t.match(
    jira.body.find((r: { operation_id: string }) => r.operation_id === 'getAutoCompletePost'),
    { level: 'unsupported', reason: /Jira computes/ },
  );
  // A GraphQL twin: its rows are the schema's root fields.
  const linear = await cp.call('GET', '/twins/catalog/linear/coverage', { token });
  t.equal(linear.status, 200);
  t.ok(Array.isArray(linear.body) && linear.body.length > 500, `linear: ${linear.body.length} rows`);
  t.match(
    linear.body.find((r: { operation_id: string }) => r.operation_id === 'Mutation.issueCreate'),
    { method: 'POST', path: '/graphql', level: 'modelled' },
  );
  t.match(
    linear.body.find((r: { operation_id: string }) => r.operation_id === 'Query.notifications'),
    { level: 'unsupported', reason: /TWIN_UNSUPPORTED_FIELD/ },
  );
  const doc = await cp.call('GET', '/openapi.json');
  t.equal(doc.body.paths['/twins/catalog/{twin_slug}/coverage'].get.operationId, 'getCatalogTwinCoverage');
});
