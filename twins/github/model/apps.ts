// GitHub Apps: an app authenticates with a JWT it signs with its private key (RS256, `iss` = app
// id, at most ten minutes long) and trades it for an installation access token (`ghs_…`, one hour
// on the environment clock). Apps and installations come from records (`app` keyed by app id with
// the twin-only `public_key` PEM beside GitHub's App fields; `installation` keyed by installation
// id), so a test registers the public half of a key pair it made and drives @octokit/auth-app
// unchanged. Installation tokens act with the twin key's rights.

import { readFileSync } from 'node:fs';
import { createHash, createPublicKey, verify } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { GitHubError, notFound } from '../wire/errors.js';
import { API, WEB, isoSeconds } from './identity.js';
import type { Json } from './accounts.js';

/** GitHub's limit on a JWT's lifetime (exp − iat). */
const MAX_JWT_SECONDS = 600;
/** Clock drift GitHub tolerates on `iat`. */
const SKEW_SECONDS = 60;
const TOKEN_SECONDS = 3600;
/** Longest JWT the twin reads (a 4096-bit RS256 JWT is under 1 KB). */
const MAX_JWT_LENGTH = 8192;

export function getApp(ctx: TwinContext, id: string | number): Json | undefined {
  return ctx.store.get<Json>('app', String(id));
}

/** The App as the API answers it (without the twin-only public key). */
export function presentApp(ctx: TwinContext, app: Json): Json {
  const { public_key: _key, ...rest } = app;
  return {
    id: app.id,
    slug: app.slug ?? `app-${app.id}`,
    node_id: app.node_id ?? Buffer.from(`03:App${app.id}`).toString('base64'),
    name: app.name ?? app.slug ?? `App ${app.id}`,
    description: app.description ?? null,
    external_url: app.external_url ?? `${WEB}/apps/${app.slug ?? app.id}`,
    html_url: `${WEB}/apps/${app.slug ?? app.id}`,
    created_at: app.created_at ?? '2026-01-01T00:00:00Z',
    updated_at: app.updated_at ?? '2026-01-01T00:00:00Z',
    permissions: app.permissions ?? { metadata: 'read', contents: 'write', issues: 'write', pull_requests: 'write', checks: 'write', statuses: 'write' },
    events: app.events ?? [],
    installations_count: installationsOf(ctx, app.id).length,
    ...rest,
  };
}

export function installationsOf(ctx: TwinContext, appId: number): Json[] {
  return ctx.store.list<Json>('installation').filter((i) => Number(i.app_id) === Number(appId));
}

export function requireInstallation(ctx: TwinContext, app: Json, id: number): Json {
  const inst = ctx.store.get<Json>('installation', String(id));
  if (!inst || Number(inst.app_id) !== Number(app.id)) throw notFound();
  return presentInstallation(app, inst);
}

export function presentInstallation(app: Json, inst: Json): Json {
  return {
    id: inst.id,
    account: inst.account ?? null,
    repository_selection: inst.repository_selection ?? 'all',
    access_tokens_url: `${API}/app/installations/${inst.id}/access_tokens`,
    repositories_url: `${API}/installation/repositories`,
    html_url: `${WEB}/settings/installations/${inst.id}`,
    app_id: app.id,
    app_slug: app.slug ?? `app-${app.id}`,
    target_id: inst.account?.id ?? inst.id,
    target_type: inst.account?.type ?? 'Organization',
    permissions: inst.permissions ?? app.permissions ?? { metadata: 'read' },
    events: inst.events ?? [],
    created_at: inst.created_at ?? '2026-01-01T00:00:00Z',
    updated_at: inst.updated_at ?? '2026-01-01T00:00:00Z',
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: null,
    suspended_at: null,
  };
}

const b64url = (s: string): Buffer => Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');

