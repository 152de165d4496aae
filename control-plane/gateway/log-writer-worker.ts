// The request log writer's thread: the only connection that writes request-logs.sqlite. It reads
// the journal (log-journal.ts) up to the end the gateway published and moves its entries into
// SQLite in batches, saving how far it got in the same transaction; at start it first replays
// what the journal holds past that point (after a crash: entries whose answers left but that had
// not reached SQLite); it keeps the log bounded (retention, body cap, purge of deleted
// environments) and checkpoints the write-ahead log. None of it runs on the gateway's thread, so a
// slow disk delays the log's readers by a few milliseconds, never a proxied request.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openLogDatabase, RequestLogStore } from '../store/request-logs.js';
import { mergeAnswers, RequestLogWriter } from './request-log-writer.js';
import {
  adoptOlderSegments,
  decodeEntries,
  dropSegments,
  formatPosition,
  listSegments,
  parsePosition,
  removeJournal,
  segmentPath,
  unpackPosition,
  type JournalPosition,
} from './log-journal.js';
import { STAT, waitAsync, type LogWriterWorkerData, type ToLogWriter } from './protocol.js';

const data = workerData as LogWriterWorkerData;
const port = parentPort!;
const stats = new BigInt64Array(data.stats);

function report(level: 'error' | 'warn', msg: string, err?: unknown): void {
  port.postMessage({ op: 'log', level, msg, err: err instanceof Error ? `${err.name}: ${err.message}` : err === undefined ? undefined : String(err) });
}

const db = openLogDatabase(data.logFile);
// Checkpoints run on a timer below, not inside a commit.
db.pragma('wal_autocheckpoint = 0');
db.pragma('journal_size_limit = 67108864');
const store = new RequestLogStore(db);
const positionRow = db.prepare("SELECT value FROM request_log_meta WHERE key = 'journal_position'");
const savePosition = db.prepare(
  "INSERT INTO request_log_meta (key, value) VALUES ('journal_position', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
);

/** The journal position the rows queued in the writer reach. */
let received: JournalPosition | undefined = parsePosition((positionRow.get() as { value: string } | undefined)?.value);
/**
 * Rows moved into SQLite that the gateway counted as journaled (STAT.written), compared by readers
 * (awaitLogged) and by the gateway's backlog limit. A writer started again after a crash of its
 * thread goes on from its predecessor's count and counts its replay (those rows were journaled by
 * this control plane); the first writer's replay (rows an earlier process journaled) is not counted.
 */
const appliedBefore = Number(Atomics.load(stats, STAT.applied));
let uncounted = 0;
/**
 * Entries committed inside another's row: a request journaled before it was forwarded and its
 * answer, read together, are one row (mergeAnswers) but two of the gateway's entries. Left out,
 * `applied` stayed one behind `written` for good after such a pair, and every reader then waited
 * its whole bound (a request-log read 5 s, a stop 7 s).
 */
let folded = 0;
/** Whether folded entries count (not during the first writer's replay, which is not counted). */
let countFolded = data.countReplay;
let applied = appliedBefore;
/** Rows this thread has committed (when it grows, the journal before `received` can go). */
let committed = 0;

/**
 * How often the journal is read while nobody waits for the log: rows commit in larger groups (at
 * 3,500 answers/s about 90 rows a commit rather than 18), and a reader (awaitLogged) wakes the
 * writer through STAT.readWanted, though never sooner than READ_SPACING_MS after the last read
 * (many readers at once do not turn the log into one commit per reader).
 */
const READ_INTERVAL_MS = 25;
const READ_SPACING_MS = 5;
let appliedPosition = received;

const writer = new RequestLogWriter(store, {
  defaultRetentionDays: data.defaultRetentionDays,
  bodyCapBytes: data.bodyCapBytes,
  retryFailed: true,
  inTransaction: () => {
    if (received) savePosition.run(formatPosition(received));
  },
  onError: (msg, err) => report('error', msg, err),
  onCommit: () => afterCommit(),
});

function afterCommit(): void {
  const s = writer.stats();
  // Rows the writer no longer holds are in SQLite (a failed commit keeps its rows queued).
  applied = appliedBefore + Math.max(0, s.written - uncounted) + folded;
  if (s.written !== committed) {
    committed = s.written;
    const reached = received;
    if (reached && (!appliedPosition || reached.segment > appliedPosition.segment)) dropSegments(data.journalDir, reached.segment);
    appliedPosition = reached;
  }
  publish();
}

function publish(): void {
  const s = writer.stats();
  Atomics.store(stats, STAT.expired, BigInt(s.expired));
  Atomics.store(stats, STAT.purged, BigInt(s.purged));
  Atomics.store(stats, STAT.bodiesDropped, BigInt(s.bodiesDropped));
  Atomics.store(stats, STAT.writable, s.writable ? 1n : 0n);
  Atomics.store(stats, STAT.commits, BigInt(s.commits));
  Atomics.store(stats, STAT.commitMicros, BigInt(s.commitMicros));
  Atomics.store(stats, STAT.applied, BigInt(applied));
  Atomics.notify(stats, STAT.applied);
}

