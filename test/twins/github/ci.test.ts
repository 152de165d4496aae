// The CI surface through @octokit/rest: commit statuses (create, list, combined), check runs and
// suites (create, update, list for ref, annotations), and Actions (workflows from the repository,
// runs on push / pull_request / workflow_dispatch, jobs and steps, the outcome set through the
// twin's `actions_outcome` record, logs as GitHub serves them, re-run).

import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGitHub, failure, b64 } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit } = gh;
const owner = 'octocat';
const repo = 'app';
await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
const head = async (branch = 'main') => (await octokit.git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha;

t.test('commit statuses: create, list, combined (also by branch name)', async (t) => {
  const sha = await head();
  const empty = await octokit.repos.getCombinedStatusForRef({ owner, repo, ref: sha });
  t.equal(empty.status, 200, 'no 422 for a commit without statuses');
  t.equal(empty.data.state, 'pending');
  t.equal(empty.data.total_count, 0);
  const made = await octokit.repos.createCommitStatus({ owner, repo, sha, state: 'pending', context: 'ci/test', description: 'Running' });
  t.equal(made.status, 201);
  t.equal(made.data.state, 'pending');
  await octokit.repos.createCommitStatus({ owner, repo, sha, state: 'failure', context: 'ci/test', description: 'Failed' });
  await octokit.repos.createCommitStatus({ owner, repo, sha, state: 'success', context: 'ci/lint' });
  const list = await octokit.repos.listCommitStatusesForRef({ owner, repo, ref: 'main' });
  t.same(
    list.data.map((s) => [s.context, s.state]),
    [
      ['ci/lint', 'success'],
      ['ci/test', 'failure'],
      ['ci/test', 'pending'],
    ],
    'newest first',
  );
  const combined = await octokit.repos.getCombinedStatusForRef({ owner, repo, ref: 'main' });
  t.equal(combined.data.state, 'failure');
  t.equal(combined.data.total_count, 2, 'latest per context');
  t.equal(combined.data.sha, sha);
  const bad = await failure(octokit.repos.createCommitStatus({ owner, repo, sha, state: 'maybe' as never }));
  t.equal(bad.status, 422);
  const noCommit = await failure(octokit.repos.createCommitStatus({ owner, repo, sha: 'f'.repeat(40), state: 'success' }));
  t.equal(noCommit.status, 422);
  t.match(noCommit.body.message, /No commit found for SHA/);
});

t.test('check runs and suites: create, update with annotations, list for ref', async (t) => {
  const sha = await head();
  const run = await octokit.checks.create({
    owner,
    repo,
    name: 'typecheck',
    head_sha: sha,
    status: 'in_progress',
    output: {
      title: 'Typecheck',
      summary: 'Running tsc',
      annotations: [{ path: 'src/a.ts', start_line: 1, end_line: 1, annotation_level: 'failure', message: 'TS2322' }],
    },
  });
  t.equal(run.status, 201);
  t.equal(run.data.status, 'in_progress');
  t.equal(run.data.conclusion, null);
  t.equal(run.data.output.annotations_count, 1);
  const updated = await octokit.checks.update({
    owner,
    repo,
    check_run_id: run.data.id,
    conclusion: 'failure',
    output: {
      title: 'Typecheck',
      summary: '2 errors',
      annotations: [{ path: 'src/b.ts', start_line: 3, end_line: 4, annotation_level: 'warning', message: 'unused' }],
    },
  });
  t.equal(updated.data.status, 'completed');
  t.equal(updated.data.conclusion, 'failure');
  t.ok(updated.data.completed_at);
  const annotations = await octokit.checks.listAnnotations({ owner, repo, check_run_id: run.data.id });
  t.same(
    annotations.data.map((a) => [a.path, a.annotation_level]),
    [
      ['src/a.ts', 'failure'],
      ['src/b.ts', 'warning'],
    ],
  );
  const forRef = await octokit.checks.listForRef({ owner, repo, ref: sha });
  t.equal(forRef.data.total_count, 1);
  t.equal(forRef.data.check_runs[0]!.name, 'typecheck');
  const suites = await octokit.checks.listSuitesForRef({ owner, repo, ref: sha });
  t.equal(suites.data.total_count, 1);
  t.equal(suites.data.check_suites[0]!.conclusion, 'failure', 'the suite concludes with its worst run');
  const suite = await octokit.checks.getSuite({ owner, repo, check_suite_id: suites.data.check_suites[0]!.id });
  t.equal(suite.data.head_sha, sha);
  const missingConclusion = await failure(octokit.checks.create({ owner, repo, name: 'x', head_sha: sha, status: 'completed' }));
  t.equal(missingConclusion.status, 422);
  const badLevel = await failure(
    octokit.checks.create({
      owner,
      repo,
      name: 'x',
      head_sha: sha,
      output: { title: 't', summary: 's', annotations: [{ path: 'a', start_line: 1, end_line: 1, annotation_level: 'fatal' as never, message: 'm' }] },
    }),
  );
  t.equal(badLevel.status, 422);
  t.equal((await failure(octokit.checks.get({ owner, repo, check_run_id: 999999 }))).status, 404);
});

const WORKFLOW = `name: CI
on:
  push:
    branches: [main]
  pull_request:
    branches: [main]
  workflow_dispatch:
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: npm run lint
  test:
    name: Unit tests
    runs-on: [ubuntu-latest]
    steps:
      - uses: actions/checkout@v4
      - name: Install
        run: npm ci
      - name: Test
        run: npm test
`;

t.test('Actions: workflows from the repository, runs on push, PR and dispatch, outcome, logs, re-run', async (t) => {
  await octokit.repos.createOrUpdateFileContents({ owner, repo, path: '.github/workflows/ci.yml', message: 'Add CI', content: b64(WORKFLOW) });
  await octokit.repos.createOrUpdateFileContents({
    owner,
    repo,
    path: '.github/workflows/docs.yaml',
    message: 'Add docs',
    content: b64('name: Docs\non:\n  push:\n    tags: ["v*"]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps: [{ run: make docs }]\n'),
  });
  const workflows = await octokit.actions.listRepoWorkflows({ owner, repo });
  t.same(
    workflows.data.workflows.map((w) => [w.name, w.path, w.state]),
    [
      ['CI', '.github/workflows/ci.yml', 'active'],
      ['Docs', '.github/workflows/docs.yaml', 'active'],
    ],
  );
  const ci = await octokit.actions.getWorkflow({ owner, repo, workflow_id: 'ci.yml' });
  t.equal(ci.data.id, workflows.data.workflows[0]!.id, 'a workflow by file name');

  const pushRuns = await octokit.actions.listWorkflowRuns({ owner, repo, workflow_id: ci.data.id });
  t.equal(pushRuns.data.total_count, 2, 'the docs commit on main ran CI (push to main); the tag-only workflow did not');
  t.ok(pushRuns.data.workflow_runs.every((r) => r.event === 'push' && r.conclusion === 'success'));

  // A failing outcome for the Unit tests job, set through the twin.
  await gh.record('actions_outcome', 'octocat/app:ci.yml', {
    conclusion: 'failure',
    job: 'Unit tests',
    step: 'Test',
    log: 'FAIL test/app.test.ts\n  ✕ adds (3 ms)',
  });
  await octokit.git.createRef({ owner, repo, ref: 'refs/heads/feature', sha: await head() });
  t.equal((await octokit.actions.listWorkflowRunsForRepo({ owner, repo, branch: 'feature' })).data.total_count, 0, 'push filter: branches [main]');
  await octokit.repos.createOrUpdateFileContents({
    owner,
    repo,
    path: 'src/add.ts',
    branch: 'feature',
    message: 'Add add()',
    content: b64('export const add = (a, b) => a - b;\n'),
  });
  const pr = await octokit.pulls.create({ owner, repo, head: 'feature', base: 'main', title: 'Add add()' });
  const prRuns = await octokit.actions.listWorkflowRunsForRepo({ owner, repo, event: 'pull_request' });
  t.equal(prRuns.data.total_count, 1);
  const run = prRuns.data.workflow_runs[0]!;
  t.equal(run.status, 'completed');
  t.equal(run.conclusion, 'failure');
  t.equal(run.head_sha, pr.data.head.sha);
  t.equal(run.pull_requests![0]!.number, pr.data.number);
  t.equal(run.display_title, 'Add add()');

  const jobs = await octokit.actions.listJobsForWorkflowRun({ owner, repo, run_id: run.id });
  t.same(
    jobs.data.jobs.map((j) => [j.name, j.conclusion]),
    [
      ['lint', 'success'],
      ['Unit tests', 'failure'],
    ],
  );
  const failed = jobs.data.jobs[1]!;
  t.same(
    failed.steps!.map((s) => [s.name, s.conclusion]),
    [
      ['Set up job', 'success'],
      ['Run actions/checkout@v4', 'success'],
      ['Install', 'success'],
      ['Test', 'failure'],
      ['Complete job', 'success'],
    ],
  );
  const checks = await octokit.checks.listForRef({ owner, repo, ref: pr.data.head.sha });
  t.same(checks.data.check_runs.map((c) => [c.name, c.conclusion, c.app?.slug]).sort(), [
    ['Unit tests', 'failure', 'github-actions'],
    ['lint', 'success', 'github-actions'],
  ]);

  const jobLog = await octokit.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: failed.id });
  t.match(String(jobLog.data), /##\[group\]Test\n.*FAIL test\/app\.test\.ts/);
  const zipped = await octokit.actions.downloadWorkflowRunLogs({ owner, repo, run_id: run.id });
  const dir = mkdtempSync(join(tmpdir(), 'twin-logs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'logs.zip'), Buffer.from(zipped.data as ArrayBuffer));
  // GitHub drops the characters a file name cannot hold (`Run actions/checkout@v4` → `Run actionscheckout@v4`).
  const names = execFileSync('zipinfo', ['-1', join(dir, 'logs.zip')])
    .toString()
    .trim()
    .split('\n')
    .sort();
  t.same(
    names,
    [
      '0_lint.txt',
      '1_Unit tests.txt',
      'Unit tests/1_Set up job.txt',
      'Unit tests/2_Run actionscheckout@v4.txt',
      'Unit tests/3_Install.txt',
      'Unit tests/4_Test.txt',
      'Unit tests/5_Complete job.txt',
      'lint/1_Set up job.txt',
      'lint/2_Run actionscheckout@v4.txt',
      'lint/3_Run npm run lint.txt',
      'lint/4_Complete job.txt',
    ].sort(),
  );
  t.match(execFileSync('unzip', ['-p', join(dir, 'logs.zip'), 'Unit tests/4_Test.txt']).toString(), /✕ adds/);
  const unsigned = await fetch(new URL('/_twin-logs/octocat/app/runs/1/1.zip', gh.twin.url));
  t.equal(unsigned.status, 403, 'a log URL without its signature is refused');

  // Fixed: re-run with the outcome changed.
  await gh.record('actions_outcome', 'octocat/app:ci.yml', { conclusion: 'success' });
  const rerun = await octokit.actions.reRunWorkflow({ owner, repo, run_id: run.id });
  t.equal(rerun.status, 201);
  const after = await octokit.actions.getWorkflowRun({ owner, repo, run_id: run.id });
  t.equal(after.data.run_attempt, 2);
  t.equal(after.data.conclusion, 'success');
  t.same(
    (await octokit.actions.listJobsForWorkflowRun({ owner, repo, run_id: run.id })).data.jobs.map((j) => j.conclusion),
    ['success', 'success'],
  );
  t.equal((await octokit.actions.listJobsForWorkflowRun({ owner, repo, run_id: run.id, filter: 'all' })).data.total_count, 4);
  const latest = await octokit.checks.listForRef({ owner, repo, ref: pr.data.head.sha });
  t.ok(
    latest.data.check_runs.every((c) => c.conclusion === 'success'),
    'the latest check runs are the re-run ones',
  );

  const dispatched = await octokit.actions.createWorkflowDispatch({ owner, repo, workflow_id: 'ci.yml', ref: 'main' });
  t.equal(dispatched.status, 204);
  const byDispatch = await octokit.actions.listWorkflowRunsForRepo({ owner, repo, event: 'workflow_dispatch' });
  t.equal(byDispatch.data.total_count, 1);
  t.equal((await failure(octokit.actions.createWorkflowDispatch({ owner, repo, workflow_id: 'docs.yaml', ref: 'main' }))).status, 422);
  t.equal((await failure(octokit.actions.createWorkflowDispatch({ owner, repo, workflow_id: 'ci.yml', ref: 'nope' }))).status, 422);
  t.equal((await failure(octokit.actions.getWorkflow({ owner, repo, workflow_id: 'nope.yml' }))).status, 404);
});

t.test('a broken workflow file does not break the push', async (t) => {
  const res = await octokit.repos.createOrUpdateFileContents({
    owner,
    repo,
    path: '.github/workflows/broken.yml',
    message: 'Broken',
    content: b64('on: [push\njobs: {{{'),
  });
  t.equal(res.status, 201);
  const list = await octokit.actions.listRepoWorkflows({ owner, repo });
  t.ok(list.data.workflows.some((w) => w.path === '.github/workflows/broken.yml'));
});
