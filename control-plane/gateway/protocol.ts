// Messages between the control plane's thread (host.ts) and the gateway's thread (worker.ts), and
// the layout of the shared counters host.stats() reads without a round trip.

import type { GatewayTwin } from './gateway.js';

export interface GatewayWorkerData {
  logFile: string;
  host: string;
  domain?: string;
  sharedPort?: number;
  publicScheme?: string;
  defaultRetentionDays: number;
  bodyCapBytes: number;
  /** Key and certificate chain: every twin URL then answers https:// on its port too. */
  tls?: { key: string; cert: string };
  /** SharedArrayBuffer of BigInt64 counters (STAT). */
  stats: SharedArrayBuffer;
}

export type ToWorker =
  | { op: 'start'; id: number }
  | { op: 'open'; id: number; twin: GatewayTwin; preferredPort?: number | null; retentionDays?: number | null }
  | { op: 'setTarget'; id?: undefined; twinId: string; address: string | undefined }
  | { op: 'close'; id: number; twinId: string }
  | { op: 'purge'; id?: number; environmentId: string }
  | { op: 'retention'; id?: number; entries: { environmentId: string; organizationId: string; days: number | null }[] }
  | { op: 'maintain'; id: number; now?: string }
  | { op: 'drain'; id: number; timeoutMs: number }
  | { op: 'closeAll'; id: number };

export type FromWorker =
  | { op: 'ready' }
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
  firstSlot: 16,
} as const;

/** Twins counted at once (a slot is reused when its twin's URL closes). */
export const MAX_COUNTED_TWINS = 16_384;
