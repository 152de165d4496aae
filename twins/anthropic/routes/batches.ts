// Message Batches: create, list, retrieve, cancel, delete, results (the lifecycle runs on advance).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { batchResults, cancelBatch, createBatch, deleteBatch, listBatches, retrieveBatch } from '../model/batches.js';
import { invalid } from '../wire/errors.js';
import { operationBody, optArray, pageQuery } from '../wire/params.js';

const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

export const batchRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/messages/batches',
    handler(req, ctx) {
      const raw = optArray(operationBody(req, 'POST /v1/messages/batches'), 'requests');
      if (raw === undefined) throw invalid('requests: Field required');
      const requests = raw.map((r, i) => {
        const customId = ownValue(r, 'custom_id');
        const params = ownValue(r, 'params');
        if (typeof customId !== 'string' || !CUSTOM_ID.test(customId))
          throw invalid(`requests.${i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
        if (!params || typeof params !== 'object' || Array.isArray(params)) throw invalid(`requests.${i}.params: Field required`);
        return { custom_id: customId, params };
      });
      return { status: 200, body: createBatch(ctx, requests) };
    },
  },
  {
    method: 'GET',
    path: '/v1/messages/batches',
    handler(req, ctx) {
      const page = pageQuery(req);
      const all = listBatches(ctx);
      let start = 0;
      if (page.afterId) start = all.findIndex((b) => b.id === page.afterId) + 1;
      let end = all.length;
      if (page.beforeId)
        end = Math.max(
          0,
          all.findIndex((b) => b.id === page.beforeId),
        );
      if (page.beforeId) start = Math.max(start, end - page.limit);
      const data = all.slice(start, Math.min(end, start + page.limit));
      return {
        status: 200,
        body: {
          data,
          has_more: page.beforeId ? start > 0 : start + page.limit < end,
          first_id: data[0]?.id ?? null,
          last_id: data[data.length - 1]?.id ?? null,
        },
      };
    },
  },
  { method: 'GET', path: '/v1/messages/batches/{batch_id}', handler: (req, ctx) => ({ status: 200, body: retrieveBatch(ctx, req.params.batch_id!) }) },
  { method: 'POST', path: '/v1/messages/batches/{batch_id}/cancel', handler: (req, ctx) => ({ status: 200, body: cancelBatch(ctx, req.params.batch_id!) }) },
  { method: 'DELETE', path: '/v1/messages/batches/{batch_id}', handler: (req, ctx) => ({ status: 200, body: deleteBatch(ctx, req.params.batch_id!) }) },
  {
    method: 'GET',
    path: '/v1/messages/batches/{batch_id}/results',
    handler: (req, ctx) => ({ status: 200, headers: { 'content-type': 'application/binary' }, body: batchResults(ctx, req.params.batch_id!) }),
  },
];
