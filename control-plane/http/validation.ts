// The 422 contract: every schema failure (body, query, path) becomes the Pydantic v2 / FastAPI body
// of docs/decisions.md §2. One mapping, used by every route through the app's validator compiler.

import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { parseDateTimeInput, parseEmailInput, uuidFailureReason, type PydanticIssue } from './fields.js';

export interface ValidationEntry {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** Thrown by the validator; the error handler answers 422 `{detail: entries}`. */
export class RequestValidationError extends Error {
  readonly statusCode = 422;
  constructor(readonly entries: ValidationEntry[]) {
    super('Request validation failed');
  }
}

/** Map one zod issue to a Pydantic entry. */
export function toEntry(issue: z.core.$ZodIssue, location: string, root: unknown): ValidationEntry {
  const loc: (string | number)[] = [location, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
  const input = valueAt(root, issue.path as (string | number)[]);
  // FastAPI reports a missing query/path parameter with input null, a missing body field with its
  // enclosing object, and a missing body with loc ["body"] and input null.
  const missing = (): ValidationEntry => ({
    type: 'missing',
    loc,
    msg: 'Field required',
    input: location === 'body' ? (parentOf(root, issue.path as (string | number)[]) ?? null) : null,
  });
  // An absent field fails whatever its type (enum, literal, …) as `missing`.
  if (input === undefined && issue.code !== 'custom' && issue.code !== 'unrecognized_keys') return missing();
  switch (issue.code) {
    case 'custom': {
      const p = (issue.params as { pydantic?: PydanticIssue } | undefined)?.pydantic;
      if (!p) return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input, ctx: { error: issue.message } };
      if (p.type === 'missing') return missing();
      return { type: p.type, loc, msg: p.msg, input, ...(p.ctx ? { ctx: p.ctx } : {}) };
    }
    case 'invalid_type':
      if (input === undefined || (issue.path.length === 0 && input === null && location === 'body')) return missing();
      if (issue.expected === 'number' || issue.expected === 'int') {
        return { type: 'int_parsing', loc, msg: 'Input should be a valid integer, unable to parse string as an integer', input };
      }
      if (issue.expected === 'string') return { type: 'string_type', loc, msg: 'Input should be a valid string', input };
      if (issue.expected === 'object') {
        return { type: 'model_attributes_type', loc, msg: 'Input should be a valid dictionary or object to extract fields from', input };
      }
      return { type: `${issue.expected}_type`, loc, msg: `Input should be a valid ${issue.expected}`, input };
    case 'too_small':
      if (issue.origin === 'string') {
        const n = Number(issue.minimum);
        return { type: 'string_too_short', loc, msg: `String should have at least ${n} character${n === 1 ? '' : 's'}`, input, ctx: { min_length: n } };
      }
      return { type: 'greater_than_equal', loc, msg: `Input should be greater than or equal to ${issue.minimum}`, input, ctx: { ge: Number(issue.minimum) } };
    case 'too_big':
      if (issue.origin === 'string') {
        const n = Number(issue.maximum);
        return { type: 'string_too_long', loc, msg: `String should have at most ${n} character${n === 1 ? '' : 's'}`, input, ctx: { max_length: n } };
      }
      return { type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${issue.maximum}`, input, ctx: { le: Number(issue.maximum) } };
    case 'invalid_format': {
      // zod's own string formats (z.uuid(), z.guid(), z.email(), z.iso.datetime()) fail the
      // Pydantic way too, so areas that use them still answer the contract's entries.
      if (typeof input === 'string' && (issue.format === 'uuid' || issue.format === 'guid')) {
        const reason = uuidFailureReason(input);
        return { type: 'uuid_parsing', loc, msg: `Input should be a valid UUID, ${reason}`, input, ctx: { error: reason } };
      }
      if (typeof input === 'string' && issue.format === 'email') {
        const r = parseEmailInput(input);
        const reason = 'reason' in r ? r.reason : 'The email address is not valid.';
        return { type: 'value_error', loc, msg: `value is not a valid email address: ${reason}`, input, ctx: { reason } };
      }
      if (typeof input === 'string' && issue.format === 'regex' && 'pattern' in issue) {
        const pattern = String(issue.pattern);
        return { type: 'string_pattern_mismatch', loc, msg: `String should match pattern '${pattern}'`, input, ctx: { pattern } };
      }
      if (typeof input === 'string' && issue.format === 'datetime') {
        const r = parseDateTimeInput(input);
        if ('issue' in r) return { type: r.issue.type, loc, msg: r.issue.msg, input, ...(r.issue.ctx ? { ctx: r.issue.ctx } : {}) };
      }
      return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input, ctx: { error: issue.message } };
    }
    case 'unrecognized_keys':
      // zod reports all extra keys in one issue; Pydantic has one entry per key (expanded by the caller).
      return { type: 'extra_forbidden', loc, msg: 'Extra inputs are not permitted', input };
    case 'invalid_value': {
      const expected = issue.values.map((v) => `'${String(v)}'`);
      const text = expected.length > 1 ? `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}` : (expected[0] ?? '');
      return { type: 'enum', loc, msg: `Input should be ${text}`, input, ctx: { expected: text } };
    }
    default:
      return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input, ctx: { error: issue.message } };
  }
}

function valueAt(root: unknown, path: (string | number)[]): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

function parentOf(root: unknown, path: (string | number)[]): unknown {
  return path.length === 0 ? undefined : valueAt(root, path.slice(0, -1));
}

export function issuesToEntries(issues: z.core.$ZodIssue[], location: string, root: unknown): ValidationEntry[] {
  const out: ValidationEntry[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...(issue.path as (string | number)[]), key];
        out.push({ type: 'extra_forbidden', loc: [location, ...path], msg: 'Extra inputs are not permitted', input: valueAt(root, path) });
      }
      continue;
    }
    out.push(toEntry(issue, location, root));
  }
  return out;
}

/**
 * Validate path, query and body of a request against its route's zod schemas all at once, as
 * FastAPI does (entries in the order path, query, body), and replace each part with its parsed value.
 * Runs as the app's preValidation hook; Fastify's own per-part validator is then a pass-through.
 */
export function validateRequestParts(
  schema: { params?: unknown; querystring?: unknown; body?: unknown } | undefined,
  req: { params: unknown; query: unknown; body: unknown },
): void {
  if (!schema) return;
  const entries: ValidationEntry[] = [];
  const parts = [
    ['params', 'path', 'params'],
    ['querystring', 'query', 'query'],
    ['body', 'body', 'body'],
  ] as const;
  const parsed: Partial<Record<'params' | 'query' | 'body', unknown>> = {};
  for (const [schemaKey, location, reqKey] of parts) {
    const part = schema[schemaKey] as z.ZodType | undefined;
    if (!part || typeof (part as { safeParse?: unknown }).safeParse !== 'function') continue;
    const data = req[reqKey] === undefined ? null : req[reqKey];
    const result = part.safeParse(data);
    if (result.success) parsed[reqKey] = result.data;
    else entries.push(...issuesToEntries(result.error.issues, location, data));
  }
  if (entries.length > 0) throw new RequestValidationError(entries);
  for (const [key, value] of Object.entries(parsed)) (req as Record<string, unknown>)[key] = value;
}

/** Fastify validator compiler: a pass-through, since validateRequestParts already ran. */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = () => (data: unknown) => ({ value: data });
