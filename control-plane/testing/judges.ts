// Where test attempts are judged and `matches` patterns compiled: a small pool of worker threads
// (judge-thread.ts), never the API's event loop. A tenant's patterns are programs it wrote; before,
// one attempt with a 3,501-character pattern over 20 logged rows held the API's thread 11.8 s and
// moved another organization's API p99 from 168 ms to 10.3 s (issue 33).
//
// Each attempt has a budget: the window may hold at most `maxRows` requests, and judging may use
// `cpuMs` of the thread's CPU time; past either, the assertions not judged yet come back
// `incomplete` with a sentence saying why (the attempt is stored, `passed: false`). A thread still
// busy at `deadlineMs` of wall time (a single check that cannot be interrupted from inside) is
// stopped and replaced; its results so far are kept. Jobs beyond the pool's threads wait their turn.

import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { startThread } from '../threads.js';
import type { PatternChecker } from './assertion-checks.js';
import { incompleteResult, type AssertionResult, type Evaluation } from './evaluator.js';
import { pastDeadline, type FromJudge, type JudgeThreadData, type ToJudge } from './judge-protocol.js';
import type { Assertion } from './matcher-language.js';

export interface JudgeLimits {
  /** CPU time one attempt may use, in ms of its thread's time. */
  cpuMs: number;
  /** Logged requests one attempt's window may hold. */
  maxRows: number;
  /** Wall time after which a thread still judging one attempt is stopped, in ms. */
  deadlineMs: number;
  /** Wall time compiling one request's patterns may take, in ms. */
  compileDeadlineMs: number;
}

export const DEFAULT_JUDGE_LIMITS: Readonly<JudgeLimits> = Object.freeze({ cpuMs: 3000, maxRows: 500_000, deadlineMs: 10_000, compileDeadlineMs: 5000 });

export interface JudgesOptions {
  /** The request log's SQLite file. */
  logFile: string;
  /** Threads judging at once (default 2). */
  threads?: number;
  limits?: Partial<JudgeLimits>;
  log?: Logger;
}

/** The window of one environment's traffic an attempt judges. */
export interface JudgedWindow {
  environmentId: string;
  from: string;
  to: string;
}

type Outcome = 'done' | 'deadline' | 'exited' | { failed: string };

interface Job {
  message: ToJudge;
  deadlineMs: number;
  onMessage(m: FromJudge): void;
  finish(outcome: Outcome): void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  job?: Job;
  jobId?: number;
  timer?: NodeJS.Timeout;
}

