// Judging: from (assertions, a window of logged requests in arrival order) to results with reasons.
// The window is read through TrafficWindow (one scan, then whole rows only for what is reported);
// no clock, no randomness, no writes: the same traffic always gives the same result — unless the
// work runs past its budget (the judges' thread gives one: CPU time, window size), in which case
// the assertions not judged by then say so (`incomplete`) instead of a verdict.

import { assertionKind, type Assertion, type CountBounds, type Matcher } from './matcher-language.js';
import { compileMatcher, fieldTable, matchesRest, readCapture, withoutSql, type CompiledMatcher, type FieldCheck, type FieldRow } from './request-matcher.js';
import { ObservedRequest, type RequestLogRow } from './observed-request.js';
import type { Vars } from './operators.js';
import { and, SQL_TRUE } from './sql-condition.js';
import { PatternError } from './pattern.js';
import type { TrafficWindow } from '../store/traffic-window.js';

/** How many matching ids a result lists (the count is always exact). */
const MAX_LISTED_IDS = 100;
const NEAR_MISSES = 3;
/** Rows kept after the cheap pre-score before full per-field tables are built. */
const NEAR_MISS_POOL = 200;
/** Parameters the scan's SQL may carry (SQLite allows 32,766 per statement). */
const SCAN_PARAMS = 30_000;

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
  /** The budget ran out before this assertion was judged: `passed` is false and `reason` says why. */
  incomplete?: true;
}

/** Work past what an attempt may spend; the message is the sentence its results give. */
export class BudgetExceeded extends Error {
  override name = 'BudgetExceeded';
}

/** What an evaluation may spend. `spend(n)` is called as n requests are checked; it throws BudgetExceeded. */
export interface EvaluationBudget {
  spend(requests: number): void;
}

const UNLIMITED: EvaluationBudget = { spend: () => {} };

export interface EvaluateOptions {
  budget?: EvaluationBudget;
  /** Each result as soon as it is known (the judges' thread posts them, so a killed thread loses none). */
  onResult?: (result: AssertionResult) => void;
}

/** The result of an assertion the budget left unjudged. */
export function incompleteResult(a: Assertion, index: number, reason: string): AssertionResult {
  const kind = assertionKind(a);
  return {
    index,
    kind,
    says: a.says,
    passed: false,
    expected:
      kind === 'never' ? 'none' : 'sequence' in a ? `${plural(a.sequence.length, 'step')} in order` : describeBounds((a as { count: CountBounds }).count),
    observed: 0,
    matching_log_ids: [],
    reason,
    incomplete: true,
  };
}

export interface Evaluation {
  passed: boolean;
  results: AssertionResult[];
}

export function evaluate(assertions: Assertion[], traffic: TrafficWindow, options: EvaluateOptions = {}): Evaluation {
  const budget = options.budget ?? UNLIMITED;
  const results: AssertionResult[] = [];
  const finish = (r: AssertionResult) => {
    results.push(r);
    options.onResult?.(r);
  };
  try {
    judgeAll(assertions, traffic, budget, finish);
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
    for (let index = results.length; index < assertions.length; index++) finish(incompleteResult(assertions[index]!, index, e.message));
  }
  return { passed: results.every((r) => r.passed), results };
}

function judgeAll(assertions: Assertion[], traffic: TrafficWindow, budget: EvaluationBudget, finish: (r: AssertionResult) => void): void {
  // Every matcher of every assertion (each sequence step is one) asks the window in a single scan.
  // Matchers past what one SQLite statement can carry are judged in JavaScript alone.
  let params = SCAN_PARAMS;
  const fit = (m: CompiledMatcher): CompiledMatcher => {
    if (m.where.params.length > params) return withoutSql(m);
    params -= m.where.params.length;
    return m;
  };
  // A pattern stored before today's rules (the engine before RE2 took `\y` as `y`) may no longer
  // compile: its assertion fails with the reason, the others are judged.
  const unusable = new Map<number, string>();
  const compiled = assertions.map((a, index) => {
    try {
      return ('sequence' in a ? a.sequence.map((s) => compileMatcher(s.match)) : [compileMatcher('never' in a ? a.never : a.match)]).map(fit);
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      unusable.set(index, `Not judged: one of its patterns cannot be used: ${e.message}`);
      return [];
    }
  });
  const scan = traffic.scan(compiled.flat().map((m) => ({ where: m.where, columns: m.residualColumns })));
  const requests = scan.rows.map((r) => new ObservedRequest(r));
  let probe = 0;
  for (const [index, a] of assertions.entries()) {
    const matchers = compiled[index]!;
    const candidates = scan.candidates.slice(probe, (probe += matchers.length));
    const problem = unusable.get(index);
    finish(problem ? incompleteResult(a, index, problem) : judge(a, index, { traffic, requests, matchers, candidates, budget }));
  }
}

