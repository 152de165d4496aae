// Batches: create, list, retrieve, cancel (the lifecycle runs on advance, model/batches.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { BATCH_ENDPOINTS, cancelBatch, createBatch, isBatchEndpoint, listBatches, retrieveBatch } from '../model/batches.js';
import { invalidRequest } from '../wire/errors.js';
import { cursorPage } from '../wire/pagination.js';
import { operationBody, listQuery, optMetadata, reqString } from '../wire/params.js';

export const batchRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/batches',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/batches');
      const endpoint = reqString(body, 'endpoint');
      if (!isBatchEndpoint(endpoint)) {
        throw invalidRequest(
          `Invalid value: '${endpoint}'. Supported values are: ${BATCH_ENDPOINTS.map((e) => `'${e}'`).join(', ')}.`,
          'endpoint',
          'invalid_value',
        );
      }
      const window = reqString(body, 'completion_window');
      if (window !== '24h') throw invalidRequest(`Invalid value: '${window}'. Supported values are: '24h'.`, 'completion_window', 'invalid_value');
      return { status: 200, body: createBatch(ctx, { inputFileId: reqString(body, 'input_file_id'), endpoint, metadata: optMetadata(body) }) };
    },
  },
  {
    method: 'GET',
    path: '/v1/batches',
    handler: (req, ctx) => ({ status: 200, body: cursorPage(listBatches(ctx), listQuery(req, 100, 20, 'desc')) }),
  },
  { method: 'GET', path: '/v1/batches/{batch_id}', handler: (req, ctx) => ({ status: 200, body: retrieveBatch(ctx, req.params.batch_id!) }) },
  { method: 'POST', path: '/v1/batches/{batch_id}/cancel', handler: (req, ctx) => ({ status: 200, body: cancelBatch(ctx, req.params.batch_id!) }) },
];
