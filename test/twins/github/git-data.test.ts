// The Git Data API and branch rules as coding agents use them, standalone and through the recording
// gateway, read back with Debian's `git`: blob → tree → commit → ref with @octokit/rest and the file
// read by `git clone`; contents API commits seen by clone, commits and compare; annotated tags;
// a protected branch refusing an unreviewed merge (405) and a direct push (GH006), a ruleset
// refusing a force push (GH013); `refs/pull/N/head|merge` fetched by git; anonymous clones of
// public repositories.

import t, { type Test } from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { ensureGit, git, gitOk } from '../../helpers/git.js';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { startTwin } from '../../helpers/twin.js';
import { GITHUB_TEST_START, failure } from './setup.js';

t.setTimeout(600_000);

const have = ensureGit();
if (!have.ok) t.plan(0, have.reason);
else {
  for (const via of ['standalone', 'gateway'] as const) {
    await t.test(via, (t) => scenario(t, via));
  }
}

interface Target {
  url: string;
  apiKey: string;
  close(): Promise<void>;
}

async function open(via: 'standalone' | 'gateway'): Promise<Target> {
  if (via === 'gateway') {
    const gw = await startTwinBehindGateway('github', { clockStart: GITHUB_TEST_START });
    return { url: gw.url, apiKey: gw.apiKey, close: () => gw.close() };
  }
  const twin = await startTwin('github', { clockStart: GITHUB_TEST_START });
  return { url: twin.url, apiKey: twin.apiKey, close: () => twin.close() };
}

