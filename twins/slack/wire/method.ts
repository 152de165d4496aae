// How a Web API method runs: `/api/<method>` by GET or POST, arguments from the query and the
// body (form or JSON), acting as the bot user; `{ok:true,…}` or `{ok:false,error}` with HTTP 200,
// or 429 `ratelimited` with Retry-After when the rate_limit setting says so. The runtime runs each
// call inside the request's savepoint: a refused call leaves nothing behind.

import type { RouteCall, RunRoute, TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { Args } from './params.js';
import { SlackError } from './errors.js';
import { rateLimited } from '../model/rate-limit.js';
import type { User } from '../model/records.js';
import { botUser, ensureWorkspace } from '../model/workspace.js';
import { assignSafely } from '../../../twin-runtime/safe-input.js';
import { BOT_SCOPES, identify, type Identity } from '../model/tokens.js';
import { checkAccess, neededScopes } from './scopes.js';
import { appLink } from '../model/app-link.js';

export interface MethodCall {
  args: Args;
  ctx: TwinContext;
  /** Who the token acts as: the bot user, or the person a user token belongs to. */
  actor: User;
  /** The token presented (app-level tokens have no actor: their methods read `who`). */
  who: Identity;
  req: TwinRequest;
}

export type MethodHandler = (call: MethodCall) => Record<string, unknown> | Promise<Record<string, unknown>>;
export type MethodTable = Record<string, MethodHandler>;

const SLACK_HEADERS = { 'x-oauth-scopes': BOT_SCOPES.join(',') };

/** The identity `authenticate` found for a request (read again by the method). */
const identities = new WeakMap<TwinRequest, Identity>();

/** The token of a call: `Authorization: Bearer …`, else a `token` form or query parameter. */
export function presentedToken(req: TwinRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header === 'string' && header.trim() !== '') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
    return m ? m[1] : header.trim();
  }
  // Slack reads `token` from form bodies and the query, never from a JSON body.
  const fromBody = req.bodyKind === 'form' ? req.body.token : undefined;
  const candidate = fromBody ?? req.query.token;
  return typeof candidate === 'string' && candidate !== '' ? candidate : undefined;
}

/** The twin's `authenticate`: a token the twin issued (bot, app-level or OAuth user token). */
export function authenticateSlack(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const token = presentedToken(req);
  if (!token) return slackFailure('not_authed');
  ensureWorkspace(ctx);
  const who = identify(ctx, token);
  if (!who) return slackFailure(token.startsWith('xapp-') || token.startsWith('xox') ? 'invalid_auth' : 'invalid_auth');
  identities.set(req, who);
  return undefined;
}

function scopeHeaders(who: Identity, method: string): Record<string, string> {
  const headers: Record<string, string> = { 'x-oauth-scopes': who.kind === 'app' ? 'connections:write' : who.scopes.join(',') };
  const needed = neededScopes(method);
  if (needed) headers['x-accepted-oauth-scopes'] = needed;
  return headers;
}

export function slackFailure(error: string, extra: Record<string, unknown> = {}): TwinResponse {
  return { status: 200, headers: { ...SLACK_HEADERS }, body: { ok: false, error, ...extra } };
}

/** Arguments of a call: query parameters, overridden by the body's. */
export function callArguments(req: TwinRequest): Record<string, unknown> {
  return assignSafely({}, req.query, req.bodyKind === 'none' ? undefined : req.body);
}

/** A method's answer: `{ok: true, …}` with HTTP 200. */
async function answer(name: string, handler: MethodHandler, req: TwinRequest, ctx: TwinContext): Promise<TwinResponse> {
  let who = identities.get(req);
  if (!who && PUBLIC_METHODS.has(name)) {
    // Token-less methods (oauth.v2.access authenticates with the client id and secret) act as the app.
    const bot = botUser(ctx);
    who = { kind: 'bot', token: '', user: bot, scopes: [] };
  } else if (!who) return slackFailure('not_authed');
  const headers = scopeHeaders(who, name);
  checkAccess(name, who);
  const actor = who.kind === 'app' ? (undefined as unknown as User) : who.user;
  const result = await handler({ args: new Args(callArguments(req)), ctx, actor, who, req });
  return { status: 200, headers, body: { ok: true, ...result } };
}

/** A thrown SlackError as Slack answers it (HTTP 200, `ok: false`); undefined for anything else. */
export function renderSlackError(e: unknown): TwinResponse | undefined {
  if (!(e instanceof SlackError)) return undefined;
  if (!e.withCode) return { status: 200, headers: { ...SLACK_HEADERS }, body: { ok: false, ...e.extra } };
  return slackFailure(e.code, e.extra);
}

/** The method a route serves (`/api/chat.postMessage` → `chat.postMessage`). */
export function methodName(route: TwinRoute): string {
  return route.path.slice('/api/'.length);
}

/**
 * The twin's `around`: the workspace exists, and the `rate_limit` setting may refuse the call
 * (429 `ratelimited` with Retry-After) before it runs. Twin-only methods are never rate limited.
 */
export function aroundSlack({ ctx, route }: RouteCall, run: RunRoute): Promise<TwinResponse> | TwinResponse {
  ensureWorkspace(ctx);
  const wait = route.unmetered || !route.path.startsWith('/api/') ? undefined : rateLimited(ctx, methodName(route));
  if (wait !== undefined) {
    return { status: 429, headers: { ...SLACK_HEADERS, 'retry-after': String(wait) }, body: { ok: false, error: 'ratelimited' } };
  }
  // What the call queued for the app (Socket Mode envelopes, interactivity) is dropped when the
  // call is refused, as its writes are rolled back.
  const link = appLink(ctx);
  const mark = link.mark();
  return run().then((res) => {
    const body = res.body as { ok?: unknown } | undefined;
    if (res.status >= 400 || body?.ok === false) link.discardSince(mark);
    return res;
  });
}

/** Methods called without a token (the OAuth exchange authenticates with the client credentials). */
const PUBLIC_METHODS = new Set(['oauth.v2.access']);

export function methodRoutes(table: MethodTable): TwinRoute[] {
  return Object.entries(table).flatMap(([name, handler]) =>
    (['GET', 'POST'] as const).map((method) => ({
      method,
      path: `/api/${name}`,
      handler: (req: TwinRequest, ctx: TwinContext) => answer(name, handler, req, ctx),
      // Twin-only methods (twin.*) have no Slack equivalent and are never rate limited.
      ...(name.startsWith('twin.') ? { unmetered: true } : {}),
      ...(PUBLIC_METHODS.has(name) ? { public: true } : {}),
    })),
  );
}
