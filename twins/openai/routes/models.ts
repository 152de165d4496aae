// GET /v1/models and /v1/models/{model}.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { deleteModel, listModels, retrieveModel } from '../model/models.js';

export const modelRoutes: TwinRoute[] = [
  { method: 'GET', path: '/v1/models', handler: (_req, ctx) => ({ status: 200, body: listModels(ctx) }) },
  // Fine-tuned model ids contain ':' and ids like `ft:gpt-4o:org::x` may contain '/', so the rest of the path is the id.
  { method: 'GET', path: '/v1/models/{+model}', handler: (req, ctx) => ({ status: 200, body: retrieveModel(ctx, req.params.model!) }) },
  { method: 'DELETE', path: '/v1/models/{+model}', handler: (req, ctx) => ({ status: 200, body: deleteModel(ctx, req.params.model!) }) },
];
