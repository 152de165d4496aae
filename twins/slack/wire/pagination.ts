// Cursor pagination as Slack does it: an opaque base64 cursor naming the first item of the next
// page (`dXNlcjpVMDYx…` = `user:U061…`), `response_metadata.next_cursor` empty on the last page.

import { SlackError } from './errors.js';

export interface Page<T> {
  items: T[];
  nextCursor: string;
}

export function encodeCursor(kind: string, key: string): string {
  return Buffer.from(`${kind}:${key}`).toString('base64');
}

export function decodeCursor(kind: string, cursor: string): string {
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  if (!text.startsWith(`${kind}:`) || text.length === kind.length + 1) throw new SlackError('invalid_cursor');
  return text.slice(kind.length + 1);
}

/** Resolve Slack's `limit`: absent or 0 means the method's default; above `max` is capped. */
export function pageSize(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || limit <= 0) return fallback;
  return Math.min(limit, max);
}

/** One page of `items` (already in answer order), starting at the item the cursor names. */
export function paginate<T>(items: T[], keyOf: (item: T) => string, kind: string, cursor: string | undefined, limit: number): Page<T> {
  let start = 0;
  if (cursor) {
    const key = decodeCursor(kind, cursor);
    start = items.findIndex((i) => keyOf(i) === key);
    if (start === -1) throw new SlackError('invalid_cursor');
  }
  const slice = items.slice(start, start + limit);
  const next = items[start + limit];
  return { items: slice, nextCursor: next === undefined ? '' : encodeCursor(kind, keyOf(next)) };
}
