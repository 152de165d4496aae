// Issues: create/get/update (state_reason, labels, assignees, milestone), list filters, comments,
// labels, lock/unlock, search, 410 when issues are disabled, 422 Validation Failed.

import t from 'tap';
import { startGitHub, failure } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;
const owner = 'octo-org';
const repo = 'tracker';
await octokit.repos.createInOrg({ org: owner, name: repo });

t.test('create, get and update an issue', async (t) => {
  const ms = await octokit.issues.createMilestone({ owner, repo, title: 'v1' });
  t.equal(ms.data.number, 1);
  const created = await octokit.issues.create({
    owner,
    repo,
    title: 'Login fails',
    body: 'Steps…',
    labels: ['bug', 'triage'],
    assignees: ['hubot'],
    milestone: ms.data.number,
  });
  t.equal(created.status, 201);
  const i = created.data;
  t.equal(i.number, 1);
  t.equal(i.state, 'open');
  t.equal(i.user!.login, 'octocat');
  t.same(
    i.labels.map((l: any) => l.name),
    ['bug', 'triage'],
    'unknown label created on the fly',
  );
  t.equal((i.labels[1] as any).color, 'ededed');
  t.same(
    i.assignees!.map((a) => a.login),
    ['hubot'],
  );
  t.equal(i.assignee!.login, 'hubot');
  t.equal(i.milestone!.title, 'v1');
  t.equal(i.milestone!.open_issues, 1);
  t.equal(i.author_association, 'MEMBER');
  t.equal(i.url, `${twin.url}/repos/${owner}/${repo}/issues/1`);
  t.equal(i.html_url, `${twin.url}/${owner}/${repo}/issues/1`);
  t.equal(i.node_id, Buffer.from(`05:Issue${i.id}`).toString('base64'));

  const got = await octokit.issues.get({ owner, repo, issue_number: 1 });
  t.equal(got.data.title, 'Login fails');

  const closed = await octokit.issues.update({ owner, repo, issue_number: 1, state: 'closed', state_reason: 'not_planned', title: 'Login fails on Safari' });
  t.equal(closed.data.state, 'closed');
  t.equal(closed.data.state_reason, 'not_planned');
  t.equal(closed.data.closed_by!.login, 'octocat');
  t.ok(closed.data.closed_at);
  t.equal(closed.data.title, 'Login fails on Safari');
  t.equal(closed.data.milestone!.closed_issues, 1);

  const reopened = await octokit.issues.update({ owner, repo, issue_number: 1, state: 'open' });
  t.equal(reopened.data.state_reason, 'reopened');
  t.equal(reopened.data.closed_at, null);

  const relabeled = await octokit.issues.update({ owner, repo, issue_number: 1, labels: ['enhancement'], assignees: [], milestone: null });
  t.same(
    relabeled.data.labels.map((l: any) => l.name),
    ['enhancement'],
  );
  t.same(relabeled.data.assignees, []);
  t.equal(relabeled.data.milestone, null);

  const badAssignee = await failure(octokit.issues.create({ owner, repo, title: 'x', assignees: ['ghost-user'] }));
  t.equal(badAssignee.status, 422);
  t.equal(badAssignee.body.message, 'Validation Failed');
  t.same(badAssignee.body.errors, [{ resource: 'Issue', field: 'assignees', code: 'invalid', value: 'ghost-user' }]);
  const noTitle = await failure(octokit.request('POST /repos/{owner}/{repo}/issues', { owner, repo, body: 'x' } as any));
  t.equal(noTitle.status, 422);
  t.match(noTitle.body.message, /"title" wasn't supplied/);
  const badState = await failure(octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { owner, repo, issue_number: 1, state: 'done' } as any));
  t.equal(badState.status, 422);
  t.equal((await failure(octokit.issues.get({ owner, repo, issue_number: 999 }))).status, 404);
});

