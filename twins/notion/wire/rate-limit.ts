// Notion's rate limit (an average of three requests a second per integration) is off by default:
// on an environment clock that only moves when told, any per-second limit would stall a test. A
// test that wants the 429 sets a window (POST /v1/twin/rate_limit {requests, per_seconds}); once
// the window's requests are spent, the answer is 429 `rate_limited` with `Retry-After` in seconds
// until the window ends on the environment clock.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, NotionError } from './errors.js';
import { field } from './params.js';

const LIMIT_KEY = 'notion:rate_limit';
const WINDOW_KEY = 'notion:rate_window';

interface Limit {
  requests: number;
  per_seconds: number;
}

export function rateLimit(ctx: TwinContext): Limit | null {
  const saved = ctx.store.getMeta(LIMIT_KEY);
  return saved ? (JSON.parse(saved) as Limit | null) : null;
}

export function setRateLimit(ctx: TwinContext, body: Record<string, unknown>): Limit | null {
  const requests = field(body, 'requests');
  if (requests === null) {
    ctx.store.setMeta(LIMIT_KEY, 'null');
    return null;
  }
  const per = field(body, 'per_seconds') ?? 1;
  if (typeof requests !== 'number' || !Number.isInteger(requests) || requests < 1 || requests > 1e9)
    throw bodyInvalid('requests', 'should be a whole number from 1 (or null to lift the limit)', requests);
  if (typeof per !== 'number' || !Number.isInteger(per) || per < 1 || per > 86_400)
    throw bodyInvalid('per_seconds', 'should be a whole number of seconds from 1 to 86400', per);
  const limit = { requests, per_seconds: per };
  ctx.store.setMeta(LIMIT_KEY, JSON.stringify(limit));
  ctx.store.setMeta(WINDOW_KEY, '');
  return limit;
}

/** Count one request against the window; a spent window throws Notion's 429 (with its wait). */
export function admit(ctx: TwinContext): void {
  const limit = rateLimit(ctx);
  if (!limit) return;
  const span = limit.per_seconds * 1000;
  const start = Math.floor(ctx.clock.nowMs() / span) * span;
  const saved = ctx.store.getMeta(WINDOW_KEY);
  const w = saved ? (JSON.parse(saved) as { start: number; count: number }) : undefined;
  const current = w && w.start === start ? w : { start, count: 0 };
  if (current.count >= limit.requests) {
    throw new RateLimited(Math.max(1, Math.ceil((start + span - ctx.clock.nowMs()) / 1000)));
  }
  current.count++;
  ctx.store.setMeta(WINDOW_KEY, JSON.stringify(current));
}

export class RateLimited extends NotionError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'rate_limited', 'You have been rate limited. Please try again in a few minutes.');
  }
}
