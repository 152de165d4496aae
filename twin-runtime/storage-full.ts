// A full disk is an outage of writes, never a crash: SQLite and the file system saying so are
// recognised here, in the twins and in the control plane alike, and answered 503 with a sentence
// (reads keep working; writes work again once space returns, nothing to restart).

/** SQLite and the file system saying the disk is full. */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'SQLITE_IOERR_WRITE' || code === 'EDQUOT';
}

export const STORAGE_FULL_SENTENCE = 'The service cannot store data right now: its disk is full. Reads still work; retry the change later.';

/** Seconds a refused write is asked to wait. */
export const STORAGE_FULL_RETRY_SECONDS = 30;

/**
 * Keep a process up through a write that failed for lack of space outside any request (a timer, a
 * heartbeat): such an error reaching the top is reported and survived; any other still ends the
 * process as Node would (exit 1 after printing it). For a process's entry point only.
 */
export function surviveFullDisk(report: (err: unknown) => void): void {
  const fatal = (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', (err) => (isStorageFull(err) ? report(err) : fatal(err)));
  process.on('unhandledRejection', (err) => (isStorageFull(err) ? report(err) : fatal(err)));
}
