// Organization teams: CRUD, members and memberships, the team's repositories and roles,
// `GET /repos/{o}/{r}/teams` and `GET /user/teams`.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, invalidRequest, validationFailed } from '../wire/errors.js';
import { type Json, getMembership, requireOrg, viewer } from '../model/accounts.js';
import { permissionsOfRole } from '../model/collaborators.js';
import {
  createTeam,
  deleteTeam,
  fullTeam,
  listTeams,
  removeTeamMembership,
  removeTeamRepository,
  requireTeam,
  setTeamMembership,
  setTeamRepository,
  simpleTeam,
  teamMembers,
  teamMembership,
  teamRepositories,
  teamRepositoryRole,
  teamsOf,
  teamsOfRepository,
  updateTeam,
} from '../model/teams.js';
import { requireRepository } from '../model/repositories.js';
import { permissionParameter } from './collaborators.js';
import { jsonBody, optEnum, optString, optStringArray, page, queryString, repoOf, requiredString, routes } from '../wire/http.js';

function teamOf(req: TwinRequest, ctx: TwinContext): Json {
  const org = requireOrg(ctx, req.params.org!);
  return requireTeam(ctx, org.login, req.params.team_slug!);
}

/** Changing an org's teams takes an org admin or one of the team's maintainers. */
function requireTeamAdmin(ctx: TwinContext, team: Json | undefined, org: string): void {
  const me = viewer(ctx).login;
  if (getMembership(ctx, org, me)?.role === 'admin') return;
  if (team && teamMembership(ctx, team, me)?.role === 'maintainer') return;
  throw new GitHubError(403, 'You must be an organization owner or team maintainer to perform this action.');
}

export const teamRoutes: TwinRoute[] = [
  ...routes('GET', '/orgs/{org}/teams', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    return page(req, ctx, listTeams(ctx, org.login).map(simpleTeam));
  }),
  ...routes('POST', '/orgs/{org}/teams', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    requireTeamAdmin(ctx, undefined, org.login);
    const b = jsonBody(req);
    const parent = b.parent_team_id;
    if (parent !== undefined && parent !== null && (typeof parent !== 'number' || !Number.isInteger(parent))) {
      throw invalidRequest(`For 'properties/parent_team_id', ${JSON.stringify(parent)} is not an integer or null.`);
    }
    const name = requiredString(b, 'name');
    if (!name.trim()) throw validationFailed({ resource: 'Team', field: 'name', code: 'missing_field' });
    const team = createTeam(
      ctx,
      org.login,
      {
        name,
        description: optString(b, 'description'),
        privacy: optEnum(b, 'privacy', ['secret', 'closed'] as const),
        maintainers: optStringArray(b, 'maintainers'),
        parent_team_id: parent ?? null,
      },
      viewer(ctx),
    );
    for (const name of optStringArray(b, 'repo_names') ?? []) {
      setTeamRepository(ctx, team, requireRepository(ctx, org.login, name.includes('/') ? name.split('/')[1]! : name), 'read');
    }
    return { status: 201, body: fullTeam(ctx, team) };
  }),
  ...routes('GET', '/orgs/{org}/teams/{team_slug}', (req, ctx) => ({ body: fullTeam(ctx, teamOf(req, ctx)) })),
  ...routes('PATCH', '/orgs/{org}/teams/{team_slug}', (req, ctx) => {
    const team = teamOf(req, ctx);
    requireTeamAdmin(ctx, team, team.organization.login);
    const b = jsonBody(req);
    const name = optString(b, 'name', false) ?? undefined;
    return {
      body: fullTeam(
        ctx,
        updateTeam(ctx, team, { name, description: optString(b, 'description'), privacy: optEnum(b, 'privacy', ['secret', 'closed'] as const) }),
      ),
    };
  }),
  ...routes('DELETE', '/orgs/{org}/teams/{team_slug}', (req, ctx) => {
    const team = teamOf(req, ctx);
    requireTeamAdmin(ctx, team, team.organization.login);
    deleteTeam(ctx, team);
    return { status: 204 };
  }),

  ...routes('GET', '/orgs/{org}/teams/{team_slug}/members', (req, ctx) => {
    const role = optEnum({ role: queryString(req, 'role') }, 'role', ['member', 'maintainer', 'all'] as const);
    return page(req, ctx, teamMembers(ctx, teamOf(req, ctx), role ?? 'all'));
  }),
  ...routes('GET', '/orgs/{org}/teams/{team_slug}/memberships/{username}', (req, ctx) => {
    const m = teamMembership(ctx, teamOf(req, ctx), req.params.username!);
    if (!m) throw new GitHubError(404, 'Not Found');
    return { body: m };
  }),
  ...routes('PUT', '/orgs/{org}/teams/{team_slug}/memberships/{username}', (req, ctx) => {
    const team = teamOf(req, ctx);
    requireTeamAdmin(ctx, team, team.organization.login);
    const role = optEnum(jsonBody(req), 'role', ['member', 'maintainer'] as const) ?? 'member';
    return { body: setTeamMembership(ctx, team, req.params.username!, role) };
  }),
  ...routes('DELETE', '/orgs/{org}/teams/{team_slug}/memberships/{username}', (req, ctx) => {
    const team = teamOf(req, ctx);
    requireTeamAdmin(ctx, team, team.organization.login);
    removeTeamMembership(ctx, team, req.params.username!);
    return { status: 204 };
  }),

  ...routes('GET', '/orgs/{org}/teams/{team_slug}/repos', (req, ctx) => {
    const list = teamRepositories(ctx, teamOf(req, ctx)).map(({ repo, role }) => ({ ...repo, permissions: permissionsOfRole(role), role_name: role }));
    return page(req, ctx, list);
  }),
  ...routes('GET', '/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}', (req, ctx) => {
    const team = teamOf(req, ctx);
    const repo = repoOf(req, ctx);
    const role = teamRepositoryRole(ctx, team, repo);
    if (!role) throw new GitHubError(404, 'Not Found');
    // With the repository media type GitHub answers the repository and the team's permissions.
    if (String(req.headers.accept ?? '').includes('application/vnd.github.v3.repository+json')) {
      return { body: { ...repo, permissions: permissionsOfRole(role), role_name: role } };
    }
    return { status: 204 };
  }),
  ...routes('PUT', '/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}', (req, ctx) => {
    const team = teamOf(req, ctx);
    requireTeamAdmin(ctx, team, team.organization.login);
    setTeamRepository(ctx, team, repoOf(req, ctx), permissionParameter(jsonBody(req).permission));
    return { status: 204 };
  }),
  ...routes('DELETE', '/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}', (req, ctx) => {
    const team = teamOf(req, ctx);
    requireTeamAdmin(ctx, team, team.organization.login);
    removeTeamRepository(ctx, team, repoOf(req, ctx));
    return { status: 204 };
  }),

  ...routes('GET', '/repos/{owner}/{repo}/teams', (req, ctx) => {
    const list = teamsOfRepository(ctx, repoOf(req, ctx)).map(({ team, role }) => ({
      ...simpleTeam(team),
      permission: role === 'read' ? 'pull' : role === 'write' ? 'push' : role,
    }));
    return page(req, ctx, list);
  }),
  ...routes('GET', '/user/teams', (req, ctx) =>
    page(
      req,
      ctx,
      teamsOf(ctx, viewer(ctx).login).map((t) => fullTeam(ctx, t)),
    ),
  ),
];
