// Reactions through the gateway with @octokit/rest and @octokit/graphql: on issues, pull requests
// (their issue half), issue comments and review comments; 201 for a new reaction and 200 with the
// existing one when the viewer reacts the same way again; the `reactions` rollup on the subject;
// listing by content; deleting; 422 for an unknown content; GraphQL `reactionGroups`, `reactions`
// and the addReaction / removeReaction mutations on the same records.

import t from 'tap';
import { Octokit } from '@octokit/rest';
import { graphql } from '@octokit/graphql';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { b64, failure } from './setup.js';

const gw = await startTwinBehindGateway('github', { clockStart: new Date('2026-01-05T10:00:00Z') });
t.teardown(() => gw.close());
const octokit = new Octokit({ auth: gw.apiKey, baseUrl: gw.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
const api = graphql.defaults({ baseUrl: gw.url, headers: { authorization: `token ${gw.apiKey}` } });
const owner = (await octokit.users.getAuthenticated()).data.login;
const repo = 'reacts';
await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });

t.test('reactions on an issue: 201, then 200 for the same again, the rollup, list, delete', async (t) => {
  const issue = (await octokit.issues.create({ owner, repo, title: 'React to me' })).data;
  t.equal(issue.reactions?.total_count, 0);
  const first = await octokit.reactions.createForIssue({ owner, repo, issue_number: issue.number, content: 'heart' });
  t.equal(first.status, 201);
  t.equal(first.data.content, 'heart');
  t.equal(first.data.user?.login, owner);
  t.match(first.data.node_id, /^[A-Za-z0-9+/=]+$/);
  const again = await octokit.reactions.createForIssue({ owner, repo, issue_number: issue.number, content: 'heart' });
  t.equal(again.status, 200, 'an existing reaction answers 200');
  t.equal(again.data.id, first.data.id);
  const rocket = await octokit.reactions.createForIssue({ owner, repo, issue_number: issue.number, content: 'rocket' });
  t.equal(rocket.status, 201);
  await octokit.reactions.createForIssue({ owner, repo, issue_number: issue.number, content: '+1' });

  const got = (await octokit.issues.get({ owner, repo, issue_number: issue.number })).data;
  t.equal(got.reactions?.total_count, 3);
  t.equal(got.reactions?.heart, 1);
  t.equal(got.reactions?.['+1'], 1);
  t.equal(got.reactions?.laugh, 0);
  t.equal(got.reactions?.url, `${gw.url}/repos/${owner}/${repo}/issues/${issue.number}/reactions`);

  const all = await octokit.reactions.listForIssue({ owner, repo, issue_number: issue.number });
  t.same(
    all.data.map((r) => r.content),
    ['heart', 'rocket', '+1'],
  );
  const hearts = await octokit.reactions.listForIssue({ owner, repo, issue_number: issue.number, content: 'heart' });
  t.same(
    hearts.data.map((r) => r.id),
    [first.data.id],
  );
  const paged = await octokit.reactions.listForIssue({ owner, repo, issue_number: issue.number, per_page: 2 });
  t.equal(paged.data.length, 2);
  t.match(paged.headers.link, /rel="next"/);

  t.equal((await octokit.reactions.deleteForIssue({ owner, repo, issue_number: issue.number, reaction_id: rocket.data.id })).status, 204);
  t.equal((await octokit.issues.get({ owner, repo, issue_number: issue.number })).data.reactions?.rocket, 0);
  t.equal((await failure(octokit.reactions.deleteForIssue({ owner, repo, issue_number: issue.number, reaction_id: rocket.data.id }))).status, 404);

  const bad = await failure(
    octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/reactions', { owner, repo, issue_number: issue.number, content: 'party' as never }),
  );
  t.equal(bad.status, 422);
  t.equal(bad.body.errors[0].field, 'content');
  t.equal((await failure(octokit.reactions.createForIssue({ owner, repo, issue_number: 999, content: 'eyes' }))).status, 404);
});

