// Stripe's search: the query language (`email:'a@b.c' AND name~'ann' AND metadata['k']:'v'`,
// `-` negation, `>`/`<` on numbers, `field:null`, clauses joined by AND or by OR but not both) and
// the `search_result` envelope with its opaque `next_page` cursor.

import type { TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { invalidRequest, missingParam } from './errors.js';
import { expandPaths, paramsOf, str } from './params.js';
import { readLimit } from './list.js';
import { newestFirst } from '../model/pages.js';
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

function matches(o: StripeObject, c: Clause, fields: SearchFields, resourceName: string): boolean {
  let actual: unknown;
  if (c.field === 'metadata') {
    if (c.key === undefined) throw invalidRequest('Metadata searches need a key: metadata[\'key\']:\'value\'.', 'query');
    actual = ownValue(o.metadata, c.key);
  } else {
    // Field names come from the query: only the resource's own searchable fields count.
    const get = ownValue(fields, c.field) as SearchFields[string] | undefined;
    if (!get) {
      throw invalidRequest(
        `Field \`${c.field}\` is an unsupported search field for resource \`${resourceName}\`. See http://stripe.com/docs/search#query-fields-for-${resourceName} for a list of supported fields.`,
        'query',
      );
    }
    actual = get(o);
  }
  let ok: boolean;
  if (c.value === null) ok = actual === null || actual === undefined;
  else if (c.op === ':') {
    ok = actual !== null && actual !== undefined && String(actual).toLowerCase() === String(c.value).toLowerCase();
  } else if (c.op === '~') {
    if (String(c.value).length < 3) {
      throw invalidRequest('Substring searches (`~`) need a value of at least 3 characters.', 'query');
    }
    ok = typeof actual === 'string' && actual.toLowerCase().includes(String(c.value).toLowerCase());
  } else {
    const a = Number(actual);
    const b = Number(c.value);
    if (actual === null || actual === undefined || Number.isNaN(a) || Number.isNaN(b)) ok = false;
    else ok = c.op === '>' ? a > b : c.op === '<' ? a < b : c.op === '>=' ? a >= b : a <= b;
  }
  return c.negate ? !ok : ok;
}

function encodePage(offset: number): string {
  return 'page_' + Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodePage(page: string): number {
  try {
    const n = JSON.parse(Buffer.from(page.replace(/^page_/, ''), 'base64url').toString('utf8')).o;
    if (Number.isInteger(n) && n >= 0) return n;
  } catch {
    /* fall through */
  }
  throw invalidRequest(`Invalid page: ${page}`, 'page');
}

/** The search response over `records` (oldest first); `resourceName` as in Stripe's docs (`customers`). */
export function searchResponse<T extends StripeObject>(
  req: TwinRequest,
  _ctx: TwinContext,
  records: T[],
  url: string,
  fields: SearchFields,
  resourceName: string,
): TwinResponse {
  const p = paramsOf(req);
  const query = str(p, 'query');
  if (query === undefined || query.trim() === '') throw missingParam('query');
  const limit = readLimit(p);
  const page = str(p, 'page');
  const offset = page ? decodePage(page) : 0;
  const { clauses, joiner } = parseQuery(query);
  const hits = newestFirst(records).filter((o) =>
    joiner === 'AND'
      ? clauses.every((c) => matches(o, c, fields, resourceName))
      : clauses.some((c) => matches(o, c, fields, resourceName)),
  );
  const data = hits.slice(offset, offset + limit);
  const hasMore = offset + limit < hits.length;
  const body: Record<string, unknown> = {
    object: 'search_result',
    data,
    has_more: hasMore,
    next_page: hasMore ? encodePage(offset + limit) : null,
    url,
  };
  if (expandPaths(p).includes('total_count')) body.total_count = hits.length;
  return { status: 200, body };
}
