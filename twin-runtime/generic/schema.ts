// Schemas at run time: resolving `$ref`s through the lazily read artefacts, building a record a
// response schema describes (every required field, in the type and format the schema names, with
// the provider's own values where its adapter knows them), and merging request fields into a record
// without letting `__proto__`/`constructor`/`prototype` through.

import type { SpecArtefacts } from './artefacts.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema documents from the compiled specs, walked by keyword
export type Schema = Record<string, any>;

/** Keys never copied from input into a record (prototype pollution). */
export const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export class SchemaResolver {
  constructor(private readonly artefacts: SpecArtefacts) {}

  /** The schema a `$ref` names, followed until a schema with content. */
  resolve(node: Schema | undefined): Schema {
    let n: Schema | undefined = node;
    for (let guard = 0; n && typeof n.$ref === 'string' && guard < 20; guard++) n = this.artefacts.schema(refNameOf(n)!) as Schema;
    return n ?? {};
  }

  /** A schema with its `allOf` parts folded into one object schema (properties and required). */
  flatten(node: Schema | undefined): Schema {
    const s = this.resolve(node);
    if (!Array.isArray(s.allOf)) return s;
    const out: Schema = { ...s, properties: { ...(s.properties ?? {}) }, required: [...(s.required ?? [])] };
    delete out.allOf;
    for (const part of s.allOf) {
      const p = this.flatten(part);
      Object.assign(out.properties, p.properties ?? {});
      for (const r of p.required ?? []) if (!out.required.includes(r)) out.required.push(r);
      if (!out.type && p.type) out.type = p.type;
    }
    return out;
  }

  /** The object schema a value of this schema would have (the non-null branch of an `anyOf`). */
  objectSchema(node: Schema | undefined): Schema | undefined {
    const s = this.flatten(node);
    if (s.properties || typeOf(s) === 'object') return s;
    for (const b of s.anyOf ?? []) {
      const o = this.objectSchema(b);
      if (o) return o;
    }
    return undefined;
  }
}

export function refNameOf(node: Schema | undefined): string | undefined {
  const m = typeof node?.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(node.$ref) : null;
  return m ? m[1] : undefined;
}

/** The schema's main type (`['string','null']` → `string`). */
export function typeOf(s: Schema): string | undefined {
  if (Array.isArray(s.type)) return s.type.find((t: string) => t !== 'null');
  return s.type;
}

export function isNullable(s: Schema): boolean {
  if (Array.isArray(s.type) && s.type.includes('null')) return true;
  if (Array.isArray(s.enum) && s.enum.includes(null)) return true;
  return Array.isArray(s.anyOf) && s.anyOf.some((b: Schema) => b.type === 'null');
}

/** What the adapter is asked when a value is built: the field, its schema and where it sits. */
export interface FillField {
  /** Property name (`''` at the top). */
  name: string;
  /** Path of property names from the top (`['author', 'login']`). */
  path: string[];
  schema: Schema;
  /** Component name the schema came from, when it was a `$ref` (`simple-user`). */
  ref?: string;
}

/** A `fill` answer of `SKIP` leaves an optional field out. */
export const SKIP = Symbol('skip');

export interface SynthesisOptions {
  /** The provider's value for a field, or undefined to build it from the schema. */
  fill?(field: FillField): unknown;
  /** Include optional properties too (Stripe answers carry every field). */
  optional?: boolean;
  /** Deepest nesting built before nullable fields become null and others minimal. */
  maxDepth?: number;
}

/** Build a value a schema describes. */
export function synthesize(resolver: SchemaResolver, node: Schema | undefined, opts: SynthesisOptions = {}): unknown {
  return build(resolver, node ?? {}, opts, '', [], [], opts.maxDepth ?? 6);
}