adoptOlderSegments(data.journalDir);
/** Where the next read of the journal starts (everything before it is queued or in SQLite). */
let readAt: JournalPosition = received ?? { segment: listSegments(data.journalDir)[0] ?? 1, offset: 0 };
let readFd: number | undefined;
let readFdSegment = -1;

/** Read segment `readAt.segment` from readAt.offset up to `end` (or its last whole entry), queue its rows. */
function readSegment(end: number | 'whole-entries'): void {
  const { segment } = readAt;
  if (readFdSegment !== segment) {
    if (readFd !== undefined) closeSync(readFd);
    readFd = undefined;
    readFdSegment = segment;
    try {
      readFd = openSync(segmentPath(data.journalDir, segment), 'r');
    } catch {
      return; // a segment number taken by a gateway thread that wrote nothing
    }
  }
  if (readFd === undefined) return;
  const size = end === 'whole-entries' ? statSync(segmentPath(data.journalDir, segment)).size : end;
  if (size <= readAt.offset) return;
  const bytes = Buffer.allocUnsafe(size - readAt.offset);
  let got = 0;
  while (got < bytes.length) {
    const n = readSync(readFd, bytes, got, bytes.length - got, readAt.offset + got);
    if (n === 0) break;
    got += n;
  }
  // Only whole entries: one cut short was never answered.
  const { rows, consumed } = decodeEntries(bytes, got);
  if (consumed === 0) return;
  const answers = new Set(rows.filter((row) => row.completes));
  for (const row of mergeAnswers(rows)) {
    // An answer that took its request's row (its `completes` cleared) stands for both entries.
    const pair = answers.has(row) && !row.completes;
    writer.write(row, pair && countFolded ? countFold : ignore);
  }
  readAt = { segment, offset: readAt.offset + consumed };
  received = readAt;
}

function ignore(): void {}

/** A committed row that holds two entries: the second one counts as applied too. */
function countFold(ok: boolean): void {
  if (!ok) return;
  folded += 1;
  applied += 1;
  publish();
}

/** Queue what the gateway journaled since the last read (`published`: the journal's end). */
function readJournal(published: JournalPosition | undefined): void {
  if (!published) return;
  while (readAt.segment < published.segment) {
    // Earlier segments are complete: the gateway only writes a segment after the one before it.
    readSegment('whole-entries');
    readAt = { segment: readAt.segment + 1, offset: 0 };
  }
  if (readAt.segment === published.segment) readSegment(published.offset);
}

// Replay: entries answered before a crash that had not reached SQLite (every segment up to its
// last whole entry), committed before anything new is taken.
const last = Math.max(readAt.segment, listSegments(data.journalDir).at(-1) ?? 0);
for (;;) {
  readSegment('whole-entries');
  if (readAt.segment >= last) break;
  readAt = { segment: readAt.segment + 1, offset: 0 };
}
const replayed = writer.stats().queueDepth;
if (!data.countReplay) uncounted = replayed;
writer.commit();
countFolded = true;
const nextSegment = last + 1;
publish();

let reading = true;
/** Read the journal every READ_INTERVAL_MS, or when a reader asks (the count changes). */
async function readLoop(): Promise<void> {
  while (reading) {
    const asked = Atomics.load(stats, STAT.readWanted);
    const readAt = performance.now();
    readJournal(unpackPosition(Atomics.load(stats, STAT.journalEnd)));
    await waitAsync(stats, STAT.readWanted, asked, READ_INTERVAL_MS).value;
    const early = READ_SPACING_MS - (performance.now() - readAt);
    if (early > 0 && reading) await new Promise((resolve) => setTimeout(resolve, early));
  }
}
// A failure ends the thread, as any other of its errors would: host.ts starts another writer.
void readLoop();

const checkpoints = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    report('warn', 'request log checkpoint failed', err);
  }
}, data.checkpointMs);
writer.startMaintenance();

function handle(msg: ToLogWriter): unknown {
  switch (msg.op) {
    case 'purge':
      store.markDeleted(msg.environmentId);
      return undefined;
    case 'retention':
      for (const e of msg.entries) store.setRetention(e.environmentId, e.organizationId, e.days);
      return undefined;
    case 'maintain':
      writer.maintain(msg.now ? new Date(msg.now) : undefined);
      publish();
      return undefined;
    case 'close':
      clearInterval(checkpoints);
      reading = false;
      Atomics.add(stats, STAT.readWanted, 1n);
      Atomics.notify(stats, STAT.readWanted);
      readJournal(unpackPosition(Atomics.load(stats, STAT.journalEnd)));
      writer.close();
      publish();
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // the next start checkpoints
      }
      db.close();
      // Everything reached SQLite: the journal has nothing to replay.
      if (writer.stats().queueDepth === 0) removeJournal(data.journalDir);
      return undefined;
  }
}

port.on('message', (msg: ToLogWriter) => {
  try {
    const value = handle(msg);
    if (msg.id !== undefined) port.postMessage({ op: 'reply', id: msg.id, value });
  } catch (err) {
    if (msg.id !== undefined) port.postMessage({ op: 'reply', id: msg.id, error: (err as Error).message });
    else report('error', `request log ${msg.op} failed`, err);
  }
});

port.postMessage({ op: 'ready', nextSegment, replayed });
