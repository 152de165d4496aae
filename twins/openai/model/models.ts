// Models: the list and one model as OpenAI shows them, and the lookups the other endpoints use
// (a model that does not exist is a 404 `model_not_found`; one that serves another endpoint says so).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { MODELS, type ModelSpec } from '../spec/models.js';
import { modelNotFound, OpenAIError } from '../wire/errors.js';
import { deleteFineTunedModel, fineTunedModel, fineTunedModels } from './fine-tuning.js';

export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export function modelObject(m: ModelSpec): ModelObject {
  return { id: m.id, object: 'model', created: m.created, owned_by: m.id.startsWith('gpt-oss') ? 'openai' : 'system' };
}

export function listModels(ctx: TwinContext): { object: 'list'; data: ModelObject[] } {
  const tuned = fineTunedModels(ctx).map((m): ModelObject => ({ id: m.id, object: 'model', created: m.created, owned_by: 'org-twin' }));
  return { object: 'list', data: [...[...MODELS.values()].map(modelObject), ...tuned] };
}

export function retrieveModel(ctx: TwinContext, id: string): ModelObject {
  const tuned = fineTunedModel(ctx, id);
  if (tuned) return { id, object: 'model', created: tuned.created, owned_by: tuned.owned_by };
  const m = MODELS.get(id);
  if (!m) throw modelNotFound(id);
  return modelObject(m);
}

/** Only a fine-tuned model of the organization can be deleted. */
export function deleteModel(ctx: TwinContext, id: string) {
  if (deleteFineTunedModel(ctx, id)) return { id, object: 'model' as const, deleted: true as const };
  if (MODELS.has(id))
    throw new OpenAIError(
      403,
      `You have insufficient permissions to delete the model ${id}: only fine-tuned models owned by your organization can be deleted.`,
      'invalid_request_error',
      'model',
      null,
    );
  throw modelNotFound(id);
}

/** The model a generation endpoint was asked for. */
export function generationModel(id: string, endpoint: 'chat_completions' | 'responses', ctx: TwinContext): ModelSpec {
  const m = MODELS.get(id) ?? fineTunedModel(ctx, id);
  if (!m) throw modelNotFound(id);
  if (!m.endpoints.includes(endpoint)) {
    if (endpoint === 'chat_completions') {
      throw new OpenAIError(
        404,
        'This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?',
        'invalid_request_error',
        'model',
        null,
      );
    }
    throw new OpenAIError(400, `The requested model '${id}' is not supported with the Responses API.`, 'invalid_request_error', 'model', 'model_not_supported');
  }
  return m;
}

export function embeddingModel(id: string): ModelSpec & { embedding: NonNullable<ModelSpec['embedding']> } {
  const m = MODELS.get(id);
  if (!m) throw modelNotFound(id);
  if (!m.embedding) throw new OpenAIError(400, `The model \`${id}\` does not support embeddings.`, 'invalid_request_error', 'model', null);
  return m as ModelSpec & { embedding: NonNullable<ModelSpec['embedding']> };
}
