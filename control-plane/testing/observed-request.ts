// One logged request as the evaluator sees it: the request_logs row, with query, headers and both
// bodies decoded lazily (only when a matcher gets that far) into the same trees for JSON and for
// Stripe/Slack bracket-notation forms. Logged traffic is read as the twins read requests
// (twin-runtime/safe-input.ts): keys through `__proto__`, `constructor`, `prototype` are dropped,
// and a body or query past an input limit (which the twin refused) reads as having none.

import { parseBracketForm } from '../../twin-runtime/form.js';
import { InputRefusal, isForbiddenKey, ownValue, parseJson } from '../../twin-runtime/safe-input.js';
import type { RequestLogRow as StoredRequestLog } from '../store/request-logs.js';

/** The columns of request_logs the evaluator reads: the stored row (store/request-logs.ts) plus its
 * arrival order, without the organization and truncation flags it does not judge. */
export type RequestLogRow = Omit<StoredRequestLog, 'organization_id' | 'request_body_truncated' | 'response_body_truncated'> & {
  seq: number;
};

export class ObservedRequest {
  private _query?: Record<string, unknown>;
  private _headers?: Record<string, unknown>;
  private _body?: unknown;
  private _responseBody?: unknown;
  private bodyDone = false;
  private responseDone = false;
  private _isForm?: boolean;

  constructor(readonly row: RequestLogRow) {}

  get query(): Record<string, unknown> {
    return (this._query ??= decodeForm(this.row.query_string.replace(/^\?/, ''), 'query'));
  }

  get headers(): Record<string, unknown> {
    if (!this._headers) {
      const out: Record<string, unknown> = {};
      try {
        const raw = parseJson(this.row.request_headers || '{}') as Record<string, unknown>;
        for (const [k, v] of Object.entries(raw)) if (!isForbiddenKey(k.toLowerCase())) out[k.toLowerCase()] = v;
      } catch {
        /* a malformed header blob reads as no headers */
      }
      this._headers = out;
    }
    return this._headers;
  }

  get body(): unknown {
    if (!this.bodyDone) {
      this._body = decodeBody(this.row.request_body, this.row.request_content_type);
      this.bodyDone = true;
    }
    return this._body;
  }

  /**
   * The request body value at a JSON Pointer. Form bodies answer from their decoded pairs when the
   * pointer names one key (`/metadata/tier` ↔ `metadata[tier]`), without building the whole tree;
   * array indices and whole objects go through the tree, which compacts sparse arrays as Stripe does.
   * Matchers read the same pointer on every request: they pass it compiled (bodyPointer).
   */
  bodyAt(pointer: string | BodyPointer): unknown {
    const p = typeof pointer === 'string' ? bodyPointer(pointer) : pointer;
    if (this.bodyDone || p.formKey === undefined || !this.isForm) return pointerGet(this.body, p.pointer);
    const text = this.row.request_body ?? '';
    if (p.spellings) {
      // Plain keys appear verbatim (or with encoded brackets): find the value without decoding the rest.
      // A key that also nests (`a=1&a[b]=2`), or under a name also given a plain value (`a=1&a[b]=2`
      // read at /a/b), is a merge of both in the tree: let the tree decide.
      if (p.prefixSpellings && hasPlainKey(text, p.prefixSpellings)) return pointerGet(this.body, p.pointer);
      const found = findFormValue(text, p.spellings);
      return found === NESTED ? pointerGet(this.body, p.pointer) : found;
    }
    const pairs = formPairs(text);
    const hit = pairs.get(p.formKey);
    if (hit !== undefined) return hit;
    for (const k of pairs.keys()) if (k.startsWith(p.formKey + '[')) return pointerGet(this.body, p.pointer);
    return undefined;
  }

  private get isForm(): boolean {
    return (this._isForm ??= isFormType(this.row.request_content_type));
  }

  get responseBody(): unknown {
    if (!this.responseDone) {
      this._responseBody = decodeBody(this.row.response_body, this.row.response_content_type);
      this.responseDone = true;
    }
    return this._responseBody;
  }
}

/** A JSON Pointer into a request body, with the form key it names worked out once. */
export interface BodyPointer {
  pointer: string;
  /** `metadata[tier]` for `/metadata/tier`; undefined when the pointer needs the tree (whole body, array index, empty token). */
  formKey?: string;
  /** How the key can be written in an encoded body, when it has only characters that appear verbatim (brackets aside). */
  spellings?: string[];
  /** The same for each enclosing key (`metadata` for `metadata[tier]`), when there is one. */
  prefixSpellings?: string[];
}

export function bodyPointer(pointer: string): BodyPointer {
  const tokens = pointer === '' ? [] : pointerTokens(pointer);
  // A name the decoder drops (`__proto__`, `toString`…) is never in the tree: the tree answers, not the raw text.
  if (tokens.length === 0 || tokens.some((t) => t === '' || /^\d+$/.test(t) || isForbiddenKey(t) || Object.hasOwn(Object.prototype, t))) {
    return { pointer };
  }
  const formKey =
    tokens[0] +
    tokens
      .slice(1)
      .map((t) => `[${t}]`)
      .join('');
  if (!/^[A-Za-z0-9_.\-[\]]+$/.test(formKey)) return { pointer, formKey };
  const spell = (key: string) => (key.includes('[') ? [key, encodeBrackets(key), encodeBracketsLower(key)] : [key]);
  const prefixes = tokens.slice(0, -1).map(
    (_, n) =>
      tokens[0] +
      tokens
        .slice(1, n + 1)
        .map((t) => `[${t}]`)
        .join(''),
  );
  return { pointer, formKey, spellings: spell(formKey), ...(prefixes.length > 0 ? { prefixSpellings: prefixes.flatMap(spell) } : {}) };
}

