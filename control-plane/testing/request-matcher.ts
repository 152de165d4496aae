// A matcher compiled once into an ordered list of field checks (cheap columns first, decoded bodies
// last). The same checks decide a match and, for near misses, fill the per-field table of
// expected / actual values. Checks on plain columns also carry the same test as an SQL condition
// (sql-condition.ts), so the traffic window can pick candidate rows inside SQLite; what SQL cannot
// say exactly stays a residual check, run here on the columns it declares.

import type { Matcher } from './matcher-language.js';
import { describeOperator, isOperatorObject } from './matcher-language.js';
import { compileOperator, evaluateOperator, type Vars } from './operators.js';
import { bodyPointer, pointerGet, type ObservedRequest } from './observed-request.js';
import { and, operatorSql, or, pathTemplateSql, small, SQL_TRUE, statusSql, type SqlCondition } from './sql-condition.js';
import type { LogColumn } from '../store/traffic-window.js';
import { templateRegExp } from '../../twin-runtime/path-template.js';
import { ownValue } from '../../twin-runtime/safe-input.js';

export interface FieldCheck {
  /** `method`, `path`, `body/amount`, `response.status`, `query.limit`, … */
  field: string;
  expected: string;
  actual(req: ObservedRequest): unknown;
  test(req: ObservedRequest, vars: Vars): boolean;
  /** The columns of request_logs `actual` and `test` read. */
  columns: readonly LogColumn[];
  /** The same test in SQL, when it can be written exactly. */
  sql?: SqlCondition;
}

export interface FieldRow {
  field: string;
  expected: string;
  actual: unknown;
  ok: boolean;
}

export interface CompiledMatcher {
  matcher: Matcher;
  checks: FieldCheck[];
  /** Every check that has SQL, as one condition: rows where it fails cannot match. */
  where: SqlCondition;
  /** The checks without SQL, left for rows where `where` holds. */
  residual: FieldCheck[];
  /** The columns the residual checks read. */
  residualColumns: LogColumn[];
}

/**
 * SQLite stops at the first condition that fails: the path tells most requests apart, the actor
 * fewest; conditions that call back into JavaScript (path templates) go last.
 */
const SQL_ORDER = ['path', 'method', 'response.status', 'twin', 'actor'];
const selectivity = (c: FieldCheck) => (c.sql?.costly ? SQL_ORDER.length : 0) + SQL_ORDER.indexOf(c.field);

const BODY: readonly LogColumn[] = ['request_content_type', 'request_body'];
const RESPONSE_BODY: readonly LogColumn[] = ['response_content_type', 'response_body'];

/**
 * `/v1/customers/{id}` → a regex with one capture per `{name}` (a segment never spans `/`; a last
 * `{+name}` takes the rest), a trailing `/` accepted: the twin runtime's template compiler.
 */
export function compilePathTemplate(template: string): { regex: RegExp; names: string[] } {
  return templateRegExp(template, { trailingSlash: true });
}

function templateList(path: unknown): string[] | undefined {
  if (typeof path === 'string') return [path];
  if (Array.isArray(path) && path.every((p) => typeof p === 'string')) return path as string[];
  return undefined;
}

/** Bind `{name}` segments of the first template the request path fits; undefined when none fits. */
function pathBinder(path: unknown): ((p: string) => Record<string, string> | undefined) | undefined {
  const templates = templateList(path);
  if (!templates) return undefined;
  const compiled = templates.map(compilePathTemplate);
  return (p: string) => {
    for (const { regex, names } of compiled) {
      const m = regex.exec(p);
      if (m) return Object.fromEntries(names.map((n, i) => [n, decodeSegment(m[i + 1]!)]));
    }
    return undefined;
  };
}

