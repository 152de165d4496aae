// Reading Notion requests: ids (UUIDs, dashed or not), JSON bodies, `page_size`/`start_cursor`,
// and the list envelope `{object: "list", results, next_cursor, has_more, type, <type>: {}}`.

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { bodyInvalid, validation } from './errors.js';

const DASHED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PLAIN = /^[0-9a-f]{32}$/i;

/** A UUID in Notion's dashed lower-case form, or undefined when `raw` is not one. */
export function canonicalId(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  if (DASHED.test(raw)) return raw.toLowerCase();
  if (PLAIN.test(raw)) {
    const h = raw.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  return undefined;
}

/** A path id, refused as Notion refuses a malformed one. */
export function pathId(req: TwinRequest, name: string): string {
  const raw = req.params[name] ?? '';
  const id = canonicalId(raw);
  if (!id) throw validation(`path failed validation: path.${name} should be a valid uuid, instead was \`${JSON.stringify(raw)}\`.`);
  return id;
}

/** An id inside the body (`parent.page_id`), refused with the body path. */
export function bodyId(value: unknown, path: string): string {
  const id = canonicalId(value);
  if (!id) throw bodyInvalid(path, 'should be a valid uuid', value);
  return id;
}

export function jsonBody(req: TwinRequest): Record<string, unknown> {
  const b = req.body;
  return b && typeof b === 'object' && !Array.isArray(b) ? b : {};
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

export function field(holder: unknown, key: string): unknown {
  return ownValue(holder, key);
}

export interface PageRequest {
  cursor: string | undefined;
  size: number;
}

/** `start_cursor` and `page_size` from the query (GET) or the body (POST); 1…100, default 100. */
export function pageRequest(req: TwinRequest): PageRequest {
  const from = req.method === 'GET' ? req.query : jsonBody(req);
  const where = req.method === 'GET' ? 'query' : 'body';
  const rawSize = field(from, 'page_size');
  let size = 100;
  if (rawSize !== undefined && rawSize !== null) {
    const n = Number(rawSize);
    if (!Number.isInteger(n) || n < 1 || n > 100) {
      throw validation(`${where} failed validation: ${where}.page_size should be a number between 1 and 100, instead was \`${JSON.stringify(rawSize)}\`.`);
    }
    size = n;
  }
  const rawCursor = field(from, 'start_cursor');
  if (rawCursor === undefined || rawCursor === null || rawCursor === '') return { cursor: undefined, size };
  if (typeof rawCursor !== 'string')
    throw validation(`${where} failed validation: ${where}.start_cursor should be a string, instead was \`${JSON.stringify(rawCursor)}\`.`);
  return { cursor: rawCursor, size };
}

export interface ListPage<T> {
  object: 'list';
  results: T[];
  next_cursor: string | null;
  has_more: boolean;
  type: string;
  [k: string]: unknown;
}

/**
 * One page of `items` (in answer order) after the cursor: Notion's cursors name the first item of
 * the next page (an id), so a cursor that names no item is refused.
 */
export function paginate<T, V>(items: T[], page: PageRequest, idOf: (item: T) => string, view: (item: T) => V, type: string): ListPage<V> {
  let start = 0;
  if (page.cursor !== undefined) {
    const wanted = canonicalId(page.cursor) ?? page.cursor;
    start = items.findIndex((i) => idOf(i) === wanted);
    if (start === -1) throw validation(`start_cursor provided is invalid: ${page.cursor}`);
  }
  const slice = items.slice(start, start + page.size);
  const next = items[start + page.size];
  return { object: 'list', results: slice.map(view), next_cursor: next ? idOf(next) : null, has_more: next !== undefined, type, [type]: {} };
}