function build(r: SchemaResolver, node: Schema, opts: SynthesisOptions, name: string, path: string[], refs: string[], depth: number): unknown {
  const ref = refNameOf(node) ?? undefined;
  const s = r.flatten(node);
  const provided = opts.fill?.({ name, path, schema: s, ref });
  if (provided !== undefined) return provided;
  const nullable = isNullable(s);
  // A schema that contains itself, or nesting past the limit: null where allowed, else the least value.
  const cyclic = ref !== undefined && refs.includes(ref);
  if ((cyclic || depth <= 0) && nullable) return null;
  const nextRefs = ref ? [...refs, ref] : refs;
  // A default the schema's own format refuses (GitHub's `"format": "uri", "default": ""`) is skipped.
  if (s.default !== undefined && !(s.default === '' && NON_EMPTY_FORMATS.has(s.format))) return structuredClone(s.default);
  const type = typeOf(s);
  // A nullable field starts out null (what a new object has before anything sets it).
  if (nullable && path.length > 0 && type !== 'array' && type !== 'boolean') return null;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum.find((v: unknown) => v !== null) ?? null;
  if (Array.isArray(s.anyOf) && !s.type && !s.properties) {
    const branch = s.anyOf.find((b: Schema) => b.type !== 'null');
    return branch ? build(r, branch, opts, name, path, nextRefs, depth) : null;
  }
  switch (type) {
    case 'string':
      return stringFor(s);
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 0;
    case 'boolean':
      return false;
    case 'array': {
      if (!s.minItems) return [];
      return Array.from({ length: s.minItems }, () => build(r, s.items ?? {}, opts, name, path, nextRefs, depth - 1));
    }
    default: {
      if (!s.properties && type !== 'object') return s.anyOf ? null : {};
      const out: Record<string, unknown> = {};
      if (cyclic || depth <= 0) return out;
      const required = new Set<string>(s.required ?? []);
      for (const [key, sub] of Object.entries<Schema>(s.properties ?? {})) {
        if (UNSAFE_KEYS.has(key)) continue;
        if (!required.has(key) && !opts.optional) continue;
        const v = build(r, sub, opts, key, [...path, key], nextRefs, depth - 1);
        if (v !== SKIP) out[key] = v;
      }
      return out;
    }
  }
}

/**
 * The least string a simple pattern admits (`^[UW][A-Z0-9]{2,}$` → `UAA`): anchored sequences of
 * literals and character classes with quantifiers. Undefined for anything else.
 */
