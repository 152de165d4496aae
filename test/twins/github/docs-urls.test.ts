// twins/github/spec/docs-urls.json is generated from @octokit/openapi; it must match what the
// generator writes today (run `node --import=tsx scripts/gen/github-docs-urls.ts` after an upgrade).

import t from 'tap';
import { readFileSync } from 'node:fs';
import { render } from '../../../scripts/gen/github-docs-urls.js';

t.test('the checked-in table is the generator\'s output', async (t) => {
  const file = readFileSync(new URL('../../../twins/github/spec/docs-urls.json', import.meta.url), 'utf8');
  const table = JSON.parse(file) as { operations: Record<string, string> };
  t.ok(Object.keys(table.operations).length > 1000, 'every operation has its page');
  t.equal(table.operations['GET /repos/{owner}/{repo}/issues'], 'https://docs.github.com/rest/issues/issues#list-repository-issues');
  t.equal(file, render(), 'stale: regenerate with scripts/gen/github-docs-urls.ts');
});
