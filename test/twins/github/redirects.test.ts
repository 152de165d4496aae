// Renamed repositories through the gateway: the old name answers 301 (307 for writes) with
// `Location: …/repositories/{id}…` (path rest and query kept, also under /api/v3), which
// @octokit/rest follows unchanged; every `/repos/{owner}/{repo}…` route also answers under
// `/repositories/{id}…`; a new repository taking the old name ends the redirect, and so does
// deleting the renamed one. `git clone` of the old name follows git's redirect.

import t from 'tap';
import { Octokit } from '@octokit/rest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { ensureGit, git, gitOk } from '../../helpers/git.js';
import { failure } from './setup.js';

const gw = await startTwinBehindGateway('github', { clockStart: new Date('2026-01-05T10:00:00Z') });
t.teardown(() => gw.close());
const octokit = new Octokit({ auth: gw.apiKey, baseUrl: gw.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
const owner = (await octokit.users.getAuthenticated()).data.login;
const headers = { authorization: `token ${gw.apiKey}` };

t.test('the old name redirects to the repository by id; clients follow', async (t) => {
  const { data: repo } = await octokit.repos.createForAuthenticatedUser({ name: 'before', auto_init: true });
  await octokit.issues.create({ owner, repo: 'before', title: 'First' });
  await octokit.repos.update({ owner, repo: 'before', name: 'after' });

  const raw = await fetch(`${gw.url}/repos/${owner}/before`, { headers, redirect: 'manual' });
  t.equal(raw.status, 301);
  t.equal(raw.headers.get('location'), `${gw.url}/repositories/${repo.id}`);
  const body = (await raw.json()) as { message: string; url: string };
  t.equal(body.message, 'Moved Permanently');
  t.equal(body.url, `${gw.url}/repositories/${repo.id}`);

  const sub = await fetch(`${gw.url}/repos/${owner}/before/issues?state=all&per_page=5`, { headers, redirect: 'manual' });
  t.equal(sub.status, 301);
  t.equal(sub.headers.get('location'), `${gw.url}/repositories/${repo.id}/issues?state=all&per_page=5`);
  const enterprise = await fetch(`${gw.url}/api/v3/repos/${owner}/before/pulls`, { headers, redirect: 'manual' });
  t.equal(enterprise.status, 301);
  t.equal(enterprise.headers.get('location'), `${gw.url}/api/v3/repositories/${repo.id}/pulls`);
  const write = await fetch(`${gw.url}/repos/${owner}/before/issues`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'x' }),
    redirect: 'manual',
  });
  t.equal(write.status, 307, 'a write is redirected with 307 (method and body kept)');

  const got = await octokit.repos.get({ owner, repo: 'before' });
  t.equal(got.data.full_name, `${owner}/after`, 'Octokit follows the redirect');
  const issues = await octokit.issues.listForRepo({ owner, repo: 'before', state: 'all' });
  t.same(
    issues.data.map((i) => i.title),
    ['First'],
  );
  const created = await octokit.issues.create({ owner, repo: 'before', title: 'Through the old name' });
  t.equal(created.status, 201);
  t.equal(created.data.repository_url, `${gw.url}/repos/${owner}/after`);

  const byId = await fetch(`${gw.url}/repositories/${repo.id}/issues/1`, { headers });
  t.equal(byId.status, 200);
  t.equal(((await byId.json()) as { title: string }).title, 'First');
  t.equal((await fetch(`${gw.url}/repositories/999999/issues`, { headers })).status, 404);
  t.equal((await fetch(`${gw.url}/repositories/${repo.id}`, { headers })).status, 200);

  t.equal((await failure(octokit.repos.get({ owner, repo: 'never-existed' }))).status, 404);
});

t.test('a new repository with the old name, or deleting the renamed one, ends the redirect', async (t) => {
  await octokit.repos.createForAuthenticatedUser({ name: 'one' });
  await octokit.repos.update({ owner, repo: 'one', name: 'two' });
  t.equal((await fetch(`${gw.url}/repos/${owner}/one`, { headers, redirect: 'manual' })).status, 301);
  const { data: fresh } = await octokit.repos.createForAuthenticatedUser({ name: 'one' });
  const got = await octokit.repos.get({ owner, repo: 'one' });
  t.equal(got.data.id, fresh.id, 'the old name now names the new repository');

  await octokit.repos.createForAuthenticatedUser({ name: 'three' });
  await octokit.repos.update({ owner, repo: 'three', name: 'four' });
  await octokit.repos.delete({ owner, repo: 'four' });
  t.equal((await fetch(`${gw.url}/repos/${owner}/three`, { headers, redirect: 'manual' })).status, 404);
});

const have = ensureGit();
t.test('git clone of the old name follows the redirect', { skip: have.ok ? false : have.reason }, async (t) => {
  await octokit.repos.createForAuthenticatedUser({ name: 'old-git', auto_init: true });
  await octokit.repos.update({ owner, repo: 'old-git', name: 'new-git' });
  const work = mkdtempSync(join(tmpdir(), 'twins-redirect-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const auth = gw.url.replace('http://', `http://x-access-token:${gw.apiKey}@`);
  const res = await git(['clone', `${auth}/${owner}/old-git.git`, join(work, 'c')]);
  t.equal(res.code, 0, res.stderr);
  t.match(res.stderr, /redirecting to .*\/new-git\.git/);
  t.equal(readFileSync(join(work, 'c', 'README.md'), 'utf8'), '# old-git\n');
  const head = (await octokit.repos.getCommit({ owner, repo: 'new-git', ref: 'main' })).data.sha;
  t.equal((await gitOk(['rev-parse', 'HEAD'], { cwd: join(work, 'c') })).trim(), head);
  const missing = await git(['ls-remote', `${auth}/${owner}/never-was.git`]);
  t.not(missing.code, 0);
});
