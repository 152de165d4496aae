// The HTTP surface's common parts: rendering a handler's reply (URL rewriting, `Location`), the
// twin's `around` (starting accounts, the rate limit and its headers on every answer, ETag and
// conditional GETs), GitHub's error rendering with each operation's documentation page, parameter
// reading with GitHub's 422s, and Link-header pagination.

import { createHash } from 'node:crypto';
import type { RequestProblem, RouteCall, RunRoute, TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, RepositoryMoved, invalidRequest } from './errors.js';
import { parseJson } from '../../../twin-runtime/safe-input.js';
import { DOCS, docsForPath, operationDocs } from './docs.js';
import { type Json, ensureBootstrap, viewer } from '../model/accounts.js';
import { consume, consumeAnonymous, rateHeaders, refund, type RateWindow } from '../model/rate-limit.js';
import { toTwinUrls } from './urls.js';
import { findRepositoryById, requireRepository } from '../model/repositories.js';
import { RolledBackAnswer } from '../graphql/errors.js';
import { appOfJwt, installationOfToken, looksLikeJwt, acceptedPermissions, tokenAllows } from '../model/apps.js';
import { withoutEnterprisePrefix } from './enterprise.js';

export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: TwinRequest, ctx: TwinContext) => Reply;

const BASE_HEADERS = {
  'x-github-media-type': 'github.v3; format=json',
  'x-github-api-version-selected': '2022-11-28',
};

function render(ctx: TwinContext, status: number, body: unknown, headers: Record<string, string>): TwinResponse {
  if (body === undefined || status === 204) return { status, headers };
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(toTwinUrls(body, ctx.baseUrl)),
  };
}

/** A handler's reply as GitHub answers it (the headers every answer carries are added by `aroundGitHub`). */
export function reply(handler: Handler): TwinRoute['handler'] {
  return (req, ctx) => {
    const out = handler(req, ctx);
    const status = out.status ?? 200;
    const created: Record<string, string> =
      status === 201 && typeof (out.body as Json | undefined)?.url === 'string'
        ? { location: toTwinUrls({ url: (out.body as Json).url as string }, ctx.baseUrl).url }
        : {};
    return render(ctx, status, out.body, { ...created, ...(out.headers ?? {}) });
  };
}

/**
 * A route. `{+name}` (last) takes the rest of the path, slashes included (`contents/{+path}`);
 * `free` routes (GET /rate_limit) do not count against the limit.
 */
export function routes(method: TwinRoute['method'], path: string, handler: Handler, free = false): TwinRoute[] {
  return [{ method, path, handler: reply(handler), ...(free ? { unmetered: true } : {}) }];
}

/** `{content-type, …headers every GitHub answer carries, …the answer's own}`: GitHub's order. */
function withHeaders(res: TwinResponse, window: RateWindow | undefined): TwinResponse {
  const { 'content-type': contentType, ...own } = res.headers ?? {};
  return {
    ...res,
    headers: {
      ...(contentType !== undefined ? { 'content-type': contentType } : {}),
      ...BASE_HEADERS,
      ...(window ? rateHeaders(window) : {}),
      ...own,
    },
  };
}

function rateLimited(ctx: TwinContext): TwinResponse {
  const me = viewer(ctx);
  return render(
    ctx,
    403,
    {
      message: `API rate limit exceeded for user ID ${me.id}. If you reach out to GitHub Support for help, please include the request ID and timestamp your request was made.`,
      documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
      status: '403',
    },
    {},
  );
}

/** GitHub's weak validator of a body: `W/"<sha-256 hex>"`. */
export function etagOf(body: string | Buffer): string {
  return `W/"${createHash('sha256').update(body).digest('hex')}"`;
}

/** Whether `If-None-Match` names `etag` (weak comparison; `*` matches any). */
function notModified(req: TwinRequest, etag: string): boolean {
  const raw = req.headers['if-none-match'];
  if (!raw) return false;
  const bare = etag.replace(/^W\//, '');
  return raw.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === bare;
  });
}

/**
 * The twin's `around`: the starting accounts exist; the request counts against the key's hourly
 * window (refused with 403 once it is spent); a GET answer carries an ETag, and a GET whose
 * If-None-Match names it is answered 304 without counting; every answer carries the rate headers.
 */
