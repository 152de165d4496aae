// What Anthropic does around every request: the key in `x-api-key` (or an OAuth-style Bearer
// token), the required `anthropic-version` header, `request-id`, and the rate-limit headers
// (`anthropic-ratelimit-*`, resets as RFC 3339 instants on the environment clock).

import type { RouteCall, RunRoute, TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { AnthropicError, anthropicErrorResponse } from './errors.js';

const LIMITS = { requests: 4_000, inputTokens: 2_000_000, outputTokens: 400_000 };

function presentedKey(req: TwinRequest): string | undefined {
  const key = req.headers['x-api-key'];
  if (typeof key === 'string' && key !== '') return key;
  const auth = req.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth.trim()) : null;
  return m?.[1];
}

export function authenticateAnthropic(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const key = presentedKey(req);
  if (!key) return anthropicErrorResponse(new AnthropicError(401, 'x-api-key header is required'));
  if (key !== ctx.apiKey) return anthropicErrorResponse(new AnthropicError(401, 'invalid x-api-key'));
  // The SDK always sends it; the seed expander sends it too. Twin-only helpers do not need it.
  if (req.headers['anthropic-version'] === undefined && !req.path.startsWith('/v1/twin/')) {
    return anthropicErrorResponse(new AnthropicError(400, 'anthropic-version: header is required'));
  }
  return undefined;
}

function rateLimitHeaders(ctx: TwinContext): Record<string, string> {
  const reset = new Date(Math.floor(ctx.clock.nowMs() / 60_000) * 60_000 + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    'anthropic-ratelimit-requests-limit': String(LIMITS.requests),
    'anthropic-ratelimit-requests-remaining': String(LIMITS.requests - 1),
    'anthropic-ratelimit-requests-reset': reset,
    'anthropic-ratelimit-input-tokens-limit': String(LIMITS.inputTokens),
    'anthropic-ratelimit-input-tokens-remaining': String(LIMITS.inputTokens),
    'anthropic-ratelimit-input-tokens-reset': reset,
    'anthropic-ratelimit-output-tokens-limit': String(LIMITS.outputTokens),
    'anthropic-ratelimit-output-tokens-remaining': String(LIMITS.outputTokens),
    'anthropic-ratelimit-output-tokens-reset': reset,
    'anthropic-ratelimit-tokens-limit': String(LIMITS.inputTokens + LIMITS.outputTokens),
    'anthropic-ratelimit-tokens-remaining': String(LIMITS.inputTokens + LIMITS.outputTokens),
    'anthropic-ratelimit-tokens-reset': reset,
  };
}

export async function aroundAnthropic({ ctx }: RouteCall, run: RunRoute): Promise<TwinResponse> {
  const requestId = ctx.ids.nextIn('request', 'req_011C', 20);
  let res: TwinResponse;
  try {
    res = await run();
  } catch (e) {
    if (!(e instanceof AnthropicError)) throw e;
    res = anthropicErrorResponse(e);
  }
  // Error bodies carry the request id too.
  const body = res.body as { type?: unknown } | undefined;
  if (res.status >= 400 && body && typeof body === 'object' && body.type === 'error') res = { ...res, body: { ...body, request_id: requestId } };
  return {
    ...res,
    headers: { ...rateLimitHeaders(ctx), ...(res.headers ?? {}), 'request-id': requestId, 'anthropic-organization-id': '5f0c1e9a-7b3d-4c2e-9a61-0d8f4b2c7e15' },
  };
}