export class Judges {
  readonly limits: JudgeLimits;
  private readonly size: number;
  private readonly slots = new Set<Slot>();
  private readonly idle: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: JudgesOptions) {
    this.limits = { ...DEFAULT_JUDGE_LIMITS, ...options.limits };
    this.size = Math.max(1, options.threads ?? 2);
  }

  /**
   * Judge the assertions over the window within the limits (this pool's, or `limits` for this
   * attempt); never rejects for a budget, only for a bug in judging.
   */
  evaluate(assertions: Assertion[], window: JudgedWindow, limits: Partial<JudgeLimits> = {}): Promise<Evaluation> {
    const { cpuMs, maxRows, deadlineMs } = { ...this.limits, ...limits };
    return new Promise((resolve, reject) => {
      const results: AssertionResult[] = [];
      const settle = (reason: string) => {
        for (let i = results.length; i < assertions.length; i++) results.push(incompleteResult(assertions[i]!, i, reason));
        resolve({ passed: results.every((r) => r.passed), results });
      };
      this.submit({
        message: { op: 'evaluate', id: 0, ...window, assertions, cpuMs, maxRows },
        deadlineMs,
        onMessage: (m) => {
          if (m.op === 'result') results.push(m.result);
        },
        finish: (outcome) => {
          if (outcome === 'done') settle('Not judged: the judging thread gave no result for it.');
          else if (outcome === 'deadline') settle(pastDeadline(deadlineMs / 1000));
          else if (outcome === 'exited')
            settle('Not judged: the judging thread stopped before it finished (the service is stopping, or it ran out of memory).');
          else reject(new Error(`Judging the attempt failed: ${outcome.failed}`));
        },
      });
    });
  }

  /** Why each pattern cannot be used (compiled on a judges' thread, within compileDeadlineMs). */
  readonly checkPatterns: PatternChecker = (sources, compileDeadlineMs = this.limits.compileDeadlineMs) => {
    if (sources.length === 0) return Promise.resolve([]);
    const seconds = compileDeadlineMs / 1000;
    return new Promise((resolve, reject) => {
      const problems: (string | undefined)[] = [];
      let answered = 0;
      this.submit({
        message: { op: 'patterns', id: 0, sources },
        deadlineMs: compileDeadlineMs,
        onMessage: (m) => {
          if (m.op !== 'pattern') return;
          problems[m.index] = m.problem ?? undefined;
          answered = m.index + 1;
        },
        finish: (outcome) => {
          if (typeof outcome === 'object') return reject(new Error(`Compiling the patterns failed: ${outcome.failed}`));
          for (let i = answered; i < sources.length; i++) {
            problems[i] =
              i === answered
                ? `compiling it took longer than ${seconds} s; use a smaller pattern.`
                : `it was not compiled: an earlier pattern took longer than ${seconds} s.`;
          }
          resolve(problems);
        },
      });
    });
  };

  /** Stop every thread; jobs still waiting end as if their thread had stopped. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.finish('exited');
    const slots = [...this.slots];
    this.slots.clear();
    this.idle.length = 0;
    await Promise.all(
      slots.map(async (slot) => {
        clearTimeout(slot.timer);
        const job = slot.job;
        slot.job = undefined;
        job?.finish('exited');
        await slot.worker.terminate();
      }),
    );
  }

  private submit(job: Job): void {
    if (this.closed) {
      job.finish('exited');
      return;
    }
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      let slot = this.idle.pop();
      if (!slot) {
        if (this.slots.size >= this.size) return;
        slot = this.spawn();
      }
      this.run(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    const data: JudgeThreadData = { logFile: this.options.logFile };
    const worker = startThread(import.meta.url, 'judge-thread', { workerData: data, name: 'twins-judge' });
    let ready!: () => void;
    const slot: Slot = { worker, ready: new Promise((r) => (ready = r)) };
    worker.on('message', (m: FromJudge) => {
      if (m.op === 'ready') return ready();
      if (!('id' in m) || m.id !== slot.jobId || !slot.job) return;
      if (m.op === 'done' || m.op === 'failed') this.release(slot, m.op === 'done' ? 'done' : { failed: m.error });
      else slot.job.onMessage(m);
    });
    worker.on('error', (err) => this.options.log?.error({ err }, 'judging thread failed'));
    worker.once('exit', () => {
      if (!this.slots.delete(slot)) return; // stopped on purpose
      const at = this.idle.indexOf(slot);
      if (at !== -1) this.idle.splice(at, 1);
      clearTimeout(slot.timer);
      const job = slot.job;
      slot.job = undefined;
      job?.finish('exited');
      this.pump();
    });
    this.slots.add(slot);
    return slot;
  }

  private run(slot: Slot, job: Job): void {
    const id = this.nextId++;
    slot.job = job;
    slot.jobId = id;
    // The deadline counts from when the thread can start (a new thread first loads its modules).
    void slot.ready.then(() => {
      if (slot.jobId !== id || !slot.job) return;
      slot.timer = setTimeout(() => this.overrun(slot), job.deadlineMs);
      slot.worker.postMessage({ ...job.message, id });
    });
  }

  /** A job ended on its thread: the thread takes the next one. */
  private release(slot: Slot, outcome: Outcome): void {
    clearTimeout(slot.timer);
    const job = slot.job!;
    slot.job = undefined;
    slot.jobId = undefined;
    this.idle.push(slot);
    job.finish(outcome);
    this.pump();
  }

  /** Past its deadline: the thread is stopped (a new one starts for the next job). */
  private overrun(slot: Slot): void {
    const job = slot.job;
    if (!job) return;
    slot.job = undefined;
    this.slots.delete(slot);
    void slot.worker.terminate();
    this.options.log?.warn({ deadlineMs: job.deadlineMs }, 'judging thread stopped at its deadline');
    job.finish('deadline');
    this.pump();
  }
}
