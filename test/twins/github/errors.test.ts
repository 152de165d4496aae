// Bad input gets GitHub's 4xx bodies (never a 500), and a refused request leaves nothing behind.

import t from 'tap';
import { startGitHub, failure } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;
await octokit.repos.createForAuthenticatedUser({ name: 'r', auto_init: true });

async function raw(method: string, path: string, body?: string): Promise<{ status: number; json: any }> {
  const res = await fetch(twin.url + path, {
    method,
    headers: { authorization: `token ${twin.apiKey}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, json: await res.json() };
}

t.test('malformed and mistyped bodies', async (t) => {
  // The last column: the operation's own page (its `externalDocs.url` in GitHub's OpenAPI), as GitHub answers.
  const cases: [string, string, string, number, RegExp, string][] = [
    [
      'POST',
      '/user/repos',
      '{not json',
      400,
      /^Problems parsing JSON$/,
      'https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user',
    ],
    ['POST', '/user/repos', '[1,2]', 400, /^Problems parsing JSON$/, 'https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user'],
    [
      'POST',
      '/user/repos',
      '{"name":5}',
      422,
      /^Invalid request\.\n\nFor 'properties\/name', 5 is not a string\.$/,
      'https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user',
    ],
    [
      'POST',
      '/user/repos',
      '{"name":"x","private":"yes"}',
      422,
      /is not a boolean/,
      'https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user',
    ],
    ['POST', '/repos/octocat/r/issues', '{"title":"t","labels":"bug"}', 422, /is not a array/, 'https://docs.github.com/rest/issues/issues#create-an-issue'],
    ['POST', '/repos/octocat/r/issues', '{"title":"t","milestone":"abc"}', 422, /milestone/, 'https://docs.github.com/rest/issues/issues#create-an-issue'],
    [
      'POST',
      '/repos/octocat/r/issues',
      '{"title":"t","milestone":42}',
      422,
      /^Validation Failed$/,
      'https://docs.github.com/rest/issues/issues#create-an-issue',
    ],
    [
      'POST',
      '/repos/octocat/r/milestones',
      '{"title":"m","due_on":"soon"}',
      422,
      /^Validation Failed$/,
      'https://docs.github.com/rest/issues/milestones#create-a-milestone',
    ],
    ['GET', '/repos/octocat/r/issues?since=yesterday', '', 422, /^Validation Failed$/, 'https://docs.github.com/rest/issues/issues#list-repository-issues'],
    [
      'POST',
      '/repos/octocat/r/hooks',
      '{"config":"x"}',
      422,
      /"config" wasn't supplied/,
      'https://docs.github.com/rest/repos/webhooks#create-a-repository-webhook',
    ],
    [
      'PUT',
      '/repos/octocat/r/contents/a.txt',
      '{"message":"m","content":"!!!"}',
      422,
      /Base64/,
      'https://docs.github.com/rest/repos/contents#create-or-update-file-contents',
    ],
    [
      'POST',
      '/repos/octocat/r/git/refs',
      '{"ref":"heads/x","sha":"abc"}',
      422,
      /^Validation Failed$/,
      'https://docs.github.com/rest/git/refs#create-a-reference',
    ],
    ['PATCH', '/repos/octocat/r', '{"visibility":"secret"}', 422, /is not one of/, 'https://docs.github.com/rest/repos/repos#update-a-repository'],
    ['PATCH', '/repos/octocat/r/issues/abc', '{}', 404, /^Not Found$/, 'https://docs.github.com/rest/issues/issues#update-an-issue'],
  ];
  for (const [method, path, body, status, message, docs] of cases) {
    const res = await raw(method, path, body || undefined);
    t.equal(res.status, status, `${method} ${path} ${body}`);
    t.match(res.json.message, message);
    t.equal(res.json.status, String(status));
    t.equal(res.json.documentation_url, docs);
  }
});

t.test('a refused request changes nothing (issue numbers are not spent)', async (t) => {
  await failure(octokit.issues.create({ owner: 'octocat', repo: 'r', title: 'x', assignees: ['nobody-at-all'] }));
  await failure(octokit.issues.create({ owner: 'octocat', repo: 'r', title: 'x', milestone: 99 }));
  const ok = await octokit.issues.create({ owner: 'octocat', repo: 'r', title: 'first real one' });
  t.equal(ok.data.number, 1);
  const labels = await octokit.issues.listLabelsForRepo({ owner: 'octocat', repo: 'r', per_page: 100 });
  t.equal(labels.data.length, 9, 'only the default labels');
});

t.test('state survives a restart of the twin on the same file', async (t) => {
  const { startTwin } = await import('../../helpers/twin.js');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { Octokit } = await import('@octokit/rest');
  const dir = mkdtempSync(join(tmpdir(), 'gh-restart-'));
  const first = await startTwin('github', { dataDir: dir });
  const o1 = new Octokit({ auth: first.apiKey, baseUrl: first.url });
  await o1.repos.createForAuthenticatedUser({ name: 'kept' });
  await o1.issues.create({ owner: 'octocat', repo: 'kept', title: 'Still here' });
  await first.close();
  const second = await startTwin('github', { dataDir: dir });
  t.teardown(() => second.close());
  const o2 = new Octokit({ auth: second.apiKey, baseUrl: second.url });
  const issue = await o2.issues.get({ owner: 'octocat', repo: 'kept', issue_number: 1 });
  t.equal(issue.data.title, 'Still here');
  t.equal(issue.data.url, `${second.url}/repos/octocat/kept/issues/1`, 'URLs follow the new address');
  t.equal((await o2.issues.create({ owner: 'octocat', repo: 'kept', title: 'Next' })).data.number, 2);
});
