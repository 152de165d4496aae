// What OpenAI does around every request: Bearer authentication with its 401 sentences, request
// ids (`x-request-id`), the API version and organization headers, rate limits.

import type { RouteCall, RunRoute, TwinRequest, TwinResponse, TwinContext } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { errorResponse, OpenAIError } from './errors.js';
import { admitRequest, rateLimitHeaders } from './rate-limit.js';

const NO_KEY =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth " +
  "(i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API " +
  'from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.';

function redact(key: string): string {
  return key.length <= 8 ? '*'.repeat(key.length) : `${key.slice(0, 3)}${'*'.repeat(Math.min(key.length - 7, 40))}${key.slice(-4)}`;
}

export function authenticateOpenAI(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const header = req.headers.authorization;
  const m = typeof header === 'string' ? /^Bearer\s+(\S*)\s*$/i.exec(header.trim()) : null;
  if (!m || m[1] === '') return errorResponse(new OpenAIError(401, NO_KEY));
  if (m[1] !== ctx.apiKey) {
    return errorResponse(
      new OpenAIError(
        401,
        `Incorrect API key provided: ${redact(m[1]!)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        null,
        'invalid_api_key',
      ),
    );
  }
  return undefined;
}

export async function aroundOpenAI({ req, ctx, route }: RouteCall, run: RunRoute): Promise<TwinResponse> {
  const started = Date.now();
  const requestId = ctx.ids.nextIn('request', 'req_', 32);
  let res: TwinResponse;
  try {
    if (!route.unmetered) {
      const model = ownValue(req.body, 'model');
      admitRequest(ctx, typeof model === 'string' ? model : undefined);
    }
    res = await run();
  } catch (e) {
    if (!(e instanceof OpenAIError)) throw e;
    res = errorResponse(e);
  }
  return {
    ...res,
    headers: {
      ...rateLimitHeaders(ctx),
      ...(res.headers ?? {}),
      'x-request-id': requestId,
      'openai-version': '2020-10-01',
      'openai-organization': 'org-twin',
      'openai-processing-ms': String(Date.now() - started),
    },
  };
}
