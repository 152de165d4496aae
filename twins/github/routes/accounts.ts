// Users, organizations and members.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, notFound } from '../wire/errors.js';
import {
  getMembership,
  getOrg,
  getUser,
  orgMembers,
  orgSummary,
  orgsOf,
  privateProfile,
  publicProfile,
  putMembership,
  removeMembership,
  requireOrg,
  requireUser,
  simpleAccount,
  viewer,
  userKey,
} from '../model/accounts.js';
import type { Json } from '../model/accounts.js';
import { jsonBody, optBool, optEnum, optString, page, queryString, routes } from '../wire/http.js';

export const accountRoutes: TwinRoute[] = [
  ...routes('GET', '/user', (_req, ctx) => ({ body: privateProfile(ctx, viewer(ctx)) })),
  ...routes('PATCH', '/user', (req, ctx) => {
    const b = jsonBody(req);
    const me = viewer(ctx);
    for (const f of ['name', 'email', 'blog', 'twitter_username', 'company', 'location', 'bio'] as const) {
      const v = optString(b, f);
      if (v !== undefined) me[f] = v;
    }
    const hireable = optBool(b, 'hireable');
    if (hireable !== undefined) me.hireable = hireable;
    ctx.store.put('user', userKey(me.login), me);
    return { body: privateProfile(ctx, me) };
  }),
  ...routes('GET', '/users/{username}', (req, ctx) => {
    const acc = getUser(ctx, req.params.username!) ?? getOrg(ctx, req.params.username!);
    if (!acc) throw notFound();
    return { body: publicProfile(ctx, acc) };
  }),
  ...routes('GET', '/users', (req, ctx) => {
    const since = Number(queryString(req, 'since') ?? 0) || 0;
    const all = [...ctx.store.list('user'), ...ctx.store.list('org')]
      .filter((a) => Number(a.id) > since)
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map(simpleAccount);
    return page(req, ctx, all);
  }),
  ...routes('GET', '/user/orgs', (req, ctx) => page(req, ctx, orgsOf(ctx, viewer(ctx).login))),
  ...routes('GET', '/users/{username}/orgs', (req, ctx) => {
    const u = requireUser(ctx, req.params.username!);
    return page(req, ctx, orgsOf(ctx, u.login));
  }),
  ...routes('GET', '/organizations', (req, ctx) => page(req, ctx, ctx.store.list('org').map(orgSummary))),
  ...routes('GET', '/orgs/{org}', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    const repos = ctx.store.listByPrefix<Json>('repository', `${userKey(org.login)}/`).map((r) => r.body);
    return {
      body: {
        ...org,
        public_repos: repos.filter((r) => !r.private).length,
        total_private_repos: repos.filter((r) => r.private).length,
        owned_private_repos: repos.filter((r) => r.private).length,
      },
    };
  }),
  ...routes('PATCH', '/orgs/{org}', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    const me = viewer(ctx);
    if (getMembership(ctx, org.login, me.login)?.role !== 'admin') throw new GitHubError(403, 'Must have admin rights to Repository.');
    const b = jsonBody(req);
    for (const f of ['name', 'email', 'blog', 'twitter_username', 'company', 'location', 'description'] as const) {
      const v = optString(b, f);
      if (v !== undefined) org[f] = v;
    }
    ctx.store.put('org', userKey(org.login), org);
    return { body: org };
  }),
  ...routes('GET', '/orgs/{org}/members', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    const role = queryString(req, 'role');
    return page(
      req,
      ctx,
      orgMembers(ctx, org.login, role).map((m) => m.user),
    );
  }),
  ...routes('GET', '/orgs/{org}/members/{username}', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    const m = getMembership(ctx, org.login, req.params.username!);
    if (m?.state !== 'active') throw new GitHubError(404, 'User does not exist or is not a member of the organization');
    return { status: 204 };
  }),
  ...routes('DELETE', '/orgs/{org}/members/{username}', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    removeMembership(ctx, org.login, req.params.username!);
    return { status: 204 };
  }),
  ...routes('GET', '/orgs/{org}/memberships/{username}', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    const m = getMembership(ctx, org.login, req.params.username!);
    if (!m) throw notFound();
    return { body: m };
  }),
  ...routes('PUT', '/orgs/{org}/memberships/{username}', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    const me = viewer(ctx);
    if (getMembership(ctx, org.login, me.login)?.role !== 'admin')
      throw new GitHubError(403, 'You must be an admin to add or update an organization membership.');
    const role = optEnum(jsonBody(req), 'role', ['admin', 'member'] as const) ?? 'member';
    return { body: putMembership(ctx, org.login, req.params.username!, role) };
  }),
  ...routes('DELETE', '/orgs/{org}/memberships/{username}', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    if (!removeMembership(ctx, org.login, req.params.username!)) throw notFound();
    return { status: 204 };
  }),
  ...routes('GET', '/user/memberships/orgs/{org}', (req, ctx) => {
    const m = getMembership(ctx, req.params.org!, viewer(ctx).login);
    if (!m) throw notFound();
    return { body: m };
  }),
];
