// Pull requests: create from a branch, get, list, update, files, commits, reviews, review
// comments, merge (merge / squash / rebase), 405 when not mergeable, closing keywords.

import t from 'tap';
import { startGitHub, failure, b64 } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;
const owner = 'octocat';
const repo = 'app';
await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });

/** Create `branch` from main and commit one file change on it. */
async function branchWith(branch: string, path: string, content: string, message = `Change ${path}`): Promise<string> {
  const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
  await octokit.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: main.data.object.sha });
  const res = await octokit.repos.createOrUpdateFileContents({ owner, repo, path, branch, message, content: b64(content) });
  return res.data.commit.sha!;
}

t.test('create, get, list and update a pull request', async (t) => {
  const head = await branchWith('feature', 'src/app.ts', 'line 1\nline 2\n');
  const issue = await octokit.issues.create({ owner, repo, title: 'App is missing' });
  const pr = await octokit.pulls.create({ owner, repo, title: 'Add app', head: 'feature', base: 'main', body: `Fixes #${issue.data.number}` });
  t.equal(pr.status, 201);
  t.equal(pr.data.number, 2, 'pull requests share the issue number space');
  t.equal(pr.data.state, 'open');
  t.equal(pr.data.head.ref, 'feature');
  t.equal(pr.data.head.sha, head);
  t.equal(pr.data.head.label, 'octocat:feature');
  t.equal(pr.data.base.ref, 'main');
  t.equal(pr.data.merged, false);
  t.equal(pr.data.mergeable, true);
  t.equal(pr.data.commits, 1);
  t.equal(pr.data.additions, 2);
  t.equal(pr.data.changed_files, 1);
  t.equal(pr.data.url, `${twin.url}/repos/${owner}/${repo}/pulls/2`);
  t.equal(pr.data.html_url, `${twin.url}/${owner}/${repo}/pull/2`);
  t.equal(pr.data._links.self.href, pr.data.url);

  const asIssue = await octokit.issues.get({ owner, repo, issue_number: 2 });
  t.ok(asIssue.data.pull_request, 'the PR is listed as an issue with pull_request');
  t.equal(asIssue.data.pull_request!.url, pr.data.url);

  const dup = await failure(octokit.pulls.create({ owner, repo, title: 'Again', head: 'feature', base: 'main' }));
  t.equal(dup.status, 422);
  t.equal(dup.body.errors[0].message, 'A pull request already exists for octocat:feature.');
  const noBranch = await failure(octokit.pulls.create({ owner, repo, title: 'x', head: 'nope', base: 'main' }));
  t.same(noBranch.body.errors, [{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
  const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
  await octokit.git.createRef({ owner, repo, ref: 'refs/heads/empty', sha: main.data.object.sha });
  const noCommits = await failure(octokit.pulls.create({ owner, repo, title: 'x', head: 'empty', base: 'main' }));
  t.equal(noCommits.body.errors[0].message, 'No commits between main and empty');

  const got = await octokit.pulls.get({ owner, repo, pull_number: 2 });
  t.equal(got.data.title, 'Add app');
  const list = await octokit.pulls.list({ owner, repo });
  t.same(
    list.data.map((p) => p.number),
    [2],
  );
  t.same((await octokit.pulls.list({ owner, repo, state: 'closed' })).data, []);
  t.same(
    (await octokit.pulls.list({ owner, repo, head: 'octocat:feature' })).data.map((p) => p.number),
    [2],
  );

  const updated = await octokit.pulls.update({ owner, repo, pull_number: 2, title: 'Add the app', body: `Closes #${issue.data.number}` });
  t.equal(updated.data.title, 'Add the app');
  t.equal((await octokit.issues.get({ owner, repo, issue_number: 2 })).data.title, 'Add the app');

  const labeled = await octokit.issues.addLabels({ owner, repo, issue_number: 2, labels: ['enhancement'] });
  t.same(
    labeled.data.map((l) => l.name),
    ['enhancement'],
  );
  t.same(
    (await octokit.pulls.get({ owner, repo, pull_number: 2 })).data.labels.map((l) => l.name),
    ['enhancement'],
  );

  // A new commit on the head branch moves the pull request.
  const next = await octokit.repos.createOrUpdateFileContents({
    owner,
    repo,
    path: 'src/util.ts',
    branch: 'feature',
    message: 'Add util',
    content: b64('export {}\n'),
  });
  const moved = await octokit.pulls.get({ owner, repo, pull_number: 2 });
  t.equal(moved.data.head.sha, next.data.commit.sha);
  t.equal(moved.data.commits, 2);

  const commits = await octokit.pulls.listCommits({ owner, repo, pull_number: 2 });
  t.same(
    commits.data.map((c) => c.commit.message),
    ['Change src/app.ts', 'Add util'],
  );
  const files = await octokit.pulls.listFiles({ owner, repo, pull_number: 2 });
  t.same(
    files.data.map((f) => [f.filename, f.status, f.additions]),
    [
      ['src/app.ts', 'added', 2],
      ['src/util.ts', 'added', 1],
    ],
  );
  t.match(files.data[0]!.patch, /^@@ -0,0 \+1,2 @@\n\+line 1\n\+line 2$/);
});

t.test('reviews and review comments', async (t) => {
  const pending = await octokit.pulls.createReview({
    owner,
    repo,
    pull_number: 2,
    body: 'Some notes',
    comments: [{ path: 'src/app.ts', line: 1, body: 'Name this better' }],
  });
  t.equal(pending.data.state, 'PENDING');
  t.equal(pending.data.user!.login, 'octocat');
  const submitted = await octokit.pulls.submitReview({ owner, repo, pull_number: 2, review_id: pending.data.id, event: 'COMMENT' });
  t.equal(submitted.data.state, 'COMMENTED');
  t.ok(submitted.data.submitted_at);
  const again = await failure(octokit.pulls.submitReview({ owner, repo, pull_number: 2, review_id: pending.data.id, event: 'APPROVE' }));
  t.equal(again.status, 422);

  const approve = await octokit.pulls.createReview({ owner, repo, pull_number: 2, event: 'APPROVE' });
  t.equal(approve.data.state, 'APPROVED');
  const needBody = await failure(octokit.pulls.createReview({ owner, repo, pull_number: 2, event: 'REQUEST_CHANGES' }));
  t.equal(needBody.status, 422);
  const reviews = await octokit.pulls.listReviews({ owner, repo, pull_number: 2 });
  t.same(
    reviews.data.map((r) => r.state),
    ['COMMENTED', 'APPROVED'],
  );
  t.equal((await octokit.pulls.getReview({ owner, repo, pull_number: 2, review_id: approve.data.id })).data.id, approve.data.id);

  const fromReview = await octokit.pulls.listReviewComments({ owner, repo, pull_number: 2 });
  t.same(
    fromReview.data.map((c) => [c.path, c.line, c.body, c.pull_request_review_id]),
    [['src/app.ts', 1, 'Name this better', pending.data.id]],
  );

  const lone = await octokit.pulls.createReviewComment({
    owner,
    repo,
    pull_number: 2,
    body: 'Nit',
    path: 'src/util.ts',
    line: 1,
    commit_id: (await octokit.pulls.get({ owner, repo, pull_number: 2 })).data.head.sha,
  });
  t.equal(lone.status, 201);
  t.equal(lone.data.path, 'src/util.ts');
  const reply = await octokit.pulls.createReplyForReviewComment({ owner, repo, pull_number: 2, comment_id: lone.data.id, body: 'Done' });
  t.equal(reply.data.in_reply_to_id, lone.data.id);
  t.equal(reply.data.path, 'src/util.ts');
  const badPath = await failure(
    octokit.pulls.createReviewComment({ owner, repo, pull_number: 2, body: 'x', path: 'nope.ts', line: 1, commit_id: lone.data.commit_id }),
  );
  t.equal(badPath.status, 422);
  const edited = await octokit.pulls.updateReviewComment({ owner, repo, comment_id: lone.data.id, body: 'Nit (edited)' });
  t.equal(edited.data.body, 'Nit (edited)');
  t.equal((await octokit.pulls.deleteReviewComment({ owner, repo, comment_id: reply.data.id })).status, 204);
  t.equal((await octokit.pulls.listReviewComments({ owner, repo, pull_number: 2 })).data.length, 2);
  t.equal((await octokit.pulls.get({ owner, repo, pull_number: 2 })).data.review_comments, 2);
});

t.test('merge commit closes the issues the description names', async (t) => {
  const before = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
  const wrongSha = await failure(octokit.pulls.merge({ owner, repo, pull_number: 2, sha: 'f'.repeat(40) }));
  t.equal(wrongSha.status, 409);
  const merged = await octokit.pulls.merge({ owner, repo, pull_number: 2, merge_method: 'merge' });
  t.equal(merged.data.merged, true);
  t.equal(merged.data.message, 'Pull Request successfully merged');
  const commit = await octokit.git.getCommit({ owner, repo, commit_sha: merged.data.sha });
  t.same(
    commit.data.parents.map((p) => p.sha),
    [before.data.object.sha, (await octokit.pulls.get({ owner, repo, pull_number: 2 })).data.head.sha],
  );
  t.match(commit.data.message, /^Merge pull request #2 from octocat\/feature/);
  t.equal((await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha, merged.data.sha);

  const pr = await octokit.pulls.get({ owner, repo, pull_number: 2 });
  t.equal(pr.data.state, 'closed');
  t.equal(pr.data.merged, true);
  t.equal(pr.data.merged_by!.login, 'octocat');
  t.equal(pr.data.merge_commit_sha, merged.data.sha);
  t.equal((await octokit.pulls.checkIfMerged({ owner, repo, pull_number: 2 })).status, 204);
  t.equal((await octokit.repos.get({ owner, repo })).data.open_issues_count, 0, 'the PR and the issue it fixed are closed');
  const closedIssue = await octokit.issues.get({ owner, repo, issue_number: 1 });
  t.equal(closedIssue.data.state, 'closed');
  t.equal(closedIssue.data.state_reason, 'completed');

  const twice = await failure(octokit.pulls.merge({ owner, repo, pull_number: 2 }));
  t.equal(twice.status, 405);
  t.equal(twice.body.message, 'Pull Request is not mergeable');
  const content = await octokit.repos.getContent({ owner, repo, path: 'src/app.ts' });
  t.equal(Buffer.from((content.data as any).content, 'base64').toString(), 'line 1\nline 2\n');
});

t.test('squash and rebase', async (t) => {
  await branchWith('squashme', 'docs/a.md', 'a\n');
  await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'docs/b.md', branch: 'squashme', message: 'Add b', content: b64('b\n') });
  const sq = await octokit.pulls.create({ owner, repo, title: 'Docs', head: 'squashme', base: 'main' });
  const before = (await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
  const res = await octokit.pulls.merge({ owner, repo, pull_number: sq.data.number, merge_method: 'squash' });
  const c = await octokit.git.getCommit({ owner, repo, commit_sha: res.data.sha });
  t.same(
    c.data.parents.map((p) => p.sha),
    [before],
    'one commit, one parent',
  );
  t.match(c.data.message, new RegExp(`^Docs \\(#${sq.data.number}\\)`));

  await branchWith('rebaseme', 'r1.txt', '1\n', 'First');
  await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'r2.txt', branch: 'rebaseme', message: 'Second', content: b64('2\n') });
  // main moves on meanwhile (a different file: still mergeable).
  await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'other.txt', message: 'Meanwhile', content: b64('x\n') });
  const rb = await octokit.pulls.create({ owner, repo, title: 'Rebase', head: 'rebaseme', base: 'main' });
  await octokit.pulls.merge({ owner, repo, pull_number: rb.data.number, merge_method: 'rebase' });
  const log = await octokit.repos.listCommits({ owner, repo, per_page: 3 });
  t.same(
    log.data.map((x) => x.commit.message),
    ['Second', 'First', 'Meanwhile'],
  );
  t.equal(log.data[0]!.parents.length, 1);
});

