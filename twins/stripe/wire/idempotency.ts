// `Idempotency-Key`: the first response to a key is kept (as an `idempotency_key` record) and
// replayed for the same endpoint and parameters with `Idempotent-Replayed: true`; the same key with
// other parameters or on another endpoint is a 400 `idempotency_error`. Keys expire after 24 hours
// of environment time, as Stripe prunes them. Requests that failed validation keep nothing.

import type { TwinContext, TwinResponse } from '../../../twin-runtime/contract.js';
import { StripeApiError } from './errors.js';
import type { Params } from './params.js';

export const IDEMPOTENCY_RESOURCE = 'idempotency_key';
const KEY_LIFETIME_SECONDS = 24 * 60 * 60;
const MAX_KEY_LENGTH = 255;

export interface IdempotencyRecord {
  id: string;
  object: 'idempotency_key';
  created: number;
  endpoint: string;
  params_fingerprint: string;
  original_request: string;
  response: { status: number; body: unknown };
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

export function fingerprint(params: Params): string {
  return JSON.stringify(canonical(params));
}

/**
 * The stored response to replay, or undefined when the key is new (or expired). Throws
 * `idempotency_error` when the key was used for another request.
 */
export function lookupIdempotent(
  ctx: TwinContext,
  key: string,
  endpoint: string,
  params: Params,
): { response: TwinResponse; originalRequest: string } | undefined {
  if (key.length > MAX_KEY_LENGTH) {
    throw new StripeApiError(400, {
      type: 'invalid_request_error',
      message: `Idempotency keys can be at most ${MAX_KEY_LENGTH} characters long, but the one you provided is ${key.length} characters long.`,
    });
  }
  const saved = ctx.store.get<IdempotencyRecord>(IDEMPOTENCY_RESOURCE, key);
  if (!saved || saved.created + KEY_LIFETIME_SECONDS < ctx.clock.nowSeconds()) return undefined;
  if (saved.endpoint !== endpoint) {
    throw new StripeApiError(400, {
      type: 'idempotency_error',
      message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${saved.endpoint}' vs '${endpoint}'). Try using a key other than '${key}' if you meant to execute a different request.`,
    });
  }
  if (saved.params_fingerprint !== fingerprint(params)) {
    throw new StripeApiError(400, {
      type: 'idempotency_error',
      message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
    });
  }
  return { response: { status: saved.response.status, body: saved.response.body }, originalRequest: saved.original_request };
}

export function rememberIdempotent(ctx: TwinContext, key: string, endpoint: string, params: Params, requestId: string, response: TwinResponse): void {
  const record: IdempotencyRecord = {
    id: key,
    object: 'idempotency_key',
    created: ctx.clock.nowSeconds(),
    endpoint,
    params_fingerprint: fingerprint(params),
    original_request: requestId,
    response: { status: response.status, body: response.body },
  };
  ctx.store.put(IDEMPOTENCY_RESOURCE, key, record);
}
