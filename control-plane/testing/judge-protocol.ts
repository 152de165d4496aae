// Messages between the API's thread (judges.ts) and a judges' thread (judge-thread.ts), and the
// sentences an attempt's results give when its budget ran out.

import type { AssertionResult } from './evaluator.js';
import type { Assertion } from './matcher-language.js';

export interface JudgeThreadData {
  /** The request log's SQLite file. */
  logFile: string;
}

export type ToJudge =
  | { op: 'evaluate'; id: number; environmentId: string; from: string; to: string; assertions: Assertion[]; cpuMs: number; maxRows: number }
  | { op: 'patterns'; id: number; sources: string[] };

export type FromJudge =
  | { op: 'ready' }
  /** One assertion's result (evaluate), in order. */
  | { op: 'result'; id: number; result: AssertionResult }
  /** One pattern's problem (patterns), null when it compiles. */
  | { op: 'pattern'; id: number; index: number; problem: string | null }
  | { op: 'done'; id: number }
  | { op: 'failed'; id: number; error: string };

export function windowTooLarge(maxRows: number): string {
  return `Not judged: the window holds more than ${maxRows.toLocaleString('en-US')} logged requests, the most one attempt judges. Judge a narrower window (from, to).`;
}

export function pastDeadline(seconds: number): string {
  return `Not judged: the attempt did not finish within ${seconds} s (one check ran too long to be stopped sooner). Judge a narrower window (from, to) or use simpler patterns.`;
}
