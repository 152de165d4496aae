// Stripe's one input path: every API route, hand-written or generic, reads its form/query
// parameters through the operation table in twins/stripe/spec/ and the runtime's validator
// (twin-runtime/generic/input.ts) under one policy — a parameter the operation does not take is
// refused as Stripe refuses it (400 `parameter_unknown`, "Received unknown parameter: x"), values
// are coerced and checked against the spec's types, enums and lengths, and parameters the
// published spec lacks come from one place (wire/spec-gaps.ts).

import type { TwinRequest } from '../../../twin-runtime/contract.js';
import { loadArtefacts } from '../../../twin-runtime/generic/artefacts.js';
import { OperationInput } from '../../../twin-runtime/generic/input.js';
import type { InputPolicy, InputProblem } from '../../../twin-runtime/generic/validate.js';
import { assignSafely } from '../../../twin-runtime/safe-input.js';
import { invalidRequest, missingParam, resourceMissing, type StripeApiError } from './errors.js';
import { RETIRED_PARAMS, SPEC_GAPS, type RetiredParam } from './spec-gaps.js';

/** Stripe's policy: unknown parameters refused, the spec's gaps filled from spec-gaps.ts. */
export const STRIPE_INPUT_POLICY: InputPolicy = { unknown: 'refuse', extra: SPEC_GAPS };

/** The operation table + validator the hand-written routes read through. */
export const stripeInput = new OperationInput(loadArtefacts(import.meta.url), STRIPE_INPUT_POLICY);

/** A parameter name as Stripe writes it in `param`: `a[b][0]`. */
export function paramPath(field: string[]): string {
  return field.map((f, i) => (i === 0 ? f : `[${f}]`)).join('');
}

function orList(values: unknown[]): string {
  const v = values.filter((x) => x !== null && x !== '').map(String);
  return v.length <= 1 ? v.join('') : `${v.slice(0, -1).join(', ')}, or ${v[v.length - 1]}`;
}

/** Stripe's refusal of one input problem, worded as Stripe words it. */
export function inputRefusal(problem: InputProblem): StripeApiError {
  if (problem.where === 'path') return resourceMissing('object', String(problem.value ?? ''), problem.field[0] ?? 'id');
  const param = paramPath(problem.field);
  const v = problem.value;
  switch (problem.kind) {
    case 'missing':
      return missingParam(param);
    case 'unknown':
      return invalidRequest(`Received unknown parameter: ${param}`, param, 'parameter_unknown');
    case 'type':
      if (problem.expected === 'integer') return invalidRequest(`Invalid integer: ${String(v)}`, param, 'parameter_invalid_integer');
      if (problem.expected === 'boolean') return invalidRequest(`Invalid boolean: ${String(v)}`, param);
      if (problem.expected === 'number') return invalidRequest(`Invalid decimal: ${String(v)}`, param);
      if (problem.expected === 'string') return invalidRequest(`Invalid string: ${JSON.stringify(v)}`, param, 'parameter_invalid_string');
      return invalidRequest(`Invalid ${problem.expected === 'array' ? 'array' : 'object'}`, param);
    case 'enum':
      return invalidRequest(`Invalid ${param}: must be one of ${orList(problem.allowed ?? [])}`, param);
    case 'length':
      return invalidRequest(`Invalid ${param}: the value is too long or too short`, param);
    case 'range':
      return invalidRequest(`Invalid ${param}: ${String(v)} is out of range`, param);
    default:
      return invalidRequest(`Invalid ${param}${v === undefined ? '' : `: ${JSON.stringify(v)}`}`, param);
  }
}

/** Query for GET/DELETE, query + form body for POST (Stripe accepts both), as one object. */
export function rawParams(req: TwinRequest): Record<string, unknown> {
  return assignSafely({}, req.query, req.method === 'GET' ? undefined : req.body);
}

/** The route's path values under the spec's names (`{id}` of a hand route is the spec's `{customer}`). */
function pathValues(specPath: string, template: string, values: Record<string, string>): Record<string, string> {
  const names = (t: string) => [...t.matchAll(/\{\+?(\w+)\}/g)].map((m) => m[1]!);
  const ours = names(template);
  return Object.fromEntries(names(specPath).map((n, i) => [n, values[ours[i]!] ?? '']));
}

/**
 * The request's parameters, checked and coerced against its operation (found by the route's
 * method and template). Throws Stripe's 400 for the first problem. A route whose operation the
 * table lacks is a twin-only route (hosted pages, twin test helpers) and reads `rawParams`.
 */
