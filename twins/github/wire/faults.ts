// GitHub's answers to an injected fault (twin-runtime/faults.ts): the secondary rate limit (403
// with `retry-after`, the message Octokit's throttling plugin recognises) and its 500.

import type { TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';

export function githubFaultAnswer(type: 'rate_limit' | 'server_error', _req: TwinRequest, _ctx: unknown, retryAfterSeconds: number): TwinResponse {
  if (type === 'rate_limit') {
    return {
      status: 403,
      headers: { 'retry-after': String(retryAfterSeconds), 'x-ratelimit-resource': 'core' },
      body: {
        message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
        status: '403',
      },
    };
  }
  return { status: 500, body: { message: 'Server Error', status: '500' } };
}