t.test('405 when not mergeable (conflict), closing without merge', async (t) => {
  await branchWith('conflict', 'shared.txt', 'from branch\n');
  await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'shared.txt', message: 'On main', content: b64('from main\n') });
  const pr = await octokit.pulls.create({ owner, repo, title: 'Conflicting', head: 'conflict', base: 'main' });
  t.equal(pr.data.mergeable, false);
  t.equal(pr.data.mergeable_state, 'dirty');
  const refused = await failure(octokit.pulls.merge({ owner, repo, pull_number: pr.data.number }));
  t.equal(refused.status, 405);
  t.same(refused.body, {
    message: 'Pull Request is not mergeable',
    documentation_url: 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request',
    status: '405',
  });
  const closed = await octokit.pulls.update({ owner, repo, pull_number: pr.data.number, state: 'closed' });
  t.equal(closed.data.state, 'closed');
  t.equal(closed.data.merged, false);
  t.equal((await failure(octokit.pulls.checkIfMerged({ owner, repo, pull_number: pr.data.number }))).status, 404);
  const search = await octokit.search.issuesAndPullRequests({ q: `repo:${owner}/${repo} is:pr is:closed` });
  t.equal(search.data.total_count, 4);
});

t.test('requested reviewers (org repository: members can review)', async (t) => {
  const o = 'octo-org';
  const r = 'reviewed';
  await octokit.repos.createInOrg({ org: o, name: r, auto_init: true });
  const main = await octokit.git.getRef({ owner: o, repo: r, ref: 'heads/main' });
  await octokit.git.createRef({ owner: o, repo: r, ref: 'refs/heads/change', sha: main.data.object.sha });
  await octokit.repos.createOrUpdateFileContents({ owner: o, repo: r, path: 'c.txt', branch: 'change', message: 'c', content: b64('c\n') });
  const pr = await octokit.pulls.create({ owner: o, repo: r, title: 'Review me', head: 'change', base: 'main' });
  const requested = await octokit.pulls.requestReviewers({ owner: o, repo: r, pull_number: pr.data.number, reviewers: ['hubot'] });
  t.equal(requested.status, 201);
  t.same(
    requested.data.requested_reviewers!.map((u) => u.login),
    ['hubot'],
  );
  const listed = await octokit.pulls.listRequestedReviewers({ owner: o, repo: r, pull_number: pr.data.number });
  t.same(
    listed.data.users.map((u) => u.login),
    ['hubot'],
  );
  const self = await failure(octokit.pulls.requestReviewers({ owner: o, repo: r, pull_number: pr.data.number, reviewers: ['octocat'] }));
  t.equal(self.status, 422);
  t.equal(self.body.message, 'Review cannot be requested from pull request author.');
  const outsider = await failure(octokit.pulls.requestReviewers({ owner: o, repo: r, pull_number: pr.data.number, reviewers: ['ghost-user'] }));
  t.equal(outsider.status, 422);
  const removed = await octokit.pulls.removeRequestedReviewers({ owner: o, repo: r, pull_number: pr.data.number, reviewers: ['hubot'] });
  t.same(removed.data.requested_reviewers, []);
});
