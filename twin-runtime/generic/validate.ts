// Request input checked against the spec (ajv + ajv-formats, compiled per operation on its first
// call): path and query parameters, the body. Form and query values arrive as strings and are
// coerced in place to the types the spec names ("100" → 100), as the providers read them; JSON
// bodies are not coerced (GitHub refuses `"draft": "true"`). What happens to a field the schema
// does not name is the twin's policy (`InputPolicy.unknown`): dropped (GitHub and Slack ignore
// unknown fields) or refused (Stripe answers `parameter_unknown`); fields a provider takes that its
// published spec lacks are added per operation (`InputPolicy.extra`). The first problem found is
// handed to the twin, which words it as the provider does.

import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';
import type { SpecArtefacts } from './artefacts.js';
import type { OperationPiece } from './spec-types.js';

export interface InputProblem {
  where: 'path' | 'query' | 'body';
  /** Path of the field from the top of its input (`['metadata', 'order']`); `[]` for the whole input. */
  field: string[];
  kind: 'missing' | 'unknown' | 'type' | 'enum' | 'format' | 'range' | 'length' | 'pattern' | 'invalid';
  /** The expected type (`integer`, `string`…) or format. */
  expected?: string;
  /** Allowed values of an enum. */
  allowed?: unknown[];
  /** The value given, when there is one. */
  value?: unknown;
}

export interface RequestInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** Coerce body strings (form bodies); JSON bodies keep their types. */
  coerceBody: boolean;
}

/** A twin's one rule for input its provider's spec does not describe (hand-written and generic routes alike). */
export interface InputPolicy {
  /**
   * A field no schema names: `drop` removes it silently (GitHub, Slack), `refuse` makes it a
   * problem of kind `unknown` (Stripe's `Received unknown parameter`). Under `refuse` an object
   * schema that lists its properties is closed even where the spec leaves it open.
   */
  unknown: 'drop' | 'refuse';
  /**
   * Parameters the provider takes that its published spec lacks, by operation id: JSON-schema
   * properties added to the body (form or JSON) or to the query of that operation. A property the
   * spec already has gains the nested properties given (`replace: true` replaces it whole).
   */
  extra?: Record<string, { body?: Record<string, unknown>; query?: Record<string, unknown> }>;
}

const DROP_UNKNOWN: InputPolicy = { unknown: 'drop' };

type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

/** The keywords of a JSON schema the checker and the spec-gap merge look at. */
interface SchemaNode {
  properties?: Record<string, unknown>;
  anyOf?: unknown[];
  $ref?: string;
  /** A spec gap's property that replaces the spec's whole instead of adding to it. */
  replace?: boolean;
  [keyword: string]: unknown;
}

/** Ajv's errors for one input, or null when it is valid (and coerced in place). */
type Checker = (data: unknown) => AjvError[] | null;

interface Compiled {
  path?: Checker;
  query?: Checker;
  body?: Checker;
}

const require = createRequire(import.meta.url);

export class RequestValidator {
  private ajvCoerce: Ajv | undefined;
  private ajvStrict: Ajv | undefined;
  private readonly compiled = new Map<string, Compiled>();

  constructor(
    private readonly artefacts: SpecArtefacts,
    private readonly policy: InputPolicy = DROP_UNKNOWN,
  ) {}

  /** Ajv is loaded on the first check, not at twin start. */
  private instances(): { coerce: Ajv; strict: Ajv } {
    if (!this.ajvCoerce) {
      const AjvModule = require('ajv');
      const Ajv = AjvModule.default ?? AjvModule;
      const formatsModule = require('ajv-formats');
      const addFormats = formatsModule.default ?? formatsModule;
      const make = (coerce: boolean): Ajv => {
        const ajv: Ajv = new Ajv({
          strict: false,
          allErrors: false,
          coerceTypes: coerce ? 'array' : false,
          removeAdditional: this.policy.unknown === 'drop',
          validateSchema: false,
          unicodeRegExp: true,
        });
        addFormats(ajv);
        for (const f of this.artefacts.table.formats) if (!ajv.formats[f]) ajv.addFormat(f, true);
        return ajv;
      };
      this.ajvCoerce = make(true);
      this.ajvStrict = make(false);
    }
    return { coerce: this.ajvCoerce, strict: this.ajvStrict! };
  }

