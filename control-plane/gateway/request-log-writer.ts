// Batches request-log rows in memory and writes them in one transaction per batch: on a short
// timer, when the batch is full, on demand (a reader that must see every entry), and on shutdown.
// A failing write never reaches the proxied request; it is logged and the batch kept for a retry.

import type { Logger } from 'pino';
import type { RequestLogRow, RequestLogStore } from '../store/request-logs.js';

export interface RequestLogWriterOptions {
  /** Longest an entry waits in memory. */
  flushIntervalMs?: number;
  /** Write at once when this many entries wait. */
  maxBatch?: number;
  /** Entries kept while the database refuses writes; older ones beyond this are dropped (and counted). */
  maxBuffered?: number;
}

export class RequestLogWriter {
  private buffer: RequestLogRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly interval: number;
  private readonly maxBatch: number;
  private readonly maxBuffered: number;
  private closed = false;
  /** Entries dropped because the database refused them for too long. */
  dropped = 0;
  written = 0;

  constructor(
    private readonly store: RequestLogStore,
    private readonly log?: Logger,
    options: RequestLogWriterOptions = {},
  ) {
    this.interval = options.flushIntervalMs ?? 50;
    this.maxBatch = options.maxBatch ?? 1000;
    this.maxBuffered = options.maxBuffered ?? 200_000;
  }

  add(row: RequestLogRow): void {
    this.buffer.push(row);
    if (this.closed) {
      this.flush();
      return;
    }
    if (this.buffer.length >= this.maxBatch) {
      // Off the request's own tick: the response is already on its way.
      setImmediate(() => this.flush());
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.interval);
      this.timer.unref();
    }
  }

  get pending(): number {
    return this.buffer.length;
  }

  /** Write everything waiting now (synchronous: better-sqlite3). */
  flush(): void {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    try {
      this.store.append(batch);
      this.written += batch.length;
    } catch (err) {
      this.log?.error({ err, entries: batch.length }, 'request log write failed; keeping the batch for a retry');
      this.buffer = batch.concat(this.buffer);
      if (this.buffer.length > this.maxBuffered) {
        const over = this.buffer.length - this.maxBuffered;
        this.buffer.splice(0, over);
        this.dropped += over;
      }
      if (!this.timer && !this.closed) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.flush();
        }, 1000);
        this.timer.unref();
      }
    }
  }

  /** Flush and stop the timer; later entries (a request finishing during shutdown) are written at once. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
  }
}