export function sampleForPattern(pattern: string): string | undefined {
  const m = /^\^(.*)\$$/.exec(pattern);
  if (!m) return undefined;
  const body = m[1]!;
  let out = '';
  let i = 0;
  while (i < body.length) {
    let atom: string;
    const c = body[i]!;
    if (c === '[') {
      const end = body.indexOf(']', i);
      if (end === -1) return undefined;
      const cls = body.slice(i + 1, end);
      if (cls.startsWith('^')) return undefined;
      atom = cls[0] === '\\' ? (cls[1] ?? '') : (cls[0] ?? '');
      i = end + 1;
    } else if (c === '\\') {
      const e = body[i + 1] ?? '';
      atom = e === 'd' ? '0' : e === 'w' ? 'a' : /[.\-/_:]/.test(e) ? e : '';
      if (!atom) return undefined;
      i += 2;
    } else if (/[A-Za-z0-9_\-.:/ ]/.test(c) && c !== '.') {
      atom = c;
      i++;
    } else return undefined;
    let count = 1;
    const q = /^(?:\{(\d+)(?:,(\d*))?\}|([+*?]))/.exec(body.slice(i));
    if (q) {
      count = q[3] === '+' ? 1 : q[3] === '*' || q[3] === '?' ? 0 : Number(q[1]);
      i += q[0].length;
    }
    out += atom.repeat(count);
  }
  try {
    return new RegExp(pattern, 'u').test(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

/** What a built URL field holds when nothing gives it a value (never answered as a record's own URL). */
export const PLACEHOLDER_URL = 'https://example.com/';

function stringFor(s: Schema): string {
  if (typeof s.pattern === 'string') {
    const sample = sampleForPattern(s.pattern);
    if (sample !== undefined) return sample;
  }
  switch (s.format) {
    case 'date-time':
      return '1970-01-01T00:00:00Z';
    case 'date':
      return '1970-01-01';
    case 'uri':
    case 'url':
      return PLACEHOLDER_URL;
    case 'email':
      return 'user@example.com';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    case 'ipv4':
      return '127.0.0.1';
    default:
      return typeof s.minLength === 'number' && s.minLength > 0 ? 'x'.repeat(s.minLength) : '';
  }
}

/** Formats an empty string does not satisfy (a field keeps its built value rather than take ''). */
const NON_EMPTY_FORMATS = new Set(['uri', 'url', 'date-time', 'date', 'email', 'uuid', 'ipv4', 'ipv6', 'hostname']);

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Whether a value can stand where a schema is (its top-level type; any branch of an anyOf). */
function fits(r: SchemaResolver, s: Schema, v: unknown): boolean {
  if (Array.isArray(s.anyOf) && !s.type) return s.anyOf.some((b: Schema) => fits(r, r.flatten(b), v));
  const types: string[] = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => e === v)) return false;
  if (!types.length) return true;
  const t = jsonType(v);
  if (!types.some((x) => x === t || (x === 'number' && t === 'integer'))) return false;
  if (t === 'array' && s.items) {
    const items = r.flatten(s.items);
    return (v as unknown[]).every((x) => fits(r, items, x));
  }
  return true;
}

/**
 * A request value in the type a response field has (`"100"` → 100 for an integer field), or
 * undefined when it cannot stand there (the field keeps its built value).
 */
export function coerceTo(r: SchemaResolver, node: Schema | undefined, value: unknown): unknown {
  const s = r.flatten(node);
  if (value === '' && isNullable(s)) return null;
  if (value === '' && NON_EMPTY_FORMATS.has(s.format)) return undefined;
  const type = typeOf(s) ?? (Array.isArray(s.anyOf) ? typeOf(r.flatten(s.anyOf.find((b: Schema) => b.type !== 'null') ?? {})) : undefined);
  let out: unknown = value;
  if (typeof value === 'string') {
    if ((type === 'integer' || type === 'number') && value.trim() !== '' && Number.isFinite(Number(value))) out = Number(value);
    else if (type === 'boolean' && (value === 'true' || value === 'false')) out = value === 'true';
  } else if (Array.isArray(value)) {
    const items = s.items ?? (Array.isArray(s.anyOf) ? r.flatten(s.anyOf.find((b: Schema) => typeOf(r.flatten(b)) === 'array') ?? {}).items : undefined);
    out = value.map((v) => coerceTo(r, items, v)).filter((v) => v !== undefined);
  } else out = safeCopy(value);
  return fits(r, s, out) ? out : undefined;
}

/** A stored object a string names, for a field whose schema is that object (not its id). */
export type ReferenceLookup = (objectSchema: Schema, id: string) => unknown;

export function mergeInput(
  r: SchemaResolver,
  schema: Schema | undefined,
  target: Record<string, unknown>,
  input: Record<string, unknown>,
  lookup?: ReferenceLookup,
): void {
  const s = schema ? r.objectSchema(schema) : undefined;
  const props: Record<string, Schema> | undefined = s?.properties;
  for (const [key, value] of Object.entries(input)) {
    if (UNSAFE_KEYS.has(key) || value === undefined) continue;
    const sub = props ? props[key] : undefined;
    if (props && sub === undefined) {
      // A free-form map (`additionalProperties`) takes any key.
      if (!s?.additionalProperties || s.properties) continue;
    }
    const subSchema = sub ?? (isPlainObject(s?.additionalProperties) ? s!.additionalProperties : undefined);
    const objSchema = subSchema ? r.objectSchema(subSchema) : undefined;
    if (isPlainObject(value) && (objSchema || !props)) {
      const current = isPlainObject(target[key]) ? (target[key] as Record<string, unknown>) : {};
      const next: Record<string, unknown> = { ...current };
      if (objSchema && !objSchema.properties && objSchema.additionalProperties) {
        // A free-form map: keys as given, "" removes one.
        for (const [k, v] of Object.entries(value)) {
          if (UNSAFE_KEYS.has(k)) continue;
          if (v === '' || v === null) delete next[k];
          else {
            const c = coerceTo(r, isPlainObject(objSchema.additionalProperties) ? objSchema.additionalProperties : undefined, v);
            if (c !== undefined) next[k] = c;
          }
        }
      } else mergeInput(r, objSchema, next, value, lookup);
      target[key] = next;
    } else if (typeof value === 'string' && objSchema?.properties && lookup && !admitsString(r, subSchema)) {
      // An id given for a field that holds the object itself (a promotion code's `coupon`).
      const found = lookup(objSchema, value);
      target[key] = found !== undefined ? found : value;
    } else if (subSchema) {
      const c = coerceTo(r, subSchema, value);
      if (c !== undefined) target[key] = c;
    } else {
      target[key] = safeCopy(value);
    }
  }
}

function admitsString(r: SchemaResolver, node: Schema | undefined): boolean {
  const s = r.flatten(node);
  if (typeOf(s) === 'string') return true;
  return Array.isArray(s.anyOf) && s.anyOf.some((b: Schema) => admitsString(r, b));
}

/** A JSON value copied without unsafe keys. */
export function safeCopy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(safeCopy);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!UNSAFE_KEYS.has(k)) out[k] = safeCopy(x);
    return out;
  }
  return v;
}
