// Embeddings: a deterministic unit vector of the model's dimension per input. Words are hashed into
// the vector (feature hashing), so texts that share words point in similar directions and a
// retrieval test ranks sensibly; a small request-derived component keeps every vector distinct.
// `dimensions` shortens a text-embedding-3 vector and renormalises it, as OpenAI does.

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { DeterministicSource } from '../../../twin-runtime/llm/determinism.js';
import { encoder } from '../../../twin-runtime/llm/tokens.js';
import { invalidRequest } from '../wire/errors.js';
import { spendTokens } from '../wire/rate-limit.js';
import { embeddingModel } from './models.js';

const MAX_INPUTS = 2048;
const MAX_INPUT_TOKENS = 8192;

export interface EmbeddingInput {
  model: string;
  /** Texts, or token arrays (their ids are embedded as written). */
  input: (string | number[])[];
  dimensions?: number;
  encoding: 'float' | 'base64';
}

export function embeddingVector(model: string, text: string, dims: number, fullDims: number): Float32Array {
  const v = new Float64Array(fullDims);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = createHash('sha256').update(word).digest();
    for (let i = 0; i < 8; i++) {
      const x = h.readUInt32BE(i * 4);
      v[x % fullDims] += x & 0x8000_0000 ? -1 : 1;
    }
  }
  const rng = new DeterministicSource(createHash('sha256').update(`${model}\0${text}`).digest());
  for (let i = 0; i < fullDims; i++) v[i] += (rng.unit() - 0.5) * 0.2;
  const out = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dims; i++) out[i] = v[i]! / norm;
  return out;
}

export async function createEmbeddings(ctx: TwinContext, req: EmbeddingInput) {
  const m = embeddingModel(req.model);
  if (req.input.length === 0 || req.input.length > MAX_INPUTS) {
    throw invalidRequest(`'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.`, 'input', null);
  }
  let dims = m.embedding.dimensions;
  if (req.dimensions !== undefined) {
    if (!m.embedding.shortenable) throw invalidRequest('This model does not support specifying dimensions.', 'dimensions', null);
    if (req.dimensions < 1 || req.dimensions > m.embedding.dimensions) {
      throw invalidRequest(
        `Invalid value for 'dimensions' = ${req.dimensions}. Must be between 1 and ${m.embedding.dimensions}.`,
        'dimensions',
        'invalid_value',
      );
    }
    dims = req.dimensions;
  }
  const enc = await encoder(m.encoding);
  let promptTokens = 0;
  const data = req.input.map((item, index) => {
    const text = typeof item === 'string' ? item : item.join(' ');
    if (typeof item === 'string' && item === '') {
      throw invalidRequest(`'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.`, 'input', null);
    }
    const tokens = typeof item === 'string' ? enc.countTokens(item) : item.length;
    if (tokens > MAX_INPUT_TOKENS) {
      throw invalidRequest(
        `This model's maximum context length is ${MAX_INPUT_TOKENS} tokens, however you requested ${tokens} tokens (${tokens} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`,
        null,
        null,
      );
    }
    promptTokens += tokens;
    const vector = embeddingVector(m.id, text, dims, m.embedding.dimensions);
    const embedding = req.encoding === 'base64' ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : Array.from(vector);
    return { object: 'embedding' as const, index, embedding };
  });
  spendTokens(ctx, promptTokens);
  return { object: 'list' as const, data, model: m.id, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
}