/** What one assertion is judged on: its compiled matchers and, for each, the requests it may match. */
interface Judged {
  traffic: TrafficWindow;
  /** The scanned requests, in arrival order, with the columns the residual checks read. */
  requests: ObservedRequest[];
  matchers: CompiledMatcher[];
  /** Per matcher, ascending indices into `requests` where its SQL part holds. */
  candidates: number[][];
  budget: EvaluationBudget;
}

function judge(a: Assertion, index: number, j: Judged): AssertionResult {
  const kind = assertionKind(a);
  if ('sequence' in a) return judgeSequence(a.says, a.sequence, index, j);
  const compiled = j.matchers[0]!;
  const matching: number[] = [];
  for (const i of j.candidates[0]!) {
    j.budget.spend(1);
    if (matchesRest(compiled, j.requests[i]!)) matching.push(i);
  }
  const listed = j.traffic.rows(matching.slice(0, MAX_LISTED_IDS).map((i) => j.requests[i]!.row.seq));
  const ids = listed.map((r) => r.id);

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
        : `Expected no matching request, observed ${plural(matching.length, 'request')}: ${listed
            .slice(0, 3)
            .map((r) => `${r.method} ${r.path} → ${r.status_code} (log ${r.id})`)
            .join('; ')}${matching.length > 3 ? '; …' : ''}.`,
      offending: listed.map(summary),
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
      result.near_misses = nearMisses(compiled, j.traffic, BEFORE_ALL, {}, candidateSeqs(j, 0, -1), j.budget);
      if (result.near_misses.length > 0)
        result.reason += ` The nearest miss is log ${result.near_misses[0]!.log_id}: ${mismatchSentence(result.near_misses[0]!.fields)}.`;
    } else {
      result.reason = `Expected ${expected} matching ${plural(max!, 'request', false)}, observed ${n}: logs ${ids.slice(0, 10).join(', ')}${n > 10 ? ', …' : ''}.`;
    }
  }
  return result;
}

/** An arrival number below every logged request's. */
const BEFORE_ALL = -1;

