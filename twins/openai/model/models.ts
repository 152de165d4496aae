// Models: the list and one model as OpenAI shows them, and the lookups the other endpoints use
// (a model that does not exist is a 404 `model_not_found`; one that serves another endpoint says so).

import { MODELS, type ModelSpec } from '../spec/models.js';
import { modelNotFound, OpenAIError } from '../wire/errors.js';

export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export function modelObject(m: ModelSpec): ModelObject {
  return { id: m.id, object: 'model', created: m.created, owned_by: m.id.startsWith('gpt-oss') ? 'openai' : 'system' };
}

export function listModels(): { object: 'list'; data: ModelObject[] } {
  return { object: 'list', data: [...MODELS.values()].map(modelObject) };
}

export function retrieveModel(id: string): ModelObject {
  const m = MODELS.get(id);
  if (!m) throw modelNotFound(id);
  return modelObject(m);
}

/** The model a generation endpoint was asked for. */
export function generationModel(id: string, endpoint: 'chat_completions' | 'responses'): ModelSpec {
  const m = MODELS.get(id);
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
