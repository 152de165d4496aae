// OpenAI's error body: `{error: {message, type, param, code}}` with the HTTP status, as the API
// sends it and the `openai` SDK turns into BadRequestError, AuthenticationError, NotFoundError…

import type { TwinResponse } from '../../../twin-runtime/contract.js';
import { scriptedFailure } from '../../../twin-runtime/llm/scripted.js';

export class OpenAIError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = 'invalid_request_error',
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function errorResponse(e: OpenAIError): TwinResponse {
  return {
    status: e.status,
    headers: { 'content-type': 'application/json', ...e.headers },
    body: { error: { message: e.message, type: e.type, param: e.param, code: e.code } },
  };
}

export function renderOpenAIError(error: unknown): TwinResponse | undefined {
  return error instanceof OpenAIError ? errorResponse(error) : undefined;
}

/** 400 invalid_request_error. */
export function invalidRequest(message: string, param: string | null = null, code: string | null = null): OpenAIError {
  return new OpenAIError(400, message, 'invalid_request_error', param, code);
}

export function missingParameter(param: string): OpenAIError {
  return invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

export function modelNotFound(model: string): OpenAIError {
  return new OpenAIError(404, `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', null, 'model_not_found');
}

export const UNPARSABLE_JSON =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. " +
  'The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, ' +
  'please contact us through our help center at help.openai.com.)';

/** The error a scripted `{status, type?, code?, message?, param?}` stands for, with OpenAI's defaults per status. */
export function scriptedError(e: { status: number; type?: string; code?: string; message?: string; param?: string }, model: string): OpenAIError {
  const defaults: Record<number, [string, string | null, string]> = {
    400: ['invalid_request_error', null, 'Invalid request.'],
    401: ['invalid_request_error', 'invalid_api_key', 'Incorrect API key provided.'],
    403: ['invalid_request_error', 'unsupported_country_region_territory', 'Country, region, or territory not supported'],
    404: ['invalid_request_error', null, 'Not found.'],
    429: [
      'requests',
      'rate_limit_exceeded',
      `Rate limit reached for ${model} in organization org-twin on requests per min (RPM): Limit 500, Used 500, Requested 1. ` +
        'Please try again in 120ms. Visit https://platform.openai.com/account/rate-limits to learn more.',
    ],
    500: ['server_error', null, 'The server had an error while processing your request. Sorry about that!'],
    503: ['service_unavailable', null, 'The engine is currently overloaded, please try again later.'],
  };
  const [type, code, message] = defaults[e.status] ?? ['server_error', null, 'The server had an error while processing your request. Sorry about that!'];
  const headers: Record<string, string> =
    e.status === 429 ? { 'retry-after': '1', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '120ms' } : {};
  return scriptedFailure(new OpenAIError(e.status, e.message ?? message, e.type ?? type, e.param ?? null, e.code ?? code, headers));
}
