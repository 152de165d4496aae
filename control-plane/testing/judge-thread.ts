// The judges' thread (judges.ts): test attempts evaluated and `matches` patterns compiled here, off
// the API's event loop, on a connection of its own to the request log, at batch priority. Each
// evaluation carries a budget: the window's size (checked before any work) and the thread's own CPU
// time (read from /proc/thread-self/schedstat as requests are checked). Past it, the assertions not
// judged yet get an `incomplete` result saying so; the host kills a thread that overruns anyway (one
// regular-expression test on one large body cannot be interrupted from inside).

import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { BATCH_NICE_STEP } from '../../twin-runtime/background-priority.js';
import { TrafficWindow } from '../store/traffic-window.js';
import { BudgetExceeded, evaluate, incompleteResult, type EvaluationBudget } from './evaluator.js';
import { patternProblem } from './pattern.js';
import { windowTooLarge, type FromJudge, type JudgeThreadData, type ToJudge } from './judge-protocol.js';

const port = parentPort!;
const { logFile } = workerData as JudgeThreadData;

try {
  setPriority(0, Math.min(19, getPriority(0) + BATCH_NICE_STEP));
} catch {
  // not allowed here: the thread runs at the process's priority
}

/** Nanoseconds this thread has run on a CPU; wall time where /proc is not there. */
const threadCpuNs: () => number = (() => {
  try {
    readFileSync('/proc/thread-self/schedstat', 'utf8');
    return () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return () => performance.now() * 1e6;
  }
})();

let db: Database.Database | undefined;

/** The request log, read-only (the log writer's thread is its only writer). */
function logs(): Database.Database {
  if (!db) {
    db = new Database(logFile, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
  }
  return db;
}

/** CPU time, read at most every 10 ms of wall time (a read is a syscall; one check may take a second). */
class CpuBudget implements EvaluationBudget {
  private readonly startNs = threadCpuNs();
  private checked = 0;
  private lastRead = performance.now();

  constructor(private readonly cpuMs: number) {}

  spend(requests: number): void {
    this.checked += requests;
    const now = performance.now();
    if (now - this.lastRead < 10) return;
    this.lastRead = now;
    if (threadCpuNs() - this.startNs > this.cpuMs * 1e6) {
      throw new BudgetExceeded(
        `Not judged: the attempt used its budget of ${this.cpuMs / 1000} s of CPU time after ${this.checked.toLocaleString('en-US')} request checks. ` +
          'Judge a narrower window (from, to) or use simpler patterns.',
      );
    }
  }
}

function post(m: FromJudge): void {
  port.postMessage(m);
}

port.on('message', (msg: ToJudge) => {
  try {
    if (msg.op === 'evaluate') {
      const window = new TrafficWindow(logs(), msg.environmentId, msg.from, msg.to);
      if (window.holdsMoreThan(msg.maxRows)) {
        msg.assertions.forEach((a, i) => {
          post({ op: 'result', id: msg.id, result: incompleteResult(a, i, windowTooLarge(msg.maxRows)) });
        });
      } else {
        evaluate(msg.assertions, window, { budget: new CpuBudget(msg.cpuMs), onResult: (result) => post({ op: 'result', id: msg.id, result }) });
      }
      post({ op: 'done', id: msg.id });
    } else {
      for (const [index, source] of msg.sources.entries()) post({ op: 'pattern', id: msg.id, index, problem: patternProblem(source) ?? null });
      post({ op: 'done', id: msg.id });
    }
  } catch (err) {
    post({ op: 'failed', id: msg.id, error: (err as Error).message });
  }
});

post({ op: 'ready' });
