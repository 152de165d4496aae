// Every GitHub suggestion generates with the built-in planner, loads into a twin started on the
// seed file, and @octokit/rest reads the repositories, issues and pull requests it promised.

import t from 'tap';
import { Octokit } from '@octokit/rest';
import { startTwin } from '../helpers/twin.js';
import { seedFixture } from './seed-fixture.js';

const { twin, seedFrom } = await seedFixture('github', t.teardown.bind(t));
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function withOctokit(file: string, fn: (o: Octokit, login: string) => Promise<void>): Promise<void> {
  const running = await startTwin('github', { seedFile: file });
  try {
    const octokit = new Octokit({ auth: running.apiKey, baseUrl: running.url, log: quiet });
    const login = (await octokit.rest.users.getAuthenticated()).data.login;
    await fn(octokit, login);
  } finally {
    await running.close();
  }
}

t.ok(twin.suggestions.length >= 5, 'at least five GitHub suggestions');

t.test('busy web repository: issues, labels, pull requests, a merged one with its commits', async (t) => {
  await withOctokit(await seedFrom(twin.suggestions[0]!.prompt, 'busy'), async (o, owner) => {
    const repo = 'acme-web';
    const issues = await o.paginate(o.rest.issues.listForRepo, { owner, repo, state: 'all', per_page: 100 });
    const onlyIssues = issues.filter((i) => !i.pull_request);
    t.equal(onlyIssues.filter((i) => i.state === 'open').length, 12);
    t.equal(onlyIssues.filter((i) => i.state === 'closed').length, 5);
    t.equal(onlyIssues.filter((i) => i.labels.some((l) => (typeof l === 'string' ? l : l.name) === 'bug')).length, 4);
    const pulls = await o.paginate(o.rest.pulls.list, { owner, repo, state: 'all', per_page: 100 });
    t.equal(pulls.length, 3);
    const merged = pulls.filter((p) => p.merged_at !== null);
    t.equal(merged.length, 1);
    const commits = await o.rest.pulls.listCommits({ owner, repo, pull_number: merged[0]!.number });
    t.ok(commits.data.length >= 1, 'the merged pull request has its commits');
    t.ok((await o.rest.pulls.checkIfMerged({ owner, repo, pull_number: merged[0]!.number })).status === 204);
  });
});

t.test('several services: 4 repositories with 3 open issues and 2 merged pull requests each', async (t) => {
  await withOctokit(await seedFrom(twin.suggestions[1]!.prompt, 'services'), async (o, owner) => {
    const repos = await o.paginate(o.rest.repos.listForAuthenticatedUser, { per_page: 100 });
    t.equal(repos.length, 4);
    for (const r of repos) {
      const issues = (await o.paginate(o.rest.issues.listForRepo, { owner, repo: r.name, state: 'open', per_page: 100 })).filter((i) => !i.pull_request);
      t.equal(issues.length, 3, `${r.name}: 3 open issues`);
      const pulls = await o.paginate(o.rest.pulls.list, { owner, repo: r.name, state: 'closed', per_page: 100 });
      t.equal(pulls.filter((p) => p.merged_at).length, 2, `${r.name}: 2 merged`);
    }
  });
});

t.test('review queue: private repository, 6 open pull requests, 2 drafts, 10 closed issues', async (t) => {
  await withOctokit(await seedFrom(twin.suggestions[2]!.prompt, 'review'), async (o, owner) => {
    const repo = await o.rest.repos.get({ owner, repo: 'payments-api' });
    t.equal(repo.data.private, true);
    const pulls = await o.paginate(o.rest.pulls.list, { owner, repo: 'payments-api', state: 'open', per_page: 100 });
    t.equal(pulls.length, 6);
    t.equal(pulls.filter((p) => p.draft).length, 2);
    const closed = (await o.paginate(o.rest.issues.listForRepo, { owner, repo: 'payments-api', state: 'closed', per_page: 100 })).filter(
      (i) => !i.pull_request,
    );
    t.equal(closed.length, 10);
  });
});

t.test('triage backlog: 20 issues, 5 labeled good-first-issue, 15 closed', async (t) => {
  await withOctokit(await seedFrom(twin.suggestions[3]!.prompt, 'triage'), async (o, owner) => {
    const issues = await o.paginate(o.rest.issues.listForRepo, { owner, repo: 'docs', state: 'all', per_page: 100 });
    t.equal(issues.length, 20);
    t.equal(issues.filter((i) => i.state === 'closed').length, 15);
    const labeled = await o.paginate(o.rest.issues.listForRepo, { owner, repo: 'docs', state: 'all', labels: 'good-first-issue', per_page: 100 });
    t.equal(labeled.length, 5);
  });
});

t.test('a discussed issue: titled, with 4 comments', async (t) => {
  await withOctokit(await seedFrom(twin.suggestions[4]!.prompt, 'discussed'), async (o, owner) => {
    const issues = await o.rest.issues.listForRepo({ owner, repo: 'api', state: 'all' });
    t.equal(issues.data.length, 1);
    t.equal(issues.data[0]!.title, 'Login fails on Safari');
    t.equal(issues.data[0]!.comments, 4);
    const comments = await o.rest.issues.listComments({ owner, repo: 'api', issue_number: issues.data[0]!.number });
    t.equal(comments.data.length, 4);
  });
});

t.test('public and private: 6 repositories, 2 private', async (t) => {
  await withOctokit(await seedFrom(twin.suggestions[5]!.prompt, 'visibility'), async (o) => {
    const repos = await o.paginate(o.rest.repos.listForAuthenticatedUser, { per_page: 100 });
    t.equal(repos.length, 6);
    t.equal(repos.filter((r) => r.private).length, 2);
  });
});