function judgeSequence(says: string, steps: { says?: string; match: Matcher; capture?: Record<string, string> }[], index: number, j: Judged): AssertionResult {
  const vars: Vars = {};
  const stepResults: SequenceStepResult[] = [];
  let position = -1; // index into j.requests of the request the previous step bound
  let stoppedAt: number | null = null;
  let nearMissList: NearMiss[] | undefined;
  for (let k = 0; k < steps.length; k++) {
    const step = steps[k]!;
    const compiled = j.matchers[k]!;
    const candidates = j.candidates[k]!;
    let bound: number | undefined;
    for (let c = firstAbove(candidates, position); c < candidates.length; c++) {
      j.budget.spend(1);
      if (matchesRest(compiled, j.requests[candidates[c]!]!, vars)) {
        bound = candidates[c]!;
        break;
      }
    }
    if (bound === undefined) {
      stoppedAt = k;
      for (let rest = k; rest < steps.length; rest++) stepResults.push({ step: rest, says: steps[rest]!.says ?? null, bound_log_id: null, captured: {} });
      nearMissList = nearMisses(compiled, j.traffic, position < 0 ? BEFORE_ALL : j.requests[position]!.row.seq, vars, candidateSeqs(j, k, position), j.budget);
      break;
    }
    const row = j.traffic.rows([j.requests[bound]!.row.seq])[0]!;
    const whole = new ObservedRequest(row);
    const captured: Record<string, unknown> = {};
    for (const [name, source] of Object.entries(step.capture ?? {})) {
      captured[name] = readCapture(source, whole, step.match);
      vars[name] = captured[name];
    }
    stepResults.push({ step: k, says: step.says ?? null, bound_log_id: row.id, captured });
    position = bound;
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

/** Arrival numbers of up to a near-miss pool of matcher k's candidates after index `position`. */
function candidateSeqs(j: Judged, k: number, position: number): number[] {
  const list = j.candidates[k]!;
  const from = firstAbove(list, position);
  return list.slice(from, from + NEAR_MISS_POOL).map((i) => j.requests[i]!.row.seq);
}

/** The first position in an ascending list whose value is above `floor`. */
function firstAbove(sorted: number[], floor: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= floor) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function stepLabel(step: { says?: string; match: Matcher }): string {
  if (step.says) return step.says;
  const m = step.match;
  return [typeof m.method === 'string' ? m.method : undefined, typeof m.path === 'string' ? m.path : undefined].filter(Boolean).join(' ') || 'a request';
}

/** The fields a near miss is pre-scored on: columns, no decoding. */
const CHEAP_FIELDS = new Set(['twin', 'actor', 'method', 'path', 'response.status']);

/**
 * The requests after `afterSeq` closest to matching: a cheap score on every request (same operation,
 * i.e. method and path hold, first; then how many column checks hold; then earliest), full per-field
 * tables for the best few hundred, the nearest three of those. Requests to another twin are never
 * near misses. SQLite ranks when every column check has SQL; otherwise the same score is taken here.
 * `candidates`: the first arrival numbers after `afterSeq` where the matcher's SQL part holds.
 */
export function nearMisses(
  m: CompiledMatcher,
  traffic: TrafficWindow,
  afterSeq: number,
  vars: Vars,
  candidates: number[],
  budget: EvaluationBudget = UNLIMITED,
): NearMiss[] {
  const cheap = m.checks.filter((c) => CHEAP_FIELDS.has(c.field));
  const twinCheck = cheap.find((c) => c.field === 'twin');
  const operation = cheap.filter((c) => c.field === 'method' || c.field === 'path');
  let pool: number[];
  if (!cheap.every((c) => c.sql)) pool = rankHere(cheap, twinCheck, operation, traffic, afterSeq, vars, budget);
  // `candidates` hold every column check, so they rank first: when they fill the pool, it is them.
  else if (candidates.length >= NEAR_MISS_POOL && !cheap.some((c) => m.residual.includes(c))) pool = candidates.slice(0, NEAR_MISS_POOL);
  else pool = traffic.ranked(twinCheck?.sql ?? SQL_TRUE, [[and(operation.map((c) => c.sql!))], cheap.map((c) => c.sql!)], afterSeq, NEAR_MISS_POOL);
  const out: { miss: NearMiss; seq: number }[] = [];
  for (const row of traffic.rows(pool)) {
    budget.spend(1);
    const r = new ObservedRequest(row);
    const fields = fieldTable(m, r, vars);
    const considered = fields.slice(0, m.checks.length);
    const ok = considered.filter((f) => f.ok).length;
    if (ok === considered.length) continue; // a full match is not a miss (sequence: before the window)
    out.push({ miss: { ...summary(row), matched_fields: ok, total_fields: considered.length, fields }, seq: row.seq });
  }
  const sameOperation = (m: NearMiss) => (m.fields.every((f) => (f.field !== 'method' && f.field !== 'path') || f.ok) ? 1 : 0);
  out.sort((a, b) => sameOperation(b.miss) - sameOperation(a.miss) || b.miss.matched_fields - a.miss.matched_fields || a.seq - b.seq);
  return out.slice(0, NEAR_MISSES).map((o) => o.miss);
}

/** The near-miss pool scored in JavaScript, for column checks SQL cannot say (e.g. `matches` on a path). */
function rankHere(
  cheap: FieldCheck[],
  twinCheck: FieldCheck | undefined,
  operation: FieldCheck[],
  traffic: TrafficWindow,
  afterSeq: number,
  vars: Vars,
  budget: EvaluationBudget,
): number[] {
  const columns = [...new Set(cheap.flatMap((c) => c.columns))];
  const { rows } = traffic.scan([{ where: twinCheck?.sql ?? SQL_TRUE, columns }]);
  // Bucket by score (a handful of values) rather than sorting every request of the window.
  const width = cheap.length + 1;
  const buckets: number[][] = Array.from({ length: 2 * width }, () => []);
  for (const row of rows) {
    if (row.seq <= afterSeq) continue;
    budget.spend(1);
    const r = new ObservedRequest(row);
    if (twinCheck && !safeTest(twinCheck, r, vars)) continue;
    const score = cheap.filter((c) => safeTest(c, r, vars)).length;
    const sameOperation = operation.every((c) => safeTest(c, r, vars)) ? 1 : 0;
    const bucket = buckets[sameOperation * width + score]!;
    if (bucket.length < NEAR_MISS_POOL) bucket.push(row.seq);
  }
  const pool: number[] = [];
  for (let b = buckets.length - 1; b >= 0 && pool.length < NEAR_MISS_POOL; b--) pool.push(...buckets[b]!.slice(0, NEAR_MISS_POOL - pool.length));
  return pool;
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

function summary(row: RequestLogRow): RequestSummary {
  return { log_id: row.id, twin: row.twin_slug, method: row.method, path: row.path, status: row.status_code, occurred_at: row.occurred_at };
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
