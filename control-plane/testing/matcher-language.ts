// The matcher language, version 1: the stored JSON form of a test's assertions. Every client and
// tool reads this same form; docs/matchers.md is its reference. This file holds the types, the
// structural validation (zod) and the normalisation every stored assertion goes through.

import { z } from 'zod';
import { isForbiddenKey } from '../../twin-runtime/safe-input.js';

export const MATCHER_VERSION = 1;

export const OPERATOR_NAMES = [
  'eq',
  'ne',
  'one_of',
  'contains',
  'matches',
  'present',
  'absent',
  'gt',
  'gte',
  'lt',
  'lte',
  'json_subset',
  'size',
  'includes',
  'all_of',
  'any_of',
  'not',
] as const;
export type OperatorName = (typeof OPERATOR_NAMES)[number];

/** `{var: name}`: a value captured by an earlier sequence step. */
export interface VarRef {
  var: string;
}

/**
 * An operator object (one or more operator keys, all of which must hold) or a bare value, which
 * means `eq`. Operands may be `{var: name}` where a value is expected.
 */
export type Operator = { [K in OperatorName]?: unknown } | unknown;

export const ACTORS = ['agent', 'seed', 'lifecycle'] as const;
export type Actor = (typeof ACTORS)[number];

export interface ResponseMatcher {
  /** A number, a list of numbers, a class like `2xx`, or an operator over the number. */
  status?: unknown;
  body?: Record<string, Operator>;
  headers?: Record<string, Operator>;
}

export interface Matcher {
  twin?: Operator;
  method?: Operator;
  /** Exact path or template (`/v1/customers/{id}`), a list of those (any of), or an operator object. */
  path?: unknown;
  /** Operators over the `{name}` segments the path template bound. */
  params?: Record<string, Operator>;
  query?: Record<string, Operator>;
  headers?: Record<string, Operator>;
  /** JSON Pointer → operator; form bodies are decoded into the same tree as JSON bodies. */
  body?: Record<string, Operator>;
  response?: ResponseMatcher;
  /** Who made the request: `agent` (default), `seed`, `lifecycle`, a list of them, or `any`. */
  actor?: Actor | 'any' | Actor[];
}

export interface CountBounds {
  at_least?: number;
  at_most?: number;
  exactly?: number;
  between?: [number, number];
}

export interface SequenceStep {
  says?: string;
  match: Matcher;
  /** Variable name → source (`response.body/<pointer>`, `body/<pointer>`, `query.<k>`, `params.<k>`, `headers.<k>`, `response.status`). */
  capture?: Record<string, string>;
}

interface AssertionBase {
  version: number;
  says: string;
}
export interface CountAssertion extends AssertionBase {
  count: CountBounds;
  match: Matcher;
}
export interface NeverAssertion extends AssertionBase {
  never: Matcher;
}
export interface SequenceAssertion extends AssertionBase {
  sequence: SequenceStep[];
}
export type Assertion = CountAssertion | NeverAssertion | SequenceAssertion;

export function assertionKind(a: Assertion): 'count' | 'never' | 'sequence' {
  if ('sequence' in a) return 'sequence';
  if ('never' in a) return 'never';
  return 'count';
}

// ---- structural schema (operators are checked by checkOperator, which recurses) ----

const opMap = z.record(z.string(), z.unknown());
const nonNegInt = z.number().int().gte(0);

const matcherSchema = z.strictObject({
  twin: z.unknown().optional(),
  method: z.unknown().optional(),
  path: z.unknown().optional(),
  params: opMap.optional(),
  query: opMap.optional(),
  headers: opMap.optional(),
  body: opMap.optional(),
  response: z
    .strictObject({
      status: z.unknown().optional(),
      body: opMap.optional(),
      headers: opMap.optional(),
    })
    .optional(),
  actor: z.union([z.enum(['agent', 'seed', 'lifecycle', 'any']), z.array(z.enum(ACTORS)).min(1)]).optional(),
});

const countSchema = z
  .strictObject({
    at_least: nonNegInt.optional(),
    at_most: nonNegInt.optional(),
    exactly: nonNegInt.optional(),
    between: z.tuple([nonNegInt, nonNegInt]).optional(),
  })
  .refine((c) => Object.keys(c).length > 0, { message: 'count needs at_least, at_most, exactly or between' })
  .refine((c) => c.exactly === undefined || Object.keys(c).length === 1, { message: 'exactly cannot be combined with other bounds' })
  .refine((c) => !c.between || c.between[0] <= c.between[1], { message: 'between needs [low, high] with low ≤ high' });

