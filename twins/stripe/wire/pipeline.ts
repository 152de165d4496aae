// Stripe's protocol around every routed request (the twin's `around`): a deterministic request id,
// `Idempotency-Key` replay, `expand[]` on the answer, Stripe's error body for anything unexpected,
// and the `Request-Id` header on every response. The runtime runs the handler inside the request's
// savepoint of a group-committed transaction (twin-runtime/pipeline.ts): a thrown StripeApiError
// rolls back whatever the request wrote, ids included, so a rejected request leaves no trace.

import type { RouteCall, RunRoute, TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { randomBase62 } from '../../../twin-runtime/ids.js';
import { NotSimulated, operationName } from '../../../twin-runtime/fidelity.js';
import { StripeApiError, stripeError } from './errors.js';
import { unreadParams } from './input.js';
import { expandPaths, paramsOf } from './params.js';
import { checkApiVersion } from './api-version.js';
import { expandObject } from './expand.js';
import { renderInVersion, renderingVersion } from './versions.js';
import { lookupIdempotent, rememberIdempotent } from './idempotency.js';
import { setCurrentRequest } from './request-context.js';
import { requestContext } from './connect-scope.js';

/** A request id for answers given before a twin context exists (refused credentials). */
export function newRequestId(): string {
  return 'req_' + randomBase62(14);
}

function header(req: TwinRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Stamp the headers Stripe puts on every answer. */
export function withStripeHeaders(res: TwinResponse, requestId: string, req?: TwinRequest): TwinResponse {
  const headers: Record<string, string | string[]> = { ...(res.headers ?? {}), 'request-id': requestId };
  const version = req && header(req, 'stripe-version');
  if (version) headers['stripe-version'] = version;
  return { ...res, headers };
}

/** Stripe's answer to a thrown error: its own errors as they are, anything else a 500 `api_error`. */
export function renderStripeError(e: unknown): TwinResponse {
  if (e instanceof StripeApiError) return e.toResponse();
  return stripeError(500, {
    type: 'api_error',
    message: `An unexpected error occurred in the Stripe twin: ${(e as Error).message}`,
  });
}

async function answer(req: TwinRequest, platform: TwinContext, requestId: string, version: string, run: RunRoute): Promise<TwinResponse> {
  const idempotencyKey = req.method === 'POST' ? header(req, 'idempotency-key') : undefined;
  setCurrentRequest({ id: requestId, idempotencyKey: idempotencyKey ?? null });
  try {
    // A `Stripe-Account` request keeps its idempotency keys and expands in that account's records.
    const ctx = requestContext(req, platform);
    const params = paramsOf(req);
    const endpoint = `${req.method} ${req.path}`;
    if (idempotencyKey) {
      const replay = lookupIdempotent(ctx, idempotencyKey, endpoint, params);
      if (replay) {
        return {
          ...replay.response,
          headers: { 'idempotent-replayed': 'true', 'original-request': replay.originalRequest, 'idempotency-key': idempotencyKey },
        };
      }
    }
    return await run((res) => {
      const unread = res.status < 300 ? unreadParams(req) : [];
      if (unread.length > 0) {
        // Answering as if these had been applied would be a fabricated success (rolled back).
        throw new NotSimulated(`${operationName(req)} with ${unread.join(', ')}`, 'The twin answers this operation but not these parameters.');
      }
      if (res.status < 300 && res.body && typeof res.body === 'object' && !Buffer.isBuffer(res.body)) {
        // The answer in the request's API version (its body is the request's own), then what
        // `expand[]` adds, each expanded object rendered in that version too.
        const render = <T>(body: T): T => renderInVersion(ctx, body, version);
        res = { ...res, body: render(res.body) };
        const paths = expandPaths(params);
        if (paths.length > 0) res = { ...res, body: expandObject(ctx, res.body, paths, render) };
      }
      if (idempotencyKey && res.status < 500) {
        rememberIdempotent(ctx, idempotencyKey, endpoint, params, requestId, res);
        res = { ...res, headers: { ...(res.headers ?? {}), 'idempotency-key': idempotencyKey } };
      }
      return res;
    });
  } catch (e) {
    return renderStripeError(e);
  } finally {
    setCurrentRequest(null);
  }
}

/** The twin's `around`: every routed request, inside the runtime's transaction. */
export async function aroundStripe({ req, ctx }: RouteCall, run: RunRoute): Promise<TwinResponse> {
  // Deterministic (events store it), drawn outside the request's savepoint so a rejected
  // request does not hand its id to the next one.
  const requestId = ctx.ids.nextIn('request', 'req_', 14);
  const version = header(req, 'stripe-version');
  let res: TwinResponse;
  try {
    if (version !== undefined) checkApiVersion(version);
    res = await answer(req, ctx, requestId, renderingVersion(version), run);
  } catch (e) {
    res = renderStripeError(e);
  }
  return withStripeHeaders(prettyJson(res), requestId, req);
}

/** Stripe prints its JSON with two-space indentation; so does the twin. */
function prettyJson(res: TwinResponse): TwinResponse {
  const body = res.body;
  if (body === undefined || body === null || typeof body !== 'object' || Buffer.isBuffer(body)) return res;
  return { ...res, body: JSON.stringify(body, null, 2), headers: { ...(res.headers ?? {}), 'content-type': 'application/json' } };
}

/** A 200 answer with a Stripe object or envelope. */
export function ok(body: unknown): TwinResponse {
  return { status: 200, body };
}
