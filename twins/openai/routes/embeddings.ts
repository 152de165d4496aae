// POST /v1/embeddings.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { createEmbeddings } from '../model/embeddings.js';
import { invalidRequest } from '../wire/errors.js';
import { get, operationBody, optInt, optString, reqString } from '../wire/params.js';

function readInput(raw: unknown): (string | number[])[] {
  const invalid = () => invalidRequest(`'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.`, 'input', null);
  if (raw === undefined) throw invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  if (typeof raw === 'string') return [raw];
  if (!Array.isArray(raw) || raw.length === 0) throw invalid();
  if (raw.every((x) => typeof x === 'number' && Number.isInteger(x))) return [raw as number[]];
  return raw.map((x) => {
    if (typeof x === 'string') return x;
    if (Array.isArray(x) && x.length > 0 && x.every((t) => typeof t === 'number' && Number.isInteger(t))) return x as number[];
    throw invalid();
  });
}

export const embeddingRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/embeddings',
    async handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/embeddings');
      const model = reqString(body, 'model');
      const encoding = optString(body, 'encoding_format') ?? 'float';
      if (encoding !== 'float' && encoding !== 'base64') {
        throw invalidRequest(`Invalid value: '${encoding}'. Supported values are: 'float' and 'base64'.`, 'encoding_format', 'invalid_value');
      }
      return {
        status: 200,
        body: await createEmbeddings(ctx, { model, input: readInput(get(body, 'input')), dimensions: optInt(body, 'dimensions', 1, 1_000_000), encoding }),
      };
    },
  },
];
