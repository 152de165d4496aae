// Commits request-log rows to SQLite in groups (every row handed over in one turn of the event loop
// shares one transaction) and calls each row's `done` once it is committed. In the control plane
// it runs on the log writer's thread (log-writer-worker.ts), fed from the journal the gateway's
// answers wait for (log-journal.ts), with `retryFailed`: a commit that fails keeps its rows for
// the next try. As an in-process sink (tests) it holds each answer until its commit.
//
// The same (single) writer keeps the log bounded, a few rows at a time between commits: the rows of
// deleted environments, rows past their retention, and bodies beyond an environment's byte cap.
// Each step is bounded by a row budget that adapts to a time target, so a step never holds the
// writer's thread for long.

import { UNANSWERED, type RequestLogInput, type RequestLogStore } from '../store/request-logs.js';
import { TurnBatch, type Done } from './turn-batch.js';

export interface LogWriterOptions {
  /** Days rows are kept when the environment has no retention of its own. */
  defaultRetentionDays?: number;
  /** Bytes of bodies kept per environment before the oldest are dropped. */
  bodyCapBytes?: number;
  /** Milliseconds between maintenance steps. */
  maintenanceIntervalMs?: number;
  /** Milliseconds between two sweeps of every environment for retention. */
  retentionSweepMs?: number;
  /** Longest a maintenance step should take. */
  stepBudgetMs?: number;
  onError?: (message: string, err: unknown) => void;
  /** After each commit (the thread publishes its counters here). */
  onCommit?: () => void;
  /** Runs inside each commit's transaction after its rows (the journal position is saved there). */
  inTransaction?: () => void;
  /**
   * Keep rows whose commit failed and try them again (before any later row) a second later,
   * instead of reporting them failed: rows that are safe in the journal are never dropped.
   */
  retryFailed?: boolean;
}

export interface WriterStats {
  /** Rows handed over and not yet committed. */
  queueDepth: number;
  written: number;
  /** Rows whose commit failed (their requests were answered 503 instead). */
  failed: number;
  /** Rows removed by retention, the purge of deleted environments, and bodies dropped by the cap. */
  expired: number;
  purged: number;
  bodiesDropped: number;
  /** Transactions committed, and the time spent in them (µs): what the log write costs. */
  commits: number;
  commitMicros: number;
  /** Whether the last commit succeeded. */
  writable: boolean;
}

export class RequestLogWriter {
  private readonly batch = new TurnBatch<RequestLogInput>(() => this.commit());
  private readonly commitBatch: (rows: RequestLogInput[]) => void;
  private maintenanceTimer: NodeJS.Timeout | undefined;
  private retentionCursor: string | undefined;
  private lastSweep = 0;
  private rowBudget = 500;
  private closed = false;
  private readonly o: Required<Omit<LogWriterOptions, 'onError' | 'onCommit' | 'inTransaction'>> &
    Pick<LogWriterOptions, 'onError' | 'onCommit' | 'inTransaction'>;
  private retryTimer: NodeJS.Timeout | undefined;
  readonly counters = { written: 0, failed: 0, expired: 0, purged: 0, bodiesDropped: 0, commits: 0, commitMicros: 0 };
  /** Whether the last commit succeeded. */
  private healthy = true;
  private lastProbe = 0;

  constructor(
    private readonly store: RequestLogStore,
    options: LogWriterOptions = {},
  ) {
    this.o = {
      defaultRetentionDays: options.defaultRetentionDays ?? 30,
      bodyCapBytes: options.bodyCapBytes ?? 256 * 1024 * 1024,
      maintenanceIntervalMs: options.maintenanceIntervalMs ?? 200,
      retentionSweepMs: options.retentionSweepMs ?? 60_000,
      stepBudgetMs: options.stepBudgetMs ?? 4,
      retryFailed: options.retryFailed ?? false,
      onError: options.onError,
      onCommit: options.onCommit,
      inTransaction: options.inTransaction,
    };
    this.commitBatch = store.db.transaction((rows: RequestLogInput[]) => {
      store.appendRows(rows);
      this.o.inTransaction?.();
    });
  }

  /** Hand a row over; `done(true)` runs once it is committed, `done(false)` if the commit failed. */
  write(row: RequestLogInput, done: Done): void {
    // Once closed, each row commits at once; while a retry is pending, rows wait for it.
    this.batch.add(row, done, !this.closed && !this.retryTimer);
    if (this.closed) this.commit();
  }

  get queueDepth(): number {
    return this.batch.size;
  }

