// Spec → compact pieces, shared by every provider's source: OpenAPI 3.0 schemas rewritten into the
// JSON Schema subset the runtime validator and the record synthesiser read (no prose, no examples,
// `nullable` as a `null` type), operation parameters and bodies resolved out of `components`.

import type { ResponseFacts } from '../generic/spec-types.js';

// biome-ignore lint/suspicious/noExplicitAny: provider specs of any shape, walked by this generator
export type Json = any;

/** Keywords kept from a schema; everything else (prose, examples, vendor extensions) is dropped. */
const KEEP = new Set([
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'format',
  'anyOf',
  'oneOf',
  'allOf',
  'additionalProperties',
  'maxLength',
  'minLength',
  'minimum',
  'maximum',
  'pattern',
  'default',
  '$ref',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'const',
  'maxProperties',
  'minProperties',
]);

export interface CompactOptions {
  /** Request side (parameters and bodies). */
  request?: boolean;
  /** Formats seen, so the runtime knows which ones to accept without checking. */
  formats?: Set<string>;
}

function patternCompiles(p: string): boolean {
  try {
    new RegExp(p, 'u');
    return true;
  } catch {
    return false;
  }
}

/** One schema node in the runtime's JSON Schema subset. */
export function compactSchema(node: Json, opts: CompactOptions = {}): Json {
  if (Array.isArray(node)) return node.map((n) => compactSchema(n, opts));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries<Json>(node)) {
    if (!KEEP.has(k)) continue;
    if (k === 'properties') {
      out.properties = {};
      for (const [name, sub] of Object.entries<Json>(v ?? {})) out.properties[name] = compactSchema(sub, opts);
    } else if (k === 'items' || k === 'additionalProperties') {
      out[k] = typeof v === 'object' ? compactSchema(v, opts) : v;
    } else if (k === 'anyOf' || k === 'oneOf' || k === 'allOf') {
      out[k] = (v as Json[]).map((n) => compactSchema(n, opts));
    } else if (k === 'pattern') {
      // Stripe writes route placeholders into URL patterns (`^/v1/tax/calculations/:id/line_items`).
      const p = typeof v === 'string' ? v.replace(/\/:\w+/g, '/[^/]+') : v;
      if (typeof p === 'string' && patternCompiles(p)) out.pattern = p;
    } else if (k === 'format') {
      out.format = v;
      opts.formats?.add(String(v));
    } else if (k === 'required') {
      if (Array.isArray(v) && v.length > 0) out.required = v;
    } else {
      out[k] = v;
    }
  }
  // OpenAPI 3.0 exclusive bounds are booleans next to minimum/maximum.
  if (node.exclusiveMinimum === true && typeof out.minimum === 'number') {
    out.exclusiveMinimum = out.minimum;
    delete out.minimum;
  }
  if (node.exclusiveMaximum === true && typeof out.maximum === 'number') {
    out.exclusiveMaximum = out.maximum;
    delete out.maximum;
  }
  // A oneOf whose branches overlap (common in these specs) would refuse valid values: anyOf says
  // what the documents mean.
  if (out.oneOf) {
    out.anyOf = out.anyOf ? [...out.anyOf, ...out.oneOf] : out.oneOf;
    delete out.oneOf;
  }
  if (node.nullable === true) {
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.type === undefined) return { anyOf: [{ type: 'null' }, out] };
  }
  return out;
}