  /** Component schemas a schema needs, embedded so its `#/components/schemas/…` refs resolve. */
  private withComponents(schema: unknown): Record<string, unknown> {
    const schemas: Record<string, unknown> = {};
    const queue = [schema];
    while (queue.length) {
      const node = queue.pop();
      const walk = (n: unknown): void => {
        if (Array.isArray(n)) n.forEach(walk);
        else if (n && typeof n === 'object') {
          for (const [k, v] of Object.entries(n)) {
            if (k === '$ref' && typeof v === 'string') {
              const m = /^#\/components\/schemas\/(.+)$/.exec(v);
              if (m && !(m[1]! in schemas)) {
                const target = this.artefacts.schema(m[1]!);
                schemas[m[1]!] = target ?? {};
                queue.push(target);
              }
            } else walk(v);
          }
        }
      };
      walk(node);
    }
    const whole = { ...(schema as object), components: { schemas } };
    return this.policy.unknown === 'refuse' ? (closeObjects(whole) as Record<string, unknown>) : whole;
  }

  private compile(id: string, piece: OperationPiece): Compiled {
    let c = this.compiled.get(id);
    if (c) return c;
    const { coerce, strict } = this.instances();
    c = {};
    const paramSchema = (where: 'path' | 'query') => {
      const params = piece.request.params.filter((p) => p.in === where);
      const extra = where === 'query' ? this.policy.extra?.[id]?.query : undefined;
      if (!params.length && !extra) return undefined;
      const properties: Record<string, unknown> = { ...extra };
      const required: string[] = [];
      for (const p of params) {
        properties[p.name] = p.schema;
        if (p.required) required.push(p.name);
      }
      return { type: 'object', properties, ...(required.length ? { required } : {}) };
    };
    c.path = this.checker(coerce, paramSchema('path'));
    c.query = this.checker(coerce, paramSchema('query'));
    const body = piece.request.body;
    const extraBody = this.policy.extra?.[id]?.body;
    const bodySchema = extraBody ? withExtra(body?.schema, extraBody) : body?.schema;
    if (bodySchema && body?.media !== 'other') c.body = this.checker(body?.media === 'json' ? strict : coerce, bodySchema);
    this.compiled.set(id, c);
    return c;
  }

  /**
   * A checker for one input schema. An object schema that lists its properties is checked field
   * by field, each field's schema compiled on its first use: a provider's request schema can
   * generate most of a megabyte of ajv code (Stripe's payment intent create: 740 kB, ~1 s of CPU),
   * while a request names a handful of its fields.
   */
  private checker(ajv: Ajv, schema: unknown): Checker | undefined {
    if (!schema) return undefined;
    const s = schema as SchemaNode;
    const splittable =
      s.properties &&
      typeof s.properties === 'object' &&
      (s.type === undefined || s.type === 'object') &&
      !s.anyOf &&
      !s.oneOf &&
      !s.allOf &&
      !s.$ref &&
      !s.not &&
      !s.patternProperties &&
      !s.if;
    if (!splittable) return this.compileWhole(ajv, schema);
    const properties = s.properties as Record<string, unknown>;
    const required: string[] = Array.isArray(s.required) ? s.required : [];
    const closed = this.policy.unknown === 'refuse' || s.additionalProperties === false;
    const others = s.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    const fields = new Map<string, Checker | undefined>();
    // One checker per named field; `null` names the checker of fields the schema does not list.
    const field = (name: string | null): Checker | undefined => {
      const key = name ?? '';
      if (!fields.has(key)) {
        const one = name === null ? { type: 'object', additionalProperties: others } : { type: 'object', properties: { [name]: properties[name] } };
        fields.set(key, this.compileWhole(ajv, one));
      }
      return fields.get(key);
    };
    return (data) => {
      if (!data || typeof data !== 'object' || Array.isArray(data)) return [{ keyword: 'type', instancePath: '', params: { type: 'object' } }];
      const input = data as Record<string, unknown>;
      for (const name of required) if (input[name] === undefined) return [{ keyword: 'required', instancePath: '', params: { missingProperty: name } }];
      for (const name of Object.keys(input)) {
        const known = Object.hasOwn(properties, name);
        if (!known && !others) {
          if (this.policy.unknown === 'refuse') return [{ keyword: 'additionalProperties', instancePath: '', params: { additionalProperty: name } }];
          if (closed) delete input[name];
          continue;
        }
        const check = field(known ? name : null);
        if (!check) continue;
        // Checked inside a one-field object so ajv can coerce the value in place ("100" → 100).
        const one = { [name]: input[name] };
        const errors = check(one);
        if (errors) return errors;
        input[name] = one[name];
      }
      return null;
    };
  }

  private compileWhole(ajv: Ajv, schema: unknown): Checker | undefined {
    let v: Validate;
    try {
      v = ajv.compile(this.withComponents(schema)) as Validate;
    } catch {
      return undefined; // a schema ajv cannot compile is not checked rather than refusing every call
    }
    return (data) => (v(data) ? null : (v.errors ?? []));
  }

