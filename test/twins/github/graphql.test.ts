// GraphQL with @octokit/graphql (unchanged): queries read the REST records with the same node ids,
// mutations write through the same model, unsupported fields are errors naming the field, a failed
// mutation leaves nothing behind, and the Enterprise paths answer too.

import t from 'tap';
import { graphql } from '@octokit/graphql';
import { startGitHub, b64 } from './setup.js';

const gh = await startGitHub();
t.teardown(() => gh.close());
const { octokit, twin } = gh;
const owner = 'octocat';
const repo = 'app';
await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
const api = graphql.defaults({ baseUrl: twin.url, headers: { authorization: `token ${twin.apiKey}` } });
const enterprise = graphql.defaults({ baseUrl: `${twin.url}/api`, headers: { authorization: `token ${twin.apiKey}` } });

async function graphqlFailure(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e: any) {
    return e;
  }
  throw new Error('expected a GraphQL error');
}

t.test('viewer, user, organization, repository: node ids are the REST node_ids', async (t) => {
  const res: any = await api(
    `query($owner: String!, $name: String!) {
    viewer { login id databaseId }
    user(login: "hubot") { login id }
    organization(login: "octo-org") { login id viewerIsAMember }
    repository(owner: $owner, name: $name) {
      id databaseId nameWithOwner isPrivate viewerPermission
      owner { __typename login }
      defaultBranchRef { name target { __typename oid ... on Commit { messageHeadline history(first: 5) { totalCount } } } }
      object(expression: "main:README.md") { __typename ... on Blob { text byteSize } }
    }
  }`,
    { owner, name: repo },
  );
  const restRepo = (await octokit.repos.get({ owner, repo })).data;
  const me = (await octokit.users.getAuthenticated()).data;
  t.equal(res.viewer.login, 'octocat');
  t.equal(res.viewer.id, me.node_id);
  t.equal(res.viewer.databaseId, me.id);
  t.equal(res.user.login, 'hubot');
  t.equal(res.organization.viewerIsAMember, true);
  t.equal(res.repository.id, restRepo.node_id);
  t.equal(res.repository.databaseId, restRepo.id);
  t.equal(res.repository.nameWithOwner, 'octocat/app');
  t.equal(res.repository.viewerPermission, 'ADMIN');
  t.same(res.repository.owner, { __typename: 'User', login: 'octocat' });
  const head = (await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
  t.equal(res.repository.defaultBranchRef.target.oid, head);
  t.equal(res.repository.defaultBranchRef.target.history.totalCount, 1);
  t.equal(res.repository.object.__typename, 'Blob');
  t.match(res.repository.object.text, /# app/);

  const node: any = await api('query($id: ID!) { node(id: $id) { __typename ... on Repository { name } } }', { id: restRepo.node_id });
  t.same(node.node, { __typename: 'Repository', name: 'app' });
});

t.test('issue mutations: create, comment, label, assign, close, reopen; queries see them', async (t) => {
  const ids: any = await api(`{ repository(owner: "octocat", name: "app") { id labels(first: 20) { nodes { id name } } } user(login: "octocat") { id } }`);
  const bug = ids.repository.labels.nodes.find((l: any) => l.name === 'bug');
  t.ok(bug, 'the default labels are listed');
  const created: any = await api(
    `mutation($input: CreateIssueInput!) { createIssue(input: $input) { issue { id number title state url labels(first: 5) { nodes { name } } assignees(first: 5) { nodes { login } } } } }`,
    {
      input: { repositoryId: ids.repository.id, title: 'Crash on start', body: 'Stack trace…', labelIds: [bug.id], assigneeIds: [ids.user.id] },
    },
  );
  const issue = created.createIssue.issue;
  t.equal(issue.number, 1);
  t.equal(issue.state, 'OPEN');
  t.same(issue.labels.nodes, [{ name: 'bug' }]);
  t.same(issue.assignees.nodes, [{ login: 'octocat' }]);
  const rest = (await octokit.issues.get({ owner, repo, issue_number: 1 })).data;
  t.equal(rest.node_id, issue.id, 'node id equals the REST node_id');
  t.equal(issue.url, `${twin.url}/octocat/app/issues/1`, 'URLs point at the twin');

  await api('mutation($id: ID!) { addComment(input: { subjectId: $id, body: "Same here" }) { commentEdge { node { body } } } }', { id: issue.id });
  const closed: any = await api('mutation($id: ID!) { closeIssue(input: { issueId: $id, stateReason: NOT_PLANNED }) { issue { state stateReason } } }', {
    id: issue.id,
  });
  t.same(closed.closeIssue.issue, { state: 'CLOSED', stateReason: 'NOT_PLANNED' });
  t.equal((await octokit.issues.get({ owner, repo, issue_number: 1 })).data.state_reason, 'not_planned');
  const reopened: any = await api('mutation($id: ID!) { reopenIssue(input: { issueId: $id }) { issue { state } } }', { id: issue.id });
  t.equal(reopened.reopenIssue.issue.state, 'OPEN');
  await api('mutation($id: ID!, $l: [ID!]!) { removeLabelsFromLabelable(input: { labelableId: $id, labelIds: $l }) { clientMutationId } }', {
    id: issue.id,
    l: [bug.id],
  });
  const edited: any = await api(
    'mutation($id: ID!) { updateIssue(input: { id: $id, title: "Crash on start (macOS)" }) { issue { title labels(first: 5) { totalCount } } } }',
    { id: issue.id },
  );
  t.same(edited.updateIssue.issue, { title: 'Crash on start (macOS)', labels: { totalCount: 0 } });

  const list: any = await api(
    `{ repository(owner: "octocat", name: "app") { issues(first: 10, states: OPEN, orderBy: { field: CREATED_AT, direction: DESC }) { totalCount nodes { number title comments(first: 5) { totalCount nodes { body author { login } } } } } } }`,
  );
  t.equal(list.repository.issues.totalCount, 1);
  t.same(list.repository.issues.nodes[0].comments.nodes, [{ body: 'Same here', author: { login: 'octocat' } }]);
  const found: any = await api('{ search(query: "repo:octocat/app is:issue macOS", type: ISSUE, first: 5) { issueCount nodes { ... on Issue { number } } } }');
  t.equal(found.search.issueCount, 1);
  t.same(found.search.nodes, [{ number: 1 }]);
});

t.test('pull requests: create, commits, files, reviews, statusCheckRollup, merge', async (t) => {
  const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
  await octokit.git.createRef({ owner, repo, ref: 'refs/heads/feature', sha: main.data.object.sha });
  await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'src/a.ts', branch: 'feature', message: 'Add a', content: b64('a\nb\n') });
  const repoId = ((await api('{ repository(owner: "octocat", name: "app") { id } }')) as any).repository.id;
  const created: any = await api(
    `mutation($input: CreatePullRequestInput!) { createPullRequest(input: $input) { pullRequest { id number state isDraft headRefName baseRefName } } }`,
    {
      input: { repositoryId: repoId, headRefName: 'feature', baseRefName: 'main', title: 'Add a', body: 'Closes #1' },
    },
  );
  const pr = created.createPullRequest.pullRequest;
  t.same({ ...pr, id: undefined }, { id: undefined, number: 2, state: 'OPEN', isDraft: false, headRefName: 'feature', baseRefName: 'main' });
  t.equal(pr.id, (await octokit.pulls.get({ owner, repo, pull_number: 2 })).data.node_id);

  const head = (await octokit.pulls.get({ owner, repo, pull_number: 2 })).data.head.sha;
  await octokit.repos.createCommitStatus({ owner, repo, sha: head, state: 'success', context: 'lint', target_url: 'https://ci.example.test/1' });
  await octokit.checks.create({ owner, repo, name: 'build', head_sha: head, status: 'in_progress' });
  const q = `query { repository(owner: "octocat", name: "app") { pullRequest(number: 2) {
    commits(last: 1) { totalCount nodes { commit { oid statusCheckRollup { state contexts(first: 10) { totalCount nodes {
      __typename ... on CheckRun { name status conclusion } ... on StatusContext { context state targetUrl } } } } } } }
    files(first: 10) { nodes { path additions deletions changeType } }
    reviews(first: 10) { totalCount nodes { state body author { login } } }
    reviewDecision mergeable
  } } }`;
  let got: any = await api(q);
  let p = got.repository.pullRequest;
  t.equal(p.commits.totalCount, 1);
  t.equal(p.commits.nodes[0].commit.oid, head);
  t.equal(p.commits.nodes[0].commit.statusCheckRollup.state, 'PENDING', 'a check still running keeps the rollup pending');
  t.same(p.commits.nodes[0].commit.statusCheckRollup.contexts.nodes, [
    { __typename: 'CheckRun', name: 'build', status: 'IN_PROGRESS', conclusion: null },
    { __typename: 'StatusContext', context: 'lint', state: 'SUCCESS', targetUrl: 'https://ci.example.test/1' },
  ]);
  t.same(p.files.nodes, [{ path: 'src/a.ts', additions: 2, deletions: 0, changeType: 'ADDED' }]);
  t.equal(p.mergeable, 'MERGEABLE');

  const run = (await octokit.checks.listForRef({ owner, repo, ref: head })).data.check_runs[0]!;
  await octokit.checks.update({ owner, repo, check_run_id: run.id, conclusion: 'success' });
  await api('mutation($id: ID!) { addPullRequestReview(input: { pullRequestId: $id, event: APPROVE, body: "Ship it" }) { pullRequestReview { state } } }', {
    id: pr.id,
  });
  got = await api(q);
  p = got.repository.pullRequest;
  t.equal(p.commits.nodes[0].commit.statusCheckRollup.state, 'SUCCESS');
  t.same(p.reviews.nodes, [{ state: 'APPROVED', body: 'Ship it', author: { login: 'octocat' } }]);
  t.equal(p.reviewDecision, 'APPROVED');

  const merged: any = await api(
    'mutation($id: ID!) { mergePullRequest(input: { pullRequestId: $id, mergeMethod: SQUASH }) { pullRequest { state merged mergeCommit { oid messageHeadline } } } }',
    { id: pr.id },
  );
  t.equal(merged.mergePullRequest.pullRequest.state, 'MERGED');
  t.equal(merged.mergePullRequest.pullRequest.mergeCommit.messageHeadline, 'Add a (#2)');
  t.equal((await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha, merged.mergePullRequest.pullRequest.mergeCommit.oid);
  t.equal((await octokit.issues.get({ owner, repo, issue_number: 1 })).data.state, 'closed', 'Closes #1');

  const again = await graphqlFailure(api('mutation($id: ID!) { mergePullRequest(input: { pullRequestId: $id }) { pullRequest { state } } }', { id: pr.id }));
  t.equal(again.errors[0].type, 'UNPROCESSABLE');
  t.same(again.errors[0].path, ['mergePullRequest']);
});

t.test('errors: unsupported field named, validation, not found, failed mutation rolled back', async (t) => {
  const unsupported = await graphqlFailure(api('{ viewer { login sponsorshipsAsMaintainer(first: 1) { totalCount } } }'));
  t.equal(unsupported.errors[0].type, 'TWIN_UNSUPPORTED_FIELD');
  t.match(unsupported.errors[0].message, /'sponsorshipsAsMaintainer' of type 'User'/);
  t.same(unsupported.errors[0].path, ['viewer', 'sponsorshipsAsMaintainer']);

  const invalid = await graphqlFailure(api('{ viewer { loginn } }'));
  t.match(invalid.errors[0].message, /Cannot query field "loginn" on type "User"/);
  const missing = await graphqlFailure(api('{ repository(owner: "octocat", name: "nope") { id } }'));
  t.same(missing.errors[0], {
    type: 'NOT_FOUND',
    path: ['repository'],
    locations: [{ line: 1, column: 3 }],
    message: "Could not resolve to a Repository with the name 'octocat/nope'.",
  });

  const before = (await octokit.issues.listForRepo({ owner, repo, state: 'all' })).data.length;
  const repoId = ((await api('{ repository(owner: "octocat", name: "app") { id } }')) as any).repository.id;
  const failed = await graphqlFailure(
    api(
      `mutation($r: ID!) {
    a: createIssue(input: { repositoryId: $r, title: "written then rolled back" }) { issue { number } }
    b: closeIssue(input: { issueId: "MDU6SXNzdWU5OTk5" }) { issue { number } }
  }`,
      { r: repoId },
    ),
  );
  t.equal(failed.errors[0].type, 'NOT_FOUND');
  t.equal((await octokit.issues.listForRepo({ owner, repo, state: 'all' })).data.length, before, 'the first mutation was rolled back with the failed one');

  const deep = `{ viewer { ${'repositories(first: 1) { nodes { owner { ... on User { '.repeat(12)}login${' } } } }'.repeat(12)} } }`;
  const tooDeep = await graphqlFailure(api(deep));
  t.match(tooDeep.errors[0].message, /depth/);

  const noAuth = await fetch(`${twin.url}/graphql`, {
    method: 'POST',
    body: '{"query":"{ viewer { login } }"}',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(noAuth.status, 401);
  const badJson = await fetch(`${twin.url}/graphql`, {
    method: 'POST',
    body: '{"query":',
    headers: { 'content-type': 'application/json', authorization: `token ${twin.apiKey}` },
  });
  t.ok(badJson.status >= 400 && badJson.status < 500, 'unreadable JSON is a 4xx');
});

t.test('GitHub Enterprise paths: /api/graphql and /api/v3', async (t) => {
  const res: any = await enterprise('{ viewer { login } }');
  t.equal(res.viewer.login, 'octocat');
  const rest = await fetch(`${twin.url}/api/v3/repos/octocat/app`, { headers: { authorization: `token ${twin.apiKey}` } });
  t.equal(rest.status, 200);
  t.equal(((await rest.json()) as any).full_name, 'octocat/app');
  const root = await fetch(`${twin.url}/api/v3`);
  t.equal(root.status, 200);
  t.equal(((await root.json()) as any).current_user_url, `${twin.url}/user`);
  const release = await fetch(`${twin.url}/api/v3/repos/octocat/app/releases`, {
    method: 'POST',
    headers: { authorization: `token ${twin.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tag_name: 'v1.0.0', name: 'One' }),
  });
  t.equal(release.status, 201, 'the generic layer answers under /api/v3 too');
  const releases = await octokit.repos.listReleases({ owner: 'octocat', repo: 'app' });
  t.same(
    releases.data.map((r) => r.tag_name),
    ['v1.0.0'],
    'one collection with or without the prefix',
  );
  const miss = await fetch(`${twin.url}/api/v3/nope`, { headers: { authorization: `token ${twin.apiKey}` } });
  t.equal(miss.status, 404);
  const top = await fetch(`${twin.url}/`, { headers: { authorization: `token ${twin.apiKey}` } });
  t.equal(top.status, 200);
  t.match(top.headers.get('x-oauth-scopes'), /\brepo\b/);
});

t.test('createRepository (gh repo create): for the viewer or an organization, with its visibility; a taken name refused', async (t) => {
  const made: any = await api(
    `mutation($input: CreateRepositoryInput!) { createRepository(input: $input) { repository { nameWithOwner visibility isPrivate description url } } }`,
    { input: { name: 'made-by-graphql', visibility: 'PRIVATE', description: 'From a mutation' } },
  );
  t.match(made.createRepository.repository, {
    nameWithOwner: 'octocat/made-by-graphql',
    visibility: 'PRIVATE',
    isPrivate: true,
    description: 'From a mutation',
  });
  const rest = await octokit.repos.get({ owner: 'octocat', repo: 'made-by-graphql' });
  t.equal(rest.data.private, true, 'the REST side sees the same repository');
  t.ok((await octokit.issues.listLabelsForRepo({ owner: 'octocat', repo: 'made-by-graphql' })).data.length > 0, 'with the default labels');
  const taken = await graphqlFailure(api(`mutation { createRepository(input: { name: "made-by-graphql", visibility: PUBLIC }) { repository { id } } }`));
  t.match(taken.errors?.[0]?.message, /^Name already exists on this account/);
});

t.test("the node limit counts a connection that asks only for totalCount (gh's reactionGroups { users { totalCount } }) as no nodes", async (t) => {
  // 100 × 100 issues' comments with a reaction group's user count each: 10,100 nodes, well under 500,000.
  const res: any = await api(`query { repository(owner: "octocat", name: "app") {
    issues(first: 100) { nodes { comments(first: 100) { nodes { reactionGroups { users { totalCount } } } } } } } }`);
  t.ok(Array.isArray(res.repository.issues.nodes));
  const over = await graphqlFailure(
    api(
      `query { repository(owner: "octocat", name: "app") { issues(first: 100) { nodes { comments(first: 100) { nodes { reactionGroups { users(first: 100) { nodes { login } } } } } } } } }`,
    ),
  );
  t.match(over.errors?.[0]?.message, /exceeds the maximum limit of 500,000/, 'asking for the users’ nodes counts them');
});
