// Reading OpenAI request bodies: JSON only, with OpenAI's sentences for a missing, mistyped or
// out-of-range parameter (`Invalid type for 'n': expected an integer, but got a string instead.`).

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import sdkTypes from '../spec/sdk-types.json' with { type: 'json' };
import { invalidRequest, missingParameter, UNPARSABLE_JSON } from './errors.js';

export type Body = Record<string, unknown>;

/** The JSON-body operations whose parameters the `openai` SDK's request types declare (spec/sdk-types.json). */
export type BodyOperation = keyof typeof sdkTypes.bodyParams;

const KNOWN = new Map<string, ReadonlySet<string>>(Object.entries(sdkTypes.bodyParams).map(([op, names]) => [op, new Set(names)]));

/** The JSON body of an operation, a parameter it does not take refused as OpenAI refuses it (`Unknown parameter: 'x'.`). */
export function operationBody(req: TwinRequest, operation: BodyOperation): Body {
  const body = jsonBody(req);
  const known = KNOWN.get(operation)!;
  const extra = Object.keys(body).find((k) => !known.has(k));
  if (extra !== undefined) throw invalidRequest(`Unknown parameter: '${extra}'.`, extra, 'unknown_parameter');
  return body;
}

/** The JSON object body; anything else is OpenAI's "could not parse the JSON body" 400. */
export function jsonBody(req: TwinRequest): Body {
  if (req.rawBody.length === 0) return {};
  if (req.bodyKind !== 'json' || Array.isArray(req.body)) throw invalidRequest(UNPARSABLE_JSON);
  return req.body;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a decimal';
  if (typeof v === 'boolean') return 'a boolean';
  return 'a string';
}

function wrongType(param: string, expected: string, v: unknown) {
  return invalidRequest(`Invalid type for '${param}': expected ${expected}, but got ${typeName(v)} instead.`, param, 'invalid_type');
}

export function get(body: Body, key: string): unknown {
  const v = ownValue(body, key);
  return v === null ? undefined : v;
}

export function optString(body: Body, key: string, param = key): string | undefined {
  const v = get(body, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw wrongType(param, 'a string', v);
  return v;
}

export function reqString(body: Body, key: string): string {
  const v = optString(body, key);
  if (v === undefined) throw missingParameter(key);
  return v;
}

export function optBool(body: Body, key: string): boolean | undefined {
  const v = get(body, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw wrongType(key, 'a boolean', v);
  return v;
}

export function optInt(body: Body, key: string, min: number, max: number): number | undefined {
  const v = get(body, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw wrongType(key, 'an integer', v);
  if (v < min)
    throw invalidRequest(`Invalid '${key}': integer below minimum value. Expected a value >= ${min}, but got ${v} instead.`, key, 'integer_below_min_value');
  if (v > max)
    throw invalidRequest(`Invalid '${key}': integer above maximum value. Expected a value <= ${max}, but got ${v} instead.`, key, 'integer_above_max_value');
  return v;
}

export function optNumber(body: Body, key: string, min: number, max: number): number | undefined {
  const v = get(body, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw wrongType(key, 'a decimal', v);
  if (v < min)
    throw invalidRequest(`Invalid '${key}': decimal below minimum value. Expected a value >= ${min}, but got ${v} instead.`, key, 'decimal_below_min_value');
  if (v > max)
    throw invalidRequest(`Invalid '${key}': decimal above maximum value. Expected a value <= ${max}, but got ${v} instead.`, key, 'decimal_above_max_value');
  return v;
}

export function optArray(body: Body, key: string, param = key): unknown[] | undefined {
  const v = get(body, key);
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw wrongType(param, 'an array', v);
  return v;
}

export function optObject(body: Body, key: string, param = key): Body | undefined {
  const v = get(body, key);
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw wrongType(param, 'an object', v);
  return v as Body;
}

/** `metadata`: at most 16 string pairs, keys ≤ 64 and values ≤ 512 characters. */
export function optMetadata(body: Body): Record<string, string> | undefined {
  const m = optObject(body, 'metadata');
  if (m === undefined) return undefined;
  const out: Record<string, string> = {};
  const keys = Object.keys(m);
  if (keys.length > 16)
    throw invalidRequest(
      `Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with ${keys.length} properties instead.`,
      'metadata',
      'object_above_max_properties',
    );
  for (const k of keys) {
    const v = m[k];
    if (typeof v !== 'string') throw wrongType(`metadata.${k}`, 'a string', v);
    if (k.length > 64 || v.length > 512) throw invalidRequest(`Invalid 'metadata.${k}': string too long.`, `metadata.${k}`, 'string_above_max_length');
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Cursor list query: `limit` (1–max), `after`, `order` (asc|desc). */
export function listQuery(req: TwinRequest, max: number, defaultLimit: number, defaultOrder: 'asc' | 'desc') {
  const q = req.query;
  const rawLimit = ownValue(q, 'limit');
  let limit = defaultLimit;
  if (rawLimit !== undefined) {
    limit = Number(rawLimit);
    if (typeof rawLimit !== 'string' || !/^\d+$/.test(rawLimit)) throw invalidRequest(`Invalid 'limit': expected an integer.`, 'limit', 'invalid_type');
    if (limit < 1 || limit > max)
      throw invalidRequest(`Invalid 'limit': expected a value between 1 and ${max}, but got ${limit} instead.`, 'limit', 'invalid_value');
  }
  const order = ownValue(q, 'order') ?? defaultOrder;
  if (order !== 'asc' && order !== 'desc')
    throw invalidRequest(`Invalid value: '${String(order)}'. Supported values are: 'asc' and 'desc'.`, 'order', 'invalid_value');
  const after = ownValue(q, 'after');
  return { limit, order: order as 'asc' | 'desc', after: typeof after === 'string' && after !== '' ? after : undefined };
}
