// Fine-tuning jobs: create, list (filter `metadata[k]`), retrieve, cancel, pause, resume, events,
// checkpoints.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import {
  cancelFineTuningJob,
  createFineTuningJob,
  fineTuningCheckpoints,
  fineTuningEvents,
  listFineTuningJobs,
  pauseFineTuningJob,
  resumeFineTuningJob,
  retrieveFineTuningJob,
  type Hyperparameters,
} from '../model/fine-tuning.js';
import { invalidRequest } from '../wire/errors.js';
import { cursorPage } from '../wire/pagination.js';
import { get, listQuery, operationBody, optInt, optMetadata, optObject, optString, reqString, type Body } from '../wire/params.js';

type Bound = [min: number, max: number, integer: boolean];
const BOUNDS: Record<keyof Hyperparameters, Bound> = { batch_size: [1, 256, true], learning_rate_multiplier: [0.0001, 10, false], n_epochs: [1, 50, true] };

function hyperparameters(h: Body | undefined, param: string): Hyperparameters {
  const out: Hyperparameters = { batch_size: 'auto', learning_rate_multiplier: 'auto', n_epochs: 'auto' };
  if (!h) return out;
  for (const key of Object.keys(h)) {
    if (!(key in BOUNDS)) throw invalidRequest(`Unknown parameter: '${param}.${key}'.`, `${param}.${key}`, 'unknown_parameter');
    const v = h[key];
    if (v === 'auto' || v === undefined || v === null) continue;
    const [min, max, integer] = BOUNDS[key as keyof Hyperparameters];
    if (typeof v !== 'number' || (integer && !Number.isInteger(v)) || v < min || v > max) {
      throw invalidRequest(`Invalid '${param}.${key}': expected 'auto' or a number from ${min} to ${max}.`, `${param}.${key}`, 'invalid_value');
    }
    out[key as keyof Hyperparameters] = v;
  }
  return out;
}

/** `hyperparameters`, or `method` of type supervised with its own; other methods (dpo, reinforcement) are not simulated. */
function readHyperparameters(body: Body): Hyperparameters {
  const method = optObject(body, 'method');
  if (method) {
    const type = ownValue(method, 'type');
    if (type !== 'supervised')
      throw new NotSimulated(`POST /v1/fine_tuning/jobs with method.type=${String(type)}`, 'The twin simulates supervised fine-tuning.');
    const h = ownValue(ownValue(method, 'supervised'), 'hyperparameters');
    return hyperparameters(h && typeof h === 'object' ? (h as Body) : undefined, 'method.supervised.hyperparameters');
  }
  return hyperparameters(optObject(body, 'hyperparameters'), 'hyperparameters');
}

const jobRoute = (path: string, fn: (ctx: Parameters<TwinRoute['handler']>[1], id: string) => unknown): TwinRoute => ({
  method: 'POST',
  path,
  handler: (req, ctx) => ({ status: 200, body: fn(ctx, req.params.fine_tuning_job_id!) }),
});

export const fineTuningRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/fine_tuning/jobs',
    handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/fine_tuning/jobs');
      const integrations = get(body, 'integrations');
      if (Array.isArray(integrations) && integrations.length > 0)
        throw new NotSimulated('POST /v1/fine_tuning/jobs with integrations', 'The twin reports to no Weights & Biases project.');
      const suffix = optString(body, 'suffix');
      if (suffix !== undefined && (suffix.length > 64 || !/^[a-zA-Z0-9_-]+$/.test(suffix))) {
        throw invalidRequest("Invalid 'suffix': at most 64 letters, digits, '-' or '_'.", 'suffix', 'invalid_value');
      }
      return {
        status: 200,
        body: createFineTuningJob(ctx, {
          model: reqString(body, 'model'),
          trainingFile: reqString(body, 'training_file'),
          validationFile: optString(body, 'validation_file'),
          hyperparameters: readHyperparameters(body),
          suffix,
          seed: optInt(body, 'seed', 0, 2_147_483_647),
          metadata: optMetadata(body),
        }),
      };
    },
  },
  {
    method: 'GET',
    path: '/v1/fine_tuning/jobs',
    handler(req, ctx) {
      const metadata = ownValue(req.query, 'metadata');
      const filter: Record<string, string> = {};
      if (metadata && typeof metadata === 'object') for (const [k, v] of Object.entries(metadata)) if (typeof v === 'string') filter[k] = v;
      return { status: 200, body: cursorPage(listFineTuningJobs(ctx, filter), listQuery(req, 100, 20, 'desc')) };
    },
  },
  {
    method: 'GET',
    path: '/v1/fine_tuning/jobs/{fine_tuning_job_id}',
    handler: (req, ctx) => ({ status: 200, body: retrieveFineTuningJob(ctx, req.params.fine_tuning_job_id!) }),
  },
  jobRoute('/v1/fine_tuning/jobs/{fine_tuning_job_id}/cancel', cancelFineTuningJob),
  jobRoute('/v1/fine_tuning/jobs/{fine_tuning_job_id}/pause', pauseFineTuningJob),
  jobRoute('/v1/fine_tuning/jobs/{fine_tuning_job_id}/resume', resumeFineTuningJob),
  {
    method: 'GET',
    path: '/v1/fine_tuning/jobs/{fine_tuning_job_id}/events',
    handler: (req, ctx) => ({ status: 200, body: cursorPage(fineTuningEvents(ctx, req.params.fine_tuning_job_id!), listQuery(req, 100, 20, 'desc')) }),
  },
  {
    method: 'GET',
    path: '/v1/fine_tuning/jobs/{fine_tuning_job_id}/checkpoints',
    handler: (req, ctx) => ({ status: 200, body: cursorPage(fineTuningCheckpoints(ctx, req.params.fine_tuning_job_id!), listQuery(req, 100, 10, 'desc')) }),
  },
];
