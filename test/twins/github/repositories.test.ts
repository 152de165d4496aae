// Repositories (create for user and org, get, update, rename, delete, list, paginate, topics),
// branches, refs and the contents API.

import t from 'tap';
import { startGitHub, failure, b64 } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;

t.test('create, get, update, rename and delete a repository', async (t) => {
  const created = await octokit.repos.createForAuthenticatedUser({ name: 'widgets', description: 'Widgets', private: true });
  t.equal(created.status, 201);
  t.equal(created.headers.location, `${twin.url}/repos/octocat/widgets`);
  const r = created.data;
  t.equal(r.full_name, 'octocat/widgets');
  t.equal(r.private, true);
  t.equal(r.visibility, 'private');
  t.equal(r.owner.login, 'octocat');
  t.equal(r.default_branch, 'main');
  t.equal(r.node_id, Buffer.from(`010:Repository${r.id}`).toString('base64'));
  t.equal(r.url, `${twin.url}/repos/octocat/widgets`);
  t.equal(r.html_url, `${twin.url}/octocat/widgets`);
  t.equal(r.issues_url, `${twin.url}/repos/octocat/widgets/issues{/number}`);
  t.same(r.permissions, { admin: true, maintain: true, push: true, triage: true, pull: true });

  const dup = await failure(octokit.repos.createForAuthenticatedUser({ name: 'widgets' }));
  t.equal(dup.status, 422);
  t.equal(dup.body.message, 'Repository creation failed.');
  t.same(dup.body.errors, [{ resource: 'Repository', code: 'custom', field: 'name', message: 'name already exists on this account' }]);

  const missing = await failure(octokit.request('POST /user/repos', { description: 'no name' } as any));
  t.equal(missing.status, 422);
  t.match(missing.body.message, /"name" wasn't supplied/);

  const got = await octokit.repos.get({ owner: 'octocat', repo: 'widgets' });
  t.equal(got.data.id, r.id);
  t.equal(got.data.description, 'Widgets');

  const updated = await octokit.repos.update({ owner: 'octocat', repo: 'widgets', description: 'Better widgets', has_wiki: false, private: false });
  t.equal(updated.data.description, 'Better widgets');
  t.equal(updated.data.has_wiki, false);
  t.equal(updated.data.visibility, 'public');

  const renamed = await octokit.repos.update({ owner: 'octocat', repo: 'widgets', name: 'gadgets' });
  t.equal(renamed.data.full_name, 'octocat/gadgets');
  t.equal(renamed.data.url, `${twin.url}/repos/octocat/gadgets`);
  t.equal((await octokit.repos.get({ owner: 'octocat', repo: 'gadgets' })).data.id, r.id);
  t.equal((await octokit.repos.get({ owner: 'octocat', repo: 'widgets' })).data.full_name, 'octocat/gadgets', 'the old name redirects (redirects.test.ts)');

  const badBranch = await failure(octokit.repos.update({ owner: 'octocat', repo: 'gadgets', default_branch: 'nope' }));
  t.equal(badBranch.status, 422);
  t.equal(badBranch.body.errors[0].field, 'default_branch');

  const del = await octokit.repos.delete({ owner: 'octocat', repo: 'gadgets' });
  t.equal(del.status, 204);
  t.equal((await failure(octokit.repos.get({ owner: 'octocat', repo: 'gadgets' }))).status, 404);
});

t.test('org repositories and the three lists', async (t) => {
  const org = await octokit.repos.createInOrg({ org: 'octo-org', name: 'platform' });
  t.equal(org.data.owner.login, 'octo-org');
  t.equal(org.data.owner.type, 'Organization');
  t.equal((org.data as any).organization.login, 'octo-org');
  t.equal((await failure(octokit.repos.createInOrg({ org: 'ghost-org', name: 'x' }))).status, 404);

  await octokit.repos.createForAuthenticatedUser({ name: 'alpha' });
  await octokit.repos.createForAuthenticatedUser({ name: 'beta', private: true });

  const orgList = await octokit.repos.listForOrg({ org: 'octo-org' });
  t.same(
    orgList.data.map((x) => x.name),
    ['platform'],
  );
  const userList = await octokit.repos.listForUser({ username: 'octocat' });
  t.same(
    userList.data.map((x) => x.name),
    ['alpha', 'beta'],
    'full_name order',
  );
  const mine = await octokit.repos.listForAuthenticatedUser();
  t.same(mine.data.map((x) => x.full_name).sort(), ['octo-org/platform', 'octocat/alpha', 'octocat/beta']);
  const privateOnly = await octokit.repos.listForAuthenticatedUser({ visibility: 'private' });
  t.same(
    privateOnly.data.map((x) => x.name),
    ['beta'],
  );
});

t.test('pagination: per_page/page with a Link header that octokit.paginate follows', async (t) => {
  for (let i = 0; i < 12; i++) await octokit.repos.createInOrg({ org: 'octo-org', name: `svc-${String(i).padStart(2, '0')}` });
  const first = await octokit.repos.listForOrg({ org: 'octo-org', per_page: 5, sort: 'full_name' });
  t.equal(first.data.length, 5);
  const link = first.headers.link!;
  t.match(link, /rel="next"/);
  t.match(link, /rel="last"/);
  t.match(link, new RegExp(`<${twin.url}/orgs/octo-org/repos\\?per_page=5&sort=full_name&page=2>; rel="next"`));
  t.match(link, /page=3>; rel="last"/);
  const third = await octokit.repos.listForOrg({ org: 'octo-org', per_page: 5, page: 3, sort: 'full_name' });
  t.equal(third.data.length, 3);
  t.match(third.headers.link!, /rel="prev"/);
  t.notMatch(third.headers.link!, /rel="next"/);

  const all = await octokit.paginate(octokit.repos.listForOrg, { org: 'octo-org', per_page: 4 });
  t.equal(all.length, 13);
  t.equal(new Set(all.map((r) => r.id)).size, 13);
});

t.test('topics', async (t) => {
  const set = await octokit.repos.replaceAllTopics({ owner: 'octocat', repo: 'alpha', names: ['api', 'twins'] });
  t.same(set.data.names, ['api', 'twins']);
  t.same((await octokit.repos.getAllTopics({ owner: 'octocat', repo: 'alpha' })).data.names, ['api', 'twins']);
  t.same((await octokit.repos.get({ owner: 'octocat', repo: 'alpha' })).data.topics, ['api', 'twins']);
  const bad = await failure(octokit.repos.replaceAllTopics({ owner: 'octocat', repo: 'alpha', names: ['Not Valid'] }));
  t.equal(bad.status, 422);
  t.equal(bad.body.message, 'Validation Failed');
  t.equal(bad.body.errors[0].field, 'topics');
});

t.test('contents, commits, branches and refs', async (t) => {
  await octokit.repos.createForAuthenticatedUser({ name: 'code', auto_init: true });
  const readme = await octokit.repos.getContent({ owner: 'octocat', repo: 'code', path: 'README.md' });
  const file = readme.data as any;
  t.equal(file.type, 'file');
  t.equal(Buffer.from(file.content, 'base64').toString(), '# code\n');

  const created = await octokit.repos.createOrUpdateFileContents({
    owner: 'octocat',
    repo: 'code',
    path: 'src/lib/index.ts',
    message: 'Add index',
    content: b64('export const x = 1;\n'),
  });
  t.equal(created.status, 201);
  t.equal(created.data.content!.path, 'src/lib/index.ts');
  t.equal(created.data.commit.message, 'Add index');

  const noSha = await failure(
    octokit.repos.createOrUpdateFileContents({ owner: 'octocat', repo: 'code', path: 'src/lib/index.ts', message: 'again', content: b64('y') }),
  );
  t.equal(noSha.status, 422);
  const wrongSha = await failure(
    octokit.repos.createOrUpdateFileContents({
      owner: 'octocat',
      repo: 'code',
      path: 'src/lib/index.ts',
      message: 'again',
      content: b64('y'),
      sha: 'a'.repeat(40),
    }),
  );
  t.equal(wrongSha.status, 409);

  const updated = await octokit.repos.createOrUpdateFileContents({
    owner: 'octocat',
    repo: 'code',
    path: 'src/lib/index.ts',
    message: 'Bump x',
    content: b64('export const x = 2;\n'),
    sha: created.data.content!.sha!,
  });
  t.equal(updated.status, 200);

  const dir = await octokit.repos.getContent({ owner: 'octocat', repo: 'code', path: 'src' });
  t.same(
    (dir.data as any[]).map((e) => [e.name, e.type]),
    [['lib', 'dir']],
  );

  const commits = await octokit.repos.listCommits({ owner: 'octocat', repo: 'code' });
  t.same(
    commits.data.map((c) => c.commit.message),
    ['Bump x', 'Add index', 'Initial commit'],
  );
  t.equal(commits.data[0]!.author!.login, 'octocat');
  t.equal(commits.data[0]!.parents[0]!.sha, commits.data[1]!.sha);
  const one = await octokit.repos.getCommit({ owner: 'octocat', repo: 'code', ref: commits.data[0]!.sha });
  t.same(
    one.data.files!.map((f) => [f.filename, f.status, f.additions, f.deletions]),
    [['src/lib/index.ts', 'modified', 1, 1]],
  );

  const main = await octokit.git.getRef({ owner: 'octocat', repo: 'code', ref: 'heads/main' });
  t.equal(main.data.object.sha, commits.data[0]!.sha);
  const ref = await octokit.git.createRef({ owner: 'octocat', repo: 'code', ref: 'refs/heads/feature/x', sha: commits.data[1]!.sha });
  t.equal(ref.status, 201);
  t.equal(ref.data.ref, 'refs/heads/feature/x');
  const again = await failure(octokit.git.createRef({ owner: 'octocat', repo: 'code', ref: 'refs/heads/feature/x', sha: commits.data[1]!.sha }));
  t.equal(again.status, 422);
  t.equal(again.body.message, 'Validation Failed');

  const branches = await octokit.repos.listBranches({ owner: 'octocat', repo: 'code' });
  t.same(
    branches.data.map((b) => b.name),
    ['feature/x', 'main'],
  );
  const branch = await octokit.repos.getBranch({ owner: 'octocat', repo: 'code', branch: 'feature/x' });
  t.equal(branch.data.commit.sha, commits.data[1]!.sha);

  const notFf = await failure(octokit.git.updateRef({ owner: 'octocat', repo: 'code', ref: 'heads/main', sha: commits.data[2]!.sha }));
  t.equal(notFf.status, 422);
  const ff = await octokit.git.updateRef({ owner: 'octocat', repo: 'code', ref: 'heads/feature/x', sha: commits.data[0]!.sha });
  t.equal(ff.data.object.sha, commits.data[0]!.sha);
  t.equal((await octokit.git.deleteRef({ owner: 'octocat', repo: 'code', ref: 'heads/feature/x' })).status, 204);
  t.equal((await failure(octokit.git.getRef({ owner: 'octocat', repo: 'code', ref: 'heads/feature/x' }))).status, 404);

  const removed = await octokit.repos.deleteFile({
    owner: 'octocat',
    repo: 'code',
    path: 'src/lib/index.ts',
    message: 'Remove',
    sha: updated.data.content!.sha!,
  });
  t.equal(removed.data.content, null);
  t.equal((await failure(octokit.repos.getContent({ owner: 'octocat', repo: 'code', path: 'src/lib/index.ts' }))).status, 404);
});

t.test('compare two refs', async (t) => {
  const main = await octokit.git.getRef({ owner: 'octocat', repo: 'code', ref: 'heads/main' });
  await octokit.git.createRef({ owner: 'octocat', repo: 'code', ref: 'refs/heads/cmp', sha: main.data.object.sha });
  await octokit.repos.createOrUpdateFileContents({ owner: 'octocat', repo: 'code', path: 'n.txt', branch: 'cmp', message: 'Add n', content: b64('n\n') });
  const cmp = await octokit.repos.compareCommitsWithBasehead({ owner: 'octocat', repo: 'code', basehead: 'main...cmp' });
  t.equal(cmp.data.status, 'ahead');
  t.equal(cmp.data.ahead_by, 1);
  t.equal(cmp.data.behind_by, 0);
  t.same(
    cmp.data.commits.map((c) => c.commit.message),
    ['Add n'],
  );
  t.same(
    cmp.data.files!.map((f) => [f.filename, f.status]),
    [['n.txt', 'added']],
  );
  t.equal((await octokit.repos.compareCommitsWithBasehead({ owner: 'octocat', repo: 'code', basehead: 'cmp...main' })).data.status, 'behind');
  t.equal((await failure(octokit.repos.compareCommitsWithBasehead({ owner: 'octocat', repo: 'code', basehead: 'main...nope' }))).status, 404);
});

t.test("a file's download_url is served by the twin (raw bytes at the ref; a private repository needs a key)", async (t) => {
  await octokit.repos.createForAuthenticatedUser({ name: 'raw-public', auto_init: true });
  await octokit.repos.createForAuthenticatedUser({ name: 'raw-private', auto_init: true, private: true });
  for (const repo of ['raw-public', 'raw-private']) {
    await octokit.repos.createOrUpdateFileContents({ owner: 'octocat', repo, path: 'src/a.txt', message: 'add', content: b64('raw bytes\n') });
  }
  const file = (await octokit.repos.getContent({ owner: 'octocat', repo: 'raw-public', path: 'src/a.txt' })).data as { download_url: string };
  t.ok(file.download_url.startsWith(twin.url), 'the twin’s own URL, never raw.githubusercontent.com');
  const raw = await fetch(file.download_url);
  t.equal(raw.status, 200);
  t.equal(await raw.text(), 'raw bytes\n');
  const secret = (await octokit.repos.getContent({ owner: 'octocat', repo: 'raw-private', path: 'src/a.txt' })).data as { download_url: string };
  t.equal((await fetch(secret.download_url)).status, 404, 'a private file without a key is not found');
  t.equal((await fetch(secret.download_url, { headers: { authorization: `token ${twin.apiKey}` } })).status, 200);
  t.equal((await fetch(`${twin.url}/octocat/raw-public/raw/main/nope.txt`)).status, 404);
});
