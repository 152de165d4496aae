// Reading Anthropic request bodies: JSON only, with its validation sentences
// (`max_tokens: Field required`, `messages.0.role: Input should be 'user' or 'assistant'`).

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import sdkTypes from '../spec/sdk-types.json' with { type: 'json' };
import { invalid } from './errors.js';

export type Body = Record<string, unknown>;

/** The JSON-body operations whose parameters `@anthropic-ai/sdk`'s request types declare (spec/sdk-types.json). */
export type BodyOperation = keyof typeof sdkTypes.bodyParams;

/**
 * Sampling parameters the API reference documents and the API still accepts (refused only on
 * Claude Opus 4.7 and later when not left at their defaults) that the SDK's types no longer declare.
 */
const DOCUMENTED_BEYOND_SDK: Partial<Record<BodyOperation, readonly string[]>> = { 'POST /v1/messages': ['temperature', 'top_k', 'top_p'] };

const KNOWN = new Map<string, ReadonlySet<string>>(
  Object.entries(sdkTypes.bodyParams).map(([op, names]) => [op, new Set([...names, ...(DOCUMENTED_BEYOND_SDK[op as BodyOperation] ?? [])])]),
);

/** The JSON body of an operation, a parameter it does not take refused as Anthropic refuses it (`x: Extra inputs are not permitted`). */
export function operationBody(req: TwinRequest, operation: BodyOperation): Body {
  const body = jsonBody(req);
  const known = KNOWN.get(operation)!;
  const extra = Object.keys(body).find((k) => !known.has(k));
  if (extra !== undefined) throw invalid(`${extra}: Extra inputs are not permitted`);
  return body;
}

export function jsonBody(req: TwinRequest): Body {
  if (req.rawBody.length === 0) throw invalid('Request body is empty; expected a JSON object.');
  if (req.bodyKind !== 'json' || Array.isArray(req.body))
    throw invalid('There was an error parsing the body of your request. Please check that it is valid JSON.');
  return req.body;
}

export function get(body: unknown, key: string): unknown {
  const v = ownValue(body, key);
  return v === null ? undefined : v;
}

export function reqString(body: Body, key: string): string {
  const v = get(body, key);
  if (v === undefined) throw invalid(`${key}: Field required`);
  if (typeof v !== 'string') throw invalid(`${key}: Input should be a valid string`);
  return v;
}

export function reqInt(body: Body, key: string, min: number): number {
  const v = get(body, key);
  if (v === undefined) throw invalid(`${key}: Field required`);
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(`${key}: Input should be a valid integer`);
  if (v < min) throw invalid(`${key}: Input should be greater than or equal to ${min}`);
  return v;
}

export function optNumber(body: Body, key: string, min: number, max: number): number | undefined {
  const v = get(body, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`${key}: Input should be a valid number`);
  if (v < min) throw invalid(`${key}: Input should be greater than or equal to ${min}`);
  if (v > max) throw invalid(`${key}: Input should be less than or equal to ${max}`);
  return v;
}

export function optArray(body: Body, key: string): unknown[] | undefined {
  const v = get(body, key);
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw invalid(`${key}: Input should be a valid list`);
  return v;
}

/** Models list paging: `limit` 1–1000 (default 20), `after_id` / `before_id`. */
export function pageQuery(req: TwinRequest): { limit: number; afterId?: string; beforeId?: string } {
  const raw = ownValue(req.query, 'limit');
  let limit = 20;
  if (raw !== undefined) {
    limit = Number(raw);
    if (typeof raw !== 'string' || !/^\d+$/.test(raw) || limit < 1 || limit > 1000)
      throw invalid('limit: Input should be greater than or equal to 1 and less than or equal to 1000');
  }
  const after = ownValue(req.query, 'after_id');
  const before = ownValue(req.query, 'before_id');
  return { limit, ...(typeof after === 'string' ? { afterId: after } : {}), ...(typeof before === 'string' ? { beforeId: before } : {}) };
}
