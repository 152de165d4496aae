// Graders the twin runs: `string_check` (eq, ne, like, ilike) and `text_similarity` with
// `fuzzy_match` (a normalised edit-distance ratio), over templates that name `{{item.…}}` and
// `{{sample.output_text}}`. Model-based, Python and multi graders are not simulated.

import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { invalidRequest } from '../wire/errors.js';

export type Grader =
  | { type: 'string_check'; name: string; input: string; reference: string; operation: 'eq' | 'ne' | 'like' | 'ilike' }
  | { type: 'text_similarity'; name: string; input: string; reference: string; evaluation_metric: 'fuzzy_match'; pass_threshold?: number };

export interface GradeContext {
  item: unknown;
  sample?: { output_text: string };
}

const MAX_TEMPLATE = 10_000;
const MAX_COMPARED = 5_000;

function str(v: unknown, param: string): string {
  if (typeof v !== 'string') throw invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
  if (v.length > MAX_TEMPLATE) throw invalidRequest(`Invalid '${param}': string too long.`, param, 'string_above_max_length');
  return v;
}

/** A grader definition as the API takes it, or a refusal (not simulated for the model-based kinds). */
export function readGrader(v: unknown, param: string, operation: string): Grader {
  const type = ownValue(v, 'type');
  const name = typeof ownValue(v, 'name') === 'string' ? (ownValue(v, 'name') as string) : String(type);
  if (type === 'string_check') {
    const op = ownValue(v, 'operation');
    if (op !== 'eq' && op !== 'ne' && op !== 'like' && op !== 'ilike') {
      throw invalidRequest(`Invalid value: '${String(op)}'. Supported values are: 'eq', 'ne', 'like', and 'ilike'.`, `${param}.operation`, 'invalid_value');
    }
    return { type, name, input: str(ownValue(v, 'input'), `${param}.input`), reference: str(ownValue(v, 'reference'), `${param}.reference`), operation: op };
  }
  if (type === 'text_similarity') {
    const metric = ownValue(v, 'evaluation_metric');
    if (metric !== 'fuzzy_match')
      throw new NotSimulated(`${operation} with a text_similarity grader using ${String(metric)}`, 'The twin computes fuzzy_match.');
    const threshold = ownValue(v, 'pass_threshold');
    return {
      type,
      name,
      input: str(ownValue(v, 'input'), `${param}.input`),
      reference: str(ownValue(v, 'reference'), `${param}.reference`),
      evaluation_metric: metric,
      ...(typeof threshold === 'number' ? { pass_threshold: threshold } : {}),
    };
  }
  if (typeof type !== 'string') throw invalidRequest(`Missing required parameter: '${param}.type'.`, `${param}.type`, 'missing_required_parameter');
  throw new NotSimulated(`${operation} with a ${type} grader`, 'The twin runs string_check and text_similarity (fuzzy_match) graders.');
}

/** `{{item.a.b}}` and `{{sample.output_text}}` filled in (unknown references become empty). */
export function render(template: string, ctx: GradeContext): string {
  return template.replace(/\{\{\s*(item|sample)((?:\.[A-Za-z0-9_]+)*)\s*\}\}/g, (_m, root: string, path: string) => {
    let v: unknown = root === 'item' ? ctx.item : ctx.sample;
    for (const key of path.split('.').filter((k) => k !== '')) v = ownValue(v, key);
    return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  });
}

/** Similarity 0–1: 1 − edit distance / the longer length (each side cut at 5,000 characters). */
function fuzzy(a: string, b: string): number {
  const x = a.slice(0, MAX_COMPARED);
  const y = b.slice(0, MAX_COMPARED);
  if (x.length === 0 && y.length === 0) return 1;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return 1 - prev[y.length]! / Math.max(x.length, y.length);
}

/** The grader's score (0–1) and whether it passes. */
export function grade(g: Grader, ctx: GradeContext): { score: number; passed: boolean } {
  const input = render(g.input, ctx);
  const reference = render(g.reference, ctx);
  if (g.type === 'text_similarity') {
    const score = Number(fuzzy(input, reference).toFixed(4));
    return { score, passed: score >= (g.pass_threshold ?? 1) };
  }
  const ok =
    g.operation === 'eq'
      ? input === reference
      : g.operation === 'ne'
        ? input !== reference
        : g.operation === 'like'
          ? input.includes(reference)
          : input.toLowerCase().includes(reference.toLowerCase());
  return { score: ok ? 1 : 0, passed: ok };
}