const base = {
  version: z.literal(MATCHER_VERSION).optional(),
  says: z.string().min(1).max(1000),
};

const countAssertionSchema = z.strictObject({ ...base, count: countSchema.optional(), match: matcherSchema });
const neverAssertionSchema = z.strictObject({ ...base, never: matcherSchema });
const sequenceAssertionSchema = z.strictObject({
  ...base,
  sequence: z
    .array(
      z.strictObject({
        says: z.string().optional(),
        match: matcherSchema,
        capture: z
          .record(
            z
              .string()
              .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
              .refine((name) => !isForbiddenKey(name), { message: 'a variable may not be named __proto__, constructor or prototype' }),
            z.string(),
          )
          .optional(),
      }),
    )
    .min(1),
});

/** The schema of one assertion, chosen by its kind key, so errors point at the right fields. */
export function assertionSchemaFor(raw: unknown) {
  if (raw !== null && typeof raw === 'object' && 'sequence' in raw) return sequenceAssertionSchema;
  if (raw !== null && typeof raw === 'object' && 'never' in raw) return neverAssertionSchema;
  return countAssertionSchema;
}

export type AssertionInput = z.infer<typeof countAssertionSchema> | z.infer<typeof neverAssertionSchema> | z.infer<typeof sequenceAssertionSchema>;

export const assertionSchema = z.unknown().transform((raw, ctx): AssertionInput => {
  const r = assertionSchemaFor(raw).safeParse(raw);
  if (!r.success) {
    for (const issue of r.error.issues) ctx.addIssue({ ...issue, path: issue.path } as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  }
  return r.data as AssertionInput;
});

export const assertionsSchema = z.array(assertionSchema).min(1).max(100);

/** Fill in defaults so the stored form is explicit: version, count at_least 1, twin when one twin. */
export function normalizeAssertion(input: AssertionInput, twins: string[]): Assertion {
  const fillTwin = (m: Matcher): Matcher => (m.twin === undefined && twins.length === 1 ? { twin: twins[0], ...m } : m);
  if ('sequence' in input) {
    return {
      version: MATCHER_VERSION,
      says: input.says,
      sequence: input.sequence.map((s) => ({ ...s, match: fillTwin(s.match as Matcher) })),
    };
  }
  if ('never' in input) return { version: MATCHER_VERSION, says: input.says, never: fillTwin(input.never as Matcher) };
  return {
    version: MATCHER_VERSION,
    says: input.says,
    count: (input.count as CountBounds | undefined) ?? { at_least: 1 },
    match: fillTwin(input.match as Matcher),
  };
}

export function isOperatorObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => (OPERATOR_NAMES as readonly string[]).includes(k));
}

export function isVarRef(v: unknown): v is VarRef {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof (v as VarRef).var === 'string';
}

/** Readable one-line rendering of an operator for reasons and docs (`= 1000`, `contains "x"`). */
export function describeOperator(op: unknown): string {
  if (!isOperatorObject(op)) return isVarRef(op) ? `= {${op.var}}` : `= ${show(op)}`;
  return Object.entries(op)
    .map(([k, v]) => {
      switch (k) {
        case 'eq':
          return isVarRef(v) ? `= {${v.var}}` : `= ${show(v)}`;
        case 'ne':
          return `≠ ${show(v)}`;
        case 'one_of':
          return `one of ${show(v)}`;
        case 'present':
          return v === false ? 'absent' : 'present';
        case 'absent':
          return v === false ? 'present' : 'absent';
        case 'gt':
          return `> ${show(v)}`;
        case 'gte':
          return `≥ ${show(v)}`;
        case 'lt':
          return `< ${show(v)}`;
        case 'lte':
          return `≤ ${show(v)}`;
        case 'size':
          return `size ${describeOperator(v)}`;
        case 'includes':
          return `includes an item ${describeOperator(v)}`;
        case 'not':
          return `not (${describeOperator(v)})`;
        case 'all_of':
          return (v as unknown[]).map(describeOperator).join(' and ');
        case 'any_of':
          return (v as unknown[]).map(describeOperator).join(' or ');
        default:
          return `${k.replace('_', ' ')} ${show(v)}`;
      }
    })
    .join(' and ');
}

function show(v: unknown): string {
  if (isVarRef(v)) return `{${v.var}}`;
  return JSON.stringify(v) ?? 'undefined';
}