/** Follow a local `$ref` inside the document (parameters, responses, request bodies). */
export function deref(doc: Json, node: Json): Json {
  let n = node;
  for (let guard = 0; n && typeof n === 'object' && typeof n.$ref === 'string' && guard < 10; guard++) {
    n = n.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((acc: Json, key: string) => acc?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return n;
}

export interface ParamPiece {
  name: string;
  in: 'path' | 'query';
  required?: true;
  schema: Json;
}

export interface BodyPiece {
  media: 'json' | 'form' | 'other';
  required?: true;
  schema?: Json;
}

/** The request side of an operation: path and query parameters, the body. */
export interface RequestPiece {
  params: ParamPiece[];
  body?: BodyPiece;
}

export function requestPiece(doc: Json, pathItem: Json, op: Json, opts: CompactOptions): RequestPiece {
  const params: ParamPiece[] = [];
  const seen = new Set<string>();
  // Operation parameters override path-level ones of the same name and place.
  for (const raw of [...(op.parameters ?? []), ...(pathItem.parameters ?? [])]) {
    const p = deref(doc, raw);
    if (!p || (p.in !== 'path' && p.in !== 'query')) continue;
    const key = `${p.in}:${p.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const piece: ParamPiece = { name: String(p.name), in: p.in, schema: compactSchema(p.schema ?? {}, { ...opts, request: true }) };
    if (p.required || p.in === 'path') piece.required = true;
    params.push(piece);
  }
  const out: RequestPiece = { params };
  const body = op.requestBody ? deref(doc, op.requestBody) : undefined;
  if (body?.content) {
    const entries = Object.entries<Json>(body.content);
    const json = entries.find(([m]) => /json/.test(m));
    const form = entries.find(([m]) => /x-www-form-urlencoded|multipart\/form-data/.test(m));
    const chosen = json ?? form ?? entries[0];
    if (chosen) {
      const media: BodyPiece['media'] = chosen === json ? 'json' : chosen === form ? 'form' : 'other';
      const piece: BodyPiece = { media };
      if (chosen[1]?.schema && media !== 'other') piece.schema = compactSchema(chosen[1].schema, { ...opts, request: true });
      if (body.required) piece.required = true;
      out.body = piece;
    }
  }
  return out;
}

export interface SuccessResponse {
  status: number;
  /** JSON schema of the body, when the answer is JSON. */
  schema?: Json;
  /** Media type when it is not JSON (`text/html`, `application/octet-stream`…). */
  media?: string;
}

/** The operation's first 2xx answer (GitHub's 201/204, Stripe's 200, Slack's 200). */
export function successResponse(doc: Json, op: Json, opts: CompactOptions): SuccessResponse {
  const codes = Object.keys(op.responses ?? {})
    .filter((c) => /^2\d\d$/.test(c))
    .sort();
  const code = codes[0];
  if (!code) return { status: 200 };
  const res = deref(doc, op.responses[code]);
  const content = Object.entries<Json>(res?.content ?? {});
  const json = content.find(([m]) => /json/.test(m));
  if (json) return { status: Number(code), schema: compactSchema(json[1]?.schema ?? {}, opts) };
  if (content[0]) return { status: Number(code), media: content[0][0] };
  return { status: Number(code) };
}

/** Component schema names a node refers to (directly or nested). */
export function refsOf(node: Json, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) for (const n of node) refsOf(n, into);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries<Json>(node)) {
      if (k === '$ref' && typeof v === 'string') {
        const m = /^#\/components\/schemas\/(.+)$/.exec(v);
        if (m) into.add(m[1]!.replace(/~1/g, '/').replace(/~0/g, '~'));
      } else refsOf(v, into);
    }
  }
  return into;
}

/** Resolve a schema's `$ref` against the components (one level, for facts only). */
export function resolveComponent(schemas: Record<string, Json>, node: Json): Json {
  let n = node;
  for (let guard = 0; n && typeof n.$ref === 'string' && guard < 10; guard++) {
    const m = /^#\/components\/schemas\/(.+)$/.exec(n.$ref);
    n = m ? schemas[m[1]!] : undefined;
  }
  return n;
}

export function refName(node: Json): string | undefined {
  const m = typeof node?.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(node.$ref) : null;
  return m ? m[1] : undefined;
}

/**
 * What the table says of an answer: an array, or an object whose array fields are its lists (a
 * page inside an object: SendGrid's `{result: [...]}`, Jira's `{startAt, total, values: [...]}`),
 * or a body that is not JSON.
 */
export function answerFacts(schemas: Record<string, Json>, schema: Json | undefined, media?: string): ResponseFacts {
  if (!schema) return media ? { kind: 'other', media } : { kind: 'none' };
  const resolved = resolveComponent(schemas, schema) ?? {};
  if (resolved.type === 'array') {
    const facts: ResponseFacts = { kind: 'array' };
    const ref = refName(resolved.items);
    if (ref) facts.ref = ref;
    return facts;
  }
  const facts: ResponseFacts = { kind: 'object' };
  const ref = refName(schema);
  if (ref) facts.ref = ref;
  const arrays = Object.entries<Json>(resolved.properties ?? {})
    .filter(([, p]) => resolveComponent(schemas, p)?.type === 'array')
    .map(([name]) => name);
  if (arrays.length) facts.lists = arrays;
  return facts;
}
