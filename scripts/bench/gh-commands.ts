// Which kinds of `gh` command work against the GitHub twin: 40 command kinds a coding agent uses,
// run with Debian's `gh` (unchanged) through the recording gateway, each judged by its exit code
// and by what it must have done (output or the twin's state read back with Octokit). Run from
// inside a clone with GH_HOST the twin's own loopback address (README "gh inside a clone") when
// this process may bind port 443, else with `-R HOST:PORT/owner/repo` on the port URL.
//   node --import=tsx scripts/bench/gh-commands.ts [--port-host]

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureGh, startGhHarness } from '../../test/twins/github/gh-cli.js';
import { b64 } from '../../test/twins/github/setup.js';

const missing = ensureGh();
if (missing) {
  console.log(`gh unavailable: ${missing}`);
  process.exit(0);
}
const wantOwnHost = !process.argv.includes('--port-host');
const h = (wantOwnHost ? await startGhHarness({ ownHost: true }) : undefined) ?? (await startGhHarness())!;
const inClone = wantOwnHost && /^127\.\d+\.\d+\.1$/.test(h.host);
const { octokit } = h.gh;
const owner = 'octocat';
const repo = 'app';
const work = mkdtempSync(join(tmpdir(), 'twins-gh-commands-'));
const clone = join(work, repo);
const R = inClone ? [] : ['-R', `${h.host}/${owner}/${repo}`];
const git = (args: string[]) => execFileSync('git', args, { cwd: clone, env: h.env, encoding: 'utf8' }).trim();

await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true, description: 'The app' });
await octokit.repos.createInOrg({ org: 'octo-org', name: 'lib', auto_init: true });
await octokit.repos.createOrUpdateFileContents({
  owner,
  repo,
  path: '.github/workflows/ci.yml',
  message: 'Add CI',
  content: b64('name: CI\non:\n  push:\n  pull_request:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n'),
});
await h.gh.record('actions_outcome', `${owner}/${repo}:ci.yml`, { conclusion: 'failure', step: 'Run npm test', log: 'FAIL expected 1, got 2' });
const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
await octokit.git.createRef({ owner, repo, ref: 'refs/heads/feature', sha: main.data.object.sha });
await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'feature.txt', branch: 'feature', message: 'Feature', content: b64('feature\n') });

type Check = () => Promise<boolean | string>;
interface Kind {
  name: string;
  args: string[];
  cwd?: string;
  /** True when it did what it must; a string says what is wrong. */
  check?: (out: { stdout: string; stderr: string }) => Promise<boolean | string> | boolean | string;
  before?: Check;
}

const prNumber = async (head: string) => (await octokit.pulls.list({ owner, repo, head: `${owner}:${head}`, state: 'all' })).data[0]?.number;
const runId = async () => (await octokit.actions.listWorkflowRunsForRepo({ owner, repo })).data.workflow_runs[0]?.id;
const asset = join(work, 'app.tgz');
writeFileSync(asset, Buffer.from([1, 2, 3, 0, 255]));
const note = join(work, 'notes.md');
writeFileSync(note, '# Notes\n');

