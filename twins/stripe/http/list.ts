// Stripe's list envelope `{object: "list", data, has_more, url}`: newest first, `limit` 1..100
// (default 10), cursor pagination with `starting_after` / `ending_before` (what the SDK's
// auto-pagination sends), and the common `created` range filter.

import type { TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from './errors.js';
import { bool, int, obj, paramsOf, str, type Params } from './params.js';
import { kindOfId, type StripeObject } from '../model/objects.js';
import type { PageQuery } from '../../../twin-runtime/record-store.js';

export { searchResponse } from './search.js';

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

/** Apply `created[gt|gte|lt|lte]` or `created=<ts>` to objects carrying `created`. */
export function filterCreated<T extends StripeObject>(p: Params, records: T[], key = 'created'): T[] {
  const raw = p[key];
  if (raw === undefined || raw === '') return records;
  if (typeof raw === 'string') {
    const exact = int(p, key)!;
    return records.filter((r) => r[key] === exact);
  }
  const range = obj(p, key)!;
  const bound = (k: string): number | undefined => int(range, k, key);
  const gt = bound('gt');
  const gte = bound('gte');
  const lt = bound('lt');
  const lte = bound('lte');
  return records.filter((r) => {
    const c = r[key] as number;
    return (gt === undefined || c > gt) && (gte === undefined || c >= gte) && (lt === undefined || c < lt) && (lte === undefined || c <= lte);
  });
}

/** Newest first; objects created in the same second keep reverse insertion order. */
export function newestFirst<T extends StripeObject>(oldestFirst: T[]): T[] {
  const reversed = [...oldestFirst].reverse();
  return reversed
    .map((r, i) => ({ r, i }))
    .sort((a, b) => ((b.r.created as number) ?? 0) - ((a.r.created as number) ?? 0) || a.i - b.i)
    .map((x) => x.r);
}

/** One page of `records` (given oldest first, as the record store keeps them). */
export function listBody<T extends StripeObject>(p: Params, records: T[], url: string): ListEnvelope<T> {
  const limit = readLimit(p);
  const ordered = newestFirst(filterCreated(p, records));
  const after = str(p, 'starting_after');
  const before = str(p, 'ending_before');
  const cursorMissing = (id: string, param: string) =>
    resourceMissing(kindOfId(id)?.noun ?? 'object', id, param);
  let data: T[];
  let hasMore: boolean;
  if (after) {
    const i = ordered.findIndex((r) => r.id === after);
    if (i === -1) throw cursorMissing(after, 'starting_after');
    data = ordered.slice(i + 1, i + 1 + limit);
    hasMore = i + 1 + limit < ordered.length;
  } else if (before) {
    const i = ordered.findIndex((r) => r.id === before);
    if (i === -1) throw cursorMissing(before, 'ending_before');
    const start = Math.max(0, i - limit);
    data = ordered.slice(start, i);
    hasMore = start > 0;
  } else {
    data = ordered.slice(0, limit);
    hasMore = ordered.length > limit;
  }
  return { object: 'list', data, has_more: hasMore, url };
}

/** The `created` filter as record-store range conditions (`created=<ts>` is both bounds). */
export function createdRanges(p: Params, key = 'created'): NonNullable<PageQuery['ranges']> {
  const raw = p[key];
  if (raw === undefined || raw === '') return [];
  if (typeof raw === 'string') {
    const exact = int(p, key)!;
    return [{ field: key, op: '>=', value: exact }, { field: key, op: '<=', value: exact }];
  }
  const range = obj(p, key)!;
  const out: NonNullable<PageQuery['ranges']> = [];
  for (const [k, op] of [['gt', '>'], ['gte', '>='], ['lt', '<'], ['lte', '<=']] as const) {
    const v = int(range, k, key);
    if (v !== undefined) out.push({ field: key, op, value: v });
  }
  return out;
}

/** Top-level field filters of a list (`customer=cus_…`, `active=true`) as record-store equalities. */
export function fieldFilters(p: Params, strings: readonly string[], booleans: readonly string[] = []): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const k of strings) {
    const v = str(p, k);
    if (v !== undefined) out[k] = v;
  }
  for (const k of booleans) {
    const v = bool(p, k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** Which stored records a keyset list reads: a record kind, optionally narrowed by field values. */
export interface ListSource {
  resource: string;
  equals?: PageQuery['equals'];
  scope?: string;
}

/**
 * One page read from the record store through its `created` index (newest first, ties in reverse
 * insertion order, as `listBody` orders), so a page costs the same with 10 records or 50,000.
 */
export function keysetListBody<T extends StripeObject>(ctx: TwinContext, p: Params, source: ListSource, url: string): ListEnvelope<T> {
  const limit = readLimit(p);
  const base = { resource: source.resource, equals: source.equals, scope: source.scope, ranges: createdRanges(p), order: 'created' as const };
  const after = str(p, 'starting_after');
  const before = str(p, 'ending_before');
  const cursor = (id: string, param: string) => {
    const c = ctx.store.cursorOf(source.resource, id);
    if (!c) throw resourceMissing(kindOfId(id)?.noun ?? 'object', id, param);
    return c;
  };
  if (before && !after) {
    const page = ctx.store.page<T>({ ...base, descending: false, after: cursor(before, 'ending_before'), limit });
    return { object: 'list', data: page.items.map((r) => r.body).reverse(), has_more: page.hasMore, url };
  }
  const page = ctx.store.page<T>({ ...base, descending: true, after: after ? cursor(after, 'starting_after') : undefined, limit });
  return { object: 'list', data: page.items.map((r) => r.body), has_more: page.hasMore, url };
}

/** The list response for `records` (oldest first) under `url` (e.g. `/v1/customers`). */
export function listResponse<T extends StripeObject>(
  req: TwinRequest,
  _ctx: TwinContext,
  records: T[],
  url: string,
): TwinResponse {
  return { status: 200, body: listBody(paramsOf(req), records, url) };
}
