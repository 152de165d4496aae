// Reading SendGrid request bodies: JSON objects only (the SDK always sends JSON), own properties
// only, with SendGrid's 400 for a body that is not an object.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { SendGridError } from './errors.js';

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parsed JSON body, or SendGrid's 400 when the body is not a JSON object. */
export function jsonBody(req: TwinRequest): Json {
  if (req.rawBody.length === 0) return {};
  // The runtime parses any JSON value; SendGrid reads an object only (`[1]` or `"x"` is a bad request).
  const first = req.rawBody.toString('utf8', 0, 64).trimStart()[0];
  if (req.bodyKind !== 'json' || !isObject(req.body) || first !== '{') {
    throw new SendGridError(400, [{ message: 'Bad Request', field: null, help: null }]);
  }
  return req.body;
}

/** An own property (never one inherited from a prototype). */
export const own = (holder: unknown, key: string): unknown => ownValue(holder, key);

export function optString(holder: unknown, key: string): string | undefined {
  const v = own(holder, key);
  return typeof v === 'string' ? v : undefined;
}

/** A query parameter as one string. */
export function queryParam(req: TwinRequest, name: string): string | undefined {
  const v = own(req.query, name);
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : undefined;
  return typeof v === 'string' ? v : undefined;
}
