// Search over the twin's state with GitHub's query syntax, through @octokit/rest, standalone and
// through the recording gateway: code (the default branch's files, by word, path, filename,
// extension and language, with text matches), commits (message words, author, dates, merges),
// repositories (words, topics, forks, stars), issues and pull requests (date and count ranges) and
// users; each query returns exactly the expected items and counts, and the limits GitHub enforces
// refuse with its 422.

import t, { type Test } from 'tap';
import { b64, failure, startGitHubVia } from './setup.js';

for (const via of ['standalone', 'gateway'] as const) {
  await t.test(via, (t) => scenario(t, via));
}

async function scenario(t: Test, via: 'standalone' | 'gateway'): Promise<void> {
  const { octokit, close } = await startGitHubVia(via);
  t.teardown(close);
  const owner = 'octocat';
  await octokit.repos.createForAuthenticatedUser({ name: 'app', auto_init: true, description: 'The payments app' });
  await octokit.repos.createForAuthenticatedUser({ name: 'docs', auto_init: true, description: 'Documentation site' });
  await octokit.repos.replaceAllTopics({ owner, repo: 'app', names: ['payments', 'billing'] });
  const put = (repo: string, path: string, content: string, message: string) =>
    octokit.repos.createOrUpdateFileContents({ owner, repo, path, message, content: b64(content) });
  await put('app', 'src/billing/invoice.ts', 'export function renderInvoice() {\n  return "needle in the invoice";\n}\n', 'Add invoice rendering');
  await put('app', 'src/billing/refund.py', 'def refund():\n    return "needle"\n', 'Fix refund rounding');
  await put('app', 'src/util/strings.ts', 'export const greeting = "hello";\n', 'Add string helpers');
  await put('docs', 'guide/needle.md', '# A guide\n\nNothing to find in here.\n', 'Write the guide');
  const search = <T>(kind: 'code' | 'commits' | 'repos' | 'issuesAndPullRequests' | 'users', q: string, extra: Record<string, unknown> = {}) =>
    (octokit.search[kind] as unknown as (p: Record<string, unknown>) => Promise<{ data: T }>)({ q, ...extra }).then((r) => r.data);

  await t.test('code: words in the content of the default branch, narrowed by repo, path, filename, extension and language', async (t) => {
    const hits = await search<{ total_count: number; items: { path: string; repository: { full_name: string }; html_url: string }[] }>(
      'code',
      'needle user:octocat',
    );
    t.same(hits.items.map((i) => i.path).sort(), ['src/billing/invoice.ts', 'src/billing/refund.py'], 'content matches only, not the file named needle.md');
    t.equal(hits.total_count, 2);
    t.match(hits.items[0]!.html_url, /\/octocat\/app\/blob\/[0-9a-f]{40}\/src\/billing\//);
    t.same(
      (await search<{ items: { path: string }[] }>('code', 'needle in:path user:octocat')).items.map((i) => i.path),
      ['guide/needle.md'],
      'in:path',
    );
    t.same(
      (await search<{ items: { path: string }[] }>('code', 'needle repo:octocat/app extension:py')).items.map((i) => i.path),
      ['src/billing/refund.py'],
    );
    t.same(
      (await search<{ items: { path: string }[] }>('code', 'needle repo:octocat/app language:typescript')).items.map((i) => i.path),
      ['src/billing/invoice.ts'],
    );
    t.same(
      (await search<{ items: { path: string }[] }>('code', 'export repo:octocat/app path:src/util')).items.map((i) => i.path),
      ['src/util/strings.ts'],
    );
    t.same(
      (await search<{ items: { path: string }[] }>('code', 'filename:strings.ts repo:octocat/app')).items.map((i) => i.path),
      ['src/util/strings.ts'],
    );
    t.same(
      (await search<{ items: { path: string }[] }>('code', 'needle -extension:py repo:octocat/app')).items.map((i) => i.path),
      ['src/billing/invoice.ts'],
      'negated',
    );
    t.equal((await search<{ total_count: number }>('code', 'nowhere-to-be-found repo:octocat/app')).total_count, 0);
    const matched = await search<{ items: { text_matches: { fragment: string; matches: { text: string; indices: number[] }[] }[] }[] }>(
      'code',
      'needle repo:octocat/app extension:py',
      { mediaType: { format: 'text-match' } },
    );
    t.equal(matched.items[0]!.text_matches[0]!.matches[0]!.text, 'needle', 'text_matches on request');
    const f = matched.items[0]!.text_matches[0]!;
    t.equal(f.fragment.slice(f.matches[0]!.indices[0], f.matches[0]!.indices[1]), 'needle', 'indices point into the fragment');
  });

  await t.test('commits: message words, author and date ranges on the default branch', async (t) => {
    const fixes = await search<{ total_count: number; items: { commit: { message: string }; repository: { full_name: string } }[] }>(
      'commits',
      'refund repo:octocat/app',
    );
    t.same(
      fixes.items.map((i) => i.commit.message),
      ['Fix refund rounding'],
    );
    t.equal(fixes.items[0]!.repository.full_name, 'octocat/app');
    const all = await search<{ total_count: number; items: { commit: { author: { date: string } } }[] }>('commits', 'author:octocat repo:octocat/app', {
      sort: 'author-date',
      order: 'asc',
    });
    t.equal(all.total_count, 4, 'the initial commit and three file commits');
    const dates = all.items.map((i) => Date.parse(i.commit.author.date));
    t.same(
      dates,
      [...dates].sort((a, b) => a - b),
      'sorted by author date, oldest first',
    );
    const day = all.items[0]!.commit.author.date.slice(0, 10);
    t.equal((await search<{ total_count: number }>('commits', `repo:octocat/app author-date:>${day}`)).total_count, 0, 'none after that day');
    t.equal((await search<{ total_count: number }>('commits', `repo:octocat/app author-date:${day}`)).total_count, 4, 'all on that day');
    t.equal((await search<{ total_count: number }>('commits', 'repo:octocat/app merge:true')).total_count, 0, 'no merge commits');
  });

  await t.test('repositories: words in name and description, topics, forks left out by default, sorting', async (t) => {
    t.same(
      (await search<{ items: { full_name: string }[] }>('repos', 'payments user:octocat')).items.map((r) => r.full_name),
      ['octocat/app'],
    );
    t.same(
      (await search<{ items: { full_name: string }[] }>('repos', 'topic:billing')).items.map((r) => r.full_name),
      ['octocat/app'],
    );
    t.same(
      (await search<{ items: { full_name: string }[] }>('repos', 'docs in:name')).items.map((r) => r.full_name),
      ['octocat/docs'],
    );
    const both = await search<{ total_count: number; items: { full_name: string; score: number }[] }>('repos', 'user:octocat', { sort: 'stars' });
    t.equal(both.total_count, 2);
    t.equal(both.items[0]!.score, 1);
  });

  await t.test('in:readme, labels of one repository, topics in use', async (t) => {
    const current = (await octokit.repos.getContent({ owner, repo: 'docs', path: 'README.md' })).data as { sha: string };
    await octokit.repos.createOrUpdateFileContents({
      owner,
      repo: 'docs',
      path: 'README.md',
      message: 'Write the README',
      content: b64('# Docs\n\nHow to deploy with kubernetes.\n'),
      sha: current.sha,
    });
    t.same(
      (await search<{ items: { full_name: string }[] }>('repos', 'kubernetes in:readme')).items.map((r) => r.full_name),
      ['octocat/docs'],
    );
    t.same((await search<{ items: unknown[] }>('repos', 'kubernetes')).items, [], 'without in:readme the README is not searched');

    const app = (await octokit.repos.get({ owner, repo: 'app' })).data;
    await octokit.issues.createLabel({ owner, repo: 'app', name: 'billing-bug', description: 'Invoices and refunds' });
    const labels = (await octokit.search.labels({ repository_id: app.id, q: 'refunds' })).data;
    t.equal(labels.total_count, 1);
    t.equal(labels.items[0]!.name, 'billing-bug');
    t.equal((await octokit.search.labels({ repository_id: app.id, q: 'bug' })).data.items.length > 0, true, "the default 'bug' label too");
    t.equal((await failure(octokit.search.labels({ repository_id: 999_999, q: 'x' }))).status, 404);

    const topics = (await octokit.search.topics({ q: 'pay' })).data;
    t.equal(topics.total_count, 1);
    t.match(topics.items[0], { name: 'payments', featured: false, curated: false, display_name: null });
    t.same((await octokit.search.topics({ q: 'pay is:featured' })).data.items, [], 'GitHub’s curated topics are not part of the twin');
  });

  await t.test('issues and pull requests: created and comments ranges', async (t) => {
    const issue = (await octokit.issues.create({ owner, repo: 'app', title: 'Refunds round down', body: 'needle' })).data;
    await octokit.issues.createComment({ owner, repo: 'app', issue_number: issue.number, body: 'Confirmed' });
    const day = issue.created_at.slice(0, 10);
    t.same(
      (await search<{ items: { number: number }[] }>('issuesAndPullRequests', `repo:octocat/app created:${day} comments:>=1`)).items.map((i) => i.number),
      [issue.number],
    );
    t.equal((await search<{ total_count: number }>('issuesAndPullRequests', `repo:octocat/app comments:>1`)).total_count, 0);
    t.equal((await search<{ total_count: number }>('issuesAndPullRequests', `repo:octocat/app created:<${day}`)).total_count, 0);
  });

  await t.test('users: by login, type', async (t) => {
    const found = await search<{ total_count: number; items: { login: string; type: string }[] }>('users', 'octocat type:user');
    t.ok(found.items.length > 0);
    t.ok(found.items.every((u) => u.type === 'User'));
    t.ok(found.items.some((u) => u.login === 'octocat'));
  });

  await t.test('limits GitHub enforces: a missing q, more than 256 characters of words, past the first 1,000 results', async (t) => {
    const missing = await failure(search('code', ''));
    t.equal(missing.status, 422);
    const long = await failure(search('repos', `${'x'.repeat(257)} user:octocat`));
    t.equal(long.status, 422);
    t.match(long.body, { message: 'Validation Failed', errors: [{ resource: 'Search', field: 'q', code: 'invalid' }] });
    const far = await failure(search('repos', 'user:octocat', { per_page: 100, page: 11 }));
    t.equal(far.status, 422, 'results past the first 1,000 are not reachable');
    const qualifiersOnly = await failure(search('code', 'repo:octocat/app'));
    t.equal(qualifiersOnly.status, 422, 'code search needs a search term');
  });
}
