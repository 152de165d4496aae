// Judging: pure functions from (assertions, logged requests in arrival order) to results with
// reasons. No clock, no randomness, no I/O: the same traffic always gives the same result.

import { assertionKind, type Assertion, type CountBounds, type Matcher } from './matcher-language.js';
import { compileMatcher, fieldTable, matches, readCapture, type CompiledMatcher, type FieldRow } from './request-matcher.js';
import { ObservedRequest, type RequestLogRow } from './observed-request.js';
import type { Vars } from './operators.js';

/** How many matching ids a result lists (the count is always exact). */
const MAX_LISTED_IDS = 100;
const NEAR_MISSES = 3;
/** Rows kept after the cheap pre-score before full per-field tables are built. */
const NEAR_MISS_POOL = 200;

export interface RequestSummary {
  log_id: string;
  twin: string;
  method: string;
  path: string;
  status: number;
  occurred_at: string;
}

export interface NearMiss extends RequestSummary {
  /** Checks that held over all checks, e.g. 4 of 5. */
  matched_fields: number;
  total_fields: number;
  fields: FieldRow[];
}

export interface SequenceStepResult {
  step: number;
  says: string | null;
  bound_log_id: string | null;
  captured: Record<string, unknown>;
}

export interface AssertionResult {
  index: number;
  kind: 'count' | 'never' | 'sequence';
  says: string;
  passed: boolean;
  /** `at least 1`, `none`, `3 steps in order`. */
  expected: string;
  /** Matching requests (count, never) or steps bound (sequence). */
  observed: number;
  matching_log_ids: string[];
  reason: string | null;
  near_misses?: NearMiss[];
  offending?: RequestSummary[];
  steps?: SequenceStepResult[];
  /** Index of the first step nothing bound (sequence), null when all bound. */
  stopped_at?: number | null;
}

export interface Evaluation {
  passed: boolean;
  results: AssertionResult[];
}

export function evaluate(assertions: Assertion[], rows: RequestLogRow[]): Evaluation {
  const requests = rows.map((r) => new ObservedRequest(r));
  const results = assertions.map((a, index) => evaluateAssertion(a, index, requests));
  return { passed: results.every((r) => r.passed), results };
}

export function evaluateAssertion(a: Assertion, index: number, requests: ObservedRequest[]): AssertionResult {
  const kind = assertionKind(a);
  if ('sequence' in a) return evaluateSequence(a.says, a.sequence, index, requests);
  const matcher = 'never' in a ? a.never : a.match;
  const compiled = compileMatcher(matcher);
  const matching: ObservedRequest[] = [];
  for (const r of requests) if (matches(compiled, r)) matching.push(r);
  const ids = matching.slice(0, MAX_LISTED_IDS).map((r) => r.row.id);

  if (kind === 'never') {
    const passed = matching.length === 0;
    return {
      index,
      kind,
      says: a.says,
      passed,
      expected: 'none',
      observed: matching.length,
      matching_log_ids: ids,
      reason: passed
        ? null
        : `Expected no matching request, observed ${plural(matching.length, 'request')}: ${matching
            .slice(0, 3)
            .map((r) => `${r.row.method} ${r.row.path} → ${r.row.status_code} (log ${r.row.id})`)
            .join('; ')}${matching.length > 3 ? '; …' : ''}.`,
      offending: matching.slice(0, MAX_LISTED_IDS).map(summary),
    };
  }

  const bounds = (a as { count: CountBounds }).count;
  const [min, max] = boundsRange(bounds);
  const n = matching.length;
  const passed = n >= min && (max === null || n <= max);
  const expected = describeBounds(bounds);
  const result: AssertionResult = { index, kind, says: a.says, passed, expected, observed: n, matching_log_ids: ids, reason: null };
  if (!passed) {
    if (n < min) {
      result.reason = `Expected ${expected} matching ${min === 1 && max === null ? 'request' : 'requests'}, observed ${n}.`;
      result.near_misses = nearMisses(compiled, requests, {});
      if (result.near_misses.length > 0) result.reason += ` The nearest miss is log ${result.near_misses[0]!.log_id}: ${mismatchSentence(result.near_misses[0]!.fields)}.`;
    } else {
      result.reason = `Expected ${expected} matching ${plural(max!, 'request', false)}, observed ${n}: logs ${ids.slice(0, 10).join(', ')}${n > 10 ? ', …' : ''}.`;
    }
  }
  return result;
}

