// Stripe's search: the query language (`email:'a@b.c' AND name~'ann' AND metadata['k']:'v'`,
// `-` negation, `>`/`<` on numbers, `field:null`, clauses joined by AND or by OR but not both) and
// the `search_result` envelope with its opaque `next_page` cursor. A page is read newest first
// through the record store's index a batch at a time until it is full (the query is the batch's
// `keep` test), and `next_page` names the last object shown, so a page costs the records scanned to
// fill it rather than a read of every record; only `expand[]=total_count` counts them all.

import type { TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { invalidRequest, missingParam } from './errors.js';
import { expandPaths, str } from './params.js';
import { readLimit } from './list.js';
import { readOperationParams } from './input.js';
import { eachMatching, pageOf, readPage, type FieldEquals, type ListPage } from '../model/pages.js';
import type { StripeObject } from '../model/objects.js';

/** Searchable fields of one resource: the value a clause compares (`metadata` is built in). */
export type SearchFields = Record<string, (o: StripeObject) => unknown>;

interface Clause {
  negate: boolean;
  field: string;
  key?: string;
  op: ':' | '~' | '>' | '<' | '>=' | '<=';
  value: string | number | null;
}

const CLAUSE =
  /^\s*(-)?([a-z_][a-z0-9_.]*)(?:\[\s*(['"])(.*?)\3\s*\])?\s*(>=|<=|:|~|>|<)\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|(-?\d+(?:\.\d+)?)|(null))\s*/;

function unparsable(rest: string): never {
  throw invalidRequest(
    `We were unable to parse your search query. Check the syntax near \`${rest.slice(0, 30)}\`. See https://stripe.com/docs/search#search-query-language for the query language.`,
    'query',
  );
}

export function parseQuery(query: string): { clauses: Clause[]; joiner: 'AND' | 'OR' } {
  const clauses: Clause[] = [];
  let joiner: 'AND' | 'OR' | undefined;
  let rest = query;
  for (;;) {
    const m = CLAUSE.exec(rest);
    if (!m) unparsable(rest);
    const [, neg, field, , key, op, sq, dq, num, nul] = m;
    const value = nul ? null : num !== undefined ? Number(num) : (sq ?? dq ?? '').replace(/\\(.)/g, '$1');
    clauses.push({ negate: !!neg, field: field!, key, op: op as Clause['op'], value });
    rest = rest.slice(m[0].length);
    if (rest.trim() === '') break;
    const j = /^(AND|OR)\s+/.exec(rest);
    if (!j) unparsable(rest);
    if (joiner && joiner !== j[1]) {
      throw invalidRequest('Search queries cannot combine AND and OR in the same query.', 'query');
    }
    joiner = j[1] as 'AND' | 'OR';
    rest = rest.slice(j[0].length);
  }
  return { clauses, joiner: joiner ?? 'AND' };
}

/** Refuse what no record could answer, before any is read (an empty store refuses it too). */
function checkClause(c: Clause, fields: SearchFields, resourceName: string): void {
  if (c.field === 'metadata') {
    if (c.key === undefined) throw invalidRequest("Metadata searches need a key: metadata['key']:'value'.", 'query');
  } else if (!ownValue(fields, c.field)) {
    // Field names come from the query: only the resource's own searchable fields count.
    throw invalidRequest(
      `Field \`${c.field}\` is an unsupported search field for resource \`${resourceName}\`. See http://stripe.com/docs/search#query-fields-for-${resourceName} for a list of supported fields.`,
      'query',
    );
  }
  if (c.op === '~' && String(c.value).length < 3) {
    throw invalidRequest('Substring searches (`~`) need a value of at least 3 characters.', 'query');
  }
}

function matches(o: StripeObject, c: Clause, fields: SearchFields): boolean {
  const actual = c.field === 'metadata' ? ownValue(o.metadata, c.key!) : (ownValue(fields, c.field) as SearchFields[string])(o);
  let ok: boolean;
  if (c.value === null) ok = actual === null || actual === undefined;
  else if (c.op === ':') {
    ok = actual !== null && actual !== undefined && String(actual).toLowerCase() === String(c.value).toLowerCase();
  } else if (c.op === '~') {
    ok = typeof actual === 'string' && actual.toLowerCase().includes(String(c.value).toLowerCase());
  } else {
    const a = Number(actual);
    const b = Number(c.value);
    if (actual === null || actual === undefined || Number.isNaN(a) || Number.isNaN(b)) ok = false;
    else ok = c.op === '>' ? a > b : c.op === '<' ? a < b : c.op === '>=' ? a >= b : a <= b;
  }
  return c.negate ? !ok : ok;
}

/** The token of the page after the object `lastId`. */
function encodePage(lastId: string): string {
  return 'page_' + Buffer.from(JSON.stringify({ a: lastId })).toString('base64url');
}

/** The object a `page` token continues after; a token for nothing that still exists is refused. */
function decodePage(page: string, exists: (id: string) => boolean): string {
  try {
    const id = JSON.parse(Buffer.from(page.replace(/^page_/, ''), 'base64url').toString('utf8')).a;
    if (typeof id === 'string' && exists(id)) return id;
  } catch {
    /* fall through */
  }
  throw invalidRequest(`Invalid page: ${page}`, 'page');
}

/**
 * Which records a search reads: a resource of the store, narrowed by field equalities, shown as
 * `present` makes them; or records a caller already holds (the generic layer's), oldest first.
 */
export type SearchSource<T extends StripeObject> =
  | {
      resource: string;
      equals?: FieldEquals;
      /** The object as the API shows it (what the query's fields read and what the page holds). */
      present?: (stored: T) => T;
    }
  | { records: T[] };

/** One page of a search; `resourceName` as in Stripe's docs (`customers`). */
export function searchResponse<T extends StripeObject>(
  req: TwinRequest,
  ctx: TwinContext,
  source: SearchSource<T>,
  url: string,
  fields: SearchFields,
  resourceName: string,
): TwinResponse {
  const p = readOperationParams(req);
  const query = str(p, 'query');
  if (query === undefined || query.trim() === '') throw missingParam('query');
  const limit = readLimit(p);
  const page = str(p, 'page');
  const { clauses, joiner } = parseQuery(query);
  for (const c of clauses) checkClause(c, fields, resourceName);
  const hit = (o: T) => (joiner === 'AND' ? clauses.every((c) => matches(o, c, fields)) : clauses.some((c) => matches(o, c, fields)));
  let found: ListPage<T>;
  let total: () => number;
  if ('records' in source) {
    const hits = source.records.filter(hit);
    const after = page ? decodePage(page, (id) => hits.some((o) => o.id === id)) : undefined;
    found = pageOf(hits, { limit, startingAfter: after });
    total = () => hits.length;
  } else {
    const { resource } = source;
    const equals = source.equals ?? {};
    const present = source.present ?? ((o: T) => o);
    const after = page ? decodePage(page, (id) => ctx.store.has(resource, id)) : undefined;
    found = readPage<T>(ctx, resource, equals, { limit, startingAfter: after }, { keep: (o) => hit(present(o as T)) });
    found.data = found.data.map(present);
    total = () => {
      let n = 0;
      for (const o of eachMatching<T>(ctx, resource, equals)) if (hit(present(o))) n++;
      return n;
    };
  }
  const { data } = found;
  const body: Record<string, unknown> = {
    object: 'search_result',
    data,
    has_more: found.hasMore,
    next_page: found.hasMore ? encodePage(found.data.at(-1)!.id) : null,
    url,
  };
  if (expandPaths(p).includes('total_count')) body.total_count = total();
  return { status: 200, body };
}