export async function aroundGitHub({ req, ctx, route }: RouteCall, run: RunRoute): Promise<TwinResponse> {
  ensureBootstrap(ctx);
  let window: RateWindow | undefined;
  if (!route.unmetered) {
    const counted = consume(ctx);
    window = counted.window;
    if (!counted.allowed) return withHeaders(rateLimited(ctx), window);
  }
  const res = withScopes(req, ctx, await run());
  if (req.method === 'GET' && res.status === 200 && (typeof res.body === 'string' || Buffer.isBuffer(res.body))) {
    const etag = etagOf(res.body);
    if (notModified(req, etag)) {
      if (window) window = refund(ctx);
      const { 'content-type': _type, ...own } = res.headers ?? {};
      return withHeaders({ status: 304, headers: { ...own, etag } }, window);
    }
    return withHeaders({ ...res, headers: { ...(res.headers ?? {}), etag } }, window);
  }
  return withHeaders(res, window);
}

/**
 * The scopes of the twin key (a classic token with every scope an agent needs), on every answer to
 * a request that presents it, as GitHub sends them (`gh auth status` reads them).
 */
const KEY_SCOPES = 'admin:org, admin:repo_hook, delete_repo, gist, read:org, repo, user, workflow';

function withScopes(req: TwinRequest, ctx: TwinContext, res: TwinResponse): TwinResponse {
  if (presentedKey(req) !== ctx.apiKey) return res;
  return { ...res, headers: { ...(res.headers ?? {}), 'x-oauth-scopes': KEY_SCOPES, 'x-accepted-oauth-scopes': '' } };
}

/** A thrown GitHubError with the documentation page of the operation that failed. */
export function renderGitHubError(e: unknown, req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  if (e instanceof RolledBackAnswer) return e.response;
  if (e instanceof RepositoryMoved) return movedAnswer(req, ctx, e.repositoryId);
  if (!(e instanceof GitHubError)) return undefined;
  const docs = (req.template && operationDocs(req.method, req.template)) || DOCS;
  return render(ctx, e.status, e.body(docs), {});
}

/**
 * An operation the twin does not simulate (decisions §15): 501 `{message, documentation_url,
 * status}` with the operation's page; Octokit raises it as `RequestError` (status 501, the sentence
 * in its message), `gh` prints it.
 */
export function unsupportedGitHub(req: TwinRequest, ctx: TwinContext, sentence: string): TwinResponse {
  return renderGitHubError(new GitHubError(501, sentence), req, ctx)!;
}

/** The redirect from a renamed repository's old path to `/repositories/{id}/…` (same rest and query). */
function movedAnswer(req: TwinRequest, ctx: TwinContext, id: number): TwinResponse {
  const m = /^(\/api\/v3)?\/repos\/[^/]+\/[^/]+(\/.*)?$/.exec(req.path);
  const url = `${ctx.baseUrl}${m?.[1] ?? ''}/repositories/${id}${m?.[2] ?? ''}`;
  const location = req.queryString ? `${url}?${req.queryString}` : url;
  const status = req.method === 'GET' || req.method === 'HEAD' ? 301 : 307;
  const docs = (req.template && operationDocs(req.method, req.template)) || DOCS;
  return render(ctx, status, { message: 'Moved Permanently', url: location, documentation_url: docs }, { location });
}

/** An error answered before any route ran (credentials, route misses): rate headers included. */
export function githubError(ctx: TwinContext, status: number, message: string, docs: string, window: RateWindow): TwinResponse {
  return withHeaders(render(ctx, status, { message, documentation_url: docs, status: String(status) }, {}), window);
}

/** `Authorization: token <key>` or `Bearer <key>` (Octokit sends either). */
function presentedKey(req: TwinRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^(?:token|bearer)\s+(\S+)$/i.exec(h.trim());
  return m ? m[1] : '';
}

/** The credential after `token`/`Bearer` (the twin key, an installation token or an app JWT). */
export function bearer(req: TwinRequest): string | undefined {
  return presentedKey(req) || undefined;
}

/** A plain-text answer of a page outside the API (raw files, downloads): GitHub's `Not Found` there. */
export function plainText(status: number, body: string | Buffer): TwinResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}

/** Whether a request outside the API (a download, a raw file) may read `repo`: public, or the twin key or an installation token. */
export function mayReadRepository(req: TwinRequest, ctx: TwinContext, repo: Json): boolean {
  if (!repo.private) return true;
  const key = presentedKey(req);
  return key === ctx.apiKey || (!!key && !!installationOfToken(ctx, key));
}

/**
 * The twin key or a valid installation token (`ghs_…`) passes; an app JWT passes on the app's own
 * routes (`/app…`, `…/installation`); anything else is a 401, counted against the unauthenticated
 * window.
 */
