// The GitHub CLI (Debian's `gh`, unchanged) with forks, through the recording gateway over HTTPS:
// `gh repo fork` makes the viewer's fork of an organization's repository, `gh pr create --head
// owner:branch` opens a cross-repository pull request against the parent, `gh pr view` shows it,
// `gh pr merge` brings the fork's commit into the parent, and `gh repo sync` brings the merge back
// to the fork.

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
  const org = 'octo-org';
  const me = (await octokit.users.getAuthenticated()).data.login;
  await octokit.repos.createInOrg({ org, name: 'lib', auto_init: true, description: 'A library' });

  t.test('gh repo fork, gh pr create from the fork, gh pr view, gh pr merge', async (t) => {
    const forked = await h.run(['repo', 'fork', `${h.host}/${org}/lib`, '--clone=false']);
    t.equal(forked.code, 0, forked.stderr);
    const fork = await octokit.repos.get({ owner: me, repo: 'lib' });
    t.equal(fork.data.fork, true);
    t.equal(fork.data.parent?.full_name, `${org}/lib`);

    const main = await octokit.git.getRef({ owner: me, repo: 'lib', ref: 'heads/main' });
    await octokit.git.createRef({ owner: me, repo: 'lib', ref: 'refs/heads/docs', sha: main.data.object.sha });
    const commit = await octokit.repos.createOrUpdateFileContents({
      owner: me,
      repo: 'lib',
      path: 'DOCS.md',
      branch: 'docs',
      message: 'Add docs',
      content: b64('# Docs\n'),
    });

    const R = `${h.host}/${org}/lib`;
    const created = await h.run(['pr', 'create', '-R', R, '--head', `${me}:docs`, '--base', 'main', '--title', 'Add docs', '--body', 'From my fork']);
    t.equal(created.code, 0, created.stderr);
    t.match(created.stdout, new RegExp(`/${org}/lib/pull/1\\s*$`));
    const pr = await octokit.pulls.get({ owner: org, repo: 'lib', pull_number: 1 });
    t.equal(pr.data.head.repo?.full_name, `${me}/lib`);
    t.equal(pr.data.head.sha, commit.data.commit.sha);

    const view = await h.run(['pr', 'view', '1', '-R', R, '--json', 'isCrossRepository,headRepositoryOwner,headRefName,title']);
    t.equal(view.code, 0, view.stderr);
    const json = JSON.parse(view.stdout);
    t.equal(json.isCrossRepository, true);
    t.equal(json.headRepositoryOwner.login, me);
    t.equal(json.headRefName, 'docs');

    const merged = await h.run(['pr', 'merge', '1', '-R', R, '--merge']);
    t.equal(merged.code, 0, merged.stderr);
    const docs = await octokit.repos.getContent({ owner: org, repo: 'lib', path: 'DOCS.md' });
    t.equal(Buffer.from((docs.data as { content: string }).content, 'base64').toString(), '# Docs\n');
    const history = (await octokit.repos.listCommits({ owner: org, repo: 'lib' })).data.map((c) => c.sha);
    t.ok(history.includes(commit.data.commit.sha!), "the fork's commit is in the parent's history");

    // The merge commit exists only upstream: `gh repo sync` brings it to the fork (merge-upstream).
    const upstreamMain = (await octokit.git.getRef({ owner: org, repo: 'lib', ref: 'heads/main' })).data.object.sha;
    const synced = await h.run(['repo', 'sync', `${h.host}/${me}/lib`, '--branch', 'main']);
    t.equal(synced.code, 0, synced.stderr);
    t.equal((await octokit.git.getRef({ owner: me, repo: 'lib', ref: 'heads/main' })).data.object.sha, upstreamMain, "the fork's main is the upstream merge");
  });
}