function evaluateSequence(says: string, steps: { says?: string; match: Matcher; capture?: Record<string, string> }[], index: number, requests: ObservedRequest[]): AssertionResult {
  const compiled = steps.map((s) => compileMatcher(s.match));
  const vars: Vars = {};
  const stepResults: SequenceStepResult[] = [];
  let position = 0;
  let stoppedAt: number | null = null;
  let nearMissList: NearMiss[] | undefined;
  for (let k = 0; k < steps.length; k++) {
    const step = steps[k]!;
    let bound: ObservedRequest | undefined;
    let at = position;
    for (; at < requests.length; at++) {
      if (matches(compiled[k]!, requests[at]!, vars)) {
        bound = requests[at];
        break;
      }
    }
    if (!bound) {
      stoppedAt = k;
      for (let rest = k; rest < steps.length; rest++) stepResults.push({ step: rest, says: steps[rest]!.says ?? null, bound_log_id: null, captured: {} });
      nearMissList = nearMisses(compiled[k]!, requests.slice(position), vars);
      break;
    }
    const captured: Record<string, unknown> = {};
    for (const [name, source] of Object.entries(step.capture ?? {})) {
      captured[name] = readCapture(source, bound, step.match);
      vars[name] = captured[name];
    }
    stepResults.push({ step: k, says: step.says ?? null, bound_log_id: bound.row.id, captured });
    position = at + 1;
  }
  const boundIds = stepResults.filter((s) => s.bound_log_id !== null).map((s) => s.bound_log_id!);
  const passed = stoppedAt === null;
  let reason: string | null = null;
  if (!passed) {
    const k = stoppedAt!;
    const where = k === 0 ? 'in the window' : `after step ${k} bound log ${stepResults[k - 1]!.bound_log_id}`;
    reason = `Step ${k + 1} of ${steps.length} (${stepLabel(steps[k]!)}) matched no request ${where}.`;
    if (nearMissList && nearMissList.length > 0) reason += ` The nearest miss is log ${nearMissList[0]!.log_id}: ${mismatchSentence(nearMissList[0]!.fields)}.`;
  }
  const result: AssertionResult = {
    index,
    kind: 'sequence',
    says,
    passed,
    expected: `${plural(steps.length, 'step')} in order`,
    observed: boundIds.length,
    matching_log_ids: boundIds,
    reason,
    steps: stepResults,
    stopped_at: stoppedAt,
  };
  if (nearMissList) result.near_misses = nearMissList;
  return result;
}

function stepLabel(step: { says?: string; match: Matcher }): string {
  if (step.says) return step.says;
  const m = step.match;
  return [typeof m.method === 'string' ? m.method : undefined, typeof m.path === 'string' ? m.path : undefined].filter(Boolean).join(' ') || 'a request';
}

/**
 * The requests closest to matching: a cheap pre-score on every request, then full per-field tables
 * for the best few hundred, ranked: same operation first, then fields matched, then earliest.
 */
export function nearMisses(m: CompiledMatcher, requests: ObservedRequest[], vars: Vars): NearMiss[] {
  const cheap = m.checks.filter((c) => ['twin', 'actor', 'method', 'path', 'response.status'].includes(c.field));
  const twinCheck = m.checks.find((c) => c.field === 'twin');
  // Bucket by cheap score (a handful of values) rather than sorting every request of the window.
  // Requests to the same operation (method and path hold) rank above all others.
  const width = cheap.length + 1;
  const buckets: number[][] = Array.from({ length: 2 * width }, () => []);
  requests.forEach((r, i) => {
    // A request to another twin is never a useful near miss.
    if (twinCheck && !safeTest(twinCheck, r, vars)) return;
    let s = 0;
    let sameOperation = 1;
    for (const c of cheap) {
      if (safeTest(c, r, vars)) s++;
      else if (c.field === 'method' || c.field === 'path') sameOperation = 0;
    }
    const bucket = buckets[sameOperation * width + s]!;
    if (bucket.length < NEAR_MISS_POOL) bucket.push(i);
  });
  const pool: number[] = [];
  for (let b = buckets.length - 1; b >= 0 && pool.length < NEAR_MISS_POOL; b--) pool.push(...buckets[b]!.slice(0, NEAR_MISS_POOL - pool.length));
  const out: { miss: NearMiss; i: number }[] = [];
  for (const i of pool) {
    const r = requests[i]!;
    const fields = fieldTable(m, r, vars);
    const considered = fields.slice(0, m.checks.length);
    const ok = considered.filter((f) => f.ok).length;
    if (ok === considered.length) continue; // a full match is not a miss (sequence: before the window)
    out.push({ miss: { ...summary(r), matched_fields: ok, total_fields: considered.length, fields }, i });
  }
  // Same operation (method and path hold) first, then most fields held, then earliest.
  const sameOperation = (m: NearMiss) => (m.fields.every((f) => (f.field !== 'method' && f.field !== 'path') || f.ok) ? 1 : 0);
  out.sort((a, b) => sameOperation(b.miss) - sameOperation(a.miss) || b.miss.matched_fields - a.miss.matched_fields || a.i - b.i);
  return out.slice(0, NEAR_MISSES).map((o) => o.miss);
}

function safeTest(c: { test: (r: ObservedRequest, v: Vars) => boolean }, r: ObservedRequest, vars: Vars): boolean {
  try {
    return c.test(r, vars);
  } catch {
    return false;
  }
}

function mismatchSentence(fields: FieldRow[]): string {
  return fields
    .filter((f) => !f.ok)
    .map((f) => `${f.field} was ${f.actual === undefined ? 'missing' : clip(JSON.stringify(f.actual))}, expected ${clip(f.expected)}`)
    .join('; ');
}

function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function summary(r: ObservedRequest): RequestSummary {
  return { log_id: r.row.id, twin: r.row.twin_slug, method: r.row.method, path: r.row.path, status: r.row.status_code, occurred_at: r.row.occurred_at };
}

export function boundsRange(b: CountBounds): [number, number | null] {
  if (b.exactly !== undefined) return [b.exactly, b.exactly];
  if (b.between) return [b.between[0], b.between[1]];
  return [b.at_least ?? 0, b.at_most ?? null];
}

export function describeBounds(b: CountBounds): string {
  if (b.exactly !== undefined) return `exactly ${b.exactly}`;
  if (b.between) return `between ${b.between[0]} and ${b.between[1]}`;
  const parts: string[] = [];
  if (b.at_least !== undefined) parts.push(`at least ${b.at_least}`);
  if (b.at_most !== undefined) parts.push(`at most ${b.at_most}`);
  return parts.join(' and ');
}

function plural(n: number, word: string, withNumber = true): string {
  const w = n === 1 ? word : `${word}s`;
  return withNumber ? `${n} ${w}` : w;
}