t.test('list filters and sorting', async (t) => {
  await twin.advance(new Date('2026-01-06T10:00:00Z'));
  await octokit.issues.create({ owner, repo, title: 'Second', labels: ['bug'], assignees: ['octocat'] });
  await twin.advance(new Date('2026-01-07T10:00:00Z'));
  const third = await octokit.issues.create({ owner, repo, title: 'Third', labels: ['bug', 'docs'] });
  await octokit.issues.update({ owner, repo, issue_number: third.data.number, state: 'closed' });

  const open = await octokit.issues.listForRepo({ owner, repo });
  t.same(
    open.data.map((i) => i.title),
    ['Second', 'Login fails on Safari'],
    'open, newest first',
  );
  const all = await octokit.issues.listForRepo({ owner, repo, state: 'all', direction: 'asc' });
  t.same(
    all.data.map((i) => i.number),
    [1, 2, 3],
  );
  const closed = await octokit.issues.listForRepo({ owner, repo, state: 'closed' });
  t.same(
    closed.data.map((i) => i.title),
    ['Third'],
  );
  const bugs = await octokit.issues.listForRepo({ owner, repo, state: 'all', labels: 'bug,docs' });
  t.same(
    bugs.data.map((i) => i.title),
    ['Third'],
    'every label must match',
  );
  const mine = await octokit.issues.listForRepo({ owner, repo, assignee: 'octocat' });
  t.same(
    mine.data.map((i) => i.title),
    ['Second'],
  );
  const unassigned = await octokit.issues.listForRepo({ owner, repo, state: 'all', assignee: 'none' });
  t.same(unassigned.data.map((i) => i.number).sort(), [1, 3]);
  const byCreator = await octokit.issues.listForRepo({ owner, repo, state: 'all', creator: 'hubot' });
  t.same(byCreator.data, []);
  const since = await octokit.issues.listForRepo({ owner, repo, state: 'all', since: '2026-01-06T12:00:00Z' });
  t.same(
    since.data.map((i) => i.title),
    ['Third'],
  );
  const paged = await octokit.paginate(octokit.issues.listForRepo, { owner, repo, state: 'all', per_page: 1 });
  t.equal(paged.length, 3);
  t.equal((await octokit.repos.get({ owner, repo })).data.open_issues_count, 2, 'open issues counted on the repository');
});

t.test('comments CRUD', async (t) => {
  const c = await octokit.issues.createComment({ owner, repo, issue_number: 1, body: 'Looking into it' });
  t.equal(c.status, 201);
  t.equal(c.data.body, 'Looking into it');
  t.equal(c.data.user!.login, 'octocat');
  t.equal(c.data.issue_url, `${twin.url}/repos/${owner}/${repo}/issues/1`);
  t.equal((await octokit.issues.get({ owner, repo, issue_number: 1 })).data.comments, 1);
  const edited = await octokit.issues.updateComment({ owner, repo, comment_id: c.data.id, body: 'Fixed upstream' });
  t.equal(edited.data.body, 'Fixed upstream');
  await octokit.issues.createComment({ owner, repo, issue_number: 2, body: 'Other' });
  const onOne = await octokit.issues.listComments({ owner, repo, issue_number: 1 });
  t.same(
    onOne.data.map((x) => x.body),
    ['Fixed upstream'],
  );
  const inRepo = await octokit.issues.listCommentsForRepo({ owner, repo });
  t.equal(inRepo.data.length, 2);
  t.equal((await octokit.issues.getComment({ owner, repo, comment_id: c.data.id })).data.id, c.data.id);
  t.equal((await octokit.issues.deleteComment({ owner, repo, comment_id: c.data.id })).status, 204);
  t.equal((await failure(octokit.issues.getComment({ owner, repo, comment_id: c.data.id }))).status, 404);
  t.equal((await octokit.issues.get({ owner, repo, issue_number: 1 })).data.comments, 0);
  const empty = await failure(octokit.issues.createComment({ owner, repo, issue_number: 1, body: '' }));
  t.equal(empty.status, 422);
});

