// Gists through @octokit/rest: create (files, description, secret by default), read with content,
// language and history, edit (content, rename, remove a file) as new revisions, a past revision and
// a file's raw URL, lists (the viewer's, a user's, public ones), delete; bad input refused as GitHub
// refuses it.

import t from 'tap';
import { failure, startGitHub } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit } = gh;

t.test('a gist through its life', async (t) => {
  const made = await octokit.gists.create({
    description: 'Snippets',
    files: { 'hello.ts': { content: 'export const hi = 1;\n' }, 'notes.md': { content: '# Notes\n' } },
  });
  t.equal(made.status, 201);
  const gist = made.data;
  t.match(gist.id, /^[0-9a-f]{32}$/);
  t.equal(gist.public, false, 'secret unless asked');
  t.equal(gist.owner?.login, 'octocat');
  t.match(gist.files!['hello.ts'], { filename: 'hello.ts', language: 'TypeScript', content: 'export const hi = 1;\n', size: 21 });
  t.equal(gist.history!.length, 1);
  t.match(gist.history![0]!.change_status, { additions: 2, deletions: 0, total: 2 });

  const raw = await fetch(gist.files!['notes.md']!.raw_url!);
  t.equal(raw.status, 200);
  t.equal(await raw.text(), '# Notes\n');

  const edited = (
    await octokit.gists.update({
      gist_id: gist.id!,
      description: 'More snippets',
      files: { 'hello.ts': { content: 'export const hi = 2;\n' }, 'notes.md': { filename: 'README.md' } } as never,
    })
  ).data;
  t.equal(edited.description, 'More snippets');
  t.same(Object.keys(edited.files!).sort(), ['README.md', 'hello.ts'], 'renamed');
  t.equal(edited.history!.length, 2, 'a new revision');
  const first = edited.history![1]!.version!;
  const old = (await octokit.gists.getRevision({ gist_id: gist.id!, sha: first })).data;
  t.equal(old.files!['hello.ts']!.content, 'export const hi = 1;\n', 'the past revision as it was');

  const removed = (await octokit.gists.update({ gist_id: gist.id!, files: { 'README.md': null } as never })).data;
  t.same(Object.keys(removed.files!), ['hello.ts']);

  const pub = (await octokit.gists.create({ public: true, files: { 'a.txt': { content: 'a' } } })).data;
  t.same(
    (await octokit.gists.list()).data.map((g) => g.id),
    [pub.id, gist.id],
    "the viewer's, newest first",
  );
  t.same(
    (await octokit.gists.listPublic()).data.map((g) => g.id),
    [pub.id],
  );
  t.same(
    (await octokit.gists.listForUser({ username: 'octocat' })).data.map((g) => g.id),
    [pub.id, gist.id],
  );

  t.equal(
    (await failure(octokit.gists.update({ gist_id: gist.id!, files: { 'hello.ts': { filename: '__proto__' } } as never }))).status,
    422,
    'a rename to __proto__ is refused, not lost',
  );
  t.equal((await failure(octokit.gists.create({ files: {} }))).status, 422);
  t.equal((await failure(octokit.gists.create({ files: { 'x.txt': { content: '' } } }))).status, 422, "contents can't be blank");
  await octokit.gists.delete({ gist_id: gist.id! });
  t.equal((await failure(octokit.gists.get({ gist_id: gist.id! }))).status, 404);
});
