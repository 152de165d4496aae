// Users, organizations and org memberships. The twin's key belongs to one fixed authenticated user
// (the "viewer"), created with the rest of the starting accounts on first use of a fresh file:
//   octocat (id 1, the viewer), hubot (id 2), octo-org (id 3; octocat admin, hubot member).
// A seed may replace them; meta `github:viewer` names the viewer's login.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, notFound } from '../wire/errors.js';

// biome-ignore lint/suspicious/noExplicitAny: GitHub's JSON documents, loosely typed on purpose (their shapes are the spec's)
export type Json = Record<string, any>;

const VIEWER_META = 'github:viewer';
const BOOTSTRAP_META = 'github:bootstrapped';

export function userKey(login: string): string {
  return login.toLowerCase();
}

function accountUrls(login: string, id: number, type: 'User' | 'Organization'): Json {
  const url = `${API}/users/${login}`;
  return {
    login,
    id,
    node_id: nodeId(type, id),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url,
    html_url: `${WEB}/${login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type,
    user_view_type: 'public',
    site_admin: false,
  };
}

export function createUser(ctx: TwinContext, login: string, fields: Partial<Json> = {}): Json {
  if (ctx.store.has('user', userKey(login)) || ctx.store.has('org', userKey(login))) {
    throw new GitHubError(422, 'Validation Failed', {
      errors: [{ resource: 'User', field: 'login', code: 'already_exists' }],
    });
  }
  const id = nextId(ctx, 'account');
  const at = now(ctx);
  const user = {
    ...accountUrls(login, id, 'User'),
    name: null,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: at,
    updated_at: at,
    ...fields,
  };
  ctx.store.put('user', userKey(login), user);
  return user;
}

export function createOrg(ctx: TwinContext, login: string, fields: Partial<Json> = {}): Json {
  const id = nextId(ctx, 'account');
  const at = now(ctx);
  const url = `${API}/orgs/${login}`;
  const org = {
    login,
    id,
    node_id: nodeId('Organization', id),
    url,
    repos_url: `${url}/repos`,
    events_url: `${url}/events`,
    hooks_url: `${url}/hooks`,
    issues_url: `${url}/issues`,
    members_url: `${url}/members{/member}`,
    public_members_url: `${url}/public_members{/member}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    description: null,
    // company, blog, location, email and twitter_username are absent until set (the published
    // schema types them as plain strings).
    name: login,
    is_verified: false,
    has_organization_projects: true,
    has_repository_projects: true,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    html_url: `${WEB}/${login}`,
    created_at: at,
    updated_at: at,
    archived_at: null,
    type: 'Organization',
    ...fields,
  };
  ctx.store.put('org', userKey(login), org);
  return org;
}

/** Create the starting accounts the first time a fresh (or reset, unseeded) file is used. */
export function ensureBootstrap(ctx: TwinContext): void {
  if (ctx.store.getMeta(BOOTSTRAP_META)) return;
  ctx.store.transaction(() => {
    if (!ctx.store.getMeta(VIEWER_META)) {
      if (!ctx.store.has('user', 'octocat')) {
        createUser(ctx, 'octocat', { name: 'The Octocat', company: '@github', location: 'San Francisco', blog: 'https://github.blog' });
      }
      if (!ctx.store.has('user', 'hubot')) createUser(ctx, 'hubot', { name: 'Hubot' });
      if (!ctx.store.has('org', 'octo-org')) {
        createOrg(ctx, 'octo-org', { description: 'The twin’s starting organization' });
        putMembership(ctx, 'octo-org', 'octocat', 'admin');
        putMembership(ctx, 'octo-org', 'hubot', 'member');
      }
      ctx.store.setMeta(VIEWER_META, 'octocat');
    }
    ctx.store.setMeta(BOOTSTRAP_META, '1');
  });
}

export function getUser(ctx: TwinContext, login: string): Json | undefined {
  return ctx.store.get<Json>('user', userKey(login));
}

export function getOrg(ctx: TwinContext, login: string): Json | undefined {
  return ctx.store.get<Json>('org', userKey(login));
}

export function requireUser(ctx: TwinContext, login: string): Json {
  const u = getUser(ctx, login);
  if (!u) throw notFound();
  return u;
}

export function requireOrg(ctx: TwinContext, login: string): Json {
  const o = getOrg(ctx, login);
  if (!o) throw notFound();
  return o;
}

export function viewer(ctx: TwinContext): Json {
  const login = ctx.store.getMeta(VIEWER_META) ?? 'octocat';
  const u = getUser(ctx, login);
  if (!u) throw new GitHubError(401, 'Bad credentials');
  return u;
}

