// A matcher compiled once into an ordered list of field checks (cheap columns first, decoded bodies
// last). The same checks decide a match and, for near misses, fill the per-field table of
// expected / actual values.

import type { Matcher } from './matcher-language.js';
import { describeOperator, isOperatorObject } from './matcher-language.js';
import { compileOperator, evaluateOperator, type Vars } from './operators.js';
import { pointerGet, type ObservedRequest } from './observed-request.js';

export interface FieldCheck {
  /** `method`, `path`, `body/amount`, `response.status`, `query.limit`, … */
  field: string;
  expected: string;
  actual(req: ObservedRequest): unknown;
  test(req: ObservedRequest, vars: Vars): boolean;
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
}

/** `/v1/customers/{id}` → a regex with one capture per `{name}` (a segment never spans `/`). */
export function compilePathTemplate(template: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const source = template.replace(/\{([^}]+)\}|[.*+?^${}()|[\]\\]/g, (m, name?: string) => {
    if (name) {
      names.push(name);
      return '([^/]+)';
    }
    return '\\' + m;
  });
  return { regex: new RegExp(`^${source}/?$`), names };
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
      if (m) return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
    }
    return undefined;
  };
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
  const opCheck = (field: string, op: unknown, actual: (r: ObservedRequest) => unknown) => {
    const holds = compileOperator(op);
    checks.push({ field, expected: describeOperator(op), actual, test: (r, vars) => holds(actual(r), vars) });
  };

  if (matcher.twin !== undefined) opCheck('twin', matcher.twin, (r) => r.row.twin_slug);
  const actor = matcher.actor ?? 'agent';
  if (actor !== 'any') {
    const allowed = Array.isArray(actor) ? actor : [actor];
    checks.push({ field: 'actor', expected: allowed.join(' or '), actual: (r) => r.row.actor, test: (r) => allowed.includes(r.row.actor as never) });
  }
  if (matcher.method !== undefined) {
    const op = typeof matcher.method === 'string' ? matcher.method.toUpperCase() : matcher.method;
    opCheck('method', op, (r) => r.row.method.toUpperCase());
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
      });
    } else if (isOperatorObject(matcher.path)) {
      opCheck('path', matcher.path, (r) => r.row.path);
    }
  }
  if (matcher.response?.status !== undefined) {
    const spec = matcher.response.status;
    checks.push({ field: 'response.status', expected: describeStatus(spec), actual: (r) => r.row.status_code, test: (r, vars) => statusTest(spec, r.row.status_code, vars) });
  }
  for (const [name, op] of Object.entries(matcher.params ?? {})) {
    const b = bind;
    opCheck(`params.${name}`, op, (r) => (b ? b(r.row.path)?.[name] : undefined));
  }
  for (const [name, op] of Object.entries(matcher.query ?? {})) opCheck(`query.${name}`, op, (r) => r.query[name]);
  for (const [name, op] of Object.entries(matcher.headers ?? {})) {
    const key = name.toLowerCase();
    opCheck(`headers.${key}`, op, (r) => r.headers[key]);
  }
  for (const [pointer, op] of Object.entries(matcher.body ?? {})) opCheck(`body${pointer}`, op, (r) => r.bodyAt(pointer));
  for (const [name, op] of Object.entries(matcher.response?.headers ?? {})) {
    // Response headers are not logged; a check on them never matches and says so in the table.
    opCheck(`response.headers.${name.toLowerCase()}`, op, () => undefined);
  }
  for (const [pointer, op] of Object.entries(matcher.response?.body ?? {})) {
    opCheck(`response.body${pointer}`, op, (r) => pointerGet(r.responseBody, pointer));
  }
  return { matcher, checks };
}

export function matches(m: CompiledMatcher, req: ObservedRequest, vars: Vars = {}): boolean {
  for (const c of m.checks) if (!c.test(req, vars)) return false;
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
  if (source.startsWith('query.')) return req.query[source.slice(6)];
  if (source.startsWith('headers.')) return req.headers[source.slice(8).toLowerCase()];
  if (source.startsWith('params.')) return pathBinder(matcher.path)?.(req.row.path)?.[source.slice(7)];
  return undefined;
}

export const CAPTURE_SOURCE = /^(response\.status|response\.body(\/.*)?|body(\/.*)?|query\.[^/]+|headers\.[^/]+|params\.[A-Za-z0-9_]+)$/;
