// Hostile input is normal input. This is the one place that says how request data is read safely,
// for every twin and for the control plane:
//   - the limits every parser applies (parameters, key length, nesting, array index, body size, the
//     keys of a JSON body);
//   - the typed refusal a parser throws when a limit is passed (InputRefusal), which a twin renders
//     in its provider's error shape (TwinDefinition.errors.parseFailure) and the control plane in the
//     contract's body;
//   - the keys no request may use to reach a prototype (`__proto__`, `constructor`, `prototype`):
//     forms drop them (form.ts), JSON drops `__proto__` and `constructor.prototype`
//     (secure-json-parse), merges skip them (assignSafely), lookups read own properties only
//     (ownValue);
//   - a probe that says whether this process's built-in prototypes are still as they were at start.

import secureJson from 'secure-json-parse';

export interface InputLimits {
  /** Pairs in one query string or one form body. */
  maxParameters: number;
  /** Characters of one decoded parameter name, brackets included. */
  maxKeyLength: number;
  /** Bracket levels in one parameter name (`a[b][c]` is 2). */
  maxKeyDepth: number;
  /** Highest array index in a parameter name (`items[999]`). */
  maxArrayIndex: number;
  /** Nesting of objects and arrays in a JSON body. */
  maxJsonDepth: number;
  /** Keys of all objects in one JSON body together. */
  maxJsonKeys: number;
  /** Bytes of one request body. */
  maxBodyBytes: number;
}

/**
 * Generous for every real client (Stripe's deepest parameters nest 5 levels, its longest lists
 * take 100 items, a checkout session with 100 priced line items is about 500 pairs; Starlette and
 * qs also stop at 1,000 pairs; SendGrid's largest send, 1,000 personalizations with their data, is
 * some 20,000 JSON keys), and small enough that the most expensive form a client may send decodes
 * in a few milliseconds (qs merges an indexed pair in time proportional to the array). A JSON body
 * past its keys is refused after reading at most that many (300,000 keys held the Stripe twin 10 s).
 */
export const INPUT_LIMITS: Readonly<InputLimits> = Object.freeze({
  maxParameters: 1000,
  maxKeyLength: 500,
  maxKeyDepth: 20,
  maxArrayIndex: 99,
  maxJsonDepth: 64,
  maxJsonKeys: 50_000,
  maxBodyBytes: 8 * 1024 * 1024,
});

export type RefusalReason = 'too_many_parameters' | 'too_many_keys' | 'key_too_long' | 'nesting_too_deep' | 'index_too_large' | 'body_too_large';

/** Where the refused input was. */
export type InputPart = 'query' | 'body';

const PART_NAME: Record<InputPart, string> = { query: 'query string', body: 'request body' };

/** Longest stretch of a refused parameter name quoted back (the name itself may be huge). */
const QUOTED_NAME = 120;

function quoted(name: string): string {
  return name.length > QUOTED_NAME ? `${name.slice(0, QUOTED_NAME)}…` : name;
}

/** A request refused before any route ran because it passed one of the input limits. */
export class InputRefusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    readonly part: InputPart,
    /** The limit that was passed. */
    readonly limit: number,
    /** The parameter at fault (as written, cut to a readable length), when one is. */
    readonly param?: string,
    /** Character offset of the fault in a JSON body (nesting, keys), when known. */
    readonly offset?: number,
  ) {
    super(refusalSentence(reason, part, limit, param));
    this.name = 'InputRefusal';
  }
}