t.test('labels CRUD and add/remove on issues', async (t) => {
  const defaults = await octokit.issues.listLabelsForRepo({ owner, repo, per_page: 100 });
  t.ok(defaults.data.some((l) => l.name === 'good first issue' && l.default));
  const created = await octokit.issues.createLabel({ owner, repo, name: 'area/api', color: '#1D76DB', description: 'API work' });
  t.equal(created.status, 201);
  t.equal(created.data.color, '1d76db');
  const dup = await failure(octokit.issues.createLabel({ owner, repo, name: 'AREA/API', color: '000000' }));
  t.same(dup.body.errors, [{ resource: 'Label', field: 'name', code: 'already_exists' }]);
  const badColor = await failure(octokit.issues.createLabel({ owner, repo, name: 'x', color: 'blue' }));
  t.equal(badColor.status, 422);

  const added = await octokit.issues.addLabels({ owner, repo, issue_number: 2, labels: ['area/api'] });
  t.same(
    added.data.map((l) => l.name),
    ['bug', 'area/api'],
  );
  const renamed = await octokit.issues.updateLabel({ owner, repo, name: 'area/api', new_name: 'api', color: 'ff0000' });
  t.equal(renamed.data.name, 'api');
  const onIssue = await octokit.issues.listLabelsOnIssue({ owner, repo, issue_number: 2 });
  t.same(
    onIssue.data.map((l) => [l.name, l.color]),
    [
      ['bug', 'd73a4a'],
      ['api', 'ff0000'],
    ],
    'rename reaches the issue',
  );
  const removed = await octokit.issues.removeLabel({ owner, repo, issue_number: 2, name: 'bug' });
  t.same(
    removed.data.map((l) => l.name),
    ['api'],
  );
  t.equal((await failure(octokit.issues.removeLabel({ owner, repo, issue_number: 2, name: 'bug' }))).status, 404);
  const set = await octokit.issues.setLabels({ owner, repo, issue_number: 2, labels: ['question'] });
  t.same(
    set.data.map((l) => l.name),
    ['question'],
  );
  await octokit.issues.deleteLabel({ owner, repo, name: 'question' });
  t.same((await octokit.issues.get({ owner, repo, issue_number: 2 })).data.labels, []);
  t.equal((await failure(octokit.issues.getLabel({ owner, repo, name: 'question' }))).status, 404);
});

t.test('lock and unlock', async (t) => {
  t.equal((await octokit.issues.lock({ owner, repo, issue_number: 2, lock_reason: 'resolved' })).status, 204);
  const locked = await octokit.issues.get({ owner, repo, issue_number: 2 });
  t.equal(locked.data.locked, true);
  t.equal(locked.data.active_lock_reason, 'resolved');
  t.equal((await octokit.issues.unlock({ owner, repo, issue_number: 2 })).status, 204);
  t.equal((await octokit.issues.get({ owner, repo, issue_number: 2 })).data.locked, false);
});

t.test('search issues with qualifiers', async (t) => {
  await octokit.repos.createForAuthenticatedUser({ name: 'other' });
  await octokit.issues.create({ owner: 'octocat', repo: 'other', title: 'Unrelated bug', labels: ['bug'] });
  const inRepo = await octokit.search.issuesAndPullRequests({ q: `repo:${owner}/${repo} is:issue is:open` });
  t.equal(inRepo.data.total_count, 2);
  t.equal(inRepo.data.incomplete_results, false);
  t.ok(inRepo.data.items.every((i) => i.repository_url === `${twin.url}/repos/${owner}/${repo}`));
  const closed = await octokit.search.issuesAndPullRequests({ q: `repo:${owner}/${repo} is:closed` });
  t.same(
    closed.data.items.map((i) => i.title),
    ['Third'],
  );
  const labeled = await octokit.search.issuesAndPullRequests({ q: 'label:bug' });
  t.same(labeled.data.items.map((i) => i.title).sort(), ['Third', 'Unrelated bug']);
  const quoted = await octokit.search.issuesAndPullRequests({ q: 'is:open "Unrelated"' });
  t.same(
    quoted.data.items.map((i) => i.title),
    ['Unrelated bug'],
  );
  const byAuthor = await octokit.search.issuesAndPullRequests({ q: 'author:hubot' });
  t.equal(byAuthor.data.total_count, 0);
  const everyIssue = await octokit.paginate(octokit.search.issuesAndPullRequests, { q: 'is:issue', per_page: 2 });
  t.equal(everyIssue.length, 4, 'paginate walks search pages through the Link header');
  const prs = await octokit.search.issuesAndPullRequests({ q: 'is:pr' });
  t.equal(prs.data.total_count, 0);
  const noQ = await failure(octokit.request('GET /search/issues'));
  t.equal(noQ.status, 422);
  t.same(noQ.body.errors, [{ resource: 'Search', field: 'q', code: 'missing' }]);
});

