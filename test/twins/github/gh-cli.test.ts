// The GitHub CLI (Debian's `gh`, unchanged) against the twin through the recording gateway, over
// HTTPS as to a GitHub Enterprise host: auth status, api, repo view, the issue commands, and the
// pull request flow with an Actions run that fails, is fixed, passes, and a merge that closes the
// issue the description names. Branches and commits come from the REST API here (git push is
// covered by the git smart HTTP tests).

import t from 'tap';
import { ensureGh, startGhHarness } from './gh-cli.js';
import { b64 } from './setup.js';

const missing = ensureGh();
if (missing) {
  t.skip(`gh CLI unavailable: ${missing}`, () => {});
} else {
  const h = (await startGhHarness())!;
  t.teardown(() => h.close());
  const { octokit } = h.gh;
  const owner = 'octocat';
  const repo = 'app';
  const R = `${h.host}/${owner}/${repo}`;
  await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true, description: 'The app' });

  t.test('gh auth status, gh api user, gh repo view', async (t) => {
    const status = await h.run(['auth', 'status']);
    t.equal(status.code, 0, status.stderr);
    t.match(status.stderr + status.stdout, `Logged in to ${h.host} as octocat`);
    t.match(status.stderr + status.stdout, /Token scopes: .*repo/);
    const user = await h.run(['api', 'user']);
    t.equal(user.code, 0, user.stderr);
    t.equal(JSON.parse(user.stdout).login, 'octocat');
    const view = await h.run(['repo', 'view', R]);
    t.equal(view.code, 0, view.stderr);
    t.match(view.stdout, /name:\s+octocat\/app/);
    t.match(view.stdout, /description:\s+The app/);
  });

  t.test('gh issue create / list / view / comment / edit / close / reopen', async (t) => {
    const created = await h.run(['issue', 'create', '-R', R, '--title', 'Login is broken', '--body', 'Steps to reproduce…']);
    t.equal(created.code, 0, created.stderr);
    t.match(created.stdout, /\/octocat\/app\/issues\/1\s*$/);
    const list = await h.run(['issue', 'list', '-R', R]);
    t.equal(list.code, 0, list.stderr);
    t.match(list.stdout, /^1\s+OPEN\s+Login is broken/m);
    const comment = await h.run(['issue', 'comment', '1', '-R', R, '--body', 'Seen on Safari too']);
    t.equal(comment.code, 0, comment.stderr);
    const edit = await h.run(['issue', 'edit', '1', '-R', R, '--add-label', 'bug', '--add-assignee', 'octocat']);
    t.equal(edit.code, 0, edit.stderr);
    const view = await h.run(['issue', 'view', '1', '-R', R]);
    t.equal(view.code, 0, view.stderr);
    t.match(view.stdout, /title:\s+Login is broken/);
    t.match(view.stdout, /state:\s+OPEN/);
    t.match(view.stdout, /labels:\s+bug/);
    t.match(view.stdout, /assignees:\s+octocat/);
    t.match(view.stdout, /comments:\s+1/);
    const rest = await octokit.issues.get({ owner, repo, issue_number: 1 });
    t.same(
      rest.data.labels.map((l) => (typeof l === 'string' ? l : l.name)),
      ['bug'],
      'the GraphQL writes are the REST records',
    );
    t.equal(rest.data.comments, 1);
    t.equal((await h.run(['issue', 'close', '1', '-R', R])).code, 0);
    t.equal((await octokit.issues.get({ owner, repo, issue_number: 1 })).data.state, 'closed');
    t.equal((await h.run(['issue', 'reopen', '1', '-R', R])).code, 0);
    t.equal((await octokit.issues.get({ owner, repo, issue_number: 1 })).data.state, 'open');
  });

  t.test('gh pr create → failing run → gh pr checks → fix → passing run → gh pr merge closes the issue', async (t) => {
    await octokit.repos.createOrUpdateFileContents({
      owner,
      repo,
      path: '.github/workflows/ci.yml',
      message: 'Add CI',
      content: b64(
        'name: CI\non:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Unit tests\n        run: npm test\n',
      ),
    });
    await h.gh.record('actions_outcome', 'octocat/app:ci.yml', {
      conclusion: 'failure',
      step: 'Unit tests',
      log: 'FAIL src/login.test.ts\n  expected 200, got 500',
    });
    const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
    await octokit.git.createRef({ owner, repo, ref: 'refs/heads/fix-login', sha: main.data.object.sha });
    await octokit.repos.createOrUpdateFileContents({
      owner,
      repo,
      path: 'src/login.ts',
      branch: 'fix-login',
      message: 'Fix login',
      content: b64('export const ok = false;\n'),
    });

    const created = await h.run(['pr', 'create', '-R', R, '--head', 'fix-login', '--base', 'main', '--title', 'Fix login', '--body', 'Fixes #1', '--draft']);
    t.equal(created.code, 0, created.stderr);
    t.match(created.stdout, /\/octocat\/app\/pull\/2\s*$/);

    const status = await h.run(['pr', 'status', '-R', R]);
    t.equal(status.code, 0, status.stderr);
    t.match(status.stdout, /Created by you\n\s+#2\s+Fix login \[fix-login\]/);
    t.match(status.stdout, /Requesting a code review from you\n\s+You have no pull requests to review/);
    const failing = await h.run(['pr', 'checks', '2', '-R', R]);
    t.equal(failing.code, 1, 'gh pr checks exits 1 when a check failed');
    t.match(failing.stdout, /^test\s+fail\b/m);
    const runs = await octokit.actions.listWorkflowRunsForRepo({ owner, repo, event: 'pull_request' });
    t.equal(runs.data.total_count, 1);
    const run = runs.data.workflow_runs[0]!;
    t.equal(run.conclusion, 'failure');
    const log = await h.run(['run', 'view', String(run.id), '-R', R, '--log-failed']);
    t.equal(log.code, 0, log.stderr);
    t.match(log.stdout, /expected 200, got 500/, 'the failing step log as set through the twin');

    await h.gh.record('actions_outcome', 'octocat/app:ci.yml', { conclusion: 'success' });
    const file = await octokit.repos.getContent({ owner, repo, path: 'src/login.ts', ref: 'fix-login' });
    await octokit.repos.createOrUpdateFileContents({
      owner,
      repo,
      path: 'src/login.ts',
      branch: 'fix-login',
      message: 'Really fix login',
      content: b64('export const ok = true;\n'),
      sha: (file.data as { sha: string }).sha,
    });
    const passing = await h.run(['pr', 'checks', '2', '-R', R]);
    t.equal(passing.code, 0, passing.stderr);
    t.match(passing.stdout, /^test\s+pass\b/m);

    const diff = await h.run(['pr', 'diff', '2', '-R', R]);
    t.equal(diff.code, 0, diff.stderr);
    t.match(diff.stdout, /^\+export const ok = true;$/m, 'gh pr diff reads the diff media type');
    t.equal((await h.run(['pr', 'ready', '2', '-R', R])).code, 0);
    const review = await h.run(['pr', 'review', '2', '-R', R, '--comment', '--body', 'Looks right']);
    t.equal(review.code, 0, review.stderr);
    t.equal((await octokit.pulls.listReviews({ owner, repo, pull_number: 2 })).data[0]?.body, 'Looks right');
    const merged = await h.run(['pr', 'merge', '2', '-R', R, '--merge']);
    t.equal(merged.code, 0, merged.stderr);
    const pr = await octokit.pulls.get({ owner, repo, pull_number: 2 });
    t.equal(pr.data.merged, true);
    t.equal(pr.data.draft, false);
    t.equal((await octokit.issues.get({ owner, repo, issue_number: 1 })).data.state, 'closed', 'Fixes #1 closed the issue');
    const view = await h.run(['pr', 'view', '2', '-R', R]);
    t.match(view.stdout, /state:\s+MERGED/);
    const mainRuns = await octokit.actions.listWorkflowRunsForRepo({ owner, repo, branch: 'main', event: 'push' });
    t.ok(
      mainRuns.data.workflow_runs.some((r) => r.head_sha === pr.data.merge_commit_sha),
      'the merge pushed to main and started CI there',
    );
  });

  t.test('every gh request went through the gateway and was recorded', async (t) => {
    await new Promise((r) => setTimeout(r, 100));
    const rows = h.recorded();
    t.ok(rows.length > 10);
    t.ok(rows.some((r) => r.method === 'POST' && r.path === '/api/graphql' && r.status_code === 200));
    t.ok(rows.some((r) => r.path.startsWith('/api/v3/')));
  });
}
