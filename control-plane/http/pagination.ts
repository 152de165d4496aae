// The one pagination helper for every paged list (docs/decisions.md §3): page ≥ 1 (default 1),
// size 1..100 (default 50), pages = ceil(total / size), 0 when total is 0.

import { z } from 'zod';
import { intField } from './fields.js';

/** `?page=&size=` with Pydantic's integer parsing and bounds (int_parsing, ge 1, le 100). */
export const pageQuery = z.object({
  page: intField({ ge: 1 }).default(1),
  size: intField({ ge: 1, le: 100 }).default(50),
});
export type PageQuery = z.infer<typeof pageQuery>;

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

export function pageEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    size: z.number().int(),
    pages: z.number().int(),
  });
}

/** Build the envelope from a total and a loader of one window (LIMIT/OFFSET). */
export function paginate<T>(q: PageQuery, total: number, load: (limit: number, offset: number) => T[]): Page<T> {
  const offset = (q.page - 1) * q.size;
  return {
    items: offset < total ? load(q.size, offset) : [],
    total,
    page: q.page,
    size: q.size,
    pages: total === 0 ? 0 : Math.ceil(total / q.size),
  };
}