async function scenario(t: Test, via: 'standalone' | 'gateway'): Promise<void> {
  const target = await open(via);
  const work = mkdtempSync(join(tmpdir(), `twins-gitdata-${via}-`));
  t.teardown(async () => {
    await target.close();
    rmSync(work, { recursive: true, force: true });
  });
  const octokit = new Octokit({ auth: target.apiKey, baseUrl: target.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
  const owner = 'octocat';
  const remote = (repo: string) => `${target.url.replace('http://', `http://x-access-token:${target.apiKey}@`)}/${owner}/${repo}.git`;
  const dir = (name: string) => join(work, name);
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  await octokit.repos.createForAuthenticatedUser({ name: 'data', auto_init: true });
  await octokit.repos.createForAuthenticatedUser({ name: 'empty' });

  await t.test('blob → tree → commit → ref with Octokit, read back by git clone', async (t) => {
    const main = await octokit.git.getRef({ owner, repo: 'data', ref: 'heads/main' });
    const parent = await octokit.git.getCommit({ owner, repo: 'data', commit_sha: main.data.object.sha });
    const text = await octokit.git.createBlob({ owner, repo: 'data', content: 'export const answer = 42;\n' });
    t.equal(text.status, 201);
    t.match(text.data.sha, /^[0-9a-f]{40}$/);
    const bin = await octokit.git.createBlob({ owner, repo: 'data', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' });
    const tree = await octokit.git.createTree({
      owner,
      repo: 'data',
      base_tree: parent.data.tree.sha,
      tree: [
        { path: 'src/lib/answer.ts', mode: '100644', type: 'blob', sha: text.data.sha },
        { path: 'assets/logo.bin', mode: '100644', type: 'blob', sha: bin.data.sha },
        { path: 'docs/notes.md', mode: '100644', type: 'blob', content: '# Notes\n' },
        { path: 'bin/run', mode: '100755', type: 'blob', content: '#!/bin/sh\necho run\n' },
      ],
    });
    t.equal(tree.status, 201);
    t.same(
      tree.data.tree.map((e) => `${e.type} ${e.path}`),
      ['blob README.md', 'tree assets', 'tree bin', 'tree docs', 'tree src'],
      'the base tree kept, new directories made',
    );
    const commit = await octokit.git.createCommit({
      owner,
      repo: 'data',
      message: 'Add the answer\n\nMade with the Git Data API.',
      tree: tree.data.sha,
      parents: [parent.data.sha],
      author: { name: 'Grace Hopper', email: 'grace@example.com', date: '2026-01-05T22:00:00+12:00' },
    });
    t.equal(commit.status, 201);
    t.equal(commit.data.tree.sha, tree.data.sha);
    t.same(
      commit.data.parents.map((p) => p.sha),
      [parent.data.sha],
    );
    t.equal(commit.data.author.date, '2026-01-05T10:00:00Z', 'dates read back in UTC');
    t.equal(commit.data.verification?.reason, 'unsigned');
    const moved = await octokit.git.updateRef({ owner, repo: 'data', ref: 'heads/main', sha: commit.data.sha });
    t.equal(moved.data.object.sha, commit.data.sha);

    const d = dir('data');
    await gitOk(['clone', remote('data'), d]);
    t.equal((await gitOk(['rev-parse', 'HEAD'], { cwd: d })).trim(), commit.data.sha, 'git sees the commit under the same SHA');
    t.equal(readFileSync(join(d, 'src/lib/answer.ts'), 'utf8'), 'export const answer = 42;\n');
    t.same([...readFileSync(join(d, 'assets/logo.bin'))], [0, 1, 2, 255], 'base64 blobs keep their bytes');
    t.equal((await gitOk(['ls-files', '-s', 'bin/run'], { cwd: d })).split(' ')[0], '100755');
    t.match(await gitOk(['cat-file', '-p', 'HEAD'], { cwd: d }), /^author Grace Hopper <grace@example\.com> \d+ \+1200$/m, 'the author zone kept');
    t.equal((await gitOk(['fsck', '--strict'], { cwd: d })).trim(), '');

    const listed = await octokit.repos.listCommits({ owner, repo: 'data' });
    t.equal(listed.data[0]!.sha, commit.data.sha, 'the commits API lists it');
    const cmp = await octokit.repos.compareCommitsWithBasehead({ owner, repo: 'data', basehead: `${parent.data.sha}...main` });
    t.same(cmp.data.files!.map((f) => f.filename).sort(), ['assets/logo.bin', 'bin/run', 'docs/notes.md', 'src/lib/answer.ts']);
    const file = await octokit.repos.getContent({ owner, repo: 'data', path: 'docs/notes.md' });
    t.equal(Buffer.from((file.data as { content: string }).content, 'base64').toString(), '# Notes\n');

    // A tree that removes a path (sha: null) from the base; empty directories go with it.
    const pruned = await octokit.git.createTree({
      owner,
      repo: 'data',
      base_tree: tree.data.sha,
      tree: [{ path: 'assets/logo.bin', mode: '100644', type: 'blob', sha: null }],
    });
    t.notOk(
      pruned.data.tree.some((e) => e.path === 'assets'),
      'the emptied directory is gone',
    );
  });

  await t.test('annotated tags, and what the Git Data API refuses', async (t) => {
    const head = (await octokit.git.getRef({ owner, repo: 'data', ref: 'heads/main' })).data.object.sha;
    const tag = await octokit.git.createTag({ owner, repo: 'data', tag: 'v1.0.0', message: 'First release', object: head, type: 'commit' });
    t.equal(tag.status, 201);
    t.equal(tag.data.object.sha, head);
    const ref = await octokit.git.createRef({ owner, repo: 'data', ref: 'refs/tags/v1.0.0', sha: tag.data.sha });
    t.equal(ref.data.object.type, 'tag');
    t.equal((await octokit.git.getTag({ owner, repo: 'data', tag_sha: tag.data.sha })).data.message, 'First release\n');
    const d = dir('data');
    await gitOk(['fetch', '--tags', 'origin'], { cwd: d });
    t.equal((await gitOk(['cat-file', '-t', 'v1.0.0'], { cwd: d })).trim(), 'tag');
    t.equal((await gitOk(['rev-parse', 'v1.0.0^{commit}'], { cwd: d })).trim(), head);

    const empty = await failure(octokit.git.createBlob({ owner, repo: 'empty', content: 'x' }));
    t.equal(empty.status, 409);
    t.equal(empty.body.message, 'Git Repository is empty.');
    const missing = await failure(octokit.git.createTree({ owner, repo: 'data', tree: [{ path: 'a', mode: '100644', type: 'blob', sha: '1'.repeat(40) }] }));
    t.equal(missing.status, 422);
    t.equal(missing.body.message, 'GitRPC::BadObjectState');
    const noTree = await failure(octokit.git.createCommit({ owner, repo: 'data', message: 'x', tree: '2'.repeat(40) }));
    t.equal(noTree.status, 422);
    t.equal(noTree.body.message, 'Tree SHA does not exist');
    const notFf = await failure(
      octokit.git.updateRef({
        owner,
        repo: 'data',
        ref: 'heads/main',
        sha: (await octokit.git.getCommit({ owner, repo: 'data', commit_sha: head })).data.parents[0]!.sha,
      }),
    );
    t.equal(notFf.status, 422, 'a non-fast-forward ref update needs force');
  });

  await t.test('contents API writes are real commits: clone, commits and compare see them; a push is read by the API', async (t) => {
    const main = (await octokit.git.getRef({ owner, repo: 'data', ref: 'heads/main' })).data.object.sha;
    await octokit.git.createRef({ owner, repo: 'data', ref: 'refs/heads/feature', sha: main });
    const put = await octokit.repos.createOrUpdateFileContents({
      owner,
      repo: 'data',
      branch: 'feature',
      path: 'CHANGELOG.md',
      message: 'Changelog',
      content: b64('## 1.1\n'),
    });
    const notes = await octokit.repos.getContent({ owner, repo: 'data', path: 'docs/notes.md', ref: 'feature' });
    const del = await octokit.repos.deleteFile({
      owner,
      repo: 'data',
      branch: 'feature',
      path: 'docs/notes.md',
      message: 'Drop notes',
      sha: (notes.data as { sha: string }).sha,
    });
    const d = dir('data');
    await gitOk(['fetch', 'origin'], { cwd: d });
    t.equal((await gitOk(['rev-parse', 'origin/feature'], { cwd: d })).trim(), del.data.commit.sha);
    t.equal((await gitOk(['rev-parse', 'origin/feature~1'], { cwd: d })).trim(), put.data.commit.sha);
    t.equal(await gitOk(['show', 'origin/feature:CHANGELOG.md'], { cwd: d }), '## 1.1\n');
    t.not((await git(['cat-file', '-e', 'origin/feature:docs/notes.md'], { cwd: d })).code, 0, 'the deleted file is gone in git');
    const cmp = await octokit.repos.compareCommits({ owner, repo: 'data', base: 'main', head: 'feature' });
    t.equal(cmp.data.status, 'ahead');
    t.same(
      cmp.data.commits.map((c) => c.sha),
      [put.data.commit.sha, del.data.commit.sha],
    );
    const log = await octokit.repos.listCommits({ owner, repo: 'data', sha: 'feature', path: 'CHANGELOG.md' });
    t.same(
      log.data.map((c) => c.sha),
      [put.data.commit.sha],
    );

    await gitOk(['checkout', '-b', 'pushed', 'origin/feature'], { cwd: d });
    writeFileSync(join(d, 'pushed.txt'), 'from git\n');
    await gitOk(['add', 'pushed.txt'], { cwd: d });
    await gitOk(['commit', '-m', 'Pushed with git'], { cwd: d });
    await gitOk(['push', 'origin', 'pushed:feature'], { cwd: d });
    const sha = (await gitOk(['rev-parse', 'HEAD'], { cwd: d })).trim();
    const c = await octokit.git.getCommit({ owner, repo: 'data', commit_sha: sha });
    t.equal(c.data.message, 'Pushed with git');
    const blob = await octokit.git.getBlob({ owner, repo: 'data', file_sha: (await gitOk(['rev-parse', 'HEAD:pushed.txt'], { cwd: d })).trim() });
    t.equal(Buffer.from(blob.data.content, 'base64').toString(), 'from git\n');
    // And the Git Data API builds on what git pushed.
    const next = await octokit.git.createTree({
      owner,
      repo: 'data',
      base_tree: c.data.tree.sha,
      tree: [{ path: 'pushed.txt', mode: '100644', type: 'blob', content: 'edited\n' }],
    });
    const nc = await octokit.git.createCommit({ owner, repo: 'data', message: 'Edit', tree: next.data.sha, parents: [sha] });
    await octokit.git.updateRef({ owner, repo: 'data', ref: 'heads/feature', sha: nc.data.sha });
    await gitOk(['pull', '--ff-only', 'origin', 'feature'], { cwd: d });
    t.equal(readFileSync(join(d, 'pushed.txt'), 'utf8'), 'edited\n');
  });

  await t.test('refs/pull/N/head and refs/pull/N/merge are served over git, and refused to pushes', async (t) => {
    const { data: pr } = await octokit.pulls.create({ owner, repo: 'data', title: 'Feature', head: 'feature', base: 'main' });
    t.match(pr.merge_commit_sha, /^[0-9a-f]{40}$/, 'an open pull request names its test merge commit');
    const d = dir('data');
    await gitOk(['fetch', 'origin', `pull/${pr.number}/head`], { cwd: d });
    t.equal((await gitOk(['rev-parse', 'FETCH_HEAD'], { cwd: d })).trim(), pr.head.sha);
    await gitOk(['fetch', 'origin', `pull/${pr.number}/merge`], { cwd: d });
    const merge = (await gitOk(['rev-parse', 'FETCH_HEAD'], { cwd: d })).trim();
    t.equal(merge, pr.merge_commit_sha);
    t.equal((await gitOk(['rev-parse', 'FETCH_HEAD^1'], { cwd: d })).trim(), pr.base.sha, 'the test merge sits on the base');
    t.equal((await gitOk(['rev-parse', 'FETCH_HEAD^2'], { cwd: d })).trim(), pr.head.sha, 'and merges the head');
    const refs = await gitOk(['ls-remote', 'origin'], { cwd: d });
    t.match(refs, new RegExp(`${pr.head.sha}\\trefs/pull/${pr.number}/head`));
    const pushed = await git(['push', '--force', 'origin', `HEAD~1:refs/pull/${pr.number}/head`], { cwd: d });
    t.not(pushed.code, 0);
    t.match(pushed.stderr, /deny updating a hidden ref/);
  });

  await t.test('a protected branch refuses an unreviewed merge (405), a direct push (GH006), contents and refs writes', async (t) => {
    const set = await octokit.repos.updateBranchProtection({
      owner,
      repo: 'data',
      branch: 'main',
      required_status_checks: null,
      enforce_admins: true,
      required_pull_request_reviews: { required_approving_review_count: 1 },
      restrictions: null,
    });
    t.equal(set.data.required_pull_request_reviews?.required_approving_review_count, 1);
    t.equal(set.data.enforce_admins?.enabled, true);
    t.equal((await octokit.repos.getBranch({ owner, repo: 'data', branch: 'main' })).data.protected, true);
    const pr = (await octokit.pulls.list({ owner, repo: 'data', state: 'open' })).data[0]!;
    t.equal((await octokit.pulls.get({ owner, repo: 'data', pull_number: pr.number })).data.mergeable_state, 'blocked');
    const unreviewed = await failure(octokit.pulls.merge({ owner, repo: 'data', pull_number: pr.number }));
    t.equal(unreviewed.status, 405);
    t.equal(unreviewed.body.message, 'At least 1 approving review is required by reviewers with write access.');
    t.equal(unreviewed.body.documentation_url, 'https://docs.github.com/articles/about-protected-branches');

    const d = dir('data');
    await gitOk(['checkout', '-B', 'direct', 'origin/main'], { cwd: d });
    await gitOk(['fetch', 'origin'], { cwd: d });
    await gitOk(['reset', '--hard', 'origin/main'], { cwd: d });
    writeFileSync(join(d, 'direct.txt'), 'straight to main\n');
    await gitOk(['add', 'direct.txt'], { cwd: d });
    await gitOk(['commit', '-m', 'Direct'], { cwd: d });
    const push = await git(['push', 'origin', 'HEAD:main'], { cwd: d });
    t.not(push.code, 0);
    t.match(push.stderr, /protected branch hook declined/);
    t.match(push.stderr, /remote: error: GH006: Protected branch update failed for refs\/heads\/main\./);
    t.match(push.stderr, /remote: error: Changes must be made through a pull request\./);
    const still = (await octokit.git.getRef({ owner, repo: 'data', ref: 'heads/main' })).data.object.sha;
    t.equal(still, (await gitOk(['rev-parse', 'origin/main'], { cwd: d })).trim(), 'main did not move');
    const refusedCommit = await failure(octokit.git.getCommit({ owner, repo: 'data', commit_sha: (await gitOk(['rev-parse', 'HEAD'], { cwd: d })).trim() }));
    t.equal(refusedCommit.status, 404, 'nothing of the refused push was kept');

    const contents = await failure(octokit.repos.createOrUpdateFileContents({ owner, repo: 'data', path: 'x.txt', message: 'x', content: b64('x') }));
    t.equal(contents.status, 409);
    t.equal(contents.body.message, 'Changes must be made through a pull request.');
    const deletion = await failure(octokit.git.deleteRef({ owner, repo: 'data', ref: 'heads/main' }));
    t.equal(deletion.status, 422);
    t.match(deletion.body.message, /Cannot delete this branch/);

    // With an approval the merge still waits for its required check, then goes through.
    await octokit.pulls.createReview({ owner, repo: 'data', pull_number: pr.number, event: 'APPROVE' });
    const patched = await failure(octokit.repos.updateStatusCheckProtection({ owner, repo: 'data', branch: 'main', strict: false, contexts: ['ci/test'] }));
    t.equal(patched.status, 404, 'status checks are switched on with the whole protection');
    await octokit.repos.updateBranchProtection({
      owner,
      repo: 'data',
      branch: 'main',
      required_status_checks: { strict: false, contexts: ['ci/test'] },
      enforce_admins: true,
      required_pull_request_reviews: { required_approving_review_count: 1 },
      restrictions: null,
    });
    const unchecked = await failure(octokit.pulls.merge({ owner, repo: 'data', pull_number: pr.number }));
    t.equal(unchecked.status, 405);
    t.equal(unchecked.body.message, 'Required status check "ci/test" is expected.');
    await octokit.repos.createCommitStatus({ owner, repo: 'data', sha: pr.head.sha, state: 'failure', context: 'ci/test' });
    t.equal((await failure(octokit.pulls.merge({ owner, repo: 'data', pull_number: pr.number }))).body.message, 'Required status check "ci/test" is failing.');
    await octokit.repos.createCommitStatus({ owner, repo: 'data', sha: pr.head.sha, state: 'success', context: 'ci/test' });
    const merged = await octokit.pulls.merge({ owner, repo: 'data', pull_number: pr.number, merge_method: 'squash' });
    t.equal(merged.data.merged, true);
    t.equal((await octokit.git.getRef({ owner, repo: 'data', ref: 'heads/main' })).data.object.sha, merged.data.sha);

    // An admin bypasses protection that does not enforce admins, and git says so.
    await octokit.repos.deleteAdminBranchProtection({ owner, repo: 'data', branch: 'main' });
    await gitOk(['fetch', 'origin'], { cwd: d });
    await gitOk(['reset', '--hard', 'origin/main'], { cwd: d });
    writeFileSync(join(d, 'admin.txt'), 'admin\n');
    await gitOk(['add', 'admin.txt'], { cwd: d });
    await gitOk(['commit', '-m', 'Admin push'], { cwd: d });
    const bypass = await git(['push', 'origin', 'HEAD:main'], { cwd: d });
    t.equal(bypass.code, 0, bypass.stderr);
    t.match(bypass.stderr, /remote: Bypassed rule violations for refs\/heads\/main:/);
    await octokit.repos.deleteBranchProtection({ owner, repo: 'data', branch: 'main' });
    t.equal((await failure(octokit.repos.getBranchProtection({ owner, repo: 'data', branch: 'main' }))).body.message, 'Branch not protected');
  });

  await t.test('a ruleset refuses a force push and a deletion (GH013)', async (t) => {
    const rs = await octokit.repos.createRepoRuleset({
      owner,
      repo: 'data',
      name: 'release branches',
      target: 'branch',
      enforcement: 'active',
      conditions: { ref_name: { include: ['refs/heads/release/**'], exclude: [] } },
      rules: [{ type: 'non_fast_forward' }, { type: 'deletion' }],
    });
    t.equal(rs.status, 201);
    const d = dir('data');
    await gitOk(['push', 'origin', 'HEAD:refs/heads/release/1.x'], { cwd: d });
    await gitOk(['commit', '--amend', '-m', 'Rewritten'], { cwd: d });
    const forced = await git(['push', '--force', 'origin', 'HEAD:refs/heads/release/1.x'], { cwd: d });
    t.not(forced.code, 0);
    t.match(forced.stderr, /push declined due to repository rule violations/);
    t.match(forced.stderr, /GH013: Repository rule violations found for refs\/heads\/release\/1\.x/);
    t.match(forced.stderr, /- Cannot force-push to this branch/);
    const del = await git(['push', 'origin', ':refs/heads/release/1.x'], { cwd: d });
    t.not(del.code, 0);
    t.match(del.stderr, /- Cannot delete this branch/);
    const rules = await octokit.repos.getBranchRules({ owner, repo: 'data', branch: 'release/1.x' });
    t.same(
      rules.data.map((r) => r.type),
      ['non_fast_forward', 'deletion'],
    );
    const other = await git(['push', '--force', 'origin', 'HEAD:refs/heads/scratch'], { cwd: d });
    t.equal(other.code, 0, 'branches outside the ruleset are free');
  });

  await t.test('a public repository clones without credentials; a private one does not', async (t) => {
    const anon = `${target.url}/${owner}/data.git`;
    await gitOk(['clone', anon, dir('anon')]);
    t.ok(readFileSync(join(dir('anon'), 'README.md'), 'utf8').startsWith('# data'));
    const push = await git(['push', 'origin', 'HEAD:refs/heads/anon'], { cwd: dir('anon') });
    t.not(push.code, 0, 'pushing still needs the key');
    await octokit.repos.createForAuthenticatedUser({ name: 'secret', private: true, auto_init: true });
    const priv = await git(['clone', `${target.url}/${owner}/secret.git`, dir('secret')]);
    t.not(priv.code, 0);
    const head = await fetch(`${target.url}/${owner}/secret.git/info/refs?service=git-upload-pack`);
    t.equal(head.status, 401);
  });
}
