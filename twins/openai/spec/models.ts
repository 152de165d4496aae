// OpenAI's model catalog, from gpt-tokenizer's published model metadata (a dependency, not a copy):
// which endpoints a model serves, its context window and output limit, and the tokenizer encoding
// it counts with. Embedding dimensions are OpenAI's documented ones.

import * as catalog from 'gpt-tokenizer/models';
import { modelToEncodingMap } from 'gpt-tokenizer/mapping';
import type { EncodingName } from '../../../twin-runtime/llm/tokens.js';

export interface ModelSpec {
  id: string;
  /** The dated snapshot an alias answers with (`gpt-4o-mini` → `gpt-4o-mini-2024-07-18`), as the API reports in `model`. */
  snapshot: string;
  endpoints: readonly string[];
  contextWindow: number;
  maxOutputTokens: number;
  encoding: EncodingName;
  /** Unix seconds, for the model object's `created`. */
  created: number;
  /** Embedding models: the vector's length, and whether `dimensions` may shorten it. */
  embedding?: { dimensions: number; shortenable: boolean };
}

const EMBEDDINGS: Record<string, { dimensions: number; shortenable: boolean }> = {
  'text-embedding-3-small': { dimensions: 1536, shortenable: true },
  'text-embedding-3-large': { dimensions: 3072, shortenable: true },
  'text-embedding-ada-002': { dimensions: 1536, shortenable: false },
};

interface CatalogEntry {
  name?: string;
  supported_endpoints?: readonly string[];
  context_window?: number;
  max_output_tokens?: number;
  knowledge_cutoff?: Date;
}

const entries = catalog as unknown as Record<string, CatalogEntry>;
const encodings = modelToEncodingMap as Record<string, string>;

function spec(id: string, e: CatalogEntry): ModelSpec {
  const embedding = EMBEDDINGS[id];
  const snapshot = /(\d{4})-(\d{2})-(\d{2})$/.exec(id);
  const created = snapshot
    ? Date.UTC(Number(snapshot[1]), Number(snapshot[2]) - 1, Number(snapshot[3])) / 1000
    : Math.floor((e.knowledge_cutoff?.getTime() ?? Date.UTC(2024, 0, 25)) / 1000);
  return {
    id,
    snapshot: e.name && e.name !== id && e.name.startsWith(id) ? e.name : id,
    endpoints: e.supported_endpoints ?? [],
    contextWindow: e.context_window ?? (embedding ? 8192 : 128_000),
    maxOutputTokens: e.max_output_tokens ?? 16_384,
    encoding: encodings[id] === 'cl100k_base' || embedding ? 'cl100k_base' : 'o200k_base',
    created,
    ...(embedding ? { embedding } : {}),
  };
}

/** The endpoints the twin answers for: a model serving one of them is listed. */
const SERVED_ENDPOINTS = ['chat_completions', 'responses', 'embeddings', 'image_generation', 'image_edit', 'speech_generation', 'transcription', 'translation'];

/** Every model the API lists (those serving an endpoint the twin answers), by id. */
export const MODELS: ReadonlyMap<string, ModelSpec> = new Map(
  Object.keys(entries)
    .filter((id) => (entries[id]!.supported_endpoints ?? []).some((ep) => SERVED_ENDPOINTS.includes(ep)))
    .sort()
    .map((id) => [id, spec(id, entries[id]!)]),
);
