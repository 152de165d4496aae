// Request input checked against the spec (ajv + ajv-formats, compiled per operation on its first
// call): path and query parameters, the body. Form and query values arrive as strings and are
// coerced in place to the types the spec names ("100" → 100), as the providers read them; JSON
// bodies are not coerced (GitHub refuses `"draft": "true"`). Unknown fields are dropped, not refused
// (the published specs trail the providers, and GitHub and Slack ignore unknown fields too). The
// first problem found is handed to the provider adapter, which words it as the provider does.

import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';
import type { SpecArtefacts } from './artefacts.js';
import type { OperationPiece } from './spec-types.js';

export interface InputProblem {
  where: 'path' | 'query' | 'body';
  /** Path of the field from the top of its input (`['metadata', 'order']`); `[]` for the whole input. */
  field: string[];
  kind: 'missing' | 'type' | 'enum' | 'format' | 'range' | 'length' | 'pattern' | 'invalid';
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

type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

interface Compiled {
  path?: Validate;
  query?: Validate;
  body?: Validate;
}

const require = createRequire(import.meta.url);

export class RequestValidator {
  private ajvCoerce: Ajv | undefined;
  private ajvStrict: Ajv | undefined;
  private readonly compiled = new Map<string, Compiled>();

  constructor(private readonly artefacts: SpecArtefacts) {}

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
          removeAdditional: true,
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
    return { ...(schema as object), components: { schemas } };
  }

  private compile(id: string, piece: OperationPiece): Compiled {
    let c = this.compiled.get(id);
    if (c) return c;
    const { coerce, strict } = this.instances();
    c = {};
    const paramSchema = (where: 'path' | 'query') => {
      const params = piece.request.params.filter((p) => p.in === where);
      if (!params.length) return undefined;
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const p of params) {
        properties[p.name] = p.schema;
        if (p.required) required.push(p.name);
      }
      return { type: 'object', properties, ...(required.length ? { required } : {}) };
    };
    const tryCompile = (ajv: Ajv, schema: unknown): Validate | undefined => {
      if (!schema) return undefined;
      try {
        return ajv.compile(this.withComponents(schema)) as Validate;
      } catch {
        return undefined; // a schema ajv cannot compile is not checked rather than refusing every call
      }
    };
    c.path = tryCompile(coerce, paramSchema('path'));
    c.query = tryCompile(coerce, paramSchema('query'));
    const body = piece.request.body;
    if (body?.schema && body.media !== 'other') c.body = tryCompile(body.media === 'json' ? strict : coerce, body.schema);
    this.compiled.set(id, c);
    return c;
  }

  /** The first problem with a request's input, or undefined. Coerces `input` in place. */
  check(id: string, piece: OperationPiece, input: RequestInput): InputProblem | undefined {
    const c = this.compile(id, piece);
    if (c.path && !c.path(input.path)) return problemOf('path', c.path.errors ?? [], input.path);
    if (c.query && !c.query(input.query)) return problemOf('query', c.query.errors ?? [], input.query);
    if (c.body) {
      const body = input.body ?? {};
      if (!c.body(body)) return problemOf('body', c.body.errors ?? [], body);
    }
    return undefined;
  }
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
    const deeper = errors.filter((e) => !branchy(e) && e.instancePath.length > last.instancePath.length);
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