t.test('reactions on issue comments and review comments', async (t) => {
  const issue = (await octokit.issues.create({ owner, repo, title: 'Comments' })).data;
  const comment = (await octokit.issues.createComment({ owner, repo, issue_number: issue.number, body: 'hello' })).data;
  const r = await octokit.reactions.createForIssueComment({ owner, repo, comment_id: comment.id, content: 'laugh' });
  t.equal(r.status, 201);
  t.equal((await octokit.reactions.createForIssueComment({ owner, repo, comment_id: comment.id, content: 'laugh' })).status, 200);
  const read = (await octokit.issues.getComment({ owner, repo, comment_id: comment.id })).data;
  t.equal(read.reactions?.laugh, 1);
  t.equal(read.reactions?.total_count, 1);
  t.same(
    (await octokit.reactions.listForIssueComment({ owner, repo, comment_id: comment.id })).data.map((x) => x.id),
    [r.data.id],
  );
  await octokit.reactions.deleteForIssueComment({ owner, repo, comment_id: comment.id, reaction_id: r.data.id });
  t.equal((await octokit.issues.getComment({ owner, repo, comment_id: comment.id })).data.reactions?.total_count, 0);

  const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
  await octokit.git.createRef({ owner, repo, ref: 'refs/heads/topic', sha: main.data.object.sha });
  await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'a.txt', branch: 'topic', message: 'a', content: b64('a\n') });
  const pr = (await octokit.pulls.create({ owner, repo, title: 'Topic', head: 'topic', base: 'main' })).data;
  const rc = (await octokit.pulls.createReviewComment({ owner, repo, pull_number: pr.number, body: 'nit', path: 'a.txt', line: 1, commit_id: pr.head.sha }))
    .data;
  const onRc = await octokit.reactions.createForPullRequestReviewComment({ owner, repo, comment_id: rc.id, content: 'eyes' });
  t.equal(onRc.status, 201);
  t.equal((await octokit.pulls.getReviewComment({ owner, repo, comment_id: rc.id })).data.reactions?.eyes, 1);
  t.same(
    (await octokit.reactions.listForPullRequestReviewComment({ owner, repo, comment_id: rc.id, content: 'eyes' })).data.map((x) => x.id),
    [onRc.data.id],
  );
  await octokit.reactions.deleteForPullRequestComment({ owner, repo, comment_id: rc.id, reaction_id: onRc.data.id });
  t.equal((await octokit.pulls.getReviewComment({ owner, repo, comment_id: rc.id })).data.reactions?.total_count, 0);

  // A pull request takes reactions through its issue half.
  t.equal((await octokit.reactions.createForIssue({ owner, repo, issue_number: pr.number, content: 'hooray' })).status, 201);
  t.equal((await octokit.issues.get({ owner, repo, issue_number: pr.number })).data.reactions?.hooray, 1);
});

t.test('GraphQL reactionGroups, reactions and addReaction / removeReaction read the same records', async (t) => {
  const issue = (await octokit.issues.create({ owner, repo, title: 'GraphQL reactions' })).data;
  await octokit.reactions.createForIssue({ owner, repo, issue_number: issue.number, content: '+1' });
  const comment = (await octokit.issues.createComment({ owner, repo, issue_number: issue.number, body: 'c' })).data;
  const q = await api<any>(
    `query($o: String!, $r: String!, $n: Int!) { repository(owner: $o, name: $r) { issue(number: $n) {
    reactionGroups { content viewerHasReacted users { totalCount } }
    reactions(first: 10) { totalCount nodes { content databaseId user { login } } }
    comments(first: 1) { nodes { id reactionGroups { content users { totalCount } } } }
  } } }`,
    { o: owner, r: repo, n: issue.number },
  );
  const groups = q.repository.issue.reactionGroups as { content: string; viewerHasReacted: boolean; users: { totalCount: number } }[];
  t.equal(groups.length, 8, 'a group per reaction content');
  t.same(
    groups.find((g) => g.content === 'THUMBS_UP'),
    { content: 'THUMBS_UP', viewerHasReacted: true, users: { totalCount: 1 } },
  );
  t.equal(groups.find((g) => g.content === 'HEART')!.users.totalCount, 0);
  t.same(q.repository.issue.reactions.nodes, [{ content: 'THUMBS_UP', databaseId: q.repository.issue.reactions.nodes[0].databaseId, user: { login: owner } }]);
  t.equal(q.repository.issue.reactions.totalCount, 1);

  const added = await api<any>(
    `mutation($id: ID!) { addReaction(input: {subjectId: $id, content: ROCKET}) {
    reaction { content } subject { id } reactionGroups { content users { totalCount } } } }`,
    { id: comment.node_id },
  );
  t.equal(added.addReaction.reaction.content, 'ROCKET');
  t.equal(added.addReaction.subject.id, comment.node_id);
  t.equal(added.addReaction.reactionGroups.find((g: any) => g.content === 'ROCKET').users.totalCount, 1);
  t.equal((await octokit.issues.getComment({ owner, repo, comment_id: comment.id })).data.reactions?.rocket, 1, 'REST sees the GraphQL reaction');

  await api(`mutation($id: ID!) { addReaction(input: {subjectId: $id, content: EYES}) { reaction { content } } }`, { id: issue.node_id });
  t.equal((await octokit.issues.get({ owner, repo, issue_number: issue.number })).data.reactions?.eyes, 1);
  await api(`mutation($id: ID!) { removeReaction(input: {subjectId: $id, content: EYES}) { reaction { content } } }`, { id: issue.node_id });
  const after = (await octokit.issues.get({ owner, repo, issue_number: issue.number })).data.reactions;
  t.equal(after?.eyes, 0);
  t.equal(after?.total_count, 1);
});