export function authenticateGitHub(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const key = presentedKey(req);
  if (key === ctx.apiKey) return undefined;
  const installationToken = key ? installationOfToken(ctx, key) : undefined;
  if (installationToken) {
    // An installation token reaches only what its installation was granted (GitHub's table).
    const accepted = acceptedPermissions(req.method, withoutEnterprisePrefix(req.template ?? ''));
    if (!accepted || tokenAllows(ctx, installationToken, accepted)) return undefined;
    const refused = githubError(ctx, 403, 'Resource not accessible by integration', operationDocs(req.method, req.template ?? '') ?? DOCS, consume(ctx).window);
    // Each set that would do, `;`-separated, as GitHub sends them.
    const header = accepted.map(([permission, access]) => `${permission}=${access}`).join('; ');
    return { ...refused, headers: { ...refused.headers, 'x-accepted-github-permissions': header } };
  }
  if (key && looksLikeJwt(key)) {
    const template = withoutEnterprisePrefix(req.template ?? '');
    if (!template.startsWith('/app') && !template.endsWith('/installation')) {
      return githubError(ctx, 401, 'A JSON web token could not be decoded', DOCS, consumeAnonymous(ctx));
    }
    try {
      appOfJwt(ctx, key);
      return undefined;
    } catch (e) {
      if (e instanceof GitHubError) return githubError(ctx, e.status, e.message, DOCS, consumeAnonymous(ctx));
      throw e;
    }
  }
  return githubError(ctx, 401, key === undefined ? 'Requires authentication' : 'Bad credentials', DOCS, consumeAnonymous(ctx));
}

/**
 * A path no twin route serves: 404 with the page of GitHub's operation for it when there is one.
 * It counts against the key's window when the key is presented, else the unauthenticated one.
 */
export function routeMissGitHub(req: TwinRequest, ctx: TwinContext): TwinResponse {
  ensureBootstrap(ctx);
  const window = presentedKey(req) === ctx.apiKey ? consume(ctx).window : consumeAnonymous(ctx);
  return githubError(ctx, 404, 'Not Found', docsForPath(req.method, req.path), window);
}

/**
 * A request the runtime could not read: a malformed URL is a route miss; a body GitHub cannot read
 * is "Problems parsing JSON" (413 past the size limit); a query past a limit a schema-level 422.
 */
export function parseFailureGitHub(req: TwinRequest, ctx: TwinContext, problem: RequestProblem): TwinResponse {
  if (problem.kind === 'malformed_url') return routeMissGitHub(req, ctx);
  ensureBootstrap(ctx);
  const window = presentedKey(req) === ctx.apiKey ? consume(ctx).window : consumeAnonymous(ctx);
  const docs = docsForPath(req.method, req.path);
  const { refusal } = problem;
  if (refusal.reason === 'body_too_large') return githubError(ctx, 413, 'Request body too large', docs, window);
  if (refusal.part === 'body') return githubError(ctx, 400, 'Problems parsing JSON', docs, window);
  return githubError(ctx, 422, `Invalid request.\n\n${refusal.message}`, docs, window);
}

// ---- reading input -----------------------------------------------------------------------

/** The JSON body; GitHub answers 400 "Problems parsing JSON" to anything else. */
export function jsonBody(req: TwinRequest): Json {
  if (req.rawBody.length === 0) return {};
  if (req.bodyKind !== 'json' || Array.isArray(req.body)) {
    if (req.bodyKind === 'form' && !req.headers['content-type']) {
      try {
        const v = parseJson(req.rawBody.toString('utf8')) as Json;
        if (v && typeof v === 'object' && !Array.isArray(v)) return v;
      } catch {
        /* fall through */
      }
    }
    throw new GitHubError(400, 'Problems parsing JSON');
  }
  return req.body as Json;
}

function wrongType(field: string, v: unknown, want: string): GitHubError {
  return invalidRequest(`For 'properties/${field}', ${JSON.stringify(v)} is not ${want === 'integer' ? 'an integer' : `a ${want}`}.`);
}

export function requiredString(b: Json, field: string): string {
  const v = b[field];
  if (v === undefined || v === null) throw invalidRequest(`"${field}" wasn't supplied.`);
  if (typeof v !== 'string') throw wrongType(field, v, 'string');
  return v;
}

export function optString(b: Json, field: string, nullable = true): string | null | undefined {
  const v = b[field];
  if (v === undefined) return undefined;
  if (v === null && nullable) return null;
  if (typeof v !== 'string') throw wrongType(field, v, 'string');
  return v;
}

