// OpenAI's rate limits on the environment clock: requests and tokens per minute, reported on every
// answer in `x-ratelimit-*` headers and enforced with its 429 when spent. The limits are the
// twin's defaults unless a test sets them (POST /v1/twin/rate_limits).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { OpenAIError } from './errors.js';

const WINDOW_MS = 60_000;
export const DEFAULT_LIMITS = { requests: 10_000, tokens: 30_000_000 };

interface Window {
  start: number;
  requests: number;
  tokens: number;
}

export function limits(ctx: TwinContext): { requests: number; tokens: number } {
  const saved = ctx.store.getMeta('openai:rate_limits');
  return saved ? (JSON.parse(saved) as { requests: number; tokens: number }) : DEFAULT_LIMITS;
}

export function setLimits(ctx: TwinContext, next: { requests: number; tokens: number }): void {
  ctx.store.setMeta('openai:rate_limits', JSON.stringify(next));
}

function window(ctx: TwinContext): Window {
  const start = Math.floor(ctx.clock.nowMs() / WINDOW_MS) * WINDOW_MS;
  const saved = ctx.store.getMeta('openai:rate_window');
  const w = saved ? (JSON.parse(saved) as Window) : undefined;
  return w && w.start === start ? w : { start, requests: 0, tokens: 0 };
}

function save(ctx: TwinContext, w: Window): void {
  ctx.store.setMeta('openai:rate_window', JSON.stringify(w));
}

/** Go-style duration as OpenAI prints it: `20ms`, `1s`, `6m0s`. */
function duration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

export function rateLimitHeaders(ctx: TwinContext): Record<string, string> {
  const l = limits(ctx);
  const w = window(ctx);
  const reset = duration(w.start + WINDOW_MS - ctx.clock.nowMs());
  return {
    'x-ratelimit-limit-requests': String(l.requests),
    'x-ratelimit-limit-tokens': String(l.tokens),
    'x-ratelimit-remaining-requests': String(Math.max(0, l.requests - w.requests)),
    'x-ratelimit-remaining-tokens': String(Math.max(0, l.tokens - w.tokens)),
    'x-ratelimit-reset-requests': w.requests > 0 ? reset : '0s',
    'x-ratelimit-reset-tokens': w.tokens > 0 ? reset : '0s',
  };
}

/** Count one request; a spent window is OpenAI's 429 (thrown with the headers). */
export function admitRequest(ctx: TwinContext, model: string | undefined): void {
  const l = limits(ctx);
  const w = window(ctx);
  if (w.requests >= l.requests || w.tokens >= l.tokens) {
    const which = w.requests >= l.requests ? ['requests', 'RPM', l.requests, w.requests] : ['tokens', 'TPM', l.tokens, w.tokens];
    const wait = duration(w.start + WINDOW_MS - ctx.clock.nowMs());
    throw new OpenAIError(
      429,
      `Rate limit reached for ${model ?? 'default'} in organization org-twin on ${which[0]} per min (${which[1]}): Limit ${which[2]}, Used ${which[3]}, Requested 1. ` +
        `Please try again in ${wait}. Visit https://platform.openai.com/account/rate-limits to learn more.`,
      which[0] as string,
      null,
      'rate_limit_exceeded',
      { ...rateLimitHeaders(ctx), 'retry-after': String(Math.ceil((w.start + WINDOW_MS - ctx.clock.nowMs()) / 1000)) },
    );
  }
  w.requests += 1;
  save(ctx, w);
}

/** Count the tokens a request used against the minute's token limit. */
export function spendTokens(ctx: TwinContext, tokens: number): void {
  const w = window(ctx);
  w.tokens += tokens;
  save(ctx, w);
}
