// Whether the data directory can take writes. A full disk must not turn into 500s: writes answer
// 503 with a sentence (reads keep working, authentication does not write), and /health/ready says
// why the service is not ready.

import { statfsSync } from 'node:fs';
import { isStorageFull, STORAGE_FULL_SENTENCE } from '../../twin-runtime/storage-full.js';

export { isStorageFull };
export const STORAGE_FULL_DETAIL = STORAGE_FULL_SENTENCE;

export class StorageHealth {
  private lastFailure = 0;

  constructor(
    private readonly dataDir: string,
    /** Below this many free bytes the service reports itself not ready. */
    private readonly minFreeBytes = 8 * 1024 * 1024,
  ) {}

  /** A write just failed for lack of space. */
  noteFull(): void {
    this.lastFailure = Date.now();
  }

  /** undefined when writes can go through, else why not (for /health/ready). */
  check(): string | undefined {
    try {
      const s = statfsSync(this.dataDir);
      const free = Number(s.bavail) * Number(s.bsize);
      if (free < this.minFreeBytes) return `disk full: ${free} bytes free in the data directory`;
    } catch (e) {
      return `data directory unreadable: ${(e as Error).message}`;
    }
    // Space may have been freed since; a failure in the last 10 s still counts.
    if (Date.now() - this.lastFailure < 10_000) return 'disk full: a write failed for lack of space in the last 10 s';
    return undefined;
  }
}

/**
 * Run a write that is not answering a request (a timer, a heartbeat, a background job's bookkeeping):
 * a full disk is noted and logged, never thrown, since a throw there would end the process; any
 * other error is thrown as before. Undefined when the write failed for lack of space.
 */
export function writeUnlessFull<T>(
  storage: StorageHealth | undefined,
  log: { warn(obj: object, msg: string): void },
  what: string,
  write: () => T,
): T | undefined {
  try {
    return write();
  } catch (err) {
    if (!isStorageFull(err)) throw err;
    storage?.noteFull();
    log.warn({ err: (err as Error).message }, `${what} not written: the disk is full`);
    return undefined;
  }
}
