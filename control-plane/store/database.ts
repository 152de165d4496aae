// The control plane's SQLite file: WAL mode, numbered migrations applied at start. The request log
// lives in its own file beside it (store/request-logs.ts), attached here so reads use one connection.

import Database from 'better-sqlite3';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MIGRATIONS } from './migrations/index.js';
import { attachLogs, LOG_FILE_NAME } from './request-logs.js';
import { meterStatements } from '../http/thread-cost.js';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** The request-log file to attach (default: request-logs.sqlite beside `file`; false: none). */
  logs?: string | false;
}

export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  // Admin secrets and keys live here: only the service user may read the folder and the files.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const db = new Database(file);
  // What an API request's statements cost is charged to its organization (http/thread-cost.ts).
  meterStatements(db);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  const logs = options.logs ?? join(dirname(file), LOG_FILE_NAME);
  if (logs !== false) attachLogs(db, logs);
  for (const f of [file, ...(logs === false ? [] : [logs])]) for (const suffix of ['', '-wal', '-shm']) restrictFile(f + suffix);
  restrictFile(dirname(file), 0o700);
  return db;
}

/** chmod 600 (or `mode`) where the file exists: one made under another umask keeps nothing readable to others. */
export function restrictFile(file: string, mode = 0o600): void {
  try {
    chmodSync(file, mode);
  } catch {
    // not there (yet)
  }
}

export function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
  const sorted = [...MIGRATIONS].sort((a, b) => a.version - b.version);
  for (const m of sorted) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
    })();
  }
}
