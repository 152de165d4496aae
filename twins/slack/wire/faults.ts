// Slack's answers to an injected fault (twin-runtime/faults.ts): 429 `ratelimited` with
// Retry-After (as the rate_limit setting answers, wire/method.ts), and a 500 `internal_error`.

import type { TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';

export function slackFaultAnswer(type: 'rate_limit' | 'server_error', _req: TwinRequest, _ctx: unknown, retryAfterSeconds: number): TwinResponse {
  if (type === 'rate_limit') return { status: 429, headers: { 'retry-after': String(retryAfterSeconds) }, body: { ok: false, error: 'ratelimited' } };
  return { status: 500, body: { ok: false, error: 'internal_error' } };
}
