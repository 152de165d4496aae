// The GitHub CLI (Debian's `gh`, unchanged) inside a git clone, with only what the README says to
// set (GH_HOST, GH_ENTERPRISE_TOKEN, SSL_CERT_FILE, GIT_SSL_CAINFO). gh finds the repository of a
// clone by matching its remote's host, without the port, against GH_HOST: so the twin is also served
// at an address of its own on the default HTTPS port (twin-runtime/own-host.ts), and gh's host is
// that address. `gh repo clone`, then `gh issue list`, `gh pr list|view|status|checkout` and
// `gh pr create` with no `-R`, through the recording gateway.

import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ensureGh, startGhHarness } from './gh-cli.js';
import { b64 } from './setup.js';

const missing = ensureGh();
const h = missing ? undefined : await startGhHarness({ ownHost: true });
if (missing) {
  t.skip(`gh CLI unavailable: ${missing}`, () => {});
} else if (!h) {
  t.skip('this process may not bind port 443 of a loopback address (needs root or CAP_NET_BIND_SERVICE)', () => {});
} else {
  t.teardown(() => h.close());
  const { octokit } = h.gh;
  const owner = 'octocat';
  const repo = 'service';
  const work = mkdtempSync(join(tmpdir(), 'twins-gh-clone-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const clone = join(work, repo);
  // Local git commands only: a synchronous one would block the gateway, which runs in this process.
  const git = (args: string[]) => execFileSync('git', args, { cwd: clone, env: h.env, encoding: 'utf8' }).trim();
  const gitAsync = (args: string[]) => promisify(execFile)('git', args, { cwd: clone, env: h.env, timeout: 60_000 });

  await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true, private: true });
  await octokit.issues.create({ owner, repo, title: 'Crash on empty input' });
  const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
  await octokit.git.createRef({ owner, repo, ref: 'refs/heads/guard-empty', sha: main.data.object.sha });
  const fix = await octokit.repos.createOrUpdateFileContents({
    owner,
    repo,
    path: 'src/parse.ts',
    branch: 'guard-empty',
    message: 'Guard empty input',
    content: b64('export const parse = (s: string) => (s ? s.split(",") : []);\n'),
  });
  await octokit.pulls.create({ owner, repo, head: 'guard-empty', base: 'main', title: 'Guard empty input', body: 'Fixes #1' });

  t.test('the host gh is given is a host name without a port', async (t) => {
    t.match(h.host, /^127\.\d+\.\d+\.1$/);
  });

  t.test('gh repo clone owner/repo clones a private repository from the twin', async (t) => {
    const cloned = await h.run(['repo', 'clone', `${owner}/${repo}`], { cwd: work });
    t.equal(cloned.code, 0, cloned.stderr);
    t.ok(existsSync(join(clone, 'README.md')), 'the clone has the initial commit');
    t.equal(git(['remote', 'get-url', 'origin']), `https://${h.host}/${owner}/${repo}.git`);
  });

  t.test('inside the clone: gh issue list, gh pr list, gh pr view, gh pr status without -R', async (t) => {
    const issues = await h.run(['issue', 'list'], { cwd: clone });
    t.equal(issues.code, 0, issues.stderr);
    t.match(issues.stdout, /^1\s+OPEN\s+Crash on empty input/m);
    const prs = await h.run(['pr', 'list'], { cwd: clone });
    t.equal(prs.code, 0, prs.stderr);
    t.match(prs.stdout, /^2\s+Guard empty input\s+guard-empty\s+OPEN/m);
    const view = await h.run(['pr', 'view', '2', '--json', 'number,headRefName,headRefOid'], { cwd: clone });
    t.equal(view.code, 0, view.stderr);
    t.same(JSON.parse(view.stdout), { number: 2, headRefName: 'guard-empty', headRefOid: fix.data.commit.sha });
    const status = await h.run(['pr', 'status'], { cwd: clone });
    t.equal(status.code, 0, status.stderr);
    t.match(status.stdout, /Current branch\n\s+There is no pull request associated with \[main\]/);
  });

  t.test('gh pr checkout 2 fetches the pull request head and checks it out', async (t) => {
    const checkout = await h.run(['pr', 'checkout', '2'], { cwd: clone });
    t.equal(checkout.code, 0, checkout.stderr);
    t.equal(git(['rev-parse', '--abbrev-ref', 'HEAD']), 'guard-empty');
    t.equal(git(['rev-parse', 'HEAD']), fix.data.commit.sha);
    t.match(readFileSync(join(clone, 'src/parse.ts'), 'utf8'), /s\.split/);
    const status = await h.run(['pr', 'status'], { cwd: clone });
    t.equal(status.code, 0, status.stderr);
    t.match(status.stdout, /Current branch\n\s+#2\s+Guard empty input \[guard-empty\]/, 'gh knows the branch is the pull request');
  });

  t.test('a commit pushed from the clone, then gh pr create with no -R', async (t) => {
    git(['checkout', '-q', '-b', 'docs', 'main']);
    git(['-c', 'user.name=Octo Cat', '-c', 'user.email=octocat@example.com', 'commit', '-q', '--allow-empty', '-m', 'Document parse']);
    const sha = git(['rev-parse', 'HEAD']);
    // gh's credential helper is the one `gh auth setup-git` would install; here passed on the command line.
    // Asynchronously: the gateway answering the push runs in this process.
    await gitAsync(['-c', 'credential.helper=', '-c', 'credential.helper=!gh auth git-credential', 'push', '-q', 'origin', 'docs']);
    t.equal((await octokit.git.getRef({ owner, repo, ref: 'heads/docs' })).data.object.sha, sha, 'the push reached the twin');
    const created = await h.run(['pr', 'create', '--base', 'main', '--title', 'Document parse', '--body', ''], { cwd: clone });
    t.equal(created.code, 0, created.stderr);
    t.match(created.stdout, /\/octocat\/service\/pull\/3\s*$/);
    const pr = await octokit.pulls.get({ owner, repo, pull_number: 3 });
    t.equal(pr.data.head.ref, 'docs');
    t.equal(pr.data.head.sha, sha);
  });

  t.test('gh reached the twin through the gateway and every request was recorded', async (t) => {
    await new Promise((r) => setTimeout(r, 100));
    const rows = h.recorded();
    t.ok(rows.some((r) => r.method === 'POST' && r.path === '/api/graphql' && r.status_code === 200));
    t.ok(
      rows.some((r) => r.path.endsWith('/git-upload-pack') && r.status_code === 200),
      'the clone and the fetch went through the gateway',
    );
    t.notOk(
      rows.some((r) => r.status_code >= 500),
      'no 5xx',
    );
  });
}
