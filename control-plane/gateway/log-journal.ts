// The request log's hand-off journal: how an answer can leave as soon as its log entry is safe
// from a crash, without waiting for SQLite or a disk.
//
// The gateway's thread appends each turn's entries to a journal file with one write(), publishes
// where the journal now ends (one shared counter), and releases their answers: once write() has
// returned the bytes belong to the kernel, so a SIGKILL of the control plane loses none of them.
// The log writer's thread (log-writer-worker.ts) reads the journal up to the published end (every
// 25 ms, sooner when a reader waits), moves the entries into request-logs.sqlite in batches and
// records, in the same transaction, how far it got; at start it replays whatever the journal holds
// past that point.
// No message crosses between the threads (a postMessage per turn cost the gateway ~24 µs a
// request, more than the write itself).
//
// The journal lives in memory-backed /dev/shm when the machine has it with room to spare (at least
// MIN_MEMORY_FREE_BYTES free: a container's default 64 MB would fill under a lagging writer and
// refuse requests): a write there never waits for a disk. Before, the gateway committed to SQLite
// itself, and on a busy disk (another tenant's 10-year advance, a checkpoint's fsync) a one-row
// commit took up to 110 ms, stopping every twin URL with it (tenant-isolation bench). Without
// /dev/shm it sits beside the log, where one write() per turn still costs less than a commit.
//
// Files are segments `journal-<n>.entries`, a new one every SEGMENT_BYTES; the writer deletes a
// segment once every row of it is in SQLite. An entry is the row's fields as a JSON array followed
// by its request headers and bodies as bytes (entryParts), written with one writev() per turn and
// never copied into one buffer: bodies are most of a row, and written as JSON strings they cost
// the gateway ~30 µs a row to escape and the writer ~18 µs to parse back (a 7 KB list answer; ~3 µs
// each as bytes). The writer stores the bodies as they are (RequestLogInput): no body is decoded
// into a JavaScript string on the way to SQLite.

import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, realpathSync, renameSync, rmSync, statfsSync, statSync, unlinkSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedRow } from './recording.js';
import { TurnBatch, type Done } from './turn-batch.js';

/** A new segment once the current one holds this many bytes. */
export const SEGMENT_BYTES = 8 * 1024 * 1024;

/** Buffers one writev() takes at most (Linux's IOV_MAX). */
const MAX_PARTS = 1024;

/** Entries journaled but not yet in SQLite beyond which the gateway refuses requests (503). */
export const MAX_UNAPPLIED_ROWS = 50_000;

const SEGMENT_NAME = /^journal-(\d+)\.entries$/;
/** Segments of the NDJSON journal of earlier versions (its lines are still read: decodeEntries). */
const OLDER_SEGMENT_NAME = /^journal-(\d+)\.ndjson$/;

export function segmentPath(dir: string, segment: number): string {
  return join(dir, `journal-${segment}.entries`);
}

/** Give segments an earlier version left (after a crash) the current name, so they are replayed. */
export function adoptOlderSegments(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = OLDER_SEGMENT_NAME.exec(name);
    if (m) renameSync(join(dir, name), segmentPath(dir, Number(m[1])));
  }
}

/**
 * Free bytes /dev/shm must have for the journal to live there: 50,000 unapplied entries (the most the
 * gateway lets wait, MAX_UNAPPLIED_ROWS) of ~5 KB each.
 */
export const MIN_MEMORY_FREE_BYTES = 256 * 1024 * 1024;

function freeBytes(dir: string): number {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return 0;
  }
}

/**
 * The journal directory for a data directory: one per data directory, readable by its owner only.
 * A journal a crash left behind is replayed where it is; otherwise memory when it has room.
 */
export function journalDirFor(dataDir: string, memoryDir = '/dev/shm', minMemoryFree = MIN_MEMORY_FREE_BYTES): string {
  const onDisk = join(dataDir, 'request-log-journal');
  let inMemory: string | undefined;
  try {
    if (statSync(memoryDir).isDirectory()) {
      const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 20);
      inMemory = join(memoryDir, `twins-log-journal-${key}`);
    }
  } catch {
    // no memory-backed directory: beside the log
  }
  let dir = onDisk;
  if (inMemory) adoptOlderSegments(inMemory);
  adoptOlderSegments(onDisk);
  if (inMemory && listSegments(inMemory).length > 0) dir = inMemory;
  else if (listSegments(onDisk).length > 0) dir = onDisk;
  else if (inMemory && freeBytes(memoryDir) >= minMemoryFree) dir = inMemory;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    dir = onDisk;
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

