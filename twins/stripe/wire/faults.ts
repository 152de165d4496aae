// Stripe's answers to an injected fault (twin-runtime/faults.ts): its 429 rate-limit error and its
// 500 api_error. Stripe marks both retryable with Stripe-Should-Retry, which its SDKs honour
// (stripe-node retries a 429 only when told to).

import type { TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { stripeError } from './errors.js';

export function stripeFaultAnswer(type: 'rate_limit' | 'server_error', _req: TwinRequest, _ctx: unknown, retryAfterSeconds: number): TwinResponse {
  if (type === 'rate_limit') {
    return {
      ...stripeError(429, {
        type: 'invalid_request_error',
        code: 'rate_limit',
        message: 'Request rate limit exceeded. You can learn more about rate limits here https://stripe.com/docs/rate-limits.',
      }),
      headers: { 'stripe-should-retry': 'true', 'retry-after': String(retryAfterSeconds) },
    };
  }
  return {
    ...stripeError(500, { type: 'api_error', message: 'An unknown error occurred. Please try again later.' }),
    headers: { 'stripe-should-retry': 'true' },
  };
}