  /** The first problem with a request's input, or undefined. Coerces `input` in place. */
  check(id: string, piece: OperationPiece, input: RequestInput): InputProblem | undefined {
    const c = this.compile(id, piece);
    let errors: AjvError[] | null;
    if (c.path && (errors = c.path(input.path))) return problemOf('path', errors, input.path);
    if (c.query && (errors = c.query(input.query))) return problemOf('query', errors, input.query);
    if (c.body) {
      const body = input.body ?? {};
      if ((errors = c.body(body))) return problemOf('body', errors, body);
    }
    return undefined;
  }
}

/**
 * A body schema with more properties: an extra property the schema already has adds its own
 * nested properties to the schema's (deeply), else it joins at the top.
 */
function withExtra(schema: unknown, extra: Record<string, unknown>): unknown {
  const s = (schema ?? { type: 'object', properties: {} }) as SchemaNode;
  if (s.$ref || !s.properties) return { allOf: [s], properties: extra };
  return addProperties(s, extra);
}

function addProperties(s: SchemaNode, extra: Record<string, unknown>): SchemaNode {
  const properties: Record<string, unknown> = { ...s.properties };
  for (const [k, v] of Object.entries(extra)) {
    const have = properties[k] as SchemaNode | undefined;
    const add = v as SchemaNode | undefined;
    const branch = have?.properties ? have : (have?.anyOf?.find((b) => (b as SchemaNode | undefined)?.properties) as SchemaNode | undefined);
    if (have && branch && add?.properties && !add.replace) {
      const merged = addProperties(branch, add.properties);
      properties[k] = branch === have ? merged : { ...have, anyOf: have.anyOf?.map((b) => (b === branch ? merged : b)) };
    } else {
      const { replace: _replace, ...plain } = add ?? {};
      properties[k] = plain;
    }
  }
  return { ...s, properties };
}

/**
 * A copy of a schema whose object schemas that list properties refuse others
 * (`additionalProperties: false` where the spec says nothing), for the `refuse` policy.
 */
function closeObjects(node: unknown): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const s = node as Record<string, unknown>;
  const out: Record<string, unknown> = { ...s };
  const each = (v: unknown) => Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, closeObjects(x)]));
  if (s.properties && typeof s.properties === 'object') out.properties = each(s.properties);
  if (s.components && typeof s.components === 'object') {
    const c = s.components as Record<string, unknown>;
    out.components = { ...c, schemas: each(c.schemas ?? {}) };
  }
  for (const k of ['items', 'additionalProperties', 'not']) if (s[k] && typeof s[k] === 'object') out[k] = closeObjects(s[k]);
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k])) out[k] = (s[k] as unknown[]).map(closeObjects);
  if (s.properties && s.additionalProperties === undefined && !s.allOf && !s.patternProperties) out.additionalProperties = false;
  return out;
}

function pointer(path: string): string[] {
  return path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(data: unknown, field: string[]): unknown {
  let v: unknown = data;
  for (const k of field) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** The most telling of ajv's errors, as an InputProblem. */
function problemOf(where: InputProblem['where'], errors: AjvError[], data: unknown): InputProblem {
  const branchy = (e: AjvError) => e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if';
  const last = errors[errors.length - 1];
  let chosen = last;
  if (last && branchy(last)) {
    // Prefer a problem inside the value (a missing nested field) over "matches no branch".
    // An unknown or missing field inside a branch counts too (an object given where the branch
    // wants an object): only a branch's type or enum mismatch at the same place says nothing.
    const inside = (e: AjvError) =>
      e.instancePath.length > last.instancePath.length ||
      (e.instancePath === last.instancePath && (e.keyword === 'additionalProperties' || e.keyword === 'required'));
    const deeper = errors.filter((e) => !branchy(e) && inside(e));
    deeper.sort((a, b) => b.instancePath.length - a.instancePath.length);
    if (deeper[0]) chosen = deeper[0];
  } else {
    chosen = errors.find((e) => !branchy(e)) ?? last;
  }
  if (!chosen) return { where, field: [], kind: 'invalid' };
  const field = pointer(chosen.instancePath);
  const p = chosen.params;
  switch (chosen.keyword) {
    case 'required':
      return { where, field: [...field, String(p.missingProperty)], kind: 'missing' };
    case 'additionalProperties':
      return { where, field: [...field, String(p.additionalProperty)], kind: 'unknown' };
    case 'type':
      return { where, field, kind: 'type', expected: String(p.type), value: valueAt(data, field) };
    case 'enum':
      return { where, field, kind: 'enum', allowed: p.allowedValues as unknown[] | undefined, value: valueAt(data, field) };
    case 'format':
      return { where, field, kind: 'format', expected: String(p.format), value: valueAt(data, field) };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'multipleOf':
      return { where, field, kind: 'range', value: valueAt(data, field) };
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return { where, field, kind: 'length', value: valueAt(data, field) };
    case 'pattern':
      return { where, field, kind: 'pattern', value: valueAt(data, field) };
    default:
      return { where, field, kind: 'invalid', value: valueAt(data, field) };
  }
}
