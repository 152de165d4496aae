// `Accept` media types through @octokit/rest: a pull request, a commit and a comparison as a
// unified diff (which `git apply` takes) or as mail patches, a file's raw bytes, a commit's SHA.

import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGitHub, b64 } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;
const owner = 'octocat';
const repo = 'app';
await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'src/a.txt', message: 'Add a', content: b64('one\ntwo\nthree\n') });
const base = (await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
await octokit.git.createRef({ owner, repo, ref: 'refs/heads/change', sha: base });
const a = await octokit.repos.getContent({ owner, repo, path: 'src/a.txt', ref: 'change' });
await octokit.repos.createOrUpdateFileContents({
  owner,
  repo,
  path: 'src/a.txt',
  branch: 'change',
  message: 'Change two\n\nBecause two was wrong.',
  content: b64('one\nTWO\nthree\n'),
  sha: (a.data as { sha: string }).sha,
});
await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'src/b.txt', branch: 'change', message: 'Add b', content: b64('bee\n') });
const pr = await octokit.pulls.create({ owner, repo, head: 'change', base: 'main', title: 'Change' });

t.test('a pull request as a diff git applies, and as patches', async (t) => {
  const diff = await octokit.pulls.get({ owner, repo, pull_number: pr.data.number, mediaType: { format: 'diff' } });
  const text = String(diff.data);
  t.match(diff.headers['content-type'], /application\/vnd\.github\.diff/);
  t.match(text, /^diff --git a\/src\/a\.txt b\/src\/a\.txt\n/);
  t.match(text, /(-two\n\+TWO|\+TWO\n-two)\n/);
  t.match(text, /diff --git a\/src\/b\.txt b\/src\/b\.txt\nnew file mode 100644\n/);
  // The diff applies to a checkout of the base.
  const dir = mkdtempSync(join(tmpdir(), 'twin-diff-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('git', ['init', '-q', dir]);
  execFileSync('mkdir', ['-p', join(dir, 'src')]);
  writeFileSync(join(dir, 'src/a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(dir, 'change.diff'), text);
  execFileSync('git', ['apply', 'change.diff'], { cwd: dir });
  t.equal(execFileSync('cat', [join(dir, 'src/a.txt')]).toString(), 'one\nTWO\nthree\n');
  t.equal(execFileSync('cat', [join(dir, 'src/b.txt')]).toString(), 'bee\n');

  const patch = String((await octokit.pulls.get({ owner, repo, pull_number: pr.data.number, mediaType: { format: 'patch' } })).data);
  t.match(
    patch,
    /^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\nFrom: The Octocat <.*>\nDate: .*\nSubject: \[PATCH 1\/2\] Change two\n\nBecause two was wrong\.\n/,
  );
  t.match(patch, /Subject: \[PATCH 2\/2\] Add b/);
  const json = await octokit.pulls.get({ owner, repo, pull_number: pr.data.number });
  t.equal(json.data.number, pr.data.number, 'without the media type: JSON');
});

t.test('a commit as diff, patch and sha; a comparison as diff; a file raw', async (t) => {
  const head = pr.data.head.sha;
  const diff = String((await octokit.repos.getCommit({ owner, repo, ref: head, mediaType: { format: 'diff' } })).data);
  t.match(
    diff,
    /^diff --git a\/src\/b\.txt b\/src\/b\.txt\nnew file mode 100644\nindex 0000000\.\.[0-9a-f]{7}\n--- \/dev\/null\n\+\+\+ b\/src\/b\.txt\n@@ -0,0 \+1,1 @@\n\+bee\n$/,
  );
  const sha = await fetch(`${twin.url}/repos/${owner}/${repo}/commits/change`, {
    headers: { authorization: `token ${twin.apiKey}`, accept: 'application/vnd.github.sha' },
  });
  t.equal(await sha.text(), head);
  const cmp = String((await octokit.repos.compareCommitsWithBasehead({ owner, repo, basehead: `main...change`, mediaType: { format: 'diff' } })).data);
  t.match(cmp, /src\/a\.txt[\s\S]*src\/b\.txt/);
  const raw = await octokit.repos.getContent({ owner, repo, path: 'src/a.txt', ref: 'change', mediaType: { format: 'raw' } });
  t.equal(String(raw.data), 'one\nTWO\nthree\n');
  const dir = await octokit.repos.getContent({ owner, repo, path: 'src', ref: 'change', mediaType: { format: 'raw' } });
  t.ok(Array.isArray(dir.data), 'a directory has no raw form: JSON listing');
});