/** First byte of an entry; an earlier version's NDJSON line starts with `{`. */
const ENTRY = 0x02;
/** An entry of the previous version (fields as a JSON object with the headers inside), still read. */
const OBJECT_ENTRY = 0x01;
const OPEN_BRACE = 0x7b;
const NEWLINE = 0x0a;
/** Marker, then the lengths of the fields' JSON, the request headers, the request body and the response body (-1: none). */
const ENTRY_HEAD = 17;
const OBJECT_ENTRY_HEAD = 13;

/**
 * The row's fields an entry carries as a JSON array, in this order (no names: shorter to write and
 * to parse). The request headers and the bodies follow as bytes: the headers are JSON text already,
 * and inside the fields they would be escaped and unescaped again (~10 µs a row).
 */
const FIELDS = [
  'id',
  'organization_id',
  'environment_id',
  'environment_twin_id',
  'twin_slug',
  'actor',
  'method',
  'path',
  'query_string',
  'status_code',
  'duration_ms',
  'occurred_at',
  'request_content_type',
  'request_body_truncated',
  'response_content_type',
  'response_body_truncated',
  'body_bytes',
  'completes',
  'fidelity',
  'fault',
] as const satisfies readonly (keyof CapturedRow)[];

/** Fields a row may leave out (written as null, read back as absent). */
const OPTIONAL_FIELDS: ReadonlySet<string> = new Set(['body_bytes', 'completes', 'fidelity', 'fault'] satisfies (keyof CapturedRow)[]);

/**
 * Field counts of entries written before a field was added at the end (read with the later fields
 * absent): before `fault`, before `fidelity`, and before `completes`.
 */
const EARLIER_FIELD_COUNTS: ReadonlySet<number> = new Set([FIELDS.length - 1, FIELDS.length - 2, FIELDS.length - 3]);

