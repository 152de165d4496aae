// The operators of the matcher language, as pure functions of (operator, observed value, captured
// variables). Comparison is loose where the wire format is: form bodies carry every value as a
// string, so `"1000"` equals `1000` and `"true"` equals `true`.

import { ownValue } from '../../twin-runtime/safe-input.js';
import { OPERATOR_NAMES, isOperatorObject, isVarRef } from './matcher-language.js';
import { MAX_PATTERN_CHARS, pattern } from './pattern.js';

export type Vars = Record<string, unknown>;

/** A variable the operator names but no earlier step captured; the evaluator reports it. */
export class UnboundVariable extends Error {
  constructor(readonly variable: string) {
    super(`Variable '${variable}' is used before any step captured it.`);
  }
}

function resolve(v: unknown, vars: Vars): unknown {
  if (isVarRef(v)) {
    if (!Object.hasOwn(vars, v.var)) throw new UnboundVariable(v.var);
    return vars[v.var];
  }
  return v;
}

function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v.trim())) return Number(v);
  return undefined;
}

/** Deep equality with loose leaves (numbers vs numeric strings, booleans vs "true"/"false"). */
export function looseEqual(actual: unknown, expected: unknown): boolean {
  if (actual === expected) return true;
  if (actual === undefined || expected === undefined) return false;
  if (typeof expected === 'number' || typeof actual === 'number') {
    const a = asNumber(actual);
    const e = asNumber(expected);
    return a !== undefined && e !== undefined && a === e;
  }
  if (typeof expected === 'boolean' && typeof actual === 'string') return actual === String(expected);
  if (typeof actual === 'boolean' && typeof expected === 'string') return expected === String(actual);
  if (expected === null || actual === null) return false;
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => looseEqual(actual[i], e));
  if (typeof expected === 'object' && typeof actual === 'object' && !Array.isArray(actual)) {
    const ek = Object.keys(expected as object);
    const ak = Object.keys(actual as object);
    return ek.length === ak.length && ek.every((k) => looseEqual(ownValue(actual, k), (expected as Record<string, unknown>)[k]));
  }
  return false;
}

/** `expected` is contained in `actual`: objects by key (recursively), arrays item by item in any order. */
export function jsonSubset(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([k, v]) => jsonSubset(ownValue(actual, k), v));
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return false;
    return expected.every((e) => actual.some((a) => jsonSubset(a, e)));
  }
  return looseEqual(actual, expected);
}

function sizeOf(v: unknown): number | undefined {
  if (typeof v === 'string') return Array.from(v).length;
  if (Array.isArray(v)) return v.length;
  if (v !== null && typeof v === 'object') return Object.keys(v).length;
  return undefined;
}

function compare(actual: unknown, bound: unknown, test: (a: number, b: number) => boolean): boolean {
  const a = asNumber(actual);
  const b = asNumber(bound);
  if (a !== undefined && b !== undefined) return test(a, b);
  // Timestamps compare as instants when both sides are date-time strings.
  if (typeof actual === 'string' && typeof bound === 'string') {
    const ta = Date.parse(actual);
    const tb = Date.parse(bound);
    if (!Number.isNaN(ta) && !Number.isNaN(tb)) return test(ta, tb);
  }
  return false;
}

/** Whether `actual` satisfies `op` (an operator object, or a bare value meaning `eq`). */
export function evaluateOperator(op: unknown, actual: unknown, vars: Vars = {}): boolean {
  if (!isOperatorObject(op)) return looseEqual(actual, resolve(op, vars));
  for (const [name, operand] of Object.entries(op)) {
    if (!evaluateOne(name, operand, actual, vars)) return false;
  }
  return true;
}

function evaluateOne(name: string, operand: unknown, actual: unknown, vars: Vars): boolean {
  switch (name) {
    case 'eq':
      return looseEqual(actual, resolve(operand, vars));
    case 'ne':
      return actual !== undefined && !looseEqual(actual, resolve(operand, vars));
    case 'one_of':
      return (operand as unknown[]).some((o) => looseEqual(actual, resolve(o, vars)));
    case 'contains': {
      const needle = resolve(operand, vars);
      if (typeof actual === 'string') return actual.includes(String(needle));
      if (Array.isArray(actual)) return actual.some((a) => looseEqual(a, needle));
      return false;
    }
    case 'matches':
      return (typeof actual === 'string' || typeof actual === 'number') && pattern(String(operand)).test(String(actual));
    case 'present':
      return (actual !== undefined) === (operand !== false);
    case 'absent':
      return (actual === undefined) === (operand !== false);
    case 'gt':
      return compare(actual, resolve(operand, vars), (a, b) => a > b);
    case 'gte':
      return compare(actual, resolve(operand, vars), (a, b) => a >= b);
    case 'lt':
      return compare(actual, resolve(operand, vars), (a, b) => a < b);
    case 'lte':
      return compare(actual, resolve(operand, vars), (a, b) => a <= b);
    case 'json_subset':
      return jsonSubset(actual, resolve(operand, vars));
    case 'size': {
      const n = sizeOf(actual);
      return n !== undefined && evaluateOperator(operand, n, vars);
    }
    case 'includes':
      return Array.isArray(actual) && actual.some((a) => evaluateOperator(operand, a, vars));
    case 'all_of':
      return (operand as unknown[]).every((o) => evaluateOperator(o, actual, vars));
    case 'any_of':
      return (operand as unknown[]).some((o) => evaluateOperator(o, actual, vars));
    case 'not':
      return !evaluateOperator(operand, actual, vars);
    default:
      return false;
  }
}

