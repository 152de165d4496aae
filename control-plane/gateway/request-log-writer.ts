// Writes request-log rows so that no answered request is ever missing from the log: the gateway
// hands each row over with the answer it is holding, and the answer is sent only once the row's
// transaction has committed (group commit: every row handed over in one turn of the event loop
// shares one transaction). A commit in WAL mode has reached the operating system, so a SIGKILL
// right after the response loses nothing.
//
// The same (single) writer keeps the log bounded, a few rows at a time between commits: the rows of
// deleted environments, rows past their retention, and bodies beyond an environment's byte cap.
// Each step is bounded by a row budget that adapts to a time target, so a step never holds the
// gateway's thread for long.

import type { RequestLogRow, RequestLogStore } from '../store/request-logs.js';

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
  /** After each commit (the gateway's thread publishes its counters here). */
  onCommit?: () => void;
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

type Done = (committed: boolean) => void;

export class RequestLogWriter {
  private rows: RequestLogRow[] = [];
  private callbacks: Done[] = [];
  private scheduled = false;
  private readonly commitBatch: (rows: RequestLogRow[]) => void;
  private maintenanceTimer: NodeJS.Timeout | undefined;
  private retentionCursor: string | undefined;
  private lastSweep = 0;
  private rowBudget = 500;
  private closed = false;
  private readonly o: Required<Omit<LogWriterOptions, 'onError' | 'onCommit'>> & Pick<LogWriterOptions, 'onError' | 'onCommit'>;
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
      onError: options.onError,
      onCommit: options.onCommit,
    };
    this.commitBatch = store.db.transaction((rows: RequestLogRow[]) => store.appendRows(rows));
  }

  /** Hand a row over; `done(true)` runs once it is committed, `done(false)` if the commit failed. */
  write(row: RequestLogRow, done: Done): void {
    this.rows.push(row);
    this.callbacks.push(done);
    if (this.closed) {
      this.commit();
      return;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.commit());
    }
  }

  get queueDepth(): number {
    return this.rows.length;
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
    return { queueDepth: this.rows.length, ...this.counters, writable: this.healthy };
  }

  /** Commit everything handed over (synchronous: better-sqlite3), then release the answers. */
  commit(): void {
    this.scheduled = false;
    if (this.rows.length === 0) return;
    const rows = this.rows;
    const callbacks = this.callbacks;
    this.rows = [];
    this.callbacks = [];
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
      this.counters.failed += rows.length;
      this.o.onError?.(`request log commit failed for ${rows.length} entries`, err);
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
    if (this.maintenanceTimer) clearInterval(this.maintenanceTimer);
    this.maintenanceTimer = undefined;
    this.commit();
  }
}
