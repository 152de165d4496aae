// Whether the data directory can take writes. A full disk must not turn into 500s: writes answer
// 503 with a sentence (reads keep working, authentication does not write), and /health/ready says
// why the service is not ready.

import { statfsSync } from 'node:fs';

/** SQLite and the file system saying the disk is full. */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'SQLITE_IOERR_WRITE';
}

export const STORAGE_FULL_DETAIL = 'The service cannot store data right now: its disk is full. Reads still work; retry the change later.';

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
