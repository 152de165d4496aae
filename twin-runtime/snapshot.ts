// A twin's snapshot file (issue 38): a consistent copy of its SQLite file, written by SQLite itself
// (`VACUUM INTO`: a compact file with no WAL beside it, read by later twins as they read a seed),
// never a replay of history. The copy carries the records and the meta (the seeded id source and its
// counters travel with it), and its clock stands still at the instant taken: a twin started from it
// reads that instant and, under a living clock, runs on from there.

import { rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { RecordStore } from './record-store.js';

/** A snapshot file's name: a plain file name in the twin's data directory, nothing that leaves it. */
export const SNAPSHOT_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\.sqlite$/;

export interface SnapshotFile {
  file: string;
  size_bytes: number;
  /** The instant the copy's clock stands at (ISO). */
  clock: string;
  storage_version: number;
}

/**
 * Copy the store into `path` as it stands (call between transactions: the caller runs it as an
 * exclusive job of the twin's pipeline, so no request is half applied), with its clock at `instantMs`;
 * meta keys in `forget` (a key this twin alone keeps) are left out.
 */
export function writeSnapshot(store: RecordStore, path: string, instantMs: number, forget: readonly string[] = []): Omit<SnapshotFile, 'file'> {
  rmSync(path, { force: true });
  store.db.prepare('VACUUM INTO ?').run(path);
  const copy = new Database(path);
  try {
    const set = copy.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    copy.transaction(() => {
      // Frozen at the instant: a twin started from it continues from here in its own mode (clock.ts).
      set.run('clock_mode', 'frozen');
      set.run('clock', String(instantMs));
      set.run('clock_start', String(instantMs));
      const drop = copy.prepare('DELETE FROM meta WHERE key = ?');
      for (const key of ['clock_offset', ...forget]) drop.run(key);
    })();
  } finally {
    copy.close();
  }
  return {
    size_bytes: statSync(path).size,
    clock: new Date(instantMs).toISOString(),
    storage_version: Number(store.getMeta('storage_version')),
  };
}
