// OpenAI's answers to an injected fault (twin-runtime/faults.ts): its 429 `rate_limit_exceeded`
// with the `x-ratelimit-*` headers of every answer and `retry-after`, and its 500 `server_error`.

import type { TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { errorResponse, OpenAIError } from './errors.js';
import { rateLimitHeaders } from './rate-limit.js';

export function openaiFaultAnswer(type: 'rate_limit' | 'server_error', _req: TwinRequest, ctx: TwinContext, retryAfterSeconds: number): TwinResponse {
  if (type === 'rate_limit') {
    return errorResponse(
      new OpenAIError(
        429,
        `Rate limit reached for requests in organization org-twin. Please try again in ${retryAfterSeconds}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
        'requests',
        null,
        'rate_limit_exceeded',
        { ...rateLimitHeaders(ctx), 'retry-after': String(retryAfterSeconds) },
      ),
    );
  }
  return errorResponse(new OpenAIError(500, 'The server had an error while processing your request. Sorry about that!', 'server_error'));
}
