// Collaborators, permission levels and repository invitations. Who may do what in a repository:
// the owner of a user repository and an organization's admins are admins, organization members
// write (the twin's base permission), team members hold their teams' roles (teams.ts), and direct
// collaborators hold the role they were given; the strongest applies.
// Adding someone to a user-owned repository (or an outside collaborator to an org's) invites them
// (`repository_invitation`); they become a collaborator when they accept. The twin acts as one
// user (the viewer), so these answers are faithful but the twin does not refuse the viewer's own
// writes by them.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, notFound, validationFailed } from '../wire/errors.js';
import { type Json, getMembership, getUser, simpleAccount, viewer } from './accounts.js';
import { childKey, findRepository } from './repositories.js';
import { emitEvent } from './webhooks.js';
import { teamRolesOf } from './teams.js';

/** Roles in increasing order of power, as `role_name` spells them. */
export const ROLES = ['read', 'triage', 'write', 'maintain', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The `permission` request parameter (pull/push are the old names of read/write). */
const PARAMETER_ROLES: Record<string, Role> = { pull: 'read', triage: 'triage', push: 'write', maintain: 'maintain', admin: 'admin' };
export const PERMISSION_PARAMETERS = Object.keys(PARAMETER_ROLES);
export function roleOfParameter(p: string): Role | undefined {
  return Object.hasOwn(PARAMETER_ROLES, p) ? PARAMETER_ROLES[p] : undefined;
}

const stronger = (a: Role | undefined, b: Role | undefined): Role | undefined =>
  a === undefined ? b : b === undefined ? a : ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b;

function collaboratorKey(repo: Json, login: string): string {
  return childKey(repo, login.toLowerCase());
}

/** A direct collaborator's record: `{login, role}`. */
export function directRole(ctx: TwinContext, repo: Json, login: string): Role | undefined {
  return ctx.store.get<Json>('collaborator', collaboratorKey(repo, login))?.role;
}

/** The role `login` holds in `repo` through ownership, organization membership or collaboration. */
export function roleOf(ctx: TwinContext, repo: Json, login: string): Role | undefined {
  let role: Role | undefined;
  if (repo.owner.login.toLowerCase() === login.toLowerCase()) role = 'admin';
  else if (repo.owner.type === 'Organization') {
    const m = getMembership(ctx, repo.owner.login, login);
    if (m) role = m.role === 'admin' ? 'admin' : 'write';
  }
  for (const viaTeam of teamRolesOf(ctx, repo, login)) role = stronger(role, viaTeam);
  return stronger(role, directRole(ctx, repo, login));
}

/** The `permissions` object of a role (a role includes every weaker one). */
export function permissionsOfRole(role: Role | undefined): Json {
  const at = role ? ROLES.indexOf(role) : -1;
  return { admin: at >= 4, maintain: at >= 3, push: at >= 2, triage: at >= 1, pull: at >= 0 };
}

/** The `collaborator` shape: the user with its permissions and role. */
export function collaboratorShape(user: Json, role: Role): Json {
  return { ...simpleAccount(user), permissions: permissionsOfRole(role), role_name: role };
}

/** `GET …/collaborators/{u}/permission`: `permission` keeps the old four-value scale. */
export function permissionOf(ctx: TwinContext, repo: Json, login: string): Json {
  const user = getUser(ctx, login);
  if (!user) throw notFound();
  const role = roleOf(ctx, repo, user.login) ?? (repo.private ? undefined : 'read');
  const legacy = role === 'admin' ? 'admin' : role === 'maintain' || role === 'write' ? 'write' : role ? 'read' : 'none';
  return {
    permission: legacy,
    role_name: role ?? 'none',
    user: collaboratorShape(user, role ?? 'read'),
  };
}

export type Affiliation = 'outside' | 'direct' | 'all';

/** `GET …/collaborators`: everyone with access, with the role each holds. */
export function listCollaborators(ctx: TwinContext, repo: Json, affiliation: Affiliation = 'all', minimum?: Role): Json[] {
  const logins = new Set<string>();
  const direct = ctx.store.listByPrefix<Json>('collaborator', childKey(repo, '')).map((r) => r.body.login as string);
  const org = repo.owner.type === 'Organization';
  if (affiliation === 'all') {
    if (!org) logins.add(repo.owner.login);
    else for (const r of ctx.store.listByPrefix<Json>('membership', `${repo.owner.login.toLowerCase()}:`)) logins.add(r.body.user.login);
  }
  for (const login of direct) {
    if (affiliation === 'outside' && (!org || getMembership(ctx, repo.owner.login, login))) continue;
    logins.add(login);
  }
  const out: Json[] = [];
  for (const login of logins) {
    const user = getUser(ctx, login);
    const role = user ? roleOf(ctx, repo, user.login) : undefined;
    if (!user || !role) continue;
    if (minimum && ROLES.indexOf(role) < ROLES.indexOf(minimum)) continue;
    out.push(collaboratorShape(user, role));
  }
  return out.sort((a, b) => a.id - b.id);
}

export function isCollaborator(ctx: TwinContext, repo: Json, login: string): boolean {
  return !!getUser(ctx, login) && roleOf(ctx, repo, login) !== undefined;
}

// ---- invitations -------------------------------------------------------------------------

const INVITATION = 'repository_invitation';

/** The repository as an invitation embeds it (`minimal-repository`: no parent, source or viewer permissions). */
function minimalRepository(repo: Json): Json {
  const { parent: _p, source: _s, permissions: _perm, organization: _o, ...rest } = repo;
  return rest;
}

function invitationShape(repo: Json, id: number, invitee: Json, inviter: Json, role: Role, at: string): Json {
  return {
    id,
    node_id: nodeId('RepositoryInvitation', id),
    repository: minimalRepository(repo),
    invitee: simpleAccount(invitee),
    inviter: simpleAccount(inviter),
    permissions: role,
    created_at: at,
    expired: false,
    url: `${API}/user/repository_invitations/${id}`,
    html_url: `${WEB}/${repo.full_name}/invitations`,
  };
}

export function listInvitations(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store.listByPrefix<Json>(INVITATION, childKey(repo, '')).map((r) => r.body);
}

function pendingInvitation(ctx: TwinContext, repo: Json, login: string): Json | undefined {
  return listInvitations(ctx, repo).find((i) => i.invitee.login.toLowerCase() === login.toLowerCase());
}

export function requireInvitation(ctx: TwinContext, repo: Json, id: number): Json {
  const inv = ctx.store.get<Json>(INVITATION, childKey(repo, id));
  if (!inv) throw notFound();
  return inv;
}

/** The viewer's pending invitations, across repositories. */
export function invitationsOfViewer(ctx: TwinContext): Json[] {
  const me = viewer(ctx).login.toLowerCase();
  return ctx.store.list<Json>(INVITATION).filter((i) => i.invitee.login.toLowerCase() === me);
}

function setDirectRole(ctx: TwinContext, repo: Json, user: Json, role: Role): void {
  ctx.store.put('collaborator', collaboratorKey(repo, user.login), { login: user.login, role });
}

/**
 * `PUT …/collaborators/{u}`: an invitation (`invitation` set) for someone who needs one, else a
 * direct grant (an org member, or a collaborator whose role changes).
 */
export function addCollaborator(ctx: TwinContext, repo: Json, login: string, role: Role): { invitation?: Json } {
  const user = getUser(ctx, login);
  if (!user) throw notFound();
  if (repo.owner.login.toLowerCase() === user.login.toLowerCase()) {
    throw validationFailed({ resource: 'Repository', code: 'custom', field: 'collaborator', message: 'Repository owner cannot be a collaborator' } as never);
  }
  const org = repo.owner.type === 'Organization';
  if (directRole(ctx, repo, user.login) || (org && getMembership(ctx, repo.owner.login, user.login))) {
    const before = directRole(ctx, repo, user.login);
    setDirectRole(ctx, repo, user, role);
    if (!before) emitEvent(ctx, repo, 'member', { action: 'added', member: simpleAccount(user), changes: { permission: { to: role } } });
    else if (before !== role)
      emitEvent(ctx, repo, 'member', { action: 'edited', member: simpleAccount(user), changes: { permission: { from: before, to: role } } });
    return {};
  }
  const at = now(ctx);
  const existing = pendingInvitation(ctx, repo, user.login);
  if (existing) {
    existing.permissions = role;
    ctx.store.put(INVITATION, childKey(repo, existing.id), existing);
    return { invitation: existing };
  }
  const id = nextId(ctx, 'repository_invitation');
  const invitation = invitationShape(repo, id, user, viewer(ctx), role, at);
  ctx.store.put(INVITATION, childKey(repo, id), invitation);
  return { invitation };
}

export function removeCollaborator(ctx: TwinContext, repo: Json, login: string): void {
  const user = getUser(ctx, login);
  if (!user) throw notFound();
  const invitation = pendingInvitation(ctx, repo, user.login);
  if (invitation) ctx.store.delete(INVITATION, childKey(repo, invitation.id));
  if (ctx.store.delete('collaborator', collaboratorKey(repo, user.login))) {
    emitEvent(ctx, repo, 'member', { action: 'removed', member: simpleAccount(user) });
  }
}

export function updateInvitation(ctx: TwinContext, repo: Json, id: number, role: Role): Json {
  const inv = requireInvitation(ctx, repo, id);
  inv.permissions = role;
  ctx.store.put(INVITATION, childKey(repo, id), inv);
  return inv;
}

export function deleteInvitation(ctx: TwinContext, repo: Json, id: number): void {
  requireInvitation(ctx, repo, id);
  ctx.store.delete(INVITATION, childKey(repo, id));
}

/** The viewer's invitation `id` and the repository it is for (404 for anyone else's). */
function viewersInvitation(ctx: TwinContext, id: number): { inv: Json; repo: Json } {
  const inv = invitationsOfViewer(ctx).find((i) => i.id === id);
  const repo = inv ? findRepository(ctx, inv.repository.owner.login, inv.repository.name) : undefined;
  if (!inv || !repo || repo.id !== inv.repository.id) throw notFound();
  return { inv, repo };
}

/** `PATCH /user/repository_invitations/{id}`: the viewer becomes a collaborator. */
export function acceptInvitation(ctx: TwinContext, id: number): void {
  const { inv, repo } = viewersInvitation(ctx, id);
  if (inv.expired) throw new GitHubError(404, 'Not Found');
  const me = viewer(ctx);
  ctx.store.delete(INVITATION, childKey(repo, id));
  setDirectRole(ctx, repo, me, inv.permissions);
  emitEvent(ctx, repo, 'member', { action: 'added', member: simpleAccount(me), changes: { permission: { to: inv.permissions } } });
}

export function declineInvitation(ctx: TwinContext, id: number): void {
  const { repo } = viewersInvitation(ctx, id);
  ctx.store.delete(INVITATION, childKey(repo, id));
}
