// Forks and cross-repository pull requests through the gateway, driven by @octokit/rest and
// Debian's `git`: a fork shares its parent's objects and branches (`fork`, `parent`, `source`,
// `forks_count`), lists of forks, an existing fork answered again, `git clone` of the fork and a push
// to it, a pull request whose head is `forkowner:branch`, a later push to the fork synchronizing it,
// and the merge bringing the fork's commits (same SHAs) into the base repository, which `git pull`
// then sees; syncing a fork's branch with its upstream (`merge-upstream`: none, fast-forward,
// merge, 409 on conflict); deleting a fork.

import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { ensureGit, gitOk } from '../../helpers/git.js';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { b64, failure } from './setup.js';

t.setTimeout(300_000);

const gw = await startTwinBehindGateway('github', { clockStart: new Date('2026-01-05T10:00:00Z') });
const work = mkdtempSync(join(tmpdir(), 'twins-forks-'));
t.teardown(async () => {
  await gw.close();
  rmSync(work, { recursive: true, force: true });
});
const octokit = new Octokit({ auth: gw.apiKey, baseUrl: gw.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
const me = (await octokit.users.getAuthenticated()).data.login;
const org = 'octo-org';
await octokit.repos.createInOrg({ org, name: 'upstream', auto_init: true, description: 'the parent' });
await octokit.git.createRef({
  owner: org,
  repo: 'upstream',
  ref: 'refs/heads/side',
  sha: (await octokit.git.getRef({ owner: org, repo: 'upstream', ref: 'heads/main' })).data.object.sha,
});
await octokit.git.createRef({
  owner: org,
  repo: 'upstream',
  ref: 'refs/tags/v1',
  sha: (await octokit.git.getRef({ owner: org, repo: 'upstream', ref: 'heads/main' })).data.object.sha,
});

t.test("a fork shares the parent's objects and branches and names its parent and source", async (t) => {
  const parentHead = (await octokit.git.getRef({ owner: org, repo: 'upstream', ref: 'heads/main' })).data.object.sha;
  const res = await octokit.repos.createFork({ owner: org, repo: 'upstream' });
  t.equal(res.status, 202);
  const fork = res.data;
  t.equal(fork.full_name, `${me}/upstream`);
  t.equal(fork.fork, true);
  t.equal(fork.parent?.full_name, `${org}/upstream`);
  t.equal(fork.source?.full_name, `${org}/upstream`);
  t.equal(fork.description, 'the parent');
  t.equal(fork.url, `${gw.url}/repos/${me}/upstream`);
  t.equal((await octokit.repos.get({ owner: me, repo: 'upstream' })).data.parent?.id, (await octokit.repos.get({ owner: org, repo: 'upstream' })).data.id);

  const refsOf = async (owner: string, repo: string) => [
    ...(await octokit.git.listMatchingRefs({ owner, repo, ref: 'heads' })).data,
    ...(await octokit.git.listMatchingRefs({ owner, repo, ref: 'tags' })).data,
  ];
  const refs = await refsOf(me, 'upstream');
  t.same(refs.map((r) => r.ref).sort(), ['refs/heads/main', 'refs/heads/side', 'refs/tags/v1']);
  const main = refs.find((r) => r.ref === 'refs/heads/main')!;
  t.equal(main.object.sha, parentHead);
  t.equal(main.url, `${gw.url}/repos/${me}/upstream/git/refs/heads/main`);
  const commit = await octokit.git.getCommit({ owner: me, repo: 'upstream', commit_sha: parentHead });
  t.equal(commit.data.url, `${gw.url}/repos/${me}/upstream/git/commits/${parentHead}`, "shared objects carry the fork's URLs");
  const readme = await octokit.repos.getContent({ owner: me, repo: 'upstream', path: 'README.md' });
  t.equal(Buffer.from((readme.data as { content: string }).content, 'base64').toString(), '# upstream\n\nthe parent\n');

  const again = await octokit.repos.createFork({ owner: org, repo: 'upstream' });
  t.equal(again.data.id, fork.id, 'forking again answers the existing fork');
  const parent = await octokit.repos.get({ owner: org, repo: 'upstream' });
  t.equal(parent.data.forks_count, 1);
  const forks = await octokit.repos.listForks({ owner: org, repo: 'upstream' });
  t.same(
    forks.data.map((f) => f.full_name),
    [`${me}/upstream`],
  );

  const named = await octokit.repos.createFork({ owner: org, repo: 'upstream', organization: org, name: 'upstream-mirror', default_branch_only: true });
  t.equal(named.data.full_name, `${org}/upstream-mirror`);
  t.same(
    (await refsOf(org, 'upstream-mirror')).map((r) => r.ref),
    ['refs/heads/main'],
  );
  t.same(
    (await octokit.repos.listForks({ owner: org, repo: 'upstream', sort: 'oldest' })).data.map((f) => f.name),
    ['upstream', 'upstream-mirror'],
  );
  t.equal((await octokit.repos.get({ owner: org, repo: 'upstream' })).data.forks_count, 2);

  t.equal((await failure(octokit.repos.createFork({ owner: org, repo: 'nope' }))).status, 404);
  t.equal((await failure(octokit.repos.createFork({ owner: org, repo: 'upstream', organization: 'no-such-org' }))).status, 404);
});

const have = ensureGit();
t.test("a pull request from a fork, synchronized by a push and merged with the fork's commits", { skip: have.ok ? false : have.reason }, async (t) => {
  const auth = gw.url.replace('http://', `http://x-access-token:${gw.apiKey}@`);
  const clone = join(work, 'fork');
  await gitOk(['clone', `${auth}/${me}/upstream.git`, clone]);
  await gitOk(['checkout', '-b', 'feature'], { cwd: clone });
  writeFileSync(join(clone, 'feature.txt'), 'from the fork\n');
  await gitOk(['add', '.'], { cwd: clone });
  await gitOk(['commit', '-m', 'Add feature'], { cwd: clone });
  await gitOk(['push', 'origin', 'feature'], { cwd: clone });
  const first = (await gitOk(['rev-parse', 'HEAD'], { cwd: clone })).trim();

  const missing = await failure(octokit.pulls.create({ owner: org, repo: 'upstream', title: 'x', head: `${me}:nope`, base: 'main' }));
  t.same(missing.body.errors, [{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
  const pr = await octokit.pulls.create({ owner: org, repo: 'upstream', title: 'Feature from a fork', head: `${me}:feature`, base: 'main' });
  t.equal(pr.status, 201);
  t.equal(pr.data.head.label, `${me}:feature`);
  t.equal(pr.data.head.repo?.full_name, `${me}/upstream`);
  t.equal(pr.data.head.repo?.fork, true);
  t.equal(pr.data.base.repo.full_name, `${org}/upstream`);
  t.equal(pr.data.head.sha, first);
  t.equal(pr.data.commits, 1);
  t.equal(pr.data.changed_files, 1);
  t.equal(pr.data.mergeable, true);
  const files = await octokit.pulls.listFiles({ owner: org, repo: 'upstream', pull_number: pr.data.number });
  t.same(
    files.data.map((f) => f.filename),
    ['feature.txt'],
  );
  const listed = await octokit.pulls.list({ owner: org, repo: 'upstream', head: `${me}:feature` });
  t.same(
    listed.data.map((p) => p.number),
    [pr.data.number],
  );
  const dup = await failure(octokit.pulls.create({ owner: org, repo: 'upstream', title: 'again', head: `${me}:feature`, base: 'main' }));
  t.equal(dup.body.errors[0].message, `A pull request already exists for ${me}:feature.`);

  writeFileSync(join(clone, 'feature.txt'), 'from the fork\nand more\n');
  await gitOk(['commit', '-am', 'More feature'], { cwd: clone });
  await gitOk(['push', 'origin', 'feature'], { cwd: clone });
  const second = (await gitOk(['rev-parse', 'HEAD'], { cwd: clone })).trim();
  const synced = await octokit.pulls.get({ owner: org, repo: 'upstream', pull_number: pr.data.number });
  t.equal(synced.data.head.sha, second, "a push to the fork moves the pull request's head");
  t.equal(synced.data.commits, 2);
  const commits = await octokit.pulls.listCommits({ owner: org, repo: 'upstream', pull_number: pr.data.number });
  t.same(
    commits.data.map((c) => c.sha),
    [first, second],
  );

  const merged = await octokit.pulls.merge({ owner: org, repo: 'upstream', pull_number: pr.data.number });
  t.equal(merged.data.merged, true);
  const tip = await octokit.repos.getCommit({ owner: org, repo: 'upstream', ref: 'main' });
  t.equal(tip.data.sha, merged.data.sha);
  t.same(tip.data.parents.map((p) => p.sha)[1], second, "the merge commit's second parent is the fork's commit");
  t.match(tip.data.commit.message, new RegExp(`^Merge pull request #${pr.data.number} from ${me}/feature`));
  const history = (await octokit.repos.listCommits({ owner: org, repo: 'upstream' })).data.map((c) => c.sha);
  t.ok(history.includes(first) && history.includes(second), "the fork's commits are in the base repository's history");

  const upstream = join(work, 'upstream');
  await gitOk(['clone', `${auth}/${org}/upstream.git`, upstream]);
  t.equal((await gitOk(['rev-parse', 'HEAD'], { cwd: upstream })).trim(), merged.data.sha);
  t.equal(readFileSync(join(upstream, 'feature.txt'), 'utf8'), 'from the fork\nand more\n');
  t.equal((await gitOk(['fsck', '--strict'], { cwd: upstream })).trim(), '', 'git fsck finds the merged history whole');
  await gitOk(['pull', `${auth}/${org}/upstream.git`, 'main'], { cwd: clone });
  t.equal((await gitOk(['rev-parse', 'HEAD'], { cwd: clone })).trim(), merged.data.sha, "the fork's clone pulls the merge");
});

t.test('a fork made through the contents API keeps its own history', async (t) => {
  await octokit.repos.createOrUpdateFileContents({ owner: me, repo: 'upstream', path: 'only-in-fork.txt', message: 'fork only', content: b64('x') });
  const parentFiles = await failure(octokit.repos.getContent({ owner: org, repo: 'upstream', path: 'only-in-fork.txt' }));
  t.equal(parentFiles.status, 404, 'a commit on the fork does not appear in the parent');
});

t.test("merge-upstream syncs a fork's branch: none, fast-forward, merge, conflict", async (t) => {
  await octokit.repos.createInOrg({ org, name: 'lib', auto_init: true });
  const fork = (await octokit.repos.createFork({ owner: org, repo: 'lib' })).data;
  const none = await octokit.repos.mergeUpstream({ owner: me, repo: 'lib', branch: 'main' });
  t.same(none.data, { message: 'This branch is not behind the upstream', merge_type: 'none', base_branch: `${org}:main` });

  const up = await octokit.repos.createOrUpdateFileContents({ owner: org, repo: 'lib', path: 'up.txt', message: 'Upstream change', content: b64('up\n') });
  const ff = await octokit.repos.mergeUpstream({ owner: me, repo: 'lib', branch: 'main' });
  t.equal(ff.data.merge_type, 'fast-forward');
  t.equal(
    (await octokit.git.getRef({ owner: me, repo: 'lib', ref: 'heads/main' })).data.object.sha,
    up.data.commit.sha,
    "the fork's branch is the upstream commit",
  );

  await octokit.repos.createOrUpdateFileContents({ owner: me, repo: 'lib', path: 'mine.txt', message: 'Fork change', content: b64('mine\n') });
  await octokit.repos.createOrUpdateFileContents({ owner: org, repo: 'lib', path: 'up2.txt', message: 'Upstream again', content: b64('up2\n') });
  const merged = await octokit.repos.mergeUpstream({ owner: me, repo: 'lib', branch: 'main' });
  t.equal(merged.data.merge_type, 'merge');
  const tip = await octokit.repos.getCommit({ owner: me, repo: 'lib', ref: 'main' });
  t.equal(tip.data.parents.length, 2);
  t.same(
    tip.data.files?.map((f) => f.filename),
    ['up2.txt'],
    'the merge brings the upstream file',
  );

  const mineFile = await octokit.repos.getContent({ owner: me, repo: 'lib', path: 'up.txt' });
  await octokit.repos.createOrUpdateFileContents({
    owner: me,
    repo: 'lib',
    path: 'up.txt',
    message: 'Fork edit',
    content: b64('fork\n'),
    sha: (mineFile.data as { sha: string }).sha,
  });
  const upFile = await octokit.repos.getContent({ owner: org, repo: 'lib', path: 'up.txt' });
  await octokit.repos.createOrUpdateFileContents({
    owner: org,
    repo: 'lib',
    path: 'up.txt',
    message: 'Upstream edit',
    content: b64('upstream\n'),
    sha: (upFile.data as { sha: string }).sha,
  });
  t.equal((await failure(octokit.repos.mergeUpstream({ owner: me, repo: 'lib', branch: 'main' }))).status, 409);
  t.equal((await failure(octokit.repos.mergeUpstream({ owner: me, repo: 'lib', branch: 'nope' }))).status, 422);
  t.equal((await failure(octokit.repos.mergeUpstream({ owner: org, repo: 'lib', branch: 'main' }))).status, 422, 'not a fork');

  const before = (await octokit.repos.get({ owner: org, repo: 'lib' })).data.forks_count;
  await octokit.repos.delete({ owner: me, repo: fork.name });
  t.equal((await octokit.repos.get({ owner: org, repo: 'lib' })).data.forks_count, before - 1, 'a deleted fork is no longer counted');
});
