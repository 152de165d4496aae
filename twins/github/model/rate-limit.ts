// The primary rate limit of the twin's key: 5000 requests per hour of the environment clock. The
// window is a `rate_limit` record (`core`), in the shape `GET /rate_limit` answers, so an operator
// can spend or refill it through the records API. It resets once the clock passes `reset`.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { Json } from './accounts.js';

export const HOURLY_LIMIT = 5000;
const KEY = 'core';

export interface RateWindow {
  limit: number;
  remaining: number;
  reset: number;
  used: number;
  resource: string;
}

function fresh(ctx: TwinContext, limit = HOURLY_LIMIT): RateWindow {
  return { limit, remaining: limit, reset: ctx.clock.nowSeconds() + 3600, used: 0, resource: KEY };
}

/** The current window, rolled over when the clock has passed its reset time. */
export function currentWindow(ctx: TwinContext): RateWindow {
  const saved = ctx.store.get<RateWindow>('rate_limit', KEY);
  if (saved && ctx.clock.nowSeconds() < saved.reset) return saved;
  const next = fresh(ctx, saved?.limit ?? HOURLY_LIMIT);
  ctx.store.put('rate_limit', KEY, next);
  return next;
}

/** Count one request; false when the window was already spent. */
export function consume(ctx: TwinContext): { allowed: boolean; window: RateWindow } {
  const w = currentWindow(ctx);
  if (w.remaining <= 0) return { allowed: false, window: w };
  w.remaining -= 1;
  w.used += 1;
  ctx.store.put('rate_limit', KEY, w);
  return { allowed: true, window: w };
}

/**
 * Give back a counted request (a conditional GET answered 304 does not count, as on GitHub).
 */
export function refund(ctx: TwinContext): RateWindow {
  const w = currentWindow(ctx);
  if (w.used > 0) {
    w.remaining = Math.min(w.limit, w.remaining + 1);
    w.used -= 1;
    ctx.store.put('rate_limit', KEY, w);
  }
  return w;
}

/** Unauthenticated requests' own window (GitHub: 60 an hour per address). */
export const ANONYMOUS_LIMIT = 60;
const ANONYMOUS_META = 'github:rate_limit:anonymous';

/**
 * Count a request made without the twin's key (no key, or a wrong one): GitHub keeps these apart
 * from the key's window. Kept in the meta table, not as a record, so the records API shows the
 * key's window only.
 */
export function consumeAnonymous(ctx: TwinContext): RateWindow {
  const raw = ctx.store.getMeta(ANONYMOUS_META);
  let w = raw ? (JSON.parse(raw) as RateWindow) : undefined;
  if (!w || ctx.clock.nowSeconds() >= w.reset) w = fresh(ctx, ANONYMOUS_LIMIT);
  if (w.remaining > 0) {
    w.remaining -= 1;
    w.used += 1;
  }
  ctx.store.setMeta(ANONYMOUS_META, JSON.stringify(w));
  return w;
}

export function rateHeaders(w: RateWindow): Record<string, string> {
  return {
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(Math.max(0, w.remaining)),
    'x-ratelimit-reset': String(w.reset),
    'x-ratelimit-used': String(w.used),
    'x-ratelimit-resource': w.resource,
  };
}

/** `GET /rate_limit` (does not count against the limit, as on GitHub). */
export function rateLimitOverview(ctx: TwinContext): Json {
  const core = currentWindow(ctx);
  const reset = core.reset;
  const other = (limit: number, resource: string) => ({ limit, used: 0, remaining: limit, reset, resource });
  return {
    resources: {
      core,
      search: other(30, 'search'),
      graphql: other(5000, 'graphql'),
      integration_manifest: other(5000, 'integration_manifest'),
      code_search: other(10, 'code_search'),
    },
    rate: core,
  };
}

/** Advancing the clock past the reset time starts a new window. */
export function rollOver(ctx: TwinContext, to: Date): void {
  const saved = ctx.store.get<RateWindow>('rate_limit', KEY);
  if (saved && Math.floor(to.getTime() / 1000) >= saved.reset) {
    ctx.store.put('rate_limit', KEY, { ...saved, remaining: saved.limit, used: 0, reset: Math.floor(to.getTime() / 1000) + 3600 });
  }
}