/** A bound segment, percent-decoded when it is well formed (the path fits the template either way). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function statusTest(spec: unknown, status: number, vars: Vars): boolean {
  if (typeof spec === 'string' && /^[1-5]xx$/i.test(spec)) return Math.floor(status / 100) === Number(spec[0]);
  if (Array.isArray(spec)) return spec.some((s) => statusTest(s, status, vars));
  return evaluateOperator(spec, status, vars);
}

function describeStatus(spec: unknown): string {
  if (typeof spec === 'string' && /^[1-5]xx$/i.test(spec)) return spec.toLowerCase();
  if (Array.isArray(spec)) return `one of ${spec.map(describeStatus).join(', ')}`;
  return describeOperator(spec);
}

export function compileMatcher(matcher: Matcher): CompiledMatcher {
  const checks: FieldCheck[] = [];
  const opCheck = (field: string, op: unknown, columns: readonly LogColumn[], actual: (r: ObservedRequest) => unknown, sql?: SqlCondition) => {
    const holds = compileOperator(op);
    checks.push({ field, expected: describeOperator(op), actual, test: (r, vars) => holds(actual(r), vars), columns, sql });
  };

  if (matcher.twin !== undefined) opCheck('twin', matcher.twin, ['twin_slug'], (r) => r.row.twin_slug, operatorSql('twin_slug', matcher.twin, 'text'));
  const actor = matcher.actor ?? 'agent';
  if (actor !== 'any') {
    const allowed = Array.isArray(actor) ? actor : [actor];
    checks.push({
      field: 'actor',
      expected: allowed.join(' or '),
      actual: (r) => r.row.actor,
      test: (r) => allowed.includes(r.row.actor as never),
      columns: ['actor'],
      sql: { text: `actor IN (${allowed.map(() => '?').join(', ')})`, params: [...allowed] },
    });
  }
  if (matcher.method !== undefined) {
    // Methods are logged as the HTTP parser delivers them, upper case; a bare name matches any case.
    const op = typeof matcher.method === 'string' ? matcher.method.toUpperCase() : matcher.method;
    opCheck('method', op, ['method'], (r) => r.row.method, operatorSql('method', op, 'text'));
  }
  let bind: ((p: string) => Record<string, string> | undefined) | undefined;
  if (matcher.path !== undefined) {
    bind = pathBinder(matcher.path);
    if (bind) {
      const b = bind;
      const templates = templateList(matcher.path)!;
      checks.push({
        field: 'path',
        expected: templates.length === 1 ? templates[0]! : `one of ${templates.join(', ')}`,
        actual: (r) => r.row.path,
        test: (r) => b(r.row.path) !== undefined,
        columns: ['path'],
        sql: templates.length > 0 ? or(templates.map((t) => pathTemplateSql(t, compilePathTemplate(t).regex))) : undefined,
      });
    } else if (isOperatorObject(matcher.path)) {
      opCheck('path', matcher.path, ['path'], (r) => r.row.path, operatorSql('path', matcher.path, 'text'));
    }
  }
  if (matcher.response?.status !== undefined) {
    const spec = matcher.response.status;
    checks.push({
      field: 'response.status',
      expected: describeStatus(spec),
      actual: (r) => r.row.status_code,
      test: (r, vars) => statusTest(spec, r.row.status_code, vars),
      columns: ['status_code'],
      sql: statusSql(spec),
    });
  }
  for (const [name, op] of Object.entries(matcher.params ?? {})) {
    const b = bind;
    opCheck(`params.${name}`, op, ['path'], (r) => (b ? ownValue(b(r.row.path), name) : undefined));
  }
  for (const [name, op] of Object.entries(matcher.query ?? {})) opCheck(`query.${name}`, op, ['query_string'], (r) => ownValue(r.query, name));
  for (const [name, op] of Object.entries(matcher.headers ?? {})) {
    const key = name.toLowerCase();
    opCheck(`headers.${key}`, op, ['request_headers'], (r) => ownValue(r.headers, key));
  }
  for (const [pointer, op] of Object.entries(matcher.body ?? {})) {
    const at = bodyPointer(pointer);
    opCheck(`body${pointer}`, op, BODY, (r) => r.bodyAt(at));
  }
  for (const [name, op] of Object.entries(matcher.response?.headers ?? {})) {
    // Response headers are not logged; a check on them never matches and says so in the table.
    opCheck(`response.headers.${name.toLowerCase()}`, op, [], () => undefined);
  }
  for (const [pointer, op] of Object.entries(matcher.response?.body ?? {})) {
    opCheck(`response.body${pointer}`, op, RESPONSE_BODY, (r) => pointerGet(r.responseBody, pointer));
  }
  // A condition too large to sit beside others in one statement leaves its check to JavaScript.
  for (const c of checks) c.sql = small(c.sql);
  const residual = checks.filter((c) => c.sql === undefined);
  return {
    matcher,
    checks,
    where: and(
      checks
        .filter((c) => c.sql)
        .sort((a, b) => selectivity(a) - selectivity(b))
        .map((c) => c.sql!),
    ),
    residual,
    residualColumns: [...new Set(residual.flatMap((c) => c.columns))],
  };
}

/**
 * The matcher judged wholly in JavaScript: every request is a candidate and every check runs. For
 * matchers past the parameter budget of one scan (see evaluator.ts).
 */
export function withoutSql(m: CompiledMatcher): CompiledMatcher {
  return { ...m, where: SQL_TRUE, residual: m.checks, residualColumns: [...new Set(m.checks.flatMap((c) => c.columns))] };
}

/** Whether a request on which `m.where` already holds matches: only the residual checks run. */
export function matchesRest(m: CompiledMatcher, req: ObservedRequest, vars: Vars = {}): boolean {
  for (const c of m.residual) if (!c.test(req, vars)) return false;
  return true;
}

/** Every check's expected and actual value; the response status is always shown. */
export function fieldTable(m: CompiledMatcher, req: ObservedRequest, vars: Vars = {}): FieldRow[] {
  const rows: FieldRow[] = m.checks.map((c) => {
    let ok: boolean;
    try {
      ok = c.test(req, vars);
    } catch {
      ok = false;
    }
    return { field: c.field, expected: c.expected, actual: c.actual(req), ok };
  });
  if (!m.checks.some((c) => c.field === 'response.status')) {
    rows.push({ field: 'response.status', expected: 'any', actual: req.row.status_code, ok: true });
  }
  return rows;
}

/** Read a capture source from a request the step bound (see SequenceStep.capture). */
export function readCapture(source: string, req: ObservedRequest, matcher: Matcher): unknown {
  if (source === 'response.status') return req.row.status_code;
  if (source.startsWith('response.body')) return pointerGet(req.responseBody, source.slice('response.body'.length));
  if (source.startsWith('body')) return req.bodyAt(source.slice('body'.length));
  if (source.startsWith('query.')) return ownValue(req.query, source.slice(6));
  if (source.startsWith('headers.')) return ownValue(req.headers, source.slice(8).toLowerCase());
  if (source.startsWith('params.')) return ownValue(pathBinder(matcher.path)?.(req.row.path), source.slice(7));
  return undefined;
}

export const CAPTURE_SOURCE = /^(response\.status|response\.body(\/.*)?|body(\/.*)?|query\.[^/]+|headers\.[^/]+|params\.[A-Za-z0-9_]+)$/;
