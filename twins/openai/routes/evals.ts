// Evals: POST/GET /v1/evals, GET/POST/DELETE /v1/evals/{id}, runs (create, list, retrieve, cancel,
// delete) and their output items.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import {
  cancelRun,
  createEval,
  createRun,
  deleteEval,
  deleteRun,
  listEvals,
  listRuns,
  outputItem,
  outputItems,
  retrieveEval,
  retrieveRun,
  updateEval,
} from '../model/evals.js';
import { readGrader } from '../model/graders.js';
import { invalidRequest, missingParameter } from '../wire/errors.js';
import { cursorPage } from '../wire/pagination.js';
import { get, listQuery, operationBody, optArray, optMetadata, optObject, optString } from '../wire/params.js';

function dataSourceConfig(v: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!v) throw missingParameter('data_source_config');
  const type = ownValue(v, 'type');
  if (type === 'custom') {
    const schema = ownValue(v, 'item_schema');
    if (!schema || typeof schema !== 'object') throw missingParameter('data_source_config.item_schema');
    const withSample = ownValue(v, 'include_sample_schema') === true;
    return {
      type: 'custom',
      schema: {
        type: 'object',
        properties: { item: schema, ...(withSample ? { sample: { type: 'object', properties: { output_text: { type: 'string' } } } } : {}) },
        required: ['item', ...(withSample ? ['sample'] : [])],
      },
    };
  }
  if (type === 'logs' || type === 'stored_completions')
    throw new NotSimulated(`POST /v1/evals with a ${type} data source`, 'The twin runs evals over custom items.');
  throw invalidRequest(
    `Invalid value: '${String(type)}'. Supported values are: 'custom', 'logs', and 'stored_completions'.`,
    'data_source_config.type',
    'invalid_value',
  );
}

const runPath = '/v1/evals/{eval_id}/runs/{run_id}';

export const evalRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/evals',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/evals');
      const criteria = optArray(body, 'testing_criteria');
      if (!criteria || criteria.length === 0) throw missingParameter('testing_criteria');
      if (criteria.length > 50) throw invalidRequest("Invalid 'testing_criteria': at most 50 graders.", 'testing_criteria', 'array_above_max_length');
      return {
        status: 200,
        body: createEval(ctx, {
          name: optString(body, 'name'),
          dataSourceConfig: dataSourceConfig(optObject(body, 'data_source_config')),
          criteria: criteria.map((c, i) => readGrader(c, `testing_criteria[${i}]`, 'POST /v1/evals')),
          metadata: optMetadata(body),
        }),
      };
    },
  },
  { method: 'GET', path: '/v1/evals', handler: (req, ctx) => ({ status: 200, body: cursorPage(listEvals(ctx), listQuery(req, 100, 20, 'asc')) }) },
  { method: 'GET', path: '/v1/evals/{eval_id}', handler: (req, ctx) => ({ status: 200, body: retrieveEval(ctx, req.params.eval_id!) }) },
  {
    method: 'POST',
    path: '/v1/evals/{eval_id}',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/evals/{eval_id}');
      return { status: 200, body: updateEval(ctx, req.params.eval_id!, { name: optString(body, 'name'), metadata: optMetadata(body) }) };
    },
  },
  { method: 'DELETE', path: '/v1/evals/{eval_id}', handler: (req, ctx) => ({ status: 200, body: deleteEval(ctx, req.params.eval_id!) }) },
  {
    method: 'POST',
    path: '/v1/evals/{eval_id}/runs',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/evals/{eval_id}/runs');
      const dataSource = get(body, 'data_source');
      if (dataSource === undefined) throw missingParameter('data_source');
      return { status: 200, body: createRun(ctx, req.params.eval_id!, { name: optString(body, 'name'), dataSource, metadata: optMetadata(body) }) };
    },
  },
  {
    method: 'GET',
    path: '/v1/evals/{eval_id}/runs',
    handler: (req, ctx) => ({ status: 200, body: cursorPage(listRuns(ctx, req.params.eval_id!), listQuery(req, 100, 20, 'asc')) }),
  },
  { method: 'GET', path: runPath, handler: (req, ctx) => ({ status: 200, body: retrieveRun(ctx, req.params.eval_id!, req.params.run_id!) }) },
  { method: 'POST', path: runPath, handler: (req, ctx) => ({ status: 200, body: cancelRun(ctx, req.params.eval_id!, req.params.run_id!) }) },
  { method: 'DELETE', path: runPath, handler: (req, ctx) => ({ status: 200, body: deleteRun(ctx, req.params.eval_id!, req.params.run_id!) }) },
  {
    method: 'GET',
    path: `${runPath}/output_items`,
    handler(req, ctx) {
      const status = ownValue(req.query, 'status');
      const items = outputItems(ctx, req.params.eval_id!, req.params.run_id!, typeof status === 'string' ? status : undefined);
      return { status: 200, body: cursorPage(items, listQuery(req, 100, 20, 'asc')) };
    },
  },
  {
    method: 'GET',
    path: `${runPath}/output_items/{output_item_id}`,
    handler: (req, ctx) => ({ status: 200, body: outputItem(ctx, req.params.eval_id!, req.params.run_id!, req.params.output_item_id!) }),
  },
];
