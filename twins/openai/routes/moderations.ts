// POST /v1/moderations.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { createModeration } from '../model/moderations.js';
import { invalidRequest } from '../wire/errors.js';
import { get, operationBody, optString } from '../wire/params.js';

function texts(raw: unknown): string[] {
  if (raw === undefined) throw invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  if (typeof raw === 'string') return [raw];
  if (!Array.isArray(raw)) throw invalidRequest("Invalid type for 'input': expected a string or an array.", 'input', 'invalid_type');
  // Multi-modal inputs: the text parts are scored, image parts carry no text.
  return raw.map((x) => (typeof x === 'string' ? x : typeof ownValue(x, 'text') === 'string' ? (ownValue(x, 'text') as string) : ''));
}

export const moderationRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/moderations',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/moderations');
      return { status: 200, body: createModeration(ctx, { model: optString(body, 'model'), texts: texts(get(body, 'input')) }) };
    },
  },
];