/** Whether a credential has a JWT's shape (three base64url parts, the first a JSON header). */
export function looksLikeJwt(token: string): boolean {
  return token.length <= MAX_JWT_LENGTH && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/**
 * The app a JWT authenticates, or a GitHubError with GitHub's 401 sentence. The signature is
 * checked with the app's public key; `iat`/`exp` against the wall clock, as GitHub does (the JWT
 * is made by the caller's clock, not the environment's).
 */
export function appOfJwt(ctx: TwinContext, token: string, nowSeconds = Math.floor(Date.now() / 1000)): Json {
  const [h, p, s] = token.split('.') as [string, string, string];
  let header: Json;
  let payload: Json;
  try {
    header = JSON.parse(b64url(h).toString('utf8'));
    payload = JSON.parse(b64url(p).toString('utf8'));
  } catch {
    throw new GitHubError(401, 'A JSON web token could not be decoded');
  }
  if (header?.alg !== 'RS256' || !payload || typeof payload !== 'object') throw new GitHubError(401, 'A JSON web token could not be decoded');
  const app = getApp(ctx, String(payload.iss));
  if (!app || typeof app.public_key !== 'string') throw new GitHubError(401, `Integration not found`);
  let ok = false;
  try {
    ok = verify('RSA-SHA256', Buffer.from(`${h}.${p}`), createPublicKey(app.public_key), b64url(s));
  } catch {
    ok = false;
  }
  if (!ok) throw new GitHubError(401, 'A JSON web token could not be decoded');
  if (typeof payload.exp !== 'number' || payload.exp <= nowSeconds) {
    throw new GitHubError(401, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires.");
  }
  if (typeof payload.iat !== 'number' || payload.iat > nowSeconds + SKEW_SECONDS) {
    throw new GitHubError(401, "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued.");
  }
  if (payload.exp - payload.iat > MAX_JWT_SECONDS) {
    throw new GitHubError(401, "'Expiration time' claim ('exp') is too far in the future.");
  }
  return app;
}

const tokenKey = (token: string) => createHash('sha256').update(token).digest('hex');

const ACCESS_RANK: Record<string, number> = { read: 1, write: 2, admin: 3 };

/**
 * `POST /app/installations/{id}/access_tokens`: a new `ghs_` token for the installation, with its
 * permissions or, when the request names `permissions`, those (each at most what the installation
 * was granted, else GitHub's 422).
 */
export function mintInstallationToken(ctx: TwinContext, app: Json, installationId: number, random: () => string, requested?: Record<string, string>): Json {
  const inst = requireInstallation(ctx, app, installationId);
  const granted = inst.permissions as Record<string, string>;
  if (requested) {
    for (const [name, access] of Object.entries(requested)) {
      if (!(ACCESS_RANK[access] && (ACCESS_RANK[granted[name] ?? ''] ?? 0) >= ACCESS_RANK[access]!)) {
        throw new GitHubError(422, 'The permissions requested are not granted to this installation.');
      }
    }
  }
  const permissions = requested ?? granted;
  const token = `ghs_${random()}`;
  const expires = isoSeconds(ctx.clock.nowMs() + TOKEN_SECONDS * 1000);
  ctx.store.put('installation_token', tokenKey(token), { installation_id: inst.id, app_id: app.id, expires_at: expires, permissions });
  return { token, expires_at: expires, permissions, repository_selection: inst.repository_selection };
}

/** A permission at an access level: `['issues', 'write']`. */
export type PermissionSet = [permission: string, access: string];

/** What each REST route needs of an installation token (spec/app-permissions.json), read on first use. */
let routePermissions: Record<string, PermissionSet[]> | undefined;

/**
 * The permission sets of which an installation token needs any one for `method` on `template`
 * (GitHub's published table), or undefined for a route the table does not list (nothing checked).
 */
export function acceptedPermissions(method: string, template: string): PermissionSet[] | undefined {
  routePermissions ??= (
    JSON.parse(readFileSync(new URL('../spec/app-permissions.json', import.meta.url), 'utf8')) as { routes: Record<string, PermissionSet[]> }
  ).routes;
  const verb = method === 'HEAD' ? 'GET' : method;
  return routePermissions[`${verb} ${template.replace(/\{\+?[^}]+\}/g, '{}')}`];
}

/** Whether a token's permissions (the installation's when the token predates them) cover one of `accepted`. */
export function tokenAllows(ctx: TwinContext, token: Json, accepted: PermissionSet[]): boolean {
  const held = (token.permissions ?? ctx.store.get<Json>('installation', String(token.installation_id))?.permissions ?? {}) as Record<string, string>;
  return accepted.some(
    // Every installation may read metadata.
    ([permission, access]) => (permission === 'metadata' && access === 'read') || (ACCESS_RANK[held[permission] ?? ''] ?? 0) >= (ACCESS_RANK[access] ?? 1),
  );
}

/** The installation a `ghs_` token belongs to while it is valid, else undefined. */
export function installationOfToken(ctx: TwinContext, token: string): Json | undefined {
  if (!token.startsWith('ghs_')) return undefined;
  const rec = ctx.store.get<Json>('installation_token', tokenKey(token));
  if (!rec || Date.parse(rec.expires_at) <= ctx.clock.nowMs()) return undefined;
  return rec;
}