  /**
   * Whether rows can be written. After a failed commit it stays false — the gateway then refuses
   * requests before they reach a twin — except for one probe write a second that finds out when
   * the log can be written again (space freed).
   */
  get writable(): boolean {
    if (this.healthy) return true;
    const now = Date.now();
    if (now - this.lastProbe < 1000) return false;
    this.lastProbe = now;
    try {
      this.store.db
        .prepare("INSERT INTO request_log_meta (key, value) VALUES ('probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        .run(String(now));
      this.healthy = true;
      this.o.onCommit?.();
    } catch {
      // still not writable
    }
    return this.healthy;
  }

  stats(): WriterStats {
    return { queueDepth: this.batch.size, ...this.counters, writable: this.healthy };
  }

  /** Commit everything handed over (synchronous: better-sqlite3), then release the answers. */
  commit(): void {
    const taken = this.batch.take();
    if (!taken) return;
    const { rows, callbacks } = taken;
    let ok = true;
    const t0 = performance.now();
    try {
      this.commitBatch(rows);
      this.counters.written += rows.length;
      this.counters.commits += 1;
      this.counters.commitMicros += Math.round((performance.now() - t0) * 1000);
      this.healthy = true;
    } catch (err) {
      ok = false;
      this.healthy = false;
      this.lastProbe = Date.now();
      this.o.onError?.(`request log commit failed for ${rows.length} entries`, err);
      if (this.o.retryFailed && !this.closed) {
        this.batch.putBack(taken);
        this.o.onCommit?.();
        this.retryTimer ??= setTimeout(() => {
          this.retryTimer = undefined;
          this.commit();
        }, 1000);
        return;
      }
      this.counters.failed += rows.length;
    }
    // Counters first: an answer released below can reach its client (on another thread) at once,
    // and whoever reads the counters then must already see its row written.
    this.o.onCommit?.();
    for (const cb of callbacks) cb(ok);
  }

  /** Start the bounded maintenance steps. */
  startMaintenance(): void {
    if (this.maintenanceTimer || this.closed) return;
    this.maintenanceTimer = setInterval(() => this.maintain(), this.o.maintenanceIntervalMs);
    this.maintenanceTimer.unref();
  }

  setDefaultRetentionDays(days: number): void {
    this.o.defaultRetentionDays = days;
  }

  /** One maintenance step: purge, body cap, then (when due) the retention sweep; each within budget. */
  maintain(now = new Date()): void {
    if (this.closed) return;
    const t0 = performance.now();
    let touched = 0;
    try {
      const limits = { defaultRetentionDays: this.o.defaultRetentionDays, bodyCapBytes: this.o.bodyCapBytes, rowLimit: this.rowBudget, now };
      const purged = this.store.purgeStep(this.rowBudget);
      this.counters.purged += purged;
      touched += purged;
      if (touched < this.rowBudget) {
        const dropped = this.store.bodyCapStep({ ...limits, rowLimit: this.rowBudget - touched });
        this.counters.bodiesDropped += dropped;
        touched += dropped;
      }
      const sweeping = this.retentionCursor !== undefined;
      if (touched < this.rowBudget && (sweeping || now.getTime() - this.lastSweep >= this.o.retentionSweepMs)) {
        if (!sweeping) this.lastSweep = now.getTime();
        const step = this.store.retentionStep({ ...limits, rowLimit: this.rowBudget - touched }, this.retentionCursor ?? '');
        this.retentionCursor = step.cursor;
        this.counters.expired += step.deleted;
        touched += step.deleted;
      }
      if (touched > 0) this.store.db.pragma('incremental_vacuum(256)');
    } catch (err) {
      this.o.onError?.('request log maintenance failed', err);
    }
    // Steer the budget toward the time target.
    const took = performance.now() - t0;
    if (touched >= this.rowBudget && took < this.o.stepBudgetMs / 2) this.rowBudget = Math.min(20_000, this.rowBudget * 2);
    else if (took > this.o.stepBudgetMs) this.rowBudget = Math.max(50, Math.floor(this.rowBudget / 2));
  }

  /** Commit what is waiting and stop; later rows (answers finishing during shutdown) commit at once. */
  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.maintenanceTimer) clearInterval(this.maintenanceTimer);
    this.maintenanceTimer = undefined;
    this.commit();
  }
}

/**
 * The rows to store for journal entries read together: a request journaled before it was forwarded
 * (UNANSWERED) whose answer is among them becomes one row, the answer at the request's place,
 * rather than a row written and then completed. Rows are changed in place.
 */
export function mergeAnswers(rows: RequestLogInput[]): RequestLogInput[] {
  let opened: Map<string, number> | undefined;
  const out: RequestLogInput[] = [];
  for (const row of rows) {
    if (row.completes) {
      const at = opened?.get(row.id);
      if (at !== undefined) {
        opened!.delete(row.id);
        row.completes = null;
        out[at] = row;
        continue;
      }
    } else if (row.status_code === UNANSWERED) {
      (opened ??= new Map()).set(row.id, out.length);
    }
    out.push(row);
  }
  return out;
}