/**
 * Check an operator's shape before it is stored. Returns a sentence naming what is wrong, or
 * undefined. `where` names the field (e.g. `body /amount`); `known` lists variables in scope.
 */
export function checkOperator(op: unknown, where: string, known: Set<string>): string | undefined {
  if (isVarRef(op)) return known.has(op.var) ? undefined : `${where} uses variable '${op.var}' before any earlier step captures it.`;
  if (op !== null && typeof op === 'object' && !Array.isArray(op) && !isOperatorObject(op)) {
    const unknownKeys = Object.keys(op).filter((k) => !(OPERATOR_NAMES as readonly string[]).includes(k));
    const looksLikeOperators = Object.keys(op).some((k) => (OPERATOR_NAMES as readonly string[]).includes(k));
    // A mix of operator names and other keys is almost surely a typo, not an object to compare.
    if (looksLikeOperators) return `${where} mixes operators with unknown keys (${unknownKeys.join(', ')}); operators are ${OPERATOR_NAMES.join(', ')}.`;
    return undefined;
  }
  if (!isOperatorObject(op)) return undefined;
  for (const [name, operand] of Object.entries(op)) {
    const problem = checkOne(name, operand, where, known);
    if (problem) return problem;
  }
  return undefined;
}

function checkOne(name: string, operand: unknown, where: string, known: Set<string>): string | undefined {
  const value = (v: unknown) => (isVarRef(v) && !known.has(v.var) ? `${where} uses variable '${v.var}' before any earlier step captures it.` : undefined);
  switch (name) {
    case 'eq':
    case 'ne':
    case 'contains':
    case 'json_subset':
      return value(operand);
    case 'one_of':
      if (!Array.isArray(operand) || operand.length === 0) return `${where}: one_of needs a non-empty list.`;
      return operand.map(value).find(Boolean);
    case 'matches':
      // Its syntax and size are checked by compiling it, off the API's thread (patternsIn, judges.ts).
      if (typeof operand !== 'string') return `${where}: matches needs a pattern string.`;
      if (operand.length > MAX_PATTERN_CHARS) return `${where}: the pattern has ${operand.length} characters; at most ${MAX_PATTERN_CHARS} are supported.`;
      return undefined;
    case 'present':
    case 'absent':
      return typeof operand === 'boolean' ? undefined : `${where}: ${name} takes true or false.`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (isVarRef(operand)) return value(operand);
      return typeof operand === 'number' || (typeof operand === 'string' && !Number.isNaN(Date.parse(operand)))
        ? undefined
        : `${where}: ${name} needs a number or a date-time.`;
    case 'size':
    case 'includes':
    case 'not':
      return checkOperator(operand, where, known);
    case 'all_of':
    case 'any_of':
      if (!Array.isArray(operand) || operand.length === 0) return `${where}: ${name} needs a non-empty list of operators.`;
      return operand.map((o) => checkOperator(o, where, known)).find(Boolean);
    default:
      return `${where}: unknown operator '${name}'.`;
  }
}

/** The `matches` patterns an operator holds, at any depth (compile-time checks compile them). */
export function patternsIn(op: unknown, out: string[] = []): string[] {
  if (!isOperatorObject(op)) return out;
  for (const [name, operand] of Object.entries(op)) {
    if (name === 'matches' && typeof operand === 'string') out.push(operand);
    else if (name === 'size' || name === 'includes' || name === 'not') patternsIn(operand, out);
    else if ((name === 'all_of' || name === 'any_of') && Array.isArray(operand)) for (const o of operand) patternsIn(o, out);
  }
  return out;
}

export type CompiledOperator = (actual: unknown, vars: Vars) => boolean;

/**
 * The same semantics as evaluateOperator, decided once per operator instead of once per request:
 * the evaluator runs each check over every logged request of the window.
 */
export function compileOperator(op: unknown): CompiledOperator {
  if (!isOperatorObject(op)) {
    if (isVarRef(op)) return (a, vars) => looseEqual(a, resolve(op, vars));
    if (typeof op === 'string') return (a) => a === op || ((typeof a === 'number' || typeof a === 'boolean') && looseEqual(a, op));
    return (a) => looseEqual(a, op);
  }
  const parts = Object.entries(op).map(([name, operand]) => compileOne(name, operand));
  if (parts.length === 1) return parts[0]!;
  return (a, vars) => parts.every((p) => p(a, vars));
}

function compileOne(name: string, operand: unknown): CompiledOperator {
  switch (name) {
    case 'matches': {
      const re = pattern(String(operand));
      return (a) => (typeof a === 'string' || typeof a === 'number') && re.test(String(a));
    }
    case 'size': {
      const inner = compileOperator(operand);
      return (a, vars) => {
        const n = sizeOf(a);
        return n !== undefined && inner(n, vars);
      };
    }
    case 'includes': {
      const inner = compileOperator(operand);
      return (a, vars) => Array.isArray(a) && a.some((x) => inner(x, vars));
    }
    case 'not': {
      const inner = compileOperator(operand);
      return (a, vars) => !inner(a, vars);
    }
    case 'all_of': {
      const inner = (operand as unknown[]).map(compileOperator);
      return (a, vars) => inner.every((f) => f(a, vars));
    }
    case 'any_of': {
      const inner = (operand as unknown[]).map(compileOperator);
      return (a, vars) => inner.some((f) => f(a, vars));
    }
    default:
      return (a, vars) => evaluateOne(name, operand, a, vars);
  }
}
