// Organization teams: the team, its members (member or maintainer) and the repositories it has a
// role on. A team's role on a repository is a role of each of its members there (see
// collaborators.ts `roleOf`), and a team with access can be asked to review a pull request.
// Records: `team` → `<org>:<slug>`, `team_membership` → `<org>:<slug>:<login>`, `team_repo` →
// `<org>:<slug>:<repository id>` (all lower-case).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, notFound, validationFailed } from '../wire/errors.js';
import { type Json, getMembership, getUser, putMembership, requireOrg, simpleAccount } from './accounts.js';
import { findRepositoryById } from './repositories.js';
import type { Role } from './collaborators.js';

const TEAM = 'team';
const TEAM_MEMBERSHIP = 'team_membership';
const TEAM_REPO = 'team_repo';

const teamKey = (org: string, slug: string): string => `${org}:${slug}`.toLowerCase();

export function slugOf(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9_]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'team'
  );
}

/** The `team` shape lists and embeds use. */
export function simpleTeam(team: Json): Json {
  const { members_count: _m, repos_count: _r, created_at: _c, updated_at: _u, organization: _o, ...rest } = team;
  return rest;
}

export function findTeam(ctx: TwinContext, org: string, slug: string): Json | undefined {
  return ctx.store.get<Json>(TEAM, teamKey(org, slug));
}

export function requireTeam(ctx: TwinContext, org: string, slug: string): Json {
  const team = findTeam(ctx, org, slug);
  if (!team) throw notFound();
  return team;
}

/** The `team-full` shape with live counts. */
export function fullTeam(ctx: TwinContext, team: Json): Json {
  const org = requireOrg(ctx, team.organization.login);
  const key = `${teamKey(org.login, team.slug)}:`;
  return {
    ...team,
    members_count: ctx.store.listByPrefix(TEAM_MEMBERSHIP, key).length,
    repos_count: ctx.store.listByPrefix(TEAM_REPO, key).length,
    organization: { ...org },
  };
}

export function listTeams(ctx: TwinContext, org: string): Json[] {
  return ctx.store.listByPrefix<Json>(TEAM, `${org.toLowerCase()}:`).map((r) => r.body);
}

export interface TeamInput {
  name: string;
  description?: string | null;
  privacy?: 'secret' | 'closed';
  maintainers?: string[];
  parent_team_id?: number | null;
}

export function createTeam(ctx: TwinContext, orgLogin: string, input: TeamInput, by: Json): Json {
  const org = requireOrg(ctx, orgLogin);
  const slug = slugOf(input.name);
  if (findTeam(ctx, org.login, slug) || listTeams(ctx, org.login).some((t) => t.name.toLowerCase() === input.name.toLowerCase())) {
    throw validationFailed({ resource: 'Team', code: 'custom', field: 'name', message: 'Name must be unique for this org' });
  }
  const parent = input.parent_team_id ? listTeams(ctx, org.login).find((t) => t.id === input.parent_team_id) : undefined;
  if (input.parent_team_id && !parent) throw validationFailed({ resource: 'Team', code: 'invalid', field: 'parent_team_id' });
  const id = nextId(ctx, 'team');
  const at = now(ctx);
  const url = `${API}/organizations/${org.id}/team/${id}`;
  const team: Json = {
    id,
    node_id: nodeId('Team', id),
    url,
    html_url: `${WEB}/orgs/${org.login}/teams/${slug}`,
    name: input.name,
    slug,
    description: input.description ?? null,
    privacy: input.privacy ?? (parent ? 'closed' : 'secret'),
    notification_setting: 'notifications_enabled',
    permission: 'pull',
    members_url: `${url}/members{/member}`,
    repositories_url: `${url}/repos`,
    parent: parent ? simpleTeam(parent) : null,
    type: 'organization',
    organization_id: org.id,
    created_at: at,
    updated_at: at,
    organization: { login: org.login },
  };
  ctx.store.put(TEAM, teamKey(org.login, slug), team);
  // The creator maintains the team, as on GitHub, with any maintainers named.
  for (const login of new Set([by.login, ...(input.maintainers ?? [])])) setTeamMembership(ctx, team, login, 'maintainer');
  return team;
}

export function updateTeam(ctx: TwinContext, team: Json, patch: { name?: string; description?: string | null; privacy?: 'secret' | 'closed' }): Json {
  const org = team.organization.login as string;
  const oldKey = teamKey(org, team.slug);
  if (patch.description !== undefined) team.description = patch.description;
  if (patch.privacy !== undefined) team.privacy = patch.privacy;
  let moved = false;
  if (patch.name !== undefined && patch.name !== team.name) {
    const slug = slugOf(patch.name);
    if (slug !== team.slug && findTeam(ctx, org, slug)) {
      throw validationFailed({ resource: 'Team', code: 'custom', field: 'name', message: 'Name must be unique for this org' });
    }
    team.name = patch.name;
    moved = slug !== team.slug;
    team.slug = slug;
    team.html_url = `${WEB}/orgs/${org}/teams/${slug}`;
  }
  team.updated_at = now(ctx);
  ctx.store.transaction(() => {
    if (moved) {
      const newKey = teamKey(org, team.slug);
      for (const kind of [TEAM_MEMBERSHIP, TEAM_REPO]) {
        for (const r of ctx.store.listByPrefix(kind, `${oldKey}:`)) {
          ctx.store.delete(kind, r.external_id);
          ctx.store.put(kind, `${newKey}${r.external_id.slice(oldKey.length)}`, r.body);
        }
      }
      ctx.store.delete(TEAM, oldKey);
    }
    ctx.store.put(TEAM, teamKey(org, team.slug), team);
  });
  return team;
}

