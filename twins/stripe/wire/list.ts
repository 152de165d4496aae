// Stripe's list envelope `{object: "list", data, has_more, url}`: newest first, `limit` 1..100
// (default 10), cursor pagination with `starting_after` / `ending_before` (what the SDK's
// auto-pagination sends), and the common `created` range filter: read here into a ListWindow,
// paged by the models (model/pages.ts), answered in the envelope.

import { invalidRequest } from './errors.js';
import { int, obj, str, type Params } from './params.js';
import type { StripeObject } from '../model/objects.js';
import { pageOf, type CreatedRange, type ListPage, type ListWindow } from '../model/pages.js';

export interface ListEnvelope<T = StripeObject> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

/** `limit` as Stripe validates it. */
export function readLimit(p: Params): number {
  const limit = int(p, 'limit') ?? 10;
  if (limit < 1) throw invalidRequest('This value must be greater than or equal to 1.', 'limit');
  if (limit > 100) throw invalidRequest('This value must be less than or equal to 100.', 'limit');
  return limit;
}

/** The page a list request asks for: `limit`, `starting_after` / `ending_before`, `created`. */
export function readListWindow(p: Params): ListWindow {
  return { limit: readLimit(p), startingAfter: str(p, 'starting_after'), endingBefore: str(p, 'ending_before'), created: createdRanges(p) };
}

/** Stripe's envelope of a page under `url` (e.g. `/v1/customers`). */
export function listEnvelope<T>(page: ListPage<T>, url: string): ListEnvelope<T> {
  return { object: 'list', data: page.data, has_more: page.hasMore, url };
}

/** One page of `records` (given oldest first, as the record store keeps them). */
export function listBody<T extends StripeObject>(p: Params, records: T[], url: string): ListEnvelope<T> {
  return listEnvelope(pageOf(records, readListWindow(p)), url);
}

/** The `created` filter as record-store range conditions (`created=<ts>` is both bounds). */
export function createdRanges(p: Params, key = 'created'): CreatedRange[] {
  const raw = p[key];
  if (raw === undefined || raw === '') return [];
  if (typeof raw === 'string') {
    const exact = int(p, key)!;
    return [
      { field: key, op: '>=', value: exact },
      { field: key, op: '<=', value: exact },
    ];
  }
  const range = obj(p, key)!;
  const out: CreatedRange[] = [];
  for (const [k, op] of [
    ['gt', '>'],
    ['gte', '>='],
    ['lt', '<'],
    ['lte', '<='],
  ] as const) {
    const v = int(range, k, key);
    if (v !== undefined) out.push({ field: key, op, value: v });
  }
  return out;
}
