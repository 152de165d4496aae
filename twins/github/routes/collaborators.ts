// Collaborators (add/invite, remove, check, list, permission level) and repository invitations,
// the repository's side and the invitee's (`/user/repository_invitations`).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, invalidRequest } from '../wire/errors.js';
import {
  type Affiliation,
  type Role,
  PERMISSION_PARAMETERS,
  ROLES,
  acceptInvitation,
  addCollaborator,
  declineInvitation,
  deleteInvitation,
  invitationsOfViewer,
  isCollaborator,
  listCollaborators,
  listInvitations,
  permissionOf,
  removeCollaborator,
  roleOfParameter,
  updateInvitation,
} from '../model/collaborators.js';
import { requireAdmin } from './repositories.js';
import { jsonBody, numberParam, optEnum, page, queryString, repoOf, routes } from '../wire/http.js';

/** `permission` of `PUT …/collaborators/{u}` (old or new names; default push). */
export function permissionParameter(value: unknown): Role {
  if (value === undefined || value === null) return 'write';
  // The old names (pull, push) and the role names (read, write…) are both accepted.
  const role = typeof value !== 'string' ? undefined : (roleOfParameter(value) ?? ((ROLES as readonly string[]).includes(value) ? (value as Role) : undefined));
  if (!role) throw invalidRequest(`For 'properties/permission', ${JSON.stringify(value)} is not one of ${JSON.stringify(PERMISSION_PARAMETERS)}.`);
  return role;
}

export const collaboratorRoutes: TwinRoute[] = [
  ...routes('GET', '/repos/{owner}/{repo}/collaborators', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const affiliation = optEnum({ a: queryString(req, 'affiliation') }, 'a', ['outside', 'direct', 'all'] as const) as Affiliation | undefined;
    const permission = optEnum({ permission: queryString(req, 'permission') }, 'permission', PERMISSION_PARAMETERS);
    return page(req, ctx, listCollaborators(ctx, repo, affiliation ?? 'all', permission ? roleOfParameter(permission) : undefined));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/collaborators/{username}', (req, ctx) => {
    if (!isCollaborator(ctx, repoOf(req, ctx), req.params.username!)) throw new GitHubError(404, 'Not Found');
    return { status: 204 };
  }),
  ...routes('PUT', '/repos/{owner}/{repo}/collaborators/{username}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireAdmin(ctx, repo);
    const { invitation } = addCollaborator(ctx, repo, req.params.username!, permissionParameter(jsonBody(req).permission));
    return invitation ? { status: 201, body: invitation } : { status: 204 };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/collaborators/{username}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireAdmin(ctx, repo);
    removeCollaborator(ctx, repo, req.params.username!);
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/collaborators/{username}/permission', (req, ctx) => ({
    body: permissionOf(ctx, repoOf(req, ctx), req.params.username!),
  })),

  ...routes('GET', '/repos/{owner}/{repo}/invitations', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireAdmin(ctx, repo);
    return page(req, ctx, listInvitations(ctx, repo));
  }),
  ...routes('PATCH', '/repos/{owner}/{repo}/invitations/{invitation_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireAdmin(ctx, repo);
    const role = optEnum(jsonBody(req), 'permissions', ROLES);
    if (!role) throw invalidRequest('"permissions" wasn\'t supplied.');
    return { body: updateInvitation(ctx, repo, numberParam(req, 'invitation_id'), role) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/invitations/{invitation_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireAdmin(ctx, repo);
    deleteInvitation(ctx, repo, numberParam(req, 'invitation_id'));
    return { status: 204 };
  }),
  ...routes('GET', '/user/repository_invitations', (req, ctx) => page(req, ctx, invitationsOfViewer(ctx))),
  ...routes('PATCH', '/user/repository_invitations/{invitation_id}', (req, ctx) => {
    acceptInvitation(ctx, numberParam(req, 'invitation_id'));
    return { status: 204 };
  }),
  ...routes('DELETE', '/user/repository_invitations/{invitation_id}', (req, ctx) => {
    declineInvitation(ctx, numberParam(req, 'invitation_id'));
    return { status: 204 };
  }),
];
