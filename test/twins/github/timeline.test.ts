// Issue events and the issue timeline through the gateway with @octokit/rest: labeled, assigned,
// milestoned, renamed, closed, reopened, locked and unlocked on an issue; referenced and closed by
// commits (with their commit ids); a pull request's review request, commits, review, merge and the
// cross-reference it leaves on the issue it names; the repository-wide list and one event by id;
// pages with Link headers; GraphQL `timelineItems` (with `itemTypes`) on the same records.

import t from 'tap';
import { Octokit } from '@octokit/rest';
import { graphql } from '@octokit/graphql';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { b64, failure } from './setup.js';

const gw = await startTwinBehindGateway('github', { clockStart: new Date('2026-01-05T10:00:00Z') });
t.teardown(() => gw.close());
const octokit = new Octokit({ auth: gw.apiKey, baseUrl: gw.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
const api = graphql.defaults({ baseUrl: gw.url, headers: { authorization: `token ${gw.apiKey}` } });
const owner = 'octo-org';
const repo = 'events';
const me = (await octokit.users.getAuthenticated()).data.login;
await octokit.repos.createInOrg({ org: owner, name: repo, auto_init: true });

t.test("an issue's events, oldest first, each with its own fields", async (t) => {
  const milestone = (await octokit.issues.createMilestone({ owner, repo, title: 'v1' })).data;
  const issue = (await octokit.issues.create({ owner, repo, title: 'Broken', labels: ['bug'] })).data;
  await octokit.issues.addAssignees({ owner, repo, issue_number: issue.number, assignees: ['hubot'] });
  await octokit.issues.update({ owner, repo, issue_number: issue.number, title: 'Really broken', milestone: milestone.number });
  await octokit.issues.update({ owner, repo, issue_number: issue.number, body: 'no event for a body edit' });
  await octokit.issues.removeLabel({ owner, repo, issue_number: issue.number, name: 'bug' });
  await octokit.issues.update({ owner, repo, issue_number: issue.number, state: 'closed', state_reason: 'not_planned' });
  await octokit.issues.update({ owner, repo, issue_number: issue.number, state: 'open' });
  await octokit.issues.lock({ owner, repo, issue_number: issue.number, lock_reason: 'resolved' });
  await octokit.issues.unlock({ owner, repo, issue_number: issue.number });

  const { data: events } = await octokit.issues.listEvents({ owner, repo, issue_number: issue.number });
  t.same(
    events.map((e) => e.event),
    ['labeled', 'assigned', 'renamed', 'milestoned', 'unlabeled', 'closed', 'reopened', 'locked', 'unlocked'],
  );
  const by = (name: string) => events.find((e) => e.event === name) as any;
  t.same(by('labeled').label, { name: 'bug', color: 'd73a4a' });
  t.equal(by('assigned').assignee.login, 'hubot');
  t.equal(by('assigned').assigner.login, me);
  t.same(by('renamed').rename, { from: 'Broken', to: 'Really broken' });
  t.same(by('milestoned').milestone, { title: 'v1' });
  t.equal(by('closed').state_reason, 'not_planned');
  t.equal(by('closed').commit_id, null);
  t.equal(by('locked').lock_reason, 'resolved');
  for (const e of events) {
    t.equal(e.actor?.login, me);
    t.equal(e.url, `${gw.url}/repos/${owner}/${repo}/issues/events/${e.id}`);
    t.notOk('issue' in e, "an issue's own events do not embed the issue");
  }

  const one = await octokit.issues.getEvent({ owner, repo, event_id: by('renamed').id });
  t.equal(one.data.event, 'renamed');
  t.equal(one.data.issue?.number, issue.number);
  t.equal((await failure(octokit.issues.getEvent({ owner, repo, event_id: 999999 }))).status, 404);
  const repoWide = await octokit.issues.listEventsForRepo({ owner, repo, per_page: 4 });
  t.equal(repoWide.data.length, 4);
  t.equal(repoWide.data[0]!.issue?.number, issue.number);
  t.match(repoWide.headers.link, /rel="next"/);
  t.equal((await failure(octokit.issues.listEvents({ owner, repo, issue_number: 999 }))).status, 404);
});

t.test("commits reference and close issues; a pull request's timeline", async (t) => {
  const issue = (await octokit.issues.create({ owner, repo, title: 'Needs a fix' })).data;
  const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
  await octokit.git.createRef({ owner, repo, ref: 'refs/heads/fix', sha: main.data.object.sha });
  const commit = await octokit.repos.createOrUpdateFileContents({
    owner,
    repo,
    path: 'fix.txt',
    branch: 'fix',
    message: `Work on #${issue.number}`,
    content: b64('fix\n'),
  });
  const pr = (await octokit.pulls.create({ owner, repo, title: 'The fix', head: 'fix', base: 'main', body: `Fixes #${issue.number}` })).data;
  await octokit.issues.createComment({ owner, repo, issue_number: pr.number, body: 'looks right' });
  await octokit.pulls.requestReviewers({ owner, repo, pull_number: pr.number, reviewers: ['hubot'] });
  await octokit.pulls.createReview({ owner, repo, pull_number: pr.number, event: 'COMMENT', body: 'reviewed' });
  const merged = await octokit.pulls.merge({ owner, repo, pull_number: pr.number });

  const issueEvents = (await octokit.issues.listEvents({ owner, repo, issue_number: issue.number })).data;
  t.same(
    issueEvents.map((e) => e.event),
    ['referenced', 'closed'],
  );
  t.equal(issueEvents[0]!.commit_id, commit.data.commit.sha, 'referenced by the commit that names it');
  t.equal(issueEvents[0]!.commit_url, `${gw.url}/repos/${owner}/${repo}/commits/${commit.data.commit.sha}`);
  t.equal(issueEvents[1]!.commit_id, merged.data.sha, 'closed by the merge');

  const issueTimeline = (await octokit.issues.listEventsForTimeline({ owner, repo, issue_number: issue.number })).data as any[];
  t.same(
    issueTimeline.map((e) => e.event),
    ['referenced', 'cross-referenced', 'closed'],
  );
  t.equal(issueTimeline[1].source.type, 'issue');
  t.equal(issueTimeline[1].source.issue.number, pr.number);
  t.ok(issueTimeline[1].source.issue.pull_request, 'the cross-reference comes from the pull request');

  const prTimeline = (await octokit.issues.listEventsForTimeline({ owner, repo, issue_number: pr.number })).data as any[];
  t.same(
    prTimeline.map((e) => e.event),
    ['committed', 'commented', 'review_requested', 'reviewed', 'merged', 'closed'],
  );
  t.equal(prTimeline[0].sha, commit.data.commit.sha);
  t.equal(prTimeline[1].body, 'looks right');
  t.equal(prTimeline[1].actor.login, me);
  t.equal(prTimeline[2].requested_reviewer.login, 'hubot');
  t.equal(prTimeline[3].state, 'commented');
  t.equal(prTimeline[4].commit_id, merged.data.sha);
  const paged = await octokit.issues.listEventsForTimeline({ owner, repo, issue_number: pr.number, per_page: 2, page: 2 });
  t.same(
    paged.data.map((e: any) => e.event),
    ['review_requested', 'reviewed'],
  );
  t.match(paged.headers.link, /rel="prev"/);
  t.match(paged.headers.link, /rel="next"/);
});

t.test('GraphQL timelineItems reads the same timeline', async (t) => {
  const q = await api<any>(
    `query($o: String!, $r: String!) { repository(owner: $o, name: $r) {
    issue(number: 1) { timelineItems(first: 50) { totalCount nodes { __typename
      ... on LabeledEvent { label { name } actor { login } }
      ... on RenamedTitleEvent { previousTitle currentTitle }
      ... on ClosedEvent { stateReason }
      ... on LockedEvent { lockReason } } } }
    pullRequest(number: 3) {
      all: timelineItems(first: 50) { nodes { __typename } }
      some: timelineItems(first: 10, itemTypes: [ISSUE_COMMENT, MERGED_EVENT]) { totalCount nodes { __typename ... on IssueComment { body } ... on MergedEvent { commit { oid } } } }
    }
    target: issue(number: 2) { timelineItems(first: 10, itemTypes: [CROSS_REFERENCED_EVENT, REFERENCED_EVENT]) { nodes { __typename
      ... on CrossReferencedEvent { source { __typename ... on PullRequest { number } } }
      ... on ReferencedEvent { commit { oid } } } } }
  } }`,
    { o: owner, r: repo },
  );
  const issueItems = q.repository.issue.timelineItems;
  t.equal(issueItems.totalCount, 9);
  t.same(
    issueItems.nodes.map((n: any) => n.__typename),
    ['LabeledEvent', 'AssignedEvent', 'RenamedTitleEvent', 'MilestonedEvent', 'UnlabeledEvent', 'ClosedEvent', 'ReopenedEvent', 'LockedEvent', 'UnlockedEvent'],
  );
  t.same(issueItems.nodes[0], { __typename: 'LabeledEvent', label: { name: 'bug' }, actor: { login: me } });
  t.same(issueItems.nodes[2], { __typename: 'RenamedTitleEvent', previousTitle: 'Broken', currentTitle: 'Really broken' });
  t.same(issueItems.nodes[5], { __typename: 'ClosedEvent', stateReason: 'NOT_PLANNED' });
  t.same(issueItems.nodes[7], { __typename: 'LockedEvent', lockReason: 'RESOLVED' });
  t.same(
    q.repository.pullRequest.all.nodes.map((n: any) => n.__typename),
    ['PullRequestCommit', 'IssueComment', 'ReviewRequestedEvent', 'PullRequestReview', 'MergedEvent', 'ClosedEvent'],
  );
  const some = q.repository.pullRequest.some;
  t.equal(some.totalCount, 2);
  t.equal(some.nodes[0].body, 'looks right');
  t.match(some.nodes[1].commit.oid, /^[0-9a-f]{40}$/);
  const target = q.repository.target.timelineItems.nodes;
  t.same(
    target.map((n: any) => n.__typename),
    ['ReferencedEvent', 'CrossReferencedEvent'],
  );
  t.same(target[1].source, { __typename: 'PullRequest', number: 3 });
});
