// Pages of Stripe lists, as the models answer them: newest first (objects created in the same second
// in reverse insertion order), `limit` long, after `starting_after` or before `ending_before`,
// narrowed by `created` ranges. `readPage` reads one page through the record store's `created`
// index, so a page costs the same with 10 records or 50,000; `pageOf` pages a set a model had to
// gather itself (sets that live inside another object: subscription items, invoice lines). A
// condition SQL cannot say (a case-insensitive code, a field inside a nested object, a wildcard event
// type) is a `keep` test: the page is then read through the same index a batch at a time until it is
// full, so it costs the records scanned to fill it, never a read of the whole store.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { PageCursor, PageQuery } from '../../../twin-runtime/record-store.js';
import { resourceMissing } from '../wire/errors.js';
import { kindOfId, type StripeObject } from './objects.js';

export type CreatedRange = NonNullable<PageQuery['ranges']>[number];

/** Which page of a list a caller asks for. */
export interface ListWindow {
  /** 1..100 (the route validates it). */
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
  /** Conditions on `created` (`created[gte]=…`; `created=<ts>` is both bounds). */
  created?: CreatedRange[];
}

export interface ListPage<T> {
  /** Newest first. */
  data: T[];
  hasMore: boolean;
}

/** Top-level fields a keyset list narrows by (`null`: missing or null). */
export type FieldEquals = NonNullable<PageQuery['equals']>;

const cursorMissing = (id: string, param: string) => resourceMissing(kindOfId(id)?.noun ?? 'object', id, param);

/** Conditions beyond field equalities a keyset list can narrow by. */
export interface MoreConditions {
  oneOf?: PageQuery['oneOf'];
  noneOf?: PageQuery['noneOf'];
  present?: PageQuery['present'];
  /** Ranges on fields other than `created` (which comes with the window). */
  ranges?: CreatedRange[];
  /** A test the index cannot answer; records failing it are skipped while the page fills. */
  keep?: (record: StripeObject) => boolean;
}

/** Records read per statement while a `keep` test fills a page. */
const KEEP_BATCH = 100;

/** One page of the `resource` records whose fields equal `equals`, read through the store's index. */
export function readPage<T extends StripeObject>(
  ctx: TwinContext,
  resource: string,
  equals: FieldEquals,
  window: ListWindow,
  more: MoreConditions = {},
): ListPage<T> {
  const ranges = [...(window.created ?? []), ...(more.ranges ?? [])];
  const base = { resource, equals, oneOf: more.oneOf, noneOf: more.noneOf, present: more.present, ranges, order: 'created' as const };
  const cursor = (id: string, param: string) => {
    const c = ctx.store.cursorOf(resource, id);
    if (!c) throw cursorMissing(id, param);
    return c;
  };
  // `ending_before` reads oldest-first from the cursor and turns the page around.
  const backwards = Boolean(window.endingBefore && !window.startingAfter);
  const after = backwards ? cursor(window.endingBefore!, 'ending_before') : window.startingAfter ? cursor(window.startingAfter, 'starting_after') : undefined;
  const { keep } = more;
  let data: T[];
  let hasMore: boolean;
  if (!keep) {
    const page = ctx.store.page<T>({ ...base, descending: !backwards, after, limit: window.limit });
    data = page.items.map((r) => r.body);
    hasMore = page.hasMore;
  } else {
    const kept: T[] = [];
    let from: PageCursor | undefined = after;
    for (;;) {
      const batch = ctx.store.page<T>({ ...base, descending: !backwards, after: from, limit: KEEP_BATCH });
      for (const r of batch.items) if (keep(r.body) && kept.push(r.body) > window.limit) break;
      if (kept.length > window.limit || !batch.hasMore) break;
      from = batch.items.at(-1);
    }
    hasMore = kept.length > window.limit;
    data = kept.slice(0, window.limit);
  }
  return { data: backwards ? data.reverse() : data, hasMore };
}

/** Every record whose fields equal `equals`, oldest first, read a batch at a time through the index. */
export function* eachMatching<T extends StripeObject>(ctx: TwinContext, resource: string, equals: FieldEquals, batch = 100): Generator<T> {
  let after: PageCursor | undefined;
  for (;;) {
    const page = ctx.store.page<T>({ resource, equals, order: 'seq', descending: false, after, limit: batch });
    for (const r of page.items) yield r.body;
    if (!page.hasMore) return;
    after = page.items.at(-1)!;
  }
}

/** The oldest record whose fields equal `equals`, if any. */
export function firstMatching<T extends StripeObject>(ctx: TwinContext, resource: string, equals: FieldEquals): T | undefined {
  return ctx.store.page<T>({ resource, equals, order: 'seq', descending: false, limit: 1 }).items[0]?.body;
}

function inRange(value: number, r: CreatedRange): boolean {
  switch (r.op) {
    case '<':
      return value < r.value;
    case '<=':
      return value <= r.value;
    case '>':
      return value > r.value;
    case '>=':
      return value >= r.value;
  }
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
export function pageOf<T extends StripeObject>(records: T[], window: ListWindow): ListPage<T> {
  const ranges = window.created ?? [];
  const ordered = newestFirst(ranges.length ? records.filter((r) => ranges.every((c) => inRange(r.created as number, c))) : records);
  const { limit, startingAfter: after, endingBefore: before } = window;
  if (after) {
    const i = ordered.findIndex((r) => r.id === after);
    if (i === -1) throw cursorMissing(after, 'starting_after');
    return { data: ordered.slice(i + 1, i + 1 + limit), hasMore: i + 1 + limit < ordered.length };
  }
  if (before) {
    const i = ordered.findIndex((r) => r.id === before);
    if (i === -1) throw cursorMissing(before, 'ending_before');
    const start = Math.max(0, i - limit);
    return { data: ordered.slice(start, i), hasMore: start > 0 };
  }
  return { data: ordered.slice(0, limit), hasMore: ordered.length > limit };
}
