// The request log's hand-off journal: how an answer can leave as soon as its log entry is safe
// from a crash, without waiting for SQLite or a disk.
//
// The gateway's thread appends each turn's entries to a journal file with one write(), publishes
// where the journal now ends (one shared counter), and releases their answers: once write() has
// returned the bytes belong to the kernel, so a SIGKILL of the control plane loses none of them.
// The log writer's thread (log-writer-worker.ts) reads the journal up to the published end every
// few milliseconds, moves the entries into request-logs.sqlite in batches and records, in the same
// transaction, how far it got; at start it replays whatever the journal holds past that point.
// No message crosses between the threads (a postMessage per turn cost the gateway ~24 µs a
// request, more than the write itself).
//
// The journal lives in memory-backed /dev/shm when the machine has it: a write there never waits
// for a disk. Before, the gateway committed to SQLite itself, and on a busy disk (another tenant's
// 10-year advance, a checkpoint's fsync) a one-row commit took up to 110 ms, stopping every twin
// URL with it (tenant-isolation bench). Without /dev/shm it sits beside the log, where one write()
// per turn still costs less than a commit.
//
// Files are segments `journal-<n>.ndjson` (one JSON row per line), a new one every
// SEGMENT_BYTES; the writer deletes a segment once every row of it is in SQLite.

import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, realpathSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestLogRow } from '../store/request-logs.js';
import { TurnBatch, type Done } from './turn-batch.js';

/** A new segment once the current one holds this many bytes. */
export const SEGMENT_BYTES = 8 * 1024 * 1024;

/** Entries journaled but not yet in SQLite beyond which the gateway refuses requests (503). */
export const MAX_UNAPPLIED_ROWS = 50_000;

const SEGMENT_NAME = /^journal-(\d+)\.ndjson$/;

export function segmentPath(dir: string, segment: number): string {
  return join(dir, `journal-${segment}.ndjson`);
}

/** The journal directory for a data directory: one per data directory, readable by its owner only. */
export function journalDirFor(dataDir: string, memoryDir = '/dev/shm'): string {
  let dir = join(dataDir, 'request-log-journal');
  try {
    if (statSync(memoryDir).isDirectory()) {
      const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 20);
      dir = join(memoryDir, `twins-log-journal-${key}`);
    }
  } catch {
    // no memory-backed directory: beside the log
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    dir = join(dataDir, 'request-log-journal');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  return dir;
}

/** Segment numbers present, ascending. */
export function listSegments(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((n) => SEGMENT_NAME.exec(n)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** How far the writer has moved the journal into SQLite: every byte before `offset` of `segment`. */
export interface JournalPosition {
  segment: number;
  offset: number;
}

export const formatPosition = (p: JournalPosition): string => `${p.segment}:${p.offset}`;

export function parsePosition(text: string | undefined): JournalPosition | undefined {
  const m = text === undefined ? null : /^(\d+):(\d+)$/.exec(text);
  return m ? { segment: Number(m[1]), offset: Number(m[2]) } : undefined;
}

/** Rows of journal text (complete lines only: a line cut short by a power loss is dropped). */
export function rowsOf(text: string): RequestLogRow[] {
  const rows: RequestLogRow[] = [];
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    if (end > start) {
      try {
        rows.push(JSON.parse(text.slice(start, end)) as RequestLogRow);
      } catch {
        // a torn line: nothing of it reached the log's reader either
      }
    }
    start = end + 1;
  }
  return rows;
}

/** Delete segments before `segment` (all of them when undefined). */
export function dropSegments(dir: string, before?: number): void {
  for (const s of listSegments(dir)) {
    if (before !== undefined && s >= before) break;
    try {
      unlinkSync(segmentPath(dir, s));
    } catch {
      // already gone
    }
  }
}

/** Remove the journal directory (a clean stop, after every row reached SQLite). */
export function removeJournal(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A position as one shared 64-bit counter: segment in the high half, offset in the low. */
export const packPosition = (p: JournalPosition): bigint => (BigInt(p.segment) << 32n) | BigInt(p.offset);
export const unpackPosition = (v: bigint): JournalPosition | undefined =>
  v === 0n ? undefined : { segment: Number(v >> 32n), offset: Number(v & 0xffffffffn) };


export interface JournalCounters {
  /** Rows journaled (durable): their answers have been released. */
  written: number;
  /** Rows whose journal write failed (their requests were answered 503 instead). */
  failed: number;
}

/**
 * The gateway's log sink: entries handed over in one turn of the event loop are appended with one
 * write(), the journal's new end is published, then their answers are released.
 */
export class LogJournal {
  private readonly batch = new TurnBatch(() => this.flush());
  private fd: number | undefined;
  private segment = 0;
  private offset = 0;
  private healthy = true;
  private lastProbe = 0;
  readonly counters: JournalCounters = { written: 0, failed: 0 };

  constructor(
    private readonly dir: string,
    /** The next unused segment number (shared with any later gateway thread). */
    private readonly nextSegment: () => number,
    /** Rows journaled and not yet in SQLite. */
    private readonly unappliedRows: () => number,
    /** After each append, before its answers are released: the journal's end and counters are published here. */
    private readonly afterAppend: (end: JournalPosition) => void,
  ) {}

  write(row: RequestLogRow, done: Done): void {
    this.batch.add(row, done);
  }

  get queueDepth(): number {
    return this.batch.size;
  }

  /** Whether entries can be taken: the journal writes, and the writer is not too far behind. */
  get writable(): boolean {
    if (this.unappliedRows() >= MAX_UNAPPLIED_ROWS) return false;
    if (this.healthy) return true;
    // After a failed write, one probe a second finds out when the journal takes writes again.
    const now = Date.now();
    if (now - this.lastProbe < 1000) return false;
    this.lastProbe = now;
    try {
      this.append(Buffer.alloc(0));
      this.healthy = true;
    } catch {
      // still not writable
    }
    return this.healthy;
  }

  /** Append everything handed over, then release the answers (synchronous). */
  flush(): void {
    const taken = this.batch.take();
    if (!taken) return;
    const { rows, callbacks } = taken;
    let text = '';
    for (const r of rows) text += JSON.stringify(r) + '\n';
    let ok = true;
    try {
      this.append(Buffer.from(text, 'utf8'));
      this.counters.written += rows.length;
      this.healthy = true;
    } catch {
      ok = false;
      this.healthy = false;
      this.lastProbe = Date.now();
      this.counters.failed += rows.length;
    }
    this.afterAppend({ segment: this.segment, offset: this.offset });
    for (const cb of callbacks) cb(ok);
  }

  private append(bytes: Buffer): void {
    if (this.fd === undefined || this.offset >= SEGMENT_BYTES) this.openSegment();
    let at = 0;
    while (at < bytes.length) at += writeSync(this.fd!, bytes, at, bytes.length - at);
    this.offset += bytes.length;
  }

  private openSegment(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.segment = this.nextSegment();
    this.fd = openSync(segmentPath(this.dir, this.segment), 'a', 0o600);
    this.offset = 0;
  }

  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