function refusalSentence(reason: RefusalReason, part: InputPart, limit: number, param: string | undefined): string {
  const where = PART_NAME[part];
  switch (reason) {
    case 'too_many_parameters':
      return `The ${where} has too many parameters; at most ${limit} are accepted.`;
    case 'too_many_keys':
      return `The ${where} has too many keys; at most ${limit} are accepted.`;
    case 'key_too_long':
      return `The parameter name '${quoted(param ?? '')}' in the ${where} is too long; names can have up to ${limit} characters.`;
    case 'nesting_too_deep':
      return param !== undefined
        ? `The parameter '${quoted(param)}' in the ${where} nests too deeply; at most ${limit} levels are accepted.`
        : `The ${where} nests too deeply; at most ${limit} levels are accepted.`;
    case 'index_too_large':
      return `The array index in '${quoted(param ?? '')}' in the ${where} is too large; indices go up to ${limit}.`;
    case 'body_too_large':
      return `The request body is too large; at most ${limit} bytes are accepted.`;
  }
}

/** A parameter name cut for quoting in an error (the refusal names it; it may be megabytes long). */
export function paramForRefusal(name: string): string {
  return quoted(name);
}

// ---- keys that reach prototypes -------------------------------------------------------------

const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** `__proto__`, `constructor` or `prototype`: a key that no request may use to name a property. */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/** Object.assign for data that came from a request: forbidden keys are skipped, not assigned. */
export function assignSafely<T extends object>(target: T, ...sources: (object | null | undefined)[]): T {
  for (const source of sources) {
    if (!source) continue;
    for (const key of Object.keys(source)) {
      if (!FORBIDDEN_KEYS.has(key)) (target as Record<string, unknown>)[key] = (source as Record<string, unknown>)[key];
    }
  }
  return target;
}

/** The value of an own property (never an inherited one such as `constructor` or `toString`). */
export function ownValue(holder: unknown, key: string): unknown {
  if (holder === null || typeof holder !== 'object') return undefined;
  return Object.hasOwn(holder, key) ? (holder as Record<string, unknown>)[key] : undefined;
}

// ---- JSON --------------------------------------------------------------------------------------

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;

/**
 * Where JSON text first passes a limit: it opens its (maxJsonDepth+1)-th nested object or array, or
 * its (maxJsonKeys+1)-th key (a `:` outside strings); undefined when it stays within both. One pass
 * that stops there, so a body far past a limit costs no more than one at it. Strings are skipped
 * whole; malformed text is left for JSON.parse to report.
 */
export function jsonPastLimits(
  text: string,
  limits: Pick<InputLimits, 'maxJsonDepth' | 'maxJsonKeys'>,
): { reason: 'nesting_too_deep' | 'too_many_keys'; offset: number } | undefined {
  // Nesting deeper than max needs more than max opening brackets, more keys as many colons.
  if (text.length <= Math.min(limits.maxJsonDepth, limits.maxJsonKeys)) return undefined;
  let depth = 0;
  let keys = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let from = i + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q === -1) return undefined;
        let backslashes = 0;
        for (let k = q - 1; k > i && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
        if (backslashes % 2 === 0) {
          i = q;
          break;
        }
        from = q + 1;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limits.maxJsonDepth) return { reason: 'nesting_too_deep', offset: i };
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COLON) {
      if (++keys > limits.maxJsonKeys) return { reason: 'too_many_keys', offset: i };
    }
  }
  return undefined;
}

/**
 * jsonPastLimits on bytes as they arrive (a request body read chunk by chunk): the twin server
 * feeds each chunk and, once a limit is passed, keeps no more of the body — a 300,000-key body is
 * refused having scanned 50,001 keys, with no copy of the rest and no decoding to a string.
 * Structural characters are ASCII, and no byte of a multi-byte UTF-8 character is ASCII, so bytes
 * scan as the text would (offsets are in bytes).
 */
export class JsonBytesScanner {
  private depth = 0;
  private keys = 0;
  private offset = 0;
  private inString = false;
  private escaped = false;
  /** Set once a limit is passed. */
  past: { reason: 'nesting_too_deep' | 'too_many_keys'; offset: number } | undefined;

  constructor(private readonly limits: Pick<InputLimits, 'maxJsonDepth' | 'maxJsonKeys'> = INPUT_LIMITS) {}

