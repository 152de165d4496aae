// Relay pagination as Linear does it: `first`/`after`, `last`/`before` (50 by default, at most 250),
// ordered by `createdAt` (or `orderBy: updatedAt`), newest first; each edge's cursor is the node's id.
// Archived entities are left out unless `includeArchived: true`.

import { invalidInput } from './errors.js';
import type { Args, Rec } from './types.js';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 250;

export interface Connection {
  nodes: Rec[];
  edges: { node: Rec; cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

function count(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw invalidInput(`${name} must be a non-negative integer`);
  if (n > MAX_PAGE) throw invalidInput(`${name} must be less than or equal to ${MAX_PAGE}`);
  return n;
}

/** Order and page `records` (already filtered) by the connection arguments. */
export function connection(records: Rec[], args: Args): Connection {
  const key = args.orderBy === 'updatedAt' ? 'updatedAt' : 'createdAt';
  let all = args.includeArchived === true ? records : records.filter((r) => !r.archivedAt);
  // Newest first; insertion order breaks ties (records of one instant: the later one first).
  all = all
    .map((r, i) => ({ r, i }))
    .sort((a, b) => String(b.r[key]).localeCompare(String(a.r[key])) || b.i - a.i)
    .map((x) => x.r);
  const first = count(args.first, 'first');
  const last = count(args.last, 'last');
  let start = 0;
  let end = all.length;
  if (typeof args.after === 'string' && args.after !== '') {
    const i = all.findIndex((r) => r.id === args.after);
    if (i === -1) throw invalidInput('Cursor is invalid');
    start = i + 1;
  }
  if (typeof args.before === 'string' && args.before !== '') {
    const i = all.findIndex((r) => r.id === args.before);
    if (i === -1) throw invalidInput('Cursor is invalid');
    end = i;
  }
  let slice = all.slice(start, end);
  let hasNext = end < all.length;
  let hasPrevious = start > 0;
  if (last !== undefined && first === undefined) {
    if (slice.length > last) hasPrevious = true;
    slice = slice.slice(Math.max(0, slice.length - last));
  } else {
    const size = first ?? DEFAULT_PAGE;
    if (slice.length > size) hasNext = true;
    slice = slice.slice(0, size);
  }
  const ids = slice.map((r) => String(r.id));
  return {
    nodes: slice,
    edges: slice.map((node) => ({ node, cursor: String(node.id) })),
    pageInfo: { hasNextPage: hasNext, hasPreviousPage: hasPrevious, startCursor: ids[0] ?? null, endCursor: ids[ids.length - 1] ?? null },
  };
}
