// GET /v1/models and /v1/models/{model_id}.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listModels, retrieveModel } from '../model/models.js';
import { pageQuery } from '../wire/params.js';

export const modelRoutes: TwinRoute[] = [
  { method: 'GET', path: '/v1/models', handler: (req) => ({ status: 200, body: listModels(pageQuery(req)) }) },
  { method: 'GET', path: '/v1/models/{model_id}', handler: (req) => ({ status: 200, body: retrieveModel(req.params.model_id!) }) },
];