  /** Scan the next chunk; false once the body is past a limit (`past` says where). */
  feed(bytes: Uint8Array): boolean {
    if (this.past) return false;
    const { maxJsonDepth, maxJsonKeys } = this.limits;
    let { depth, keys, inString, escaped } = this;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++depth > maxJsonDepth) this.past = { reason: 'nesting_too_deep', offset: this.offset + i };
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
      else if (c === COLON && ++keys > maxJsonKeys) this.past = { reason: 'too_many_keys', offset: this.offset + i };
      if (this.past) return false;
    }
    Object.assign(this, { depth, keys, inString, escaped });
    this.offset += bytes.length;
    return true;
  }

  /** The refusal for a body past a limit. */
  refusal(part: InputPart = 'body'): InputRefusal | undefined {
    const p = this.past;
    if (!p) return undefined;
    return new InputRefusal(p.reason, part, p.reason === 'too_many_keys' ? this.limits.maxJsonKeys : this.limits.maxJsonDepth, undefined, p.offset);
  }
}

/** The offset where JSON text opens its (max+1)-th nested object or array, or -1 (jsonPastLimits). */
export function offsetPastJsonDepth(text: string, max: number): number {
  return jsonPastLimits(text, { maxJsonDepth: max, maxJsonKeys: Number.POSITIVE_INFINITY })?.offset ?? -1;
}

const SECURE_JSON = { protoAction: 'remove', constructorAction: 'remove' } as const;

/**
 * JSON.parse for request data: `__proto__` keys and `constructor` keys holding a `prototype` are
 * removed at any depth (secure-json-parse, which also sees `\u005f_proto__`-style escapes), and
 * nesting deeper than the limit or more keys than the limit are refused with an InputRefusal
 * before anything is parsed. Malformed text throws SyntaxError, as JSON.parse does.
 */
export function parseJson(
  text: string,
  part: InputPart = 'body',
  limits: Pick<InputLimits, 'maxJsonDepth' | 'maxJsonKeys'> = INPUT_LIMITS,
  /** The limits were checked already, on the bytes (JsonBytesScanner). */
  scanned = false,
): unknown {
  const past = scanned ? undefined : jsonPastLimits(text, limits);
  if (past) throw new InputRefusal(past.reason, part, past.reason === 'too_many_keys' ? limits.maxJsonKeys : limits.maxJsonDepth, undefined, past.offset);
  return secureJson.parse(text, null, SECURE_JSON);
}

// ---- prototype probe ---------------------------------------------------------------------------

/** The prototypes a pollution payload reaches (`x.__proto__`, `[].__proto__`, `x.constructor.prototype`). */
const WATCHED: readonly object[] = [Object.prototype, Array.prototype, Function.prototype, String.prototype];

function propertySnapshot(target: object): Map<PropertyKey, unknown[]> {
  const out = new Map<PropertyKey, unknown[]>();
  for (const key of Reflect.ownKeys(target)) {
    const d = Object.getOwnPropertyDescriptor(target, key)!;
    out.set(key, [d.value, d.get, d.set, d.writable, d.enumerable, d.configurable]);
  }
  return out;
}

const BASELINE = WATCHED.map(propertySnapshot);

/**
 * Whether the built-in prototypes still have exactly the own properties (and values) they had when
 * this module loaded, before any request was read. A twin reports it in its admin health answer.
 */
export function prototypesIntact(): boolean {
  return (
    WATCHED.every((target, i) => {
      const before = BASELINE[i]!;
      const now = propertySnapshot(target);
      if (now.size !== before.size) return false;
      for (const [key, values] of now) {
        const was = before.get(key);
        if (!was || values.some((v, j) => v !== was[j])) return false;
      }
      return true;
    }) && Object.getPrototypeOf(Object.prototype) === null
  );
}

/** The own keys the built-in prototypes gained since start (for a readable failure). */
export function prototypeAdditions(): string[] {
  return WATCHED.flatMap((target, i) => {
    const before = BASELINE[i]!;
    return Reflect.ownKeys(target)
      .filter((k) => !before.has(k))
      .map(String);
  });
}