const kinds: Kind[] = [
  { name: 'auth status', args: ['auth', 'status'], check: (o) => (o.stderr + o.stdout).includes('Logged in to') },
  { name: 'api (REST)', args: ['api', 'user'], check: (o) => JSON.parse(o.stdout).login === owner },
  { name: 'api graphql', args: ['api', 'graphql', '-f', 'query={ viewer { login } }'], check: (o) => JSON.parse(o.stdout).data.viewer.login === owner },
  { name: 'repo list', args: ['repo', 'list'], check: (o) => o.stdout.includes(`${owner}/${repo}`) },
  {
    name: 'repo create',
    args: ['repo', 'create', 'made-by-gh', '--private'],
    check: async () => (await octokit.repos.get({ owner, repo: 'made-by-gh' })).data.private,
  },
  {
    name: 'repo clone',
    args: ['repo', 'clone', inClone ? `${owner}/${repo}` : `https://${h.host}/${owner}/${repo}`],
    cwd: work,
    check: () => existsSync(join(clone, 'README.md')),
  },
  { name: 'repo view', args: ['repo', 'view', ...(inClone ? [] : [`${h.host}/${owner}/${repo}`])], check: (o) => /description:\s+The app/.test(o.stdout) },
  {
    name: 'repo edit',
    args: ['repo', 'edit', ...(inClone ? [] : [`${h.host}/${owner}/${repo}`]), '--description', 'Edited'],
    check: async () => (await octokit.repos.get({ owner, repo })).data.description === 'Edited',
  },
  {
    name: 'repo fork',
    args: ['repo', 'fork', `${h.host}/octo-org/lib`, '--clone=false'],
    check: async () => (await octokit.repos.get({ owner, repo: 'lib' })).data.fork,
  },
  { name: 'repo sync', args: ['repo', 'sync', `${h.host}/${owner}/lib`, '--branch', 'main'] },
  { name: 'issue create', args: ['issue', 'create', ...R, '--title', 'Bug', '--body', 'It breaks'], check: (o) => /\/issues\/\d+\s*$/.test(o.stdout) },
  { name: 'issue list', args: ['issue', 'list', ...R], check: (o) => /\bOPEN\s+Bug\b/.test(o.stdout) },
  { name: 'issue view', args: ['issue', 'view', '1', ...R], check: (o) => /title:\s+Bug/.test(o.stdout) },
  {
    name: 'issue comment',
    args: ['issue', 'comment', '1', ...R, '--body', 'Me too'],
    check: async () => (await octokit.issues.get({ owner, repo, issue_number: 1 })).data.comments === 1,
  },
  {
    name: 'issue edit',
    args: ['issue', 'edit', '1', ...R, '--add-label', 'bug'],
    check: async () => (await octokit.issues.get({ owner, repo, issue_number: 1 })).data.labels.length === 1,
  },
  { name: 'issue status', args: ['issue', 'status', ...R], check: (o) => o.stdout.includes('Issues opened by you') },
  {
    name: 'issue close',
    args: ['issue', 'close', '1', ...R],
    check: async () => (await octokit.issues.get({ owner, repo, issue_number: 1 })).data.state === 'closed',
  },
  { name: 'label list', args: ['label', 'list', ...R], check: (o) => /^bug\b/m.test(o.stdout) },
  {
    name: 'label create',
    args: ['label', 'create', 'triage', ...R, '--color', 'ededed'],
    check: async () => (await octokit.issues.getLabel({ owner, repo, name: 'triage' })).data.color === 'ededed',
  },
  {
    name: 'pr create',
    args: ['pr', 'create', ...R, '--head', 'feature', '--base', 'main', '--title', 'Feature', '--body', 'Fixes #1'],
    check: async () => (await prNumber('feature')) !== undefined,
  },
  { name: 'pr list', args: ['pr', 'list', ...R], check: (o) => /\bFeature\s+feature\b/.test(o.stdout) },
  { name: 'pr view', args: ['pr', 'view', 'feature', ...R], check: (o) => /title:\s+Feature/.test(o.stdout) },
  { name: 'pr status', args: ['pr', 'status', ...R], check: (o) => o.stdout.includes('Created by you') },
  { name: 'pr checks', args: ['pr', 'checks', 'feature', ...R] },
  { name: 'pr diff', args: ['pr', 'diff', 'feature', ...R], check: (o) => o.stdout.includes('+feature') },
  { name: 'pr checkout', args: ['pr', 'checkout', 'feature', ...R], check: () => git(['rev-parse', '--abbrev-ref', 'HEAD']) === 'feature' },
  { name: 'pr comment', args: ['pr', 'comment', 'feature', ...R, '--body', 'LGTM?'] },
  { name: 'pr review', args: ['pr', 'review', 'feature', ...R, '--comment', '--body', 'Looks right'] },
  { name: 'run list', args: ['run', 'list', ...R], check: (o) => /\bCI\b/.test(o.stdout) },
  { name: 'run view --log-failed', args: ['run', 'view', 'RUN', ...R, '--log-failed'], check: (o) => o.stdout.includes('FAIL expected 1, got 2') },
  { name: 'run rerun', args: ['run', 'rerun', 'RUN', ...R] },
  { name: 'workflow list', args: ['workflow', 'list', ...R], check: (o) => /^CI\s+active/m.test(o.stdout) },
  {
    name: 'pr merge',
    args: ['pr', 'merge', 'feature', ...R, '--merge'],
    check: async () => (await octokit.pulls.get({ owner, repo, pull_number: (await prNumber('feature'))! })).data.merged,
  },
  {
    name: 'release create',
    args: ['release', 'create', 'v1.0.0', ...R, '--title', 'One', '--notes', 'First'],
    check: async () => (await octokit.repos.getReleaseByTag({ owner, repo, tag: 'v1.0.0' })).data.name === 'One',
  },
  {
    name: 'release upload',
    args: ['release', 'upload', 'v1.0.0', asset, ...R],
    check: async () => (await octokit.repos.getReleaseByTag({ owner, repo, tag: 'v1.0.0' })).data.assets.length === 1,
  },
  { name: 'release list', args: ['release', 'list', ...R], check: (o) => /^One\s+Latest\s+v1\.0\.0/m.test(o.stdout) },
  {
    name: 'release download',
    args: ['release', 'download', 'v1.0.0', ...R, '--dir', join(work, 'dl')],
    check: () => existsSync(join(work, 'dl', 'app.tgz')) && readFileSync(join(work, 'dl', 'app.tgz')).equals(Buffer.from([1, 2, 3, 0, 255])),
  },
  { name: 'search issues', args: ['search', 'issues', 'Bug', '--repo', `${owner}/${repo}`], check: (o) => o.stdout.includes('Bug') },
  {
    name: 'secret set',
    args: ['secret', 'set', 'DEPLOY_KEY', ...R, '--body', 's3cret'],
    check: async () => (await octokit.actions.listRepoSecrets({ owner, repo })).data.secrets.some((s) => s.name === 'DEPLOY_KEY'),
  },
  { name: 'gist create', args: ['gist', 'create', note], check: async () => (await octokit.gists.list()).data.length === 1 },
];

let ok = 0;
const failed: string[] = [];
const cpu0 = process.cpuUsage();
for (const k of kinds) {
  const run = k.args.includes('RUN') ? String((await runId()) ?? 0) : '';
  const args = k.args.map((a) => (a === 'RUN' ? run : a));
  const cwd = k.cwd ?? (inClone && existsSync(clone) ? clone : work);
  const out = await h.run(args, { cwd });
  let verdict: boolean | string = out.code === 0 || (k.name === 'pr checks' && out.code === 1 && /\bfail\b/.test(out.stdout));
  if (verdict === true && k.check) verdict = await Promise.resolve(k.check(out)).catch((e: Error) => e.message);
  if (verdict === true) ok++;
  else failed.push(`${k.name}: ${verdict === false ? `exit ${out.code} ${out.stderr.trim().split('\n').slice(-1)[0] ?? ''}` : verdict}`);
}
const cpu = process.cpuUsage(cpu0);
console.log(`gh ${inClone ? `inside a clone (GH_HOST=${h.host})` : `with -R ${h.host}`}: ${ok}/${kinds.length} command kinds work`);
for (const f of failed) console.log(`  ✗ ${f.slice(0, 240)}`);
console.log(`(harness CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms)`);
await h.close();
rmSync(work, { recursive: true, force: true });
