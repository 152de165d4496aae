// Matcher checks on the plain columns of request_logs (twin, actor, method, path, status), written
// as SQL conditions that hold exactly when the JavaScript check holds, so SQLite can pick the
// candidate rows of a window without copying every row out. Only operators whose SQL meaning is
// the same as operators.ts are written; for anything else the translation answers undefined and the
// check stays in JavaScript (see request-matcher.ts).

import { isOperatorObject, isVarRef } from './matcher-language.js';

export interface SqlCondition {
  text: string;
  params: (string | number)[];
  /** Calls back into JavaScript: evaluate it after the plain comparisons. */
  costly?: boolean;
}

export const SQL_TRUE: SqlCondition = { text: '1', params: [] };

/** A column of request_logs as the matcher sees it: text compared exactly, or an integer. */
export type ColumnKind = 'text' | 'integer';

export function and(parts: SqlCondition[]): SqlCondition {
  if (parts.length === 0) return SQL_TRUE;
  if (parts.length === 1) return parts[0]!;
  return { text: parts.map((p) => `(${p.text})`).join(' AND '), params: parts.flatMap((p) => p.params), costly: parts.some((p) => p.costly) };
}

export function or(parts: SqlCondition[]): SqlCondition {
  if (parts.length === 1) return parts[0]!;
  return { text: parts.map((p) => `(${p.text})`).join(' OR '), params: parts.flatMap((p) => p.params), costly: parts.some((p) => p.costly) };
}

/** A literal the column compares with exactly as looseEqual would: strings with text, numbers with integers. */
function literal(v: unknown, kind: ColumnKind): string | number | undefined {
  if (kind === 'text' && typeof v === 'string') return v;
  if (kind === 'integer' && typeof v === 'number' && Number.isFinite(v)) return v;
  return undefined;
}

/** An operator (or a bare value, meaning eq) over a NOT NULL column, or undefined when only JavaScript can judge it. */
export function operatorSql(column: string, op: unknown, kind: ColumnKind): SqlCondition | undefined {
  if (isVarRef(op)) return undefined;
  if (!isOperatorObject(op)) {
    const v = literal(op, kind);
    return v === undefined ? undefined : { text: `${column} = ?`, params: [v] };
  }
  const parts: SqlCondition[] = [];
  for (const [name, operand] of Object.entries(op)) {
    const part = oneSql(column, name, operand, kind);
    if (!part) return undefined;
    parts.push(part);
  }
  return and(parts);
}

function oneSql(column: string, name: string, operand: unknown, kind: ColumnKind): SqlCondition | undefined {
  switch (name) {
    case 'eq':
    case 'ne': {
      const v = isVarRef(operand) ? undefined : literal(operand, kind);
      return v === undefined ? undefined : { text: `${column} ${name === 'eq' ? '=' : '!='} ?`, params: [v] };
    }
    case 'one_of': {
      if (!Array.isArray(operand) || operand.length === 0) return undefined;
      const values = operand.map((o) => (isVarRef(o) ? undefined : literal(o, kind)));
      if (values.some((v) => v === undefined)) return undefined;
      return { text: `${column} IN (${values.map(() => '?').join(', ')})`, params: values as (string | number)[] };
    }
    case 'contains':
      // String includes; instr() counts characters the same way for any needle, '' included.
      return kind === 'text' && typeof operand === 'string' ? { text: `instr(${column}, ?) > 0`, params: [operand] } : undefined;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const v = kind === 'integer' ? literal(operand, kind) : undefined;
      const sign = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[name];
      return v === undefined ? undefined : { text: `${column} ${sign} ?`, params: [v] };
    }
    // The columns are never missing.
    case 'present':
      return typeof operand === 'boolean' ? { text: operand ? '1' : '0', params: [] } : undefined;
    case 'absent':
      return typeof operand === 'boolean' ? { text: operand ? '0' : '1', params: [] } : undefined;
    case 'all_of':
    case 'any_of': {
      if (!Array.isArray(operand) || operand.length === 0) return undefined;
      const inner = operand.map((o) => operatorSql(column, o, kind));
      if (inner.some((c) => c === undefined)) return undefined;
      return name === 'all_of' ? and(inner as SqlCondition[]) : or(inner as SqlCondition[]);
    }
    case 'not': {
      const inner = operatorSql(column, operand, kind);
      return inner ? { text: `NOT (${inner.text})`, params: inner.params } : undefined;
    }
    default:
      return undefined; // matches, json_subset, size, includes: JavaScript only
  }
}

/** `response.status`: a number, a class like `2xx`, a list of those, or an operator over the number. */
export function statusSql(spec: unknown): SqlCondition | undefined {
  if (typeof spec === 'string' && /^[1-5]xx$/i.test(spec)) {
    const low = Number(spec[0]) * 100;
    return { text: 'status_code BETWEEN ? AND ?', params: [low, low + 99] };
  }
  if (Array.isArray(spec)) {
    const parts = spec.map(statusSql);
    return parts.length > 0 && parts.every(Boolean) ? or(parts as SqlCondition[]) : undefined;
  }
  return operatorSql('status_code', spec, 'integer');
}

/** Past these a check stays in JavaScript: SQLite caps parameters per statement and expression depth. */
const MAX_PARAMS = 500;
const MAX_NESTING = 40;

/** The condition when it is small enough to be one of many in a statement, else undefined. */
export function small(c: SqlCondition | undefined): SqlCondition | undefined {
  if (!c || c.params.length > MAX_PARAMS) return undefined;
  let depth = 0;
  let deepest = 0;
  for (const ch of c.text) {
    if (ch === '(') deepest = Math.max(deepest, ++depth);
    else if (ch === ')') depth--;
  }
  return deepest > MAX_NESTING ? undefined : c;
}

/** The name of the SQLite function TrafficWindow registers: `twins_regexp(source, text)`. */
export const REGEXP_FUNCTION = 'twins_regexp';

/**
 * A path template (`/v1/customers/{id}`, compiled by request-matcher's compilePathTemplate to
 * `regex`) as SQL: a template without segments is two exact paths (the regex accepts a trailing
 * slash); one with segments narrows by GLOB, each segment a `*`, then runs the same regex, so the
 * JavaScript call is made only for paths of the template's shape.
 */
export function pathTemplateSql(template: string, regex: RegExp): SqlCondition {
  if (!template.includes('{')) return { text: 'path IN (?, ?)', params: [template, `${template}/`] };
  const glob = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[*?[]/g, (c) => `[${c}]`))
    .join('*');
  return { text: `(path GLOB ? OR path GLOB ?) AND ${REGEXP_FUNCTION}(?, path)`, params: [glob, `${glob}/`, regex.source], costly: true };
}
