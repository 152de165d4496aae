// The HTTP surface's common parts: the route wrapper (starting accounts, rate limit, GitHub error
// rendering, URL rewriting), parameter reading with GitHub's 422s, and Link-header pagination.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, invalidRequest } from '../model/errors.js';
import { type Json, ensureBootstrap, viewer } from '../model/accounts.js';
import { consume, rateHeaders } from '../model/rate-limit.js';
import { toTwinUrls } from '../model/urls.js';
import { requireRepository } from '../model/repositories.js';

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

function rateLimited(ctx: TwinContext, headers: Record<string, string>): TwinResponse {
  const me = viewer(ctx);
  return render(ctx, 403, {
    message: `API rate limit exceeded for user ID ${me.id}. If you reach out to GitHub Support for help, please include the request ID and timestamp your request was made.`,
    documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
    status: '403',
  }, headers);
}

/** Run one GitHub handler; `free` routes (GET /rate_limit) do not count against the limit. */
export function run(handler: Handler, free = false): TwinRoute['handler'] {
  return (req, ctx) => {
    ensureBootstrap(ctx);
    const headers: Record<string, string> = { ...BASE_HEADERS };
    if (!free) {
      const { allowed, window } = consume(ctx);
      Object.assign(headers, rateHeaders(window));
      if (!allowed) return rateLimited(ctx, headers);
    }
    try {
      // One transaction per request: a request that fails leaves nothing behind (no spent
      // issue number, no half-made pull request).
      const out = ctx.store.transaction(() => handler(req, ctx));
      const status = out.status ?? 200;
      const created: Record<string, string> = status === 201 && typeof (out.body as Json | undefined)?.url === 'string'
        ? { location: toTwinUrls({ url: (out.body as Json).url as string }, ctx.baseUrl).url }
        : {};
      return render(ctx, status, out.body, { ...headers, ...created, ...(out.headers ?? {}) });
    } catch (e) {
      if (e instanceof GitHubError) return render(ctx, e.status, e.body, headers);
      throw e;
    }
  };
}

const MAX_DEPTH = 12;

/**
 * Routes for GitHub paths whose last parameter may hold slashes (`contents/{+path}`,
 * `git/ref/{+ref}`). The runtime's segments do not span `/`, so the template is expanded to one
 * route per depth and the pieces are joined back into `params[name]`.
 */
export function routes(method: TwinRoute['method'], path: string, handler: Handler, free = false): TwinRoute[] {
  const wrapped = run(handler, free);
  const m = /\{\+(\w+)\}$/.exec(path);
  if (!m) return [{ method, path, handler: wrapped }];
  const name = m[1]!;
  const prefix = path.slice(0, m.index);
  const out: TwinRoute[] = [];
  for (let depth = 1; depth <= MAX_DEPTH; depth++) {
    const parts = Array.from({ length: depth }, (_, i) => `{${name}__${i}}`);
    out.push({
      method,
      path: prefix + parts.join('/'),
      handler: (req, ctx) => {
        const pieces = parts.map((_, i) => req.params[`${name}__${i}`]!);
        req.params[name] = pieces.join('/');
        return wrapped(req, ctx);
      },
    });
  }
  return out;
}

// ---- reading input -----------------------------------------------------------------------

/** The JSON body; GitHub answers 400 "Problems parsing JSON" to anything else. */
export function jsonBody(req: TwinRequest): Json {
  if (req.rawBody.length === 0) return {};
  if (req.bodyKind !== 'json' || Array.isArray(req.body)) {
    if (req.bodyKind === 'form' && !req.headers['content-type']) {
      try {
        const v = JSON.parse(req.rawBody.toString('utf8'));
        if (v && typeof v === 'object' && !Array.isArray(v)) return v;
      } catch { /* fall through */ }
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

export function repoOf(req: TwinRequest, ctx: TwinContext): Json {
  return requireRepository(ctx, req.params.owner!, req.params.repo!);
}

// ---- pagination --------------------------------------------------------------------------

function pageParams(req: TwinRequest): { page: number; perPage: number } {
  const page = Math.max(1, Math.floor(Number(queryString(req, 'page') ?? 1)) || 1);
  const per = Math.floor(Number(queryString(req, 'per_page') ?? 30)) || 30;
  return { page, perPage: Math.min(100, Math.max(1, per)) };
}

/**
 * The Link header of page `page` of `last`; `last` undefined when the count is not known (a keyset
 * read only knows whether another page follows: `more`), which leaves out rel="last".
 */
export function linkHeader(req: TwinRequest, ctx: TwinContext, page: number, last: number | undefined, more = last !== undefined && page < last): string | undefined {
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
