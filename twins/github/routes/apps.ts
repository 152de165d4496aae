// GitHub App endpoints: the authenticated app (JWT), its installations, installation access
// tokens, the installation of a repository/org/user, and the repositories an installation token
// reaches. @octokit/auth-app drives these unchanged.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { randomBase62 } from '../../../twin-runtime/ids.js';
import { GitHubError, notFound } from '../wire/errors.js';
import type { Json } from '../model/accounts.js';
import { repositoriesOwnedBy, requireRepository } from '../model/repositories.js';
import {
  appOfJwt,
  installationOfToken,
  installationsOf,
  looksLikeJwt,
  mintInstallationToken,
  presentApp,
  presentInstallation,
  requireInstallation,
} from '../model/apps.js';
import { bearer, numberParam, page, routes } from '../wire/http.js';

/** The app of the request's JWT (authentication already checked it; this names it). */
function appOf(req: TwinRequest, ctx: TwinContext): Json {
  const token = bearer(req);
  if (!token || !looksLikeJwt(token)) {
    throw new GitHubError(401, 'A JSON web token could not be decoded', { documentation_url: 'https://docs.github.com/rest' });
  }
  return appOfJwt(ctx, token);
}

/** `permissions` of an access-token request (a narrower token), when the body names them. */
function requestedPermissions(req: TwinRequest): Record<string, string> | undefined {
  const p = (req.body as { permissions?: unknown }).permissions;
  if (p === undefined) return undefined;
  if (!p || typeof p !== 'object' || Array.isArray(p) || !Object.values(p).every((v) => typeof v === 'string')) {
    throw new GitHubError(422, 'Invalid request: permissions must be an object of permission names to read or write.');
  }
  return p as Record<string, string>;
}

function installationFor(req: TwinRequest, ctx: TwinContext, login: string): Json {
  const app = appOf(req, ctx);
  const inst = installationsOf(ctx, app.id).find((i) => String(i.account?.login ?? '').toLowerCase() === login.toLowerCase());
  if (!inst) throw notFound();
  return presentInstallation(app, inst);
}

export const appRoutes: TwinRoute[] = [
  ...routes('GET', '/app', (req, ctx) => ({ body: presentApp(ctx, appOf(req, ctx)) })),
  ...routes('GET', '/app/installations', (req, ctx) => {
    const app = appOf(req, ctx);
    return page(
      req,
      ctx,
      installationsOf(ctx, app.id).map((i) => presentInstallation(app, i)),
    );
  }),
  ...routes('GET', '/app/installations/{installation_id}', (req, ctx) => ({
    body: requireInstallation(ctx, appOf(req, ctx), numberParam(req, 'installation_id')),
  })),
  ...routes('POST', '/app/installations/{installation_id}/access_tokens', (req, ctx) => ({
    status: 201,
    body: mintInstallationToken(ctx, appOf(req, ctx), numberParam(req, 'installation_id'), () => randomBase62(36), requestedPermissions(req)),
  })),
  ...routes('GET', '/repos/{owner}/{repo}/installation', (req, ctx) => {
    const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
    return { body: installationFor(req, ctx, repo.owner.login) };
  }),
  ...routes('GET', '/orgs/{org}/installation', (req, ctx) => ({ body: installationFor(req, ctx, req.params.org!) })),
  ...routes('GET', '/users/{username}/installation', (req, ctx) => ({ body: installationFor(req, ctx, req.params.username!) })),
  ...routes('GET', '/installation/repositories', (req, ctx) => {
    const token = bearer(req) ?? '';
    const rec = installationOfToken(ctx, token);
    if (!rec) throw new GitHubError(403, 'This endpoint requires an installation access token.');
    const inst = ctx.store.get<Json>('installation', String(rec.installation_id));
    const list = inst?.account?.login ? repositoriesOwnedBy(ctx, inst.account.login) : [];
    return page(req, ctx, list, (repositories) => ({ total_count: list.length, repository_selection: inst?.repository_selection ?? 'all', repositories }));
  }),
];
