// Twin-only helpers (not OpenAI's API): script answers without the control plane's records API,
// upload a file from JSON (the seed expander has no multipart), set the rate limits.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { scriptedResponseRoutes } from '../../../twin-runtime/llm/scripted.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { createFile, isPurpose } from '../model/files.js';
import { invalidRequest } from '../wire/errors.js';
import { limits, setLimits } from '../wire/rate-limit.js';
import { jsonBody, optInt, reqString } from '../wire/params.js';

export const twinRoutes: TwinRoute[] = [
  ...scriptedResponseRoutes(jsonBody, (message) => invalidRequest(message, null, null), 'object'),
  {
    method: 'POST',
    path: '/v1/twin/files',
    unmetered: true,
    handler(req, ctx) {
      const body = jsonBody(req);
      const purpose = reqString(body, 'purpose');
      if (!isPurpose(purpose)) throw invalidRequest(`'${purpose}' is not a file purpose.`, 'purpose', 'invalid_value');
      const content = ownValue(body, 'content');
      return {
        status: 200,
        body: createFile(ctx, { filename: reqString(body, 'filename'), purpose, content: Buffer.from(typeof content === 'string' ? content : '') }),
      };
    },
  },
  {
    method: 'POST',
    path: '/v1/twin/rate_limits',
    unmetered: true,
    handler(req, ctx) {
      const body = jsonBody(req);
      const current = limits(ctx);
      const next = {
        requests: optInt(body, 'requests_per_minute', 1, 1e9) ?? current.requests,
        tokens: optInt(body, 'tokens_per_minute', 1, 1e12) ?? current.tokens,
      };
      setLimits(ctx, next);
      return { status: 200, body: { requests_per_minute: next.requests, tokens_per_minute: next.tokens } };
    },
  },
];
