// A JSON value valid against a JSON Schema, drawn from a deterministic source: the arguments of an
// unscripted tool call and the answer to a structured-output request (`json_schema` formats).
// Covers what the providers accept in tool and output schemas: type (or a list of types), enum,
// const, properties/required, items, anyOf/oneOf/allOf, $ref into $defs/definitions, numeric and
// length bounds, and the common string formats.

import type { DeterministicSource } from './determinism.js';

type Schema = Record<string, unknown>;

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
const MAX_DEPTH = 12;

function isSchema(v: unknown): v is Schema {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function resolveRef(root: Schema, ref: string): Schema {
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (ref === '#') return root;
  if (!m) return {};
  const defs = root[m[1]!];
  if (!isSchema(defs)) return {};
  const target = Object.hasOwn(defs, m[2]!) ? defs[m[2]!] : undefined;
  return isSchema(target) ? target : {};
}

function stringFor(schema: Schema, rng: DeterministicSource, name: string): string {
  switch (schema.format) {
    case 'date-time':
      return new Date(Date.UTC(2025, rng.int(0, 11), rng.int(1, 28), rng.int(0, 23), rng.int(0, 59))).toISOString();
    case 'date':
      return new Date(Date.UTC(2025, rng.int(0, 11), rng.int(1, 28))).toISOString().slice(0, 10);
    case 'time':
      return `${String(rng.int(0, 23)).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}:00Z`;
    case 'email':
      return `${rng.pick(WORDS)}@example.com`;
    case 'uri':
    case 'url':
      return `https://example.com/${rng.pick(WORDS)}`;
    case 'uuid': {
      const hex = Array.from({ length: 32 }, () => (rng.uint32() % 16).toString(16)).join('');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
    }
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  let s = name ? `${name} ${rng.pick(WORDS)}` : rng.pick(WORDS);
  while (s.length < min) s += ` ${rng.pick(WORDS)}`;
  if (s.length > max) s = s.slice(0, max);
  return s;
}

function numberFor(schema: Schema, rng: DeterministicSource, integer: boolean): number {
  let lo = typeof schema.minimum === 'number' ? schema.minimum : 0;
  let hi = typeof schema.maximum === 'number' ? schema.maximum : lo + 100;
  if (typeof schema.exclusiveMinimum === 'number') lo = schema.exclusiveMinimum + (integer ? 1 : 0.5);
  if (typeof schema.exclusiveMaximum === 'number') hi = schema.exclusiveMaximum - (integer ? 1 : 0.5);
  if (hi < lo) hi = lo;
  if (integer) return Math.ceil(lo) + (rng.uint32() % (Math.floor(hi) - Math.ceil(lo) + 1));
  return Math.round((lo + rng.unit() * (hi - lo)) * 100) / 100;
}

function instance(schema: Schema, root: Schema, rng: DeterministicSource, depth: number, name: string): unknown {
  if (depth > MAX_DEPTH) return null;
  if (typeof schema.$ref === 'string') return instance(resolveRef(root, schema.$ref), root, rng, depth + 1, name);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return rng.pick(schema.enum);
  const alternatives = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : []).filter(isSchema);
  if (alternatives.length > 0) {
    // Prefer a non-null alternative: `anyOf: [{type: 'string'}, {type: 'null'}]` reads better filled in.
    const filled = alternatives.filter((a) => a.type !== 'null');
    return instance((filled.length > 0 ? filled : alternatives)[0]!, root, rng, depth + 1, name);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const merged: Schema = {};
    for (const part of schema.allOf.filter(isSchema)) {
      const r = typeof part.$ref === 'string' ? resolveRef(root, part.$ref) : part;
      for (const [k, v] of Object.entries(r)) {
        if (k === 'properties' && isSchema(merged.properties) && isSchema(v)) merged.properties = { ...merged.properties, ...v };
        else if (k === 'required' && Array.isArray(merged.required) && Array.isArray(v)) merged.required = [...merged.required, ...v];
        else merged[k] = v;
      }
    }
    return instance(merged, root, rng, depth + 1, name);
  }
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0];
  if (type === undefined) type = isSchema(schema.properties) ? 'object' : schema.items ? 'array' : 'string';
  switch (type) {
    case 'string':
      return stringFor(schema, rng, name);
    case 'integer':
      return numberFor(schema, rng, true);
    case 'number':
      return numberFor(schema, rng, false);
    case 'boolean':
      return rng.uint32() % 2 === 0;
    case 'null':
      return null;
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 1;
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : Math.max(min, 3);
      const n = Math.min(Math.max(min, rng.int(min, Math.max(min, Math.min(max, min + 2)))), max);
      const items = isSchema(schema.items) ? schema.items : {};
      return Array.from({ length: n }, () => instance(items, root, rng, depth + 1, name));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = isSchema(schema.properties) ? schema.properties : {};
      for (const key of Object.keys(props)) {
        const sub = props[key];
        if (!isSchema(sub)) continue;
        // Own property definition, so a property named __proto__ is a plain key of the answer.
        Object.defineProperty(out, key, { value: instance(sub, root, rng, depth + 1, key), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    default:
      return null;
  }
}

/** A value valid against `schema` (the root for `$ref`s), the same for the same source state. */
export function schemaInstance(schema: unknown, rng: DeterministicSource): unknown {
  const root = isSchema(schema) ? schema : {};
  return instance(root, root, rng, 0, '');
}