export function readOperationParams(req: TwinRequest): Record<string, unknown> {
  const params = rawParams(req);
  const entry = req.template ? stripeInput.entry(req.method, req.template) : undefined;
  if (!entry) throw new Error(`no Stripe operation for ${req.method} ${req.template ?? req.path}: read rawParams in a twin-only route`);
  if (!stripeInput.describes(entry)) throw new Error(`${entry.id} has no request schema: describe it in wire/spec-gaps.ts`);
  // As the generic layer reads them (wire/generic.ts `input`): GET parameters are the query's, any
  // other method's the body's.
  const isQuery = req.method === 'GET';
  const retired = takeRetired(entry.id, req, params);
  const problem = stripeInput.check(entry, {
    path: pathValues(entry.path, req.template!, req.params),
    query: isQuery ? params : {},
    body: isQuery ? {} : params,
    coerceBody: true,
  });
  if (problem) throw inputRefusal(problem);
  for (const { holder, key, value, field } of retired) holder[key] = retiredValue(value, field);
  return tracked(req, params);
}

interface TakenParam {
  holder: Record<string, unknown>;
  key: string;
  value: unknown;
  field: string[];
}

/**
 * The retired parameters (wire/spec-gaps.ts) a request pinned before their removal sent, taken out
 * of `params` before the current spec checks them and put back after.
 */
function takeRetired(operationId: string, req: TwinRequest, params: Record<string, unknown>): TakenParam[] {
  const rules = RETIRED_PARAMS[operationId];
  const pinned = req.headers['stripe-version'];
  if (!rules || typeof pinned !== 'string') return [];
  const taken: TakenParam[] = [];
  for (const rule of rules.filter((r) => pinned.slice(0, 10) < r.since)) collectRetired(params, rule, 0, [], taken);
  for (const t of taken) delete t.holder[t.key];
  return taken;
}

function collectRetired(at: unknown, rule: RetiredParam, depth: number, field: string[], out: TakenParam[]): void {
  if (at === null || typeof at !== 'object') return;
  const step = rule.path[depth]!;
  const holder = at as Record<string, unknown>;
  const keys = step === '*' ? (Array.isArray(at) ? at.map((_, i) => String(i)) : Object.keys(holder)) : [step];
  for (const key of keys) {
    if (!Object.hasOwn(holder, key)) continue;
    if (depth === rule.path.length - 1) out.push({ holder, key, value: holder[key], field: [...field, key] });
    else collectRetired(holder[key], rule, depth + 1, [...field, key], out);
  }
}

/** A retired parameter's value, coerced as the form sends it (an integer is all they are today). */
function retiredValue(value: unknown, field: string[]): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw inputRefusal({ where: 'body', kind: 'type', expected: 'integer', field, value });
  return n;
}

/** Per request: its parameters and the top-level names its route has read. */
const READS = new WeakMap<TwinRequest, { params: Record<string, unknown>; read: Set<string> }>();

/**
 * The parameters as a view that notes which top-level names the route reads (a property read, an
 * `in` test, or walking all its keys), so a parameter the model never looked at is not dropped
 * silently (`unreadParams`). `expand` is the pipeline's.
 */
function tracked(req: TwinRequest, params: Record<string, unknown>): Record<string, unknown> {
  const read = READS.get(req)?.read ?? new Set<string>(['expand', 'client_secret']);
  READS.set(req, { params, read });
  const note = (k: string | symbol) => {
    if (typeof k === 'string') read.add(k);
  };
  return new Proxy(params, {
    get(target, k, receiver) {
      note(k);
      return Reflect.get(target, k, receiver);
    },
    has(target, k) {
      note(k);
      return Reflect.has(target, k);
    },
    getOwnPropertyDescriptor(target, k) {
      note(k);
      return Reflect.getOwnPropertyDescriptor(target, k);
    },
    ownKeys(target) {
      const keys = Reflect.ownKeys(target);
      keys.forEach(note);
      return keys;
    },
  });
}

/**
 * Parameters the request sent that its route took through `readOperationParams` and never read:
 * a value the twin would be ignoring. The pipeline refuses the request for them (NotSimulated)
 * rather than answer as if they had been applied.
 */
export function unreadParams(req: TwinRequest): string[] {
  const r = READS.get(req);
  if (!r) return [];
  return Object.keys(r.params).filter((k) => !r.read.has(k) && r.params[k] !== undefined);
}
