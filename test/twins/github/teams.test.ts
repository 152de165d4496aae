// Organization teams through the gateway with @octokit/rest: create (the creator maintains it),
// get, list, update (a rename moves the slug), delete; memberships (maintainer/member, someone
// outside the org joins it), members by role; a team's repositories and roles, which become its
// members' roles (collaborator permission, `GET /repos/{o}/{r}/teams`); `GET /user/teams`; team
// review requests on a pull request (422 for a team without access), also in GraphQL.

import t from 'tap';
import { Octokit } from '@octokit/rest';
import { graphql } from '@octokit/graphql';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { b64, failure } from './setup.js';

const gw = await startTwinBehindGateway('github', { clockStart: new Date('2026-01-05T10:00:00Z') });
t.teardown(() => gw.close());
const octokit = new Octokit({ auth: gw.apiKey, baseUrl: gw.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
const api = graphql.defaults({ baseUrl: gw.url, headers: { authorization: `token ${gw.apiKey}` } });
const org = 'octo-org';
const me = (await octokit.users.getAuthenticated()).data.login;
await octokit.repos.createInOrg({ org, name: 'service', auto_init: true });

t.test('teams: create, get, list, rename, members, delete', async (t) => {
  const created = await octokit.teams.create({ org, name: 'Core Team', description: 'The core', privacy: 'closed' });
  t.equal(created.status, 201);
  t.equal(created.data.slug, 'core-team');
  t.equal(created.data.privacy, 'closed');
  t.equal(created.data.members_count, 1, 'the creator maintains the new team');
  t.equal(created.data.organization.login, org);
  t.equal(created.data.html_url, `${gw.url}/orgs/${org}/teams/core-team`);
  const dup = await failure(octokit.teams.create({ org, name: 'core team' }));
  t.equal(dup.status, 422);

  t.same(
    (await octokit.teams.list({ org })).data.map((x) => x.slug),
    ['core-team'],
  );
  t.equal((await octokit.teams.getByName({ org, team_slug: 'core-team' })).data.id, created.data.id);

  const joined = await octokit.teams.addOrUpdateMembershipForUserInOrg({ org, team_slug: 'core-team', username: 'hubot', role: 'member' });
  t.same({ role: joined.data.role, state: joined.data.state }, { role: 'member', state: 'active' });
  t.same(
    (await octokit.teams.listMembersInOrg({ org, team_slug: 'core-team' })).data.map((u) => u.login),
    [me, 'hubot'],
  );
  t.same(
    (await octokit.teams.listMembersInOrg({ org, team_slug: 'core-team', role: 'maintainer' })).data.map((u) => u.login),
    [me],
  );
  t.equal((await octokit.teams.getMembershipForUserInOrg({ org, team_slug: 'core-team', username: me })).data.role, 'maintainer');

  const renamed = await octokit.teams.updateInOrg({ org, team_slug: 'core-team', name: 'Platform' });
  t.equal(renamed.data.slug, 'platform');
  t.equal(renamed.data.members_count, 2, 'members move with the slug');
  t.equal((await failure(octokit.teams.getByName({ org, team_slug: 'core-team' }))).status, 404);
  t.same(
    (await octokit.teams.listForAuthenticatedUser()).data.map((x) => x.slug),
    ['platform'],
  );

  await octokit.teams.removeMembershipForUserInOrg({ org, team_slug: 'platform', username: 'hubot' });
  t.equal((await failure(octokit.teams.getMembershipForUserInOrg({ org, team_slug: 'platform', username: 'hubot' }))).status, 404);
  const temp = await octokit.teams.create({ org, name: 'Temp' });
  await octokit.teams.deleteInOrg({ org, team_slug: temp.data.slug });
  t.same(
    (await octokit.teams.list({ org })).data.map((x) => x.slug),
    ['platform'],
  );
});

t.test("a team's repositories give its members their role; team review requests", async (t) => {
  const team = (await octokit.teams.create({ org, name: 'Reviewers' })).data;
  await octokit.teams.addOrUpdateMembershipForUserInOrg({ org, team_slug: team.slug, username: 'hubot' });
  t.equal((await octokit.teams.addOrUpdateRepoPermissionsInOrg({ org, team_slug: team.slug, owner: org, repo: 'service', permission: 'admin' })).status, 204);
  const repos = await octokit.teams.listReposInOrg({ org, team_slug: team.slug });
  t.same(
    repos.data.map((r) => [r.full_name, r.role_name]),
    [[`${org}/service`, 'admin']],
  );
  t.equal((await octokit.teams.checkPermissionsForRepoInOrg({ org, team_slug: team.slug, owner: org, repo: 'service' })).status, 204);
  const withRepo = await octokit.teams.checkPermissionsForRepoInOrg({
    org,
    team_slug: team.slug,
    owner: org,
    repo: 'service',
    headers: { accept: 'application/vnd.github.v3.repository+json' },
  });
  t.equal(withRepo.data?.permissions?.admin, true);
  const perm = await octokit.repos.getCollaboratorPermissionLevel({ owner: org, repo: 'service', username: 'hubot' });
  t.equal(perm.data.role_name, 'admin', 'hubot is admin through the team (its org role is write)');
  const repoTeams = await octokit.repos.listTeams({ owner: org, repo: 'service' });
  t.same(
    repoTeams.data.map((x) => [x.slug, x.permission]),
    [[team.slug, 'admin']],
  );

  const main = await octokit.git.getRef({ owner: org, repo: 'service', ref: 'heads/main' });
  await octokit.git.createRef({ owner: org, repo: 'service', ref: 'refs/heads/change', sha: main.data.object.sha });
  await octokit.repos.createOrUpdateFileContents({ owner: org, repo: 'service', path: 'x.txt', branch: 'change', message: 'x', content: b64('x') });
  const pr = (await octokit.pulls.create({ owner: org, repo: 'service', title: 'Change', head: 'change', base: 'main' })).data;
  const requested = await octokit.pulls.requestReviewers({ owner: org, repo: 'service', pull_number: pr.number, team_reviewers: [team.slug] });
  t.equal(requested.status, 201);
  t.same(
    requested.data.requested_teams?.map((x) => x.slug),
    [team.slug],
  );
  t.same(
    (await octokit.pulls.listRequestedReviewers({ owner: org, repo: 'service', pull_number: pr.number })).data.teams.map((x) => x.slug),
    [team.slug],
  );
  const noAccess = await failure(octokit.pulls.requestReviewers({ owner: org, repo: 'service', pull_number: pr.number, team_reviewers: ['platform'] }));
  t.equal(noAccess.status, 422, 'a team without access to the repository cannot review');
  const events = (await octokit.issues.listEvents({ owner: org, repo: 'service', issue_number: pr.number })).data as any[];
  t.equal(events.find((e) => e.event === 'review_requested')?.requested_team?.slug, team.slug);
  const q = await api<any>(
    `query($o: String!, $r: String!, $n: Int!) { repository(owner: $o, name: $r) { pullRequest(number: $n) {
    reviewRequests(first: 10) { totalCount nodes { requestedReviewer { __typename ... on Team { slug combinedSlug organization { login } } } } } } } }`,
    { o: org, r: 'service', n: pr.number },
  );
  t.same(
    q.repository.pullRequest.reviewRequests.nodes,
    [{ requestedReviewer: { __typename: 'Team', slug: team.slug, combinedSlug: `${org}/${team.slug}`, organization: { login: org } } }],
    'GraphQL shows the team as requested reviewer',
  );
  const removed = await octokit.pulls.removeRequestedReviewers({
    owner: org,
    repo: 'service',
    pull_number: pr.number,
    reviewers: [],
    team_reviewers: [team.slug],
  });
  t.same(removed.data.requested_teams, []);

  await octokit.teams.removeRepoInOrg({ org, team_slug: team.slug, owner: org, repo: 'service' });
  t.equal((await failure(octokit.teams.checkPermissionsForRepoInOrg({ org, team_slug: team.slug, owner: org, repo: 'service' }))).status, 404);
  t.equal((await octokit.repos.getCollaboratorPermissionLevel({ owner: org, repo: 'service', username: 'hubot' })).data.role_name, 'write');
});