t.test("the viewer's issues across repositories: GET /issues, /user/issues, /orgs/{org}/issues", async (t) => {
  await octokit.repos.createForAuthenticatedUser({ name: 'personal' });
  const mine = await octokit.issues.create({ owner: 'octocat', repo: 'personal', title: 'My own', assignees: ['octocat'] });
  const orgIssue = await octokit.issues.create({ owner, repo, title: 'Assigned in the org', assignees: ['octocat'] });
  const notMine = await octokit.issues.create({ owner, repo, title: 'Someone else', assignees: ['hubot'] });
  const numbersOf = (list: { title: string }[]) => list.map((i) => i.title);

  const assigned = (await octokit.issues.list({ per_page: 100 })).data;
  t.ok(assigned.length > 0);
  t.ok(numbersOf(assigned).includes('My own') && numbersOf(assigned).includes('Assigned in the org'), 'assigned to the viewer, every repository');
  t.notOk(numbersOf(assigned).includes('Someone else'));
  t.ok(
    assigned.every((i) => i.repository?.full_name),
    'each with its repository',
  );
  t.ok(
    (await octokit.issues.list({ filter: 'all', per_page: 100 })).data.some((i) => i.id === notMine.data.id),
    'filter=all lists the rest',
  );
  const user = (await octokit.issues.listForAuthenticatedUser({ per_page: 100 })).data;
  t.same(numbersOf(user), ['My own'], "/user/issues: the viewer's own repositories, not organizations'");
  const org = (await octokit.issues.listForOrg({ org: owner, per_page: 100 })).data;
  t.ok(org.some((i) => i.id === orgIssue.data.id) && !org.some((i) => i.id === mine.data.id), '/orgs/{org}/issues: that organization only');
  t.equal((await octokit.issues.list({ state: 'closed' })).data.length, 0, 'state filters');
  t.equal((await failure(octokit.issues.list({ filter: 'everything' as 'all' }))).status, 422);
});

t.test('410 when issues are disabled', async (t) => {
  await octokit.repos.update({ owner, repo, has_issues: false });
  const gone = await failure(octokit.issues.get({ owner, repo, issue_number: 1 }));
  t.equal(gone.status, 410);
  t.equal(gone.body.message, 'Issues are disabled for this repo');
  t.equal((await failure(octokit.issues.create({ owner, repo, title: 'x' }))).status, 410);
  t.equal((await failure(octokit.issues.listForRepo({ owner, repo }))).status, 410);
  await octokit.repos.update({ owner, repo, has_issues: true });
  t.equal((await octokit.issues.get({ owner, repo, issue_number: 1 })).status, 200);
});

t.test('a record PUT changes what the API answers', async (t) => {
  const recs = (await (await fetch(`${twin.url}/_twin/records/issue`)).json()) as any[];
  const rec = recs.find((r) => r.body.title === 'Second');
  await gh.record('issue', rec.external_id, { ...rec.body, title: 'Edited by operator' });
  t.equal((await octokit.issues.get({ owner, repo, issue_number: rec.body.number })).data.title, 'Edited by operator');
});