/** Whether a form body has a pair whose whole key is written one of `spellings` (`a=…`, `a&`, a final `a`). */
function hasPlainKey(text: string, spellings: string[]): boolean {
  for (const spelled of spellings) {
    for (let at = text.indexOf(spelled); at !== -1; at = text.indexOf(spelled, at + 1)) {
      if (at !== 0 && text.charCodeAt(at - 1) !== AMPERSAND) continue;
      const next = at + spelled.length;
      const c = text.charCodeAt(next);
      if (c === EQUALS || c === AMPERSAND || next === text.length) return true;
    }
  }
  return false;
}

function isFormType(contentType: string | null): boolean {
  if (!contentType) return false;
  return contentType.startsWith('application/x-www-form-urlencoded') || contentType.toLowerCase().includes('x-www-form-urlencoded');
}

export function decodeBody(text: string | null, contentType: string | null): unknown {
  if (text === null || text === '') return undefined;
  if (isFormType(contentType)) return text.includes('%5B') || text.includes('[') ? decodeForm(text, 'body') : parseFlatForm(text);
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json') || ct === '') {
    try {
      return parseJson(text);
    } catch (e) {
      if (e instanceof InputRefusal) return undefined;
      return ct === '' ? text : undefined;
    }
  }
  return text;
}

/** A bracket-notation form as the twin decoded it; one past an input limit (refused) is empty. */
function decodeForm(text: string, part: 'query' | 'body'): Record<string, unknown> {
  try {
    return parseBracketForm(text, part);
  } catch (e) {
    if (e instanceof InputRefusal) return {};
    throw e;
  }
}

const encodeBrackets = (key: string) => key.replace(/\[/g, '%5B').replace(/\]/g, '%5D');
const encodeBracketsLower = (key: string) => key.replace(/\[/g, '%5b').replace(/\]/g, '%5d');

/** findFormValue's answer when the key also has keys under it (`key[…]`): the value is an object or array. */
const NESTED = Symbol('nested');

/**
 * The decoded value of the last pair for a key written one of `spellings` (form semantics: the last
 * one wins; a key without `=` has the empty value), undefined when there is none, or NESTED.
 */
function findFormValue(text: string, spellings: string[]): string | undefined | typeof NESTED {
  let bestAt = -1;
  let valueAt = -1;
  for (const spelled of spellings) {
    for (let at = text.indexOf(spelled); at !== -1; at = text.indexOf(spelled, at + 1)) {
      if (at !== 0 && text.charCodeAt(at - 1) !== AMPERSAND) continue;
      const next = at + spelled.length;
      const c = text.charCodeAt(next);
      if (c === OPEN_BRACKET || (c === PERCENT && (text.startsWith('5B', next + 1) || text.startsWith('5b', next + 1)))) return NESTED;
      if (c !== EQUALS && c !== AMPERSAND && next !== text.length) continue; // a longer key
      if (at > bestAt) {
        bestAt = at;
        valueAt = c === EQUALS ? next + 1 : next;
      }
    }
  }
  if (bestAt === -1) return undefined;
  const end = text.indexOf('&', valueAt);
  return decodeFormComponent(text.slice(valueAt, end === -1 ? text.length : end));
}

const AMPERSAND = 0x26;
const EQUALS = 0x3d;
const OPEN_BRACKET = 0x5b;
const PERCENT = 0x25;

/** Decoded `key → value` pairs of a form body, keys as written (`metadata[tier]`); the last one wins. */
function formPairs(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    out.set(decodeFormComponent(eq < 0 ? pair : pair.slice(0, eq)), decodeFormComponent(eq < 0 ? '' : pair.slice(eq + 1)));
  }
  return out;
}

function pointerTokens(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Flat forms (no bracket keys) are most of the log: a direct split is several times faster. */
function parseFlatForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeFormComponent(eq < 0 ? pair : pair.slice(0, eq));
    if (isForbiddenKey(key)) continue;
    out[key] = decodeFormComponent(eq < 0 ? '' : pair.slice(eq + 1));
  }
  return out;
}

function decodeFormComponent(s: string): string {
  const plus = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!plus.includes('%')) return plus;
  try {
    return decodeURIComponent(plus);
  } catch {
    return new URLSearchParams('k=' + s).get('k') ?? plus;
  }
}

/** RFC 6901 JSON Pointer lookup; `""` is the whole document. Arrays accept numeric tokens. */
export function pointerGet(doc: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return pointer === '' ? doc : (doc as Record<string, unknown> | null | undefined)?.[''];
  const tokens = pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let v: unknown = doc;
  for (const t of tokens) {
    if (v === null || typeof v !== 'object') return undefined;
    if (Array.isArray(v)) {
      if (!/^\d+$/.test(t)) return undefined;
      v = v[Number(t)];
    } else {
      v = ownValue(v, t);
    }
  }
  return v;
}
