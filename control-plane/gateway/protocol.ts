// Messages between the control plane's thread (host.ts) and the gateway's thread (worker.ts), and
// the layout of the shared counters host.stats() reads without a round trip.

import type { GatewayTwin } from './gateway.js';

export interface GatewayWorkerData {
  host: string;
  domain?: string;
  sharedPort?: number;
  publicScheme?: string;
  /** Key and certificate chain: every twin URL then answers https:// on its port too. */
  tls?: { key: string; cert: string };
  /** The twins are child processes on this host: reach them on their local sockets. */
  twinLocalSockets?: boolean;
  /** The data directory whose CA signs the certificate of a twin's own loopback address (tls.ts `hostTls`). */
  tlsDataDir?: string;
  /** Where the log's entries are journaled (log-journal.ts). */
  journalDir: string;
  /** SharedArrayBuffer of BigInt64 counters (STAT). */
  stats: SharedArrayBuffer;
}

export interface LogWriterWorkerData {
  logFile: string;
  journalDir: string;
  defaultRetentionDays: number;
  bodyCapBytes: number;
  /** Milliseconds between checkpoints of the log's write-ahead log. */
  checkpointMs: number;
  /** Whether the rows it replays count as applied: a writer started again after its thread died (see log-writer-worker.ts). */
  countReplay: boolean;
  stats: SharedArrayBuffer;
}

export type ToLogWriter =
  | { op: 'purge'; id?: number; environmentId: string }
  | { op: 'retention'; id?: number; entries: { environmentId: string; organizationId: string; days: number | null }[] }
  | { op: 'maintain'; id: number; now?: string }
  | { op: 'close'; id: number };

export type ToWorker =
  | { op: 'start'; id: number }
  | { op: 'open'; id: number; twin: GatewayTwin; preferredPort?: number | null }
  | { op: 'setTarget'; id?: undefined; twinId: string; address: string | undefined }
  | { op: 'close'; id: number; twinId: string }
  | { op: 'drain'; id: number; timeoutMs: number }
  | { op: 'closeAll'; id: number };

export type FromWorker =
  | { op: 'ready'; nextSegment?: number; replayed?: number }
  | { op: 'reply'; id: number; value?: unknown; error?: string }
  | { op: 'log'; level: 'error' | 'warn'; msg: string; err?: string };

/** Index of each counter in the shared BigInt64Array; per-twin request counters start at firstSlot. */
export const STAT = {
  queueDepth: 0,
  written: 1,
  failed: 2,
  expired: 3,
  purged: 4,
  bodiesDropped: 5,
  inFlight: 6,
  writable: 7,
  commits: 8,
  commitMicros: 9,
  busyMicros: 10,
  /** Rows the log writer has moved from the journal into SQLite (`written` counts journaled rows). */
  applied: 11,
  /** The next journal segment number (each gateway thread takes its segments from here). */
  nextSegment: 12,
  /** Where the journal ends (packPosition): the log writer reads up to here. */
  journalEnd: 13,
  /** Bumped by a reader waiting for the log (awaitLogged): the log writer reads the journal now. */
  readWanted: 14,
  firstSlot: 16,
} as const;

/** Atomics.waitAsync (Node ≥ 16; in TypeScript's lib from es2024 on). */
export const waitAsync = (
  Atomics as unknown as {
    waitAsync(a: BigInt64Array, index: number, value: bigint, timeoutMs: number): { value: Promise<string> | string };
  }
).waitAsync;

/** Twins counted at once (a slot is reused when its twin's URL closes). */
export const MAX_COUNTED_TWINS = 16_384;
