// Anthropic's error body: `{type: 'error', error: {type, message}, request_id}` with the HTTP
// status the type belongs to (400 invalid_request_error … 529 overloaded_error), which
// @anthropic-ai/sdk turns into BadRequestError, AuthenticationError, RateLimitError…

import type { TwinResponse } from '../../../twin-runtime/contract.js';
import { scriptedFailure } from '../../../twin-runtime/llm/scripted.js';

export const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const DEFAULT_MESSAGES: Record<string, string> = {
  rate_limit_error:
    'Number of request tokens has exceeded your per-minute rate limit (https://docs.anthropic.com/en/api/rate-limits); see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.',
  overloaded_error: 'Overloaded',
  api_error: 'Internal server error',
  authentication_error: 'invalid x-api-key',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'Not found',
  invalid_request_error: 'Invalid request',
};

export class AnthropicError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = ERROR_TYPES[status] ?? 'api_error',
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function invalid(message: string): AnthropicError {
  return new AnthropicError(400, message, 'invalid_request_error');
}

/** A scripted `{status, type?, message?}` as Anthropic would send it (429 with `retry-after`). */
export function scriptedAnthropicError(e: { status: number; type?: string; message?: string }): AnthropicError {
  const type = e.type ?? ERROR_TYPES[e.status] ?? 'api_error';
  return scriptedFailure(new AnthropicError(e.status, e.message ?? DEFAULT_MESSAGES[type] ?? 'Error', type, e.status === 429 ? { 'retry-after': '1' } : {}));
}

export function anthropicErrorResponse(e: AnthropicError, requestId?: string): TwinResponse {
  return {
    status: e.status,
    headers: { 'content-type': 'application/json', ...e.headers },
    body: { type: 'error', error: { type: e.type, message: e.message }, ...(requestId ? { request_id: requestId } : {}) },
  };
}

export function renderAnthropicError(error: unknown): TwinResponse | undefined {
  return error instanceof AnthropicError ? anthropicErrorResponse(error) : undefined;
}
