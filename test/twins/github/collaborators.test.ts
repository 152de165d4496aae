// Collaborators, permission levels and repository invitations through the gateway with
// @octokit/rest: inviting to a user-owned repository (201 + repository_invitation), updating and
// withdrawing an invitation, adding an org member directly (204), listing by affiliation and
// permission, `…/permission` on the old four-value scale, the viewer accepting and declining
// invitations, what collaboration changes elsewhere (assignees, author association), and the
// `member` webhook.

import t from 'tap';
import { Octokit } from '@octokit/rest';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';
import { failure } from './setup.js';

const gw = await startTwinBehindGateway('github', { clockStart: new Date('2026-01-05T10:00:00Z') });
t.teardown(() => gw.close());
const octokit = new Octokit({ auth: gw.apiKey, baseUrl: gw.url, log: { debug() {}, info() {}, warn() {}, error() {} } });
const me = (await octokit.users.getAuthenticated()).data.login;
await octokit.repos.createForAuthenticatedUser({ name: 'solo', private: true });
await octokit.repos.createInOrg({ org: 'octo-org', name: 'team', private: true });

/** Write a record through the twin's admin API (what the control plane and seeds use). */
async function putRecord(resource: string, id: string, fields: unknown): Promise<void> {
  const res = await fetch(`${gw.twin.url}/_twin/records/${resource}/${encodeURIComponent(id)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields }),
  });
  if (res.status !== 200) throw new Error(`record ${resource}/${id}: ${res.status} ${await res.text()}`);
}

t.test('inviting to a user-owned repository, then changing and withdrawing the invitation', async (t) => {
  const res = await octokit.repos.addCollaborator({ owner: me, repo: 'solo', username: 'hubot', permission: 'triage' });
  t.equal(res.status, 201);
  const inv = res.data!;
  t.equal(inv.invitee?.login, 'hubot');
  t.equal(inv.inviter?.login, me);
  t.equal(inv.permissions, 'triage');
  t.equal(inv.repository.full_name, `${me}/solo`);
  t.equal(inv.expired, false);
  t.equal(inv.url, `${gw.url}/user/repository_invitations/${inv.id}`);

  t.equal((await failure(octokit.repos.checkCollaborator({ owner: me, repo: 'solo', username: 'hubot' }))).status, 404, 'an invitee is not a collaborator yet');
  const listed = await octokit.repos.listInvitations({ owner: me, repo: 'solo' });
  t.same(
    listed.data.map((i) => i.id),
    [inv.id],
  );
  const again = await octokit.repos.addCollaborator({ owner: me, repo: 'solo', username: 'hubot', permission: 'admin' });
  t.equal(again.status, 201);
  t.equal(again.data!.id, inv.id, 'inviting again updates the pending invitation');
  t.equal(again.data!.permissions, 'admin');
  const updated = await octokit.repos.updateInvitation({ owner: me, repo: 'solo', invitation_id: inv.id, permissions: 'write' });
  t.equal(updated.data.permissions, 'write');

  const perm = await octokit.repos.getCollaboratorPermissionLevel({ owner: me, repo: 'solo', username: 'hubot' });
  t.equal(perm.data.permission, 'none', 'no access to a private repository before accepting');
  const own = await octokit.repos.getCollaboratorPermissionLevel({ owner: me, repo: 'solo', username: me });
  t.equal(own.data.permission, 'admin');
  t.equal(own.data.role_name, 'admin');
  t.same(own.data.user?.permissions, { admin: true, maintain: true, push: true, triage: true, pull: true });

  const collaborators = await octokit.repos.listCollaborators({ owner: me, repo: 'solo' });
  t.same(
    collaborators.data.map((c) => [c.login, c.role_name]),
    [[me, 'admin']],
  );

  await octokit.repos.deleteInvitation({ owner: me, repo: 'solo', invitation_id: inv.id });
  t.same((await octokit.repos.listInvitations({ owner: me, repo: 'solo' })).data, []);

  t.equal((await failure(octokit.repos.addCollaborator({ owner: me, repo: 'solo', username: me }))).status, 422, 'the owner cannot be a collaborator');
  t.equal((await failure(octokit.repos.addCollaborator({ owner: me, repo: 'solo', username: 'nobody-here' }))).status, 404);
  const bad = await failure(
    octokit.request('PUT /repos/{owner}/{repo}/collaborators/{username}', { owner: me, repo: 'solo', username: 'hubot', permission: 'superuser' }),
  );
  t.equal(bad.status, 422);
});

t.test('an organization member is added directly and listed with the role given', async (t) => {
  const res = await octokit.repos.addCollaborator({ owner: 'octo-org', repo: 'team', username: 'hubot', permission: 'maintain' });
  t.equal(res.status, 204);
  t.equal((await octokit.repos.checkCollaborator({ owner: 'octo-org', repo: 'team', username: 'hubot' })).status, 204);
  const perm = await octokit.repos.getCollaboratorPermissionLevel({ owner: 'octo-org', repo: 'team', username: 'hubot' });
  t.equal(perm.data.permission, 'write', 'maintain reads as write on the old scale');
  t.equal(perm.data.role_name, 'maintain');

  const all = await octokit.repos.listCollaborators({ owner: 'octo-org', repo: 'team' });
  t.same(
    all.data.map((c) => [c.login, c.role_name]),
    [
      [me, 'admin'],
      ['hubot', 'maintain'],
    ],
  );
  const direct = await octokit.repos.listCollaborators({ owner: 'octo-org', repo: 'team', affiliation: 'direct' });
  t.same(
    direct.data.map((c) => c.login),
    ['hubot'],
  );
  t.same(
    (await octokit.repos.listCollaborators({ owner: 'octo-org', repo: 'team', affiliation: 'outside' })).data,
    [],
    'an org member is no outside collaborator',
  );
  const admins = await octokit.repos.listCollaborators({ owner: 'octo-org', repo: 'team', permission: 'admin' });
  t.same(
    admins.data.map((c) => c.login),
    [me],
  );

  await octokit.repos.removeCollaborator({ owner: 'octo-org', repo: 'team', username: 'hubot' });
  const after = await octokit.repos.getCollaboratorPermissionLevel({ owner: 'octo-org', repo: 'team', username: 'hubot' });
  t.equal(after.data.role_name, 'write', 'the org member keeps the base permission');
});

t.test('the viewer accepts and declines invitations; a collaborator can be assigned', async (t) => {
  const solo = (await octokit.repos.get({ owner: me, repo: 'solo' })).data;
  const { data: mine } = await octokit.repos.createForAuthenticatedUser({ name: 'shared' });
  // Someone else's invitation to the viewer: written as a record, as a seed would.
  const invitation = (id: number, repo: typeof solo) => ({
    id,
    node_id: 'x',
    repository: { id: repo.id, name: repo.name, full_name: repo.full_name, owner: repo.owner, private: repo.private },
    invitee: { login: me, id: 1 },
    inviter: { login: 'hubot', id: 2 },
    permissions: 'write',
    created_at: '2026-01-05T10:00:00Z',
    expired: false,
    url: `https://api.github.com/user/repository_invitations/${id}`,
    html_url: `https://github.com/${repo.full_name}/invitations`,
  });
  const team = (await octokit.repos.get({ owner: 'octo-org', repo: 'team' })).data;
  await putRecord('repository_invitation', `${team.id}:9001`, invitation(9001, team));
  await putRecord('repository_invitation', `${mine.id}:9002`, invitation(9002, mine));
  const pending = await octokit.repos.listInvitationsForAuthenticatedUser();
  t.same(pending.data.map((i) => i.id).sort(), [9001, 9002]);
  t.equal((await octokit.repos.acceptInvitationForAuthenticatedUser({ invitation_id: 9001 })).status, 204);
  t.equal((await octokit.repos.declineInvitationForAuthenticatedUser({ invitation_id: 9002 })).status, 204);
  t.same((await octokit.repos.listInvitationsForAuthenticatedUser()).data, []);
  t.equal((await failure(octokit.repos.acceptInvitationForAuthenticatedUser({ invitation_id: 9001 }))).status, 404, 'an accepted invitation is gone');
  const direct = await octokit.repos.listCollaborators({ owner: 'octo-org', repo: 'team', affiliation: 'direct' });
  t.same(
    direct.data.map((c) => [c.login, c.role_name]),
    [[me, 'admin']],
    'the viewer is now a direct collaborator (its org role is stronger)',
  );

  // A collaborator on a user repository can be assigned and is offered as an assignee.
  await putRecord('collaborator', `${solo.id}:hubot`, { login: 'hubot', role: 'write' });
  const assignees = await octokit.issues.listAssignees({ owner: me, repo: 'solo' });
  t.same(
    assignees.data.map((a) => a.login),
    [me, 'hubot'],
  );
  t.equal(assignees.data[1]!.site_admin, false);
  t.notOk('permissions' in assignees.data[1]!, 'assignees are plain users');
  const issue = await octokit.issues.create({ owner: me, repo: 'solo', title: 'Help', assignees: ['hubot'] });
  t.same(
    issue.data.assignees?.map((a) => a.login),
    ['hubot'],
  );
});
