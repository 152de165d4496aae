// The per-request transaction every twin runs under, with group commit. Provider requests are
// queued per twin and answered one at a time; the requests that arrive together (same event-loop
// turn) share one SQLite transaction, each inside its own savepoint, so a request that fails rolls
// back only its own writes (ids it drew included) and nothing is acknowledged before the COMMIT
// that makes it durable, while a burst pays for one commit instead of one per request.
// Host operations (reset, advance, record edits) run as exclusive jobs between batches.

import type Database from 'better-sqlite3';

/**
 * The record store's deferred counters (RecordStore): drawn in memory while a batch's transaction
 * is open and written just before its COMMIT, a rolled-back savepoint taking back what it drew.
 */
export interface DeferredCounters {
  deferCounters(): void;
  counterMark(): number;
  undoCounters(mark: number): void;
  flushCounters(): void;
  dropCounters(): void;
}

interface Job {
  exclusive: boolean;
  run: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Transaction-control statements, prepared once (exec would parse them on every request). */
interface TxStatements {
  begin: Database.Statement;
  commit: Database.Statement;
  rollback: Database.Statement;
  savepoint: Database.Statement;
  release: Database.Statement;
  rollbackTo: Database.Statement;
}

export class RequestPipeline {
  private readonly jobs: Job[] = [];
  private scheduled = false;
  private running = false;
  private readonly sql: TxStatements;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly db: Database.Database,
    private readonly counters?: DeferredCounters,
  ) {
    this.sql = {
      begin: db.prepare('BEGIN'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT twin_request'),
      release: db.prepare('RELEASE twin_request'),
      rollbackTo: db.prepare('ROLLBACK TO twin_request'),
    };
  }

  /**
   * Run `job` inside the next batch's transaction. It resolves after the batch commits; when the
   * commit fails every job of the batch rejects with that error.
   */
  submit<T>(job: () => T | Promise<T>): Promise<T> {
    return this.enqueue(job, false);
  }

  /** Run `job` alone, outside any transaction, after every job queued before it. */
  exclusive<T>(job: () => T | Promise<T>): Promise<T> {
    return this.enqueue(job, true);
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (!this.running && !this.scheduled && this.jobs.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Run `fn` inside a savepoint of the current batch: a throw rolls back what `fn` wrote and is
   * passed on. Only valid inside a submitted job.
   */
  async savepoint<T>(fn: () => T | Promise<T>): Promise<T> {
    const mark = this.counters?.counterMark() ?? 0;
    this.sql.savepoint.run();
    try {
      const out = await fn();
      this.sql.release.run();
      return out;
    } catch (e) {
      // A full disk may have rolled the whole transaction back already (SQLITE_FULL).
      if (this.db.inTransaction) {
        this.sql.rollbackTo.run();
        this.sql.release.run();
        this.counters?.undoCounters(mark);
      } else this.counters?.dropCounters();
      throw e;
    }
  }

  private enqueue<T>(run: () => T | Promise<T>, exclusive: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ exclusive, run, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.jobs.length > 0) {
        if (this.jobs[0]!.exclusive) {
          const job = this.jobs.shift()!;
          try {
            job.resolve(await job.run());
          } catch (e) {
            job.reject(e);
          }
          continue;
        }
        const end = this.jobs.findIndex((j) => j.exclusive);
        const batch = this.jobs.splice(0, end === -1 ? this.jobs.length : end);
        await this.runBatch(batch);
      }
    } finally {
      this.running = false;
      if (this.jobs.length > 0) this.schedule();
      else {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  private async runBatch(batch: Job[]): Promise<void> {
    const done: [Job, unknown][] = [];
    try {
      for (const job of batch) {
        if (!this.db.inTransaction) {
          this.sql.begin.run();
          this.counters?.deferCounters();
        }
        try {
          done.push([job, await job.run()]);
        } catch (e) {
          job.reject(e);
          // SQLite rolled the whole transaction back (a full disk): the jobs before lost their
          // writes too, so they fail with it; the rest of the batch runs in a new transaction.
          if (!this.db.inTransaction) {
            this.counters?.dropCounters();
            for (const [lost] of done.splice(0)) lost.reject(e);
          }
        }
      }
      if (this.db.inTransaction) {
        this.counters?.flushCounters();
        this.sql.commit.run();
      }
    } catch (e) {
      this.counters?.dropCounters();
      if (this.db.inTransaction) this.sql.rollback.run();
      for (const [job] of done) job.reject(e);
      return;
    }
    for (const [job, out] of done) job.resolve(out);
  }
}