export function optBool(b: Json, field: string): boolean | undefined {
  const v = b[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw wrongType(field, v, 'boolean');
  return v;
}

export function optStringArray(b: Json, field: string): string[] | undefined {
  const v = b[field];
  if (v === undefined) return undefined;
  if (v === null) return [];
  if (!Array.isArray(v)) throw wrongType(field, v, 'array');
  return v.map((x) => {
    if (typeof x === 'string') return x;
    if (x && typeof x === 'object' && typeof (x as Json).name === 'string') return (x as Json).name as string;
    throw invalidRequest(`For 'items', ${JSON.stringify(x)} is not a string.`);
  });
}

export function optEnum<T extends string>(b: Json, field: string, values: readonly T[]): T | undefined {
  const v = b[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !values.includes(v as T)) {
    throw invalidRequest(`For 'properties/${field}', ${JSON.stringify(v)} is not one of ${JSON.stringify(values)}.`);
  }
  return v as T;
}

export function queryString(req: TwinRequest, name: string): string | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? String(v[v.length - 1]) : String(v);
}

/** A numeric path parameter; anything else is a 404 as on GitHub. */
export function numberParam(req: TwinRequest, name: string): number {
  const v = req.params[name] ?? '';
  if (!/^\d+$/.test(v)) throw new GitHubError(404, 'Not Found');
  return Number(v);
}

/** The repository of `{owner}/{repo}`; an old name of a renamed one redirects (RepositoryMoved). */
export function repoOf(req: TwinRequest, ctx: TwinContext): Json {
  return requireRepository(ctx, req.params.owner!, req.params.repo!);
}

const REPO_PREFIX = '/repos/{owner}/{repo}';

/**
 * Every `/repos/{owner}/{repo}…` route also answers as `/repositories/{repository_id}…` (where
 * rename redirects point, and what GitHub's own links use), the id resolved to today's name.
 */
export function alsoUnderRepositoryId(list: TwinRoute[]): TwinRoute[] {
  const byId = list
    .filter((r) => r.path === REPO_PREFIX || r.path.startsWith(`${REPO_PREFIX}/`))
    .map(
      (r): TwinRoute => ({
        ...r,
        path: `/repositories/{repository_id}${r.path.slice(REPO_PREFIX.length)}`,
        handler: (req, ctx) => {
          const repo = findRepositoryById(ctx, numberParam(req, 'repository_id'));
          if (!repo) throw new GitHubError(404, 'Not Found');
          return r.handler({ ...req, params: { ...req.params, owner: repo.owner.login, repo: repo.name } }, ctx);
        },
      }),
    );
  return [...list, ...byId];
}

// ---- pagination --------------------------------------------------------------------------

/** `page` and `per_page` as GitHub reads them (per page 1–100, default 30). */
export function pageParams(req: TwinRequest): { page: number; perPage: number } {
  const page = Math.max(1, Math.floor(Number(queryString(req, 'page') ?? 1)) || 1);
  const per = Math.floor(Number(queryString(req, 'per_page') ?? 30)) || 30;
  return { page, perPage: Math.min(100, Math.max(1, per)) };
}

/**
 * The Link header of page `page` of `last`; `last` undefined when the count is not known (a keyset
 * read only knows whether another page follows: `more`), which leaves out rel="last".
 */
export function linkHeader(
  req: TwinRequest,
  ctx: TwinContext,
  page: number,
  last: number | undefined,
  more = last !== undefined && page < last,
): string | undefined {
  if (!more && page <= 1) return undefined;
  const url = (p: number) => {
    const params = new URLSearchParams(req.queryString);
    params.set('page', String(p));
    return `<${ctx.baseUrl}${req.path}?${params.toString()}>`;
  };
  const parts: string[] = [];
  if (page > 1) parts.push(`${url(page - 1)}; rel="prev"`);
  if (more) parts.push(`${url(page + 1)}; rel="next"`);
  if (more && last !== undefined) parts.push(`${url(last)}; rel="last"`);
  if (page > 1) parts.push(`${url(1)}; rel="first"`);
  return parts.length ? parts.join(', ') : undefined;
}

/** One page of a list answer, with the RFC 5988 Link header Octokit's paginate follows. */
export function page<T>(req: TwinRequest, ctx: TwinContext, items: T[], wrap?: (slice: T[]) => unknown): Reply {
  const { page: p, perPage } = pageParams(req);
  const slice = items.slice((p - 1) * perPage, p * perPage);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = linkHeader(req, ctx, p, last);
  return { body: wrap ? wrap(slice) : slice, headers: link ? { link } : {} };
}
