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

export interface MethodCall {
  args: Args;
  ctx: TwinContext;
  /** Who the token acts as: the bot user. */
  actor: User;
  req: TwinRequest;
}

export type MethodHandler = (call: MethodCall) => Record<string, unknown>;
export type MethodTable = Record<string, MethodHandler>;

/** Scopes the minted bot token carries (shown as `x-oauth-scopes`, read by the SDK). */
export const BOT_SCOPES = [
  'channels:history', 'channels:join', 'channels:manage', 'channels:read',
  'chat:write', 'groups:history', 'groups:read', 'groups:write',
  'im:history', 'im:read', 'im:write', 'mpim:history', 'mpim:read', 'mpim:write',
  'reactions:read', 'reactions:write', 'team:read', 'users:read', 'users:read.email',
];

const SLACK_HEADERS = { 'x-oauth-scopes': BOT_SCOPES.join(',') };

export function slackFailure(error: string, extra: Record<string, unknown> = {}): TwinResponse {
  return { status: 200, headers: { ...SLACK_HEADERS }, body: { ok: false, error, ...extra } };
}

/** Arguments of a call: query parameters, overridden by the body's. */
export function callArguments(req: TwinRequest): Record<string, unknown> {
  return assignSafely({}, req.query, req.bodyKind === 'none' ? undefined : req.body);
}

/** A method's answer: `{ok: true, …}` with HTTP 200. */
function answer(handler: MethodHandler, req: TwinRequest, ctx: TwinContext): TwinResponse {
  const result = handler({ args: new Args(callArguments(req)), ctx, actor: botUser(ctx), req });
  return { status: 200, headers: { ...SLACK_HEADERS }, body: { ok: true, ...result } };
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
  const wait = route.unmetered ? undefined : rateLimited(ctx, methodName(route));
  if (wait !== undefined) {
    return { status: 429, headers: { ...SLACK_HEADERS, 'retry-after': String(wait) }, body: { ok: false, error: 'ratelimited' } };
  }
  return run();
}

export function methodRoutes(table: MethodTable): TwinRoute[] {
  return Object.entries(table).flatMap(([name, handler]) =>
    (['GET', 'POST'] as const).map((method) => ({
      method,
      path: `/api/${name}`,
      handler: (req: TwinRequest, ctx: TwinContext) => answer(handler, req, ctx),
      // Twin-only methods (twin.*) have no Slack equivalent and are never rate limited.
      ...(name.startsWith('twin.') ? { unmetered: true } : {}),
    })),
  );
}
