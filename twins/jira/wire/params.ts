// Reading Jira's query parameters: integers (`startAt`, `maxResults`), comma lists (`fields`,
// `expand`), booleans; bad values answer 400 as Jira does. Offset pages carry
// `{startAt, maxResults, total, isLast}`; the enhanced search pages by an opaque `nextPageToken`.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { JiraError } from './errors.js';

export function param(req: TwinRequest, name: string): unknown {
  return ownValue(req.body, name) ?? ownValue(req.query, name);
}

export function intParam(req: TwinRequest, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = param(req, name);
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new JiraError(400, [`The value '${String(v)}' is invalid for the parameter '${name}'.`]);
  return Math.min(n, max);
}

export function listParam(req: TwinRequest, name: string): string[] | undefined {
  const v = param(req, name);
  if (v === undefined) return undefined;
  const items = Array.isArray(v) ? v.map(String) : String(v).split(',');
  return items.map((s) => s.trim()).filter(Boolean);
}

export function boolParam(req: TwinRequest, name: string): boolean {
  const v = param(req, name);
  return v === true || v === 'true';
}

export function offsetPage<T>(
  items: T[],
  startAt: number,
  maxResults: number,
): { values: T[]; startAt: number; maxResults: number; total: number; isLast: boolean } {
  const values = items.slice(startAt, startAt + maxResults);
  return { values, startAt, maxResults, total: items.length, isLast: startAt + values.length >= items.length };
}

export function encodeToken(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

export function decodeToken(token: string): number {
  try {
    const o = (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown }).o;
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw new JiraError(400, ['The nextPageToken is invalid.']);
}