export function deleteTeam(ctx: TwinContext, team: Json): void {
  const key = teamKey(team.organization.login, team.slug);
  ctx.store.transaction(() => {
    for (const kind of [TEAM_MEMBERSHIP, TEAM_REPO]) {
      for (const r of ctx.store.listByPrefix(kind, `${key}:`)) ctx.store.delete(kind, r.external_id);
    }
    ctx.store.delete(TEAM, key);
  });
}

// ---- members -----------------------------------------------------------------------------

export type TeamRole = 'member' | 'maintainer';

function membershipShape(team: Json, login: string, role: TeamRole): Json {
  return { url: `${team.url}/memberships/${login}`, role, state: 'active' };
}

/**
 * `PUT …/teams/{slug}/memberships/{u}`. Someone outside the organization joins it as a member
 * first (the twin's org memberships are active at once: there is no second key to accept with).
 */
export function setTeamMembership(ctx: TwinContext, team: Json, login: string, role: TeamRole): Json {
  const user = getUser(ctx, login);
  if (!user) throw notFound();
  const org = team.organization.login as string;
  if (!getMembership(ctx, org, user.login)) putMembership(ctx, org, user.login, 'member');
  ctx.store.put(TEAM_MEMBERSHIP, `${teamKey(org, team.slug)}:${user.login.toLowerCase()}`, { login: user.login, role });
  return membershipShape(team, user.login, role);
}

export function teamMembership(ctx: TwinContext, team: Json, login: string): Json | undefined {
  const m = ctx.store.get<Json>(TEAM_MEMBERSHIP, `${teamKey(team.organization.login, team.slug)}:${login.toLowerCase()}`);
  return m ? membershipShape(team, m.login, m.role) : undefined;
}

export function removeTeamMembership(ctx: TwinContext, team: Json, login: string): void {
  if (!ctx.store.delete(TEAM_MEMBERSHIP, `${teamKey(team.organization.login, team.slug)}:${login.toLowerCase()}`)) throw notFound();
}

export function teamMembers(ctx: TwinContext, team: Json, role: 'member' | 'maintainer' | 'all' = 'all'): Json[] {
  return ctx.store
    .listByPrefix<Json>(TEAM_MEMBERSHIP, `${teamKey(team.organization.login, team.slug)}:`)
    .map((r) => r.body)
    .filter((m) => role === 'all' || m.role === role)
    .map((m) => getUser(ctx, m.login))
    .filter((u): u is Json => !!u)
    .map(simpleAccount);
}

/** The teams `login` belongs to, across organizations (`GET /user/teams`). */
export function teamsOf(ctx: TwinContext, login: string): Json[] {
  const suffix = `:${login.toLowerCase()}`;
  const keys = ctx.store
    .listRecords(TEAM_MEMBERSHIP)
    .map((r) => r.external_id)
    .filter((k) => k.endsWith(suffix));
  return keys.map((k) => ctx.store.get<Json>(TEAM, k.slice(0, -suffix.length))).filter((t): t is Json => !!t);
}

// ---- repositories ------------------------------------------------------------------------

export function setTeamRepository(ctx: TwinContext, team: Json, repo: Json, role: Role): void {
  if (repo.owner.login.toLowerCase() !== String(team.organization.login).toLowerCase()) {
    throw new GitHubError(422, 'Validation Failed', {
      errors: [{ resource: 'Team', code: 'custom', field: 'repository', message: "The repository must belong to the team's organization." }],
    });
  }
  ctx.store.put(TEAM_REPO, `${teamKey(team.organization.login, team.slug)}:${repo.id}`, { repository_id: repo.id, role });
}

export function teamRepositoryRole(ctx: TwinContext, team: Json, repo: Json): Role | undefined {
  return ctx.store.get<Json>(TEAM_REPO, `${teamKey(team.organization.login, team.slug)}:${repo.id}`)?.role;
}

export function removeTeamRepository(ctx: TwinContext, team: Json, repo: Json): void {
  ctx.store.delete(TEAM_REPO, `${teamKey(team.organization.login, team.slug)}:${repo.id}`);
}

export function teamRepositories(ctx: TwinContext, team: Json): { repo: Json; role: Role }[] {
  return ctx.store
    .listByPrefix<Json>(TEAM_REPO, `${teamKey(team.organization.login, team.slug)}:`)
    .map((r) => ({ repo: findRepositoryById(ctx, r.body.repository_id), role: r.body.role as Role }))
    .filter((x): x is { repo: Json; role: Role } => !!x.repo);
}

/** The teams with a role on an org's repository, with that role. */
export function teamsOfRepository(ctx: TwinContext, repo: Json): { team: Json; role: Role }[] {
  if (repo.owner.type !== 'Organization') return [];
  const org = repo.owner.login.toLowerCase();
  const out: { team: Json; role: Role }[] = [];
  for (const r of ctx.store.listByPrefix<Json>(TEAM_REPO, `${org}:`)) {
    if (r.body.repository_id !== repo.id) continue;
    const team = ctx.store.get<Json>(TEAM, r.external_id.slice(0, r.external_id.lastIndexOf(':')));
    if (team) out.push({ team, role: r.body.role });
  }
  return out;
}

/** The roles `login` holds on `repo` through its teams. */
export function teamRolesOf(ctx: TwinContext, repo: Json, login: string): Role[] {
  return teamsOfRepository(ctx, repo)
    .filter(({ team }) => !!teamMembership(ctx, team, login))
    .map(({ role }) => role);
}