const SIMPLE_FIELDS = [
  'login',
  'id',
  'node_id',
  'avatar_url',
  'gravatar_id',
  'url',
  'html_url',
  'followers_url',
  'following_url',
  'gists_url',
  'starred_url',
  'subscriptions_url',
  'organizations_url',
  'repos_url',
  'events_url',
  'received_events_url',
  'type',
  'user_view_type',
  'site_admin',
] as const;

/** The `simple-user` shape GitHub embeds (owner, user, assignee…), for a user or an org. */
export function simpleAccount(account: Json): Json {
  if (account.type === 'Organization') {
    return { ...accountUrls(account.login, account.id, 'Organization') };
  }
  const out: Json = {};
  for (const f of SIMPLE_FIELDS) out[f] = account[f];
  return out;
}

export function simpleUserByLogin(ctx: TwinContext, login: string): Json | undefined {
  const acc = getUser(ctx, login) ?? getOrg(ctx, login);
  return acc ? simpleAccount(acc) : undefined;
}

/** `GET /user`: the public profile plus the private fields only the owner sees. */
export function privateProfile(ctx: TwinContext, user: Json): Json {
  const owned = ctx.store.listByPrefix<Json>('repository', `${userKey(user.login)}/`).map((r) => r.body);
  const privateCount = owned.filter((r) => r.private).length;
  return {
    ...user,
    public_repos: owned.length - privateCount,
    private_gists: 0,
    total_private_repos: privateCount,
    owned_private_repos: privateCount,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
    plan: { name: 'pro', space: 976562499, private_repos: 9999, collaborators: 0 },
  };
}

/** `GET /users/{u}` shape for a user or an org account (orgs answer there too on GitHub). */
export function publicProfile(ctx: TwinContext, account: Json): Json {
  const owned = ctx.store
    .listByPrefix<Json>('repository', `${userKey(account.login)}/`)
    .map((r) => r.body)
    .filter((r) => !r.private);
  if (account.type === 'Organization') {
    return {
      ...simpleAccount(account),
      name: account.name ?? null,
      company: account.company ?? null,
      blog: account.blog ?? '',
      location: account.location ?? null,
      email: account.email ?? null,
      hireable: null,
      bio: account.description ?? null,
      twitter_username: account.twitter_username ?? null,
      public_repos: owned.length,
      public_gists: 0,
      followers: account.followers ?? 0,
      following: account.following ?? 0,
      created_at: account.created_at,
      updated_at: account.updated_at,
    };
  }
  return { ...account, public_repos: owned.length };
}

// ---- organization memberships -------------------------------------------------------------

function membershipKey(org: string, login: string): string {
  return `${org.toLowerCase()}:${login.toLowerCase()}`;
}

export function putMembership(ctx: TwinContext, orgLogin: string, login: string, role: 'admin' | 'member'): Json {
  const org = requireOrg(ctx, orgLogin);
  const user = requireUser(ctx, login);
  const m = {
    url: `${API}/orgs/${org.login}/memberships/${user.login}`,
    state: 'active',
    role,
    organization_url: `${API}/orgs/${org.login}`,
    organization: orgSummary(org),
    user: simpleAccount(user),
  };
  ctx.store.put('membership', membershipKey(org.login, user.login), m);
  return m;
}

export function getMembership(ctx: TwinContext, orgLogin: string, login: string): Json | undefined {
  return ctx.store.get<Json>('membership', membershipKey(orgLogin, login));
}

export function removeMembership(ctx: TwinContext, orgLogin: string, login: string): boolean {
  return ctx.store.delete('membership', membershipKey(orgLogin, login));
}

export function orgMembers(ctx: TwinContext, orgLogin: string, role?: string): Json[] {
  const prefix = `${orgLogin.toLowerCase()}:`;
  return ctx.store
    .listByPrefix<Json>('membership', prefix)
    .filter((r) => !role || role === 'all' || r.body.role === role)
    .map((r) => r.body);
}

export function orgsOf(ctx: TwinContext, login: string): Json[] {
  const suffix = `:${login.toLowerCase()}`;
  return ctx.store
    .listRecords<Json>('membership')
    .filter((r) => r.external_id.endsWith(suffix))
    .map((r) => getOrg(ctx, r.body.organization.login))
    .filter((o): o is Json => !!o)
    .map(orgSummary);
}

/** The `organization-simple` shape. */
export function orgSummary(org: Json): Json {
  const out: Json = {};
  for (const f of [
    'login',
    'id',
    'node_id',
    'url',
    'repos_url',
    'events_url',
    'hooks_url',
    'issues_url',
    'members_url',
    'public_members_url',
    'avatar_url',
    'description',
  ]) {
    out[f] = org[f] ?? null;
  }
  return out;
}