const bytesOf = (body: string | Buffer | null): Buffer | null => (body === null || Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'));

/**
 * Journal bytes for rows, as the list of buffers to write in turn (bodies are not copied): per row
 * a head, its fields, its request headers, then its bodies.
 */
export function entryParts(rows: readonly CapturedRow[]): Buffer[] {
  const parts: Buffer[] = [];
  for (const row of rows) {
    const values: unknown[] = new Array(FIELDS.length);
    for (let i = 0; i < FIELDS.length; i++) values[i] = row[FIELDS[i]!] ?? null;
    const json = JSON.stringify(values);
    const jsonLength = Buffer.byteLength(json, 'utf8');
    const headersLength = Buffer.byteLength(row.request_headers, 'utf8');
    const req = bytesOf(row.request_body);
    const res = bytesOf(row.response_body);
    // Head, fields and headers in one buffer (one allocation); the bodies as they are.
    const head = Buffer.allocUnsafe(ENTRY_HEAD + jsonLength + headersLength);
    head[0] = ENTRY;
    head.writeUInt32LE(jsonLength, 1);
    head.writeUInt32LE(headersLength, 5);
    head.writeInt32LE(req ? req.length : -1, 9);
    head.writeInt32LE(res ? res.length : -1, 13);
    head.write(json, ENTRY_HEAD, 'utf8');
    head.write(row.request_headers, ENTRY_HEAD + jsonLength, 'utf8');
    parts.push(head);
    if (req) parts.push(req);
    if (res) parts.push(res);
  }
  return parts;
}

/** The row with its bodies: views of `bytes` from `at`, the request's then the response's (-1: none). */
function withBodies(row: CapturedRow, bytes: Buffer, at: number, reqLength: number, resLength: number): CapturedRow {
  row.request_body = reqLength < 0 ? null : bytes.subarray(at, at + reqLength);
  const resAt = at + Math.max(reqLength, 0);
  row.response_body = resLength < 0 ? null : bytes.subarray(resAt, resAt + resLength);
  return row;
}

/**
 * The rows of the whole entries at the start of `bytes` (up to `length`) and how many bytes they
 * take: an entry cut short (a write a crash interrupted) ends the reading there. Entries and lines
 * of earlier versions (fields as an object; NDJSON) are read too; a damaged entry or line is
 * skipped. Bodies come back as views of `bytes` (stored as they are, never decoded: RequestLogInput).
 */
export function decodeEntries(bytes: Buffer, length = bytes.length): { rows: CapturedRow[]; consumed: number } {
  const rows: CapturedRow[] = [];
  let at = 0;
  while (at < length) {
    const first = bytes[at];
    if (first === NEWLINE) {
      at += 1;
    } else if (first === OPEN_BRACE) {
      const end = bytes.indexOf(NEWLINE, at);
      if (end === -1 || end >= length) break;
      try {
        rows.push(JSON.parse(bytes.toString('utf8', at, end)) as CapturedRow);
      } catch {
        // a damaged line
      }
      at = end + 1;
    } else if (first === ENTRY && at + ENTRY_HEAD <= length) {
      const jsonLength = bytes.readUInt32LE(at + 1);
      const headersLength = bytes.readUInt32LE(at + 5);
      const reqLength = bytes.readInt32LE(at + 9);
      const resLength = bytes.readInt32LE(at + 13);
      const headersAt = at + ENTRY_HEAD + jsonLength;
      const bodiesAt = headersAt + headersLength;
      const end = bodiesAt + Math.max(reqLength, 0) + Math.max(resLength, 0);
      if (end > length) break;
      try {
        const values = JSON.parse(bytes.toString('utf8', at + ENTRY_HEAD, headersAt)) as unknown[];
        if (!Array.isArray(values) || (values.length !== FIELDS.length && !EARLIER_FIELD_COUNTS.has(values.length))) throw new Error('not an entry');
        const row = {} as Record<string, unknown>;
        for (let i = 0; i < FIELDS.length; i++) {
          const v = i < values.length ? values[i] : null;
          if (v !== null || !OPTIONAL_FIELDS.has(FIELDS[i]!)) row[FIELDS[i]!] = v;
        }
        row.request_headers = bytes.toString('utf8', headersAt, bodiesAt);
        rows.push(withBodies(row as unknown as CapturedRow, bytes, bodiesAt, reqLength, resLength));
      } catch {
        // damaged fields: the entry is skipped, its length still known
      }
      at = end;
    } else if (first === OBJECT_ENTRY && at + OBJECT_ENTRY_HEAD <= length) {
      const jsonLength = bytes.readUInt32LE(at + 1);
      const reqLength = bytes.readInt32LE(at + 5);
      const resLength = bytes.readInt32LE(at + 9);
      const bodiesAt = at + OBJECT_ENTRY_HEAD + jsonLength;
      const end = bodiesAt + Math.max(reqLength, 0) + Math.max(resLength, 0);
      if (end > length) break;
      try {
        const row = JSON.parse(bytes.toString('utf8', at + OBJECT_ENTRY_HEAD, bodiesAt)) as CapturedRow;
        rows.push(withBodies(row, bytes, bodiesAt, reqLength, resLength));
      } catch {
        // damaged fields: the entry is skipped, its length still known
      }
      at = end;
    } else {
      break;
    }
  }
  return { rows, consumed: at };
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
  private readonly batch = new TurnBatch<CapturedRow>(() => this.flush());
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

  write(row: CapturedRow, done: Done): void {
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
      this.append([]);
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
    let ok = true;
    try {
      this.append(entryParts(rows));
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

  /** Write `parts` in turn at the journal's end (writev; a short write goes on from where it stopped). */
  private append(parts: Buffer[]): void {
    if (this.fd === undefined || this.offset >= SEGMENT_BYTES) this.openSegment();
    let total = 0;
    for (const p of parts) total += p.length;
    let left = parts;
    let written = 0;
    while (written < total) {
      let n = writevSync(this.fd!, left.length > MAX_PARTS ? left.slice(0, MAX_PARTS) : left);
      if (n === 0) throw new Error('the journal took no bytes');
      written += n;
      let i = 0;
      while (i < left.length && n >= left[i]!.length) n -= left[i++]!.length;
      left = left.slice(i);
      if (n > 0) left[0] = left[0]!.subarray(n);
    }
    this.offset += total;
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
