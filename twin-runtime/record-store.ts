// A twin's own SQLite file: its records (resource, external_id, body JSON, insertion order) and a
// small key/value table for the clock, the storage version and the id source's counters.

import Database from 'better-sqlite3';

export interface StoredRecord<T = Record<string, unknown>> {
  resource: string;
  external_id: string;
  body: T;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  resource TEXT NOT NULL,
  external_id TEXT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE (resource, external_id)
);
CREATE INDEX IF NOT EXISTS records_by_resource ON records (resource, seq);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

export class RecordStore {
  readonly db: Database.Database;
  private readonly stmts;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // A twin answers one request at a time; NORMAL keeps commits durable across a process crash
    // (WAL) while skipping the fsync per transaction that FULL would cost.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    const db = this.db;
    this.stmts = {
      get: db.prepare('SELECT body FROM records WHERE resource = ? AND external_id = ?'),
      upsert: db.prepare(
        `INSERT INTO records (resource, external_id, body) VALUES (?, ?, ?)
         ON CONFLICT (resource, external_id) DO UPDATE SET body = excluded.body`,
      ),
      insert: db.prepare('INSERT INTO records (resource, external_id, body) VALUES (?, ?, ?)'),
      delete: db.prepare('DELETE FROM records WHERE resource = ? AND external_id = ?'),
      list: db.prepare('SELECT external_id, body FROM records WHERE resource = ? ORDER BY seq'),
      listPrefix: db.prepare(
        'SELECT external_id, body FROM records WHERE resource = ? AND external_id >= ? AND external_id < ? ORDER BY seq',
      ),
      count: db.prepare('SELECT COUNT(*) AS n FROM records WHERE resource = ?'),
      resources: db.prepare('SELECT DISTINCT resource FROM records'),
      metaGet: db.prepare('SELECT value FROM meta WHERE key = ?'),
      metaSet: db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
    };
  }

  get<T = Record<string, unknown>>(resource: string, externalId: string): T | undefined {
    const row = this.stmts.get.get(resource, externalId) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as T) : undefined;
  }

  has(resource: string, externalId: string): boolean {
    return this.stmts.get.get(resource, externalId) !== undefined;
  }

  /** Insert or replace; a replaced record keeps its place in insertion order. */
  put(resource: string, externalId: string, body: unknown): void {
    this.stmts.upsert.run(resource, externalId, JSON.stringify(body));
  }

  delete(resource: string, externalId: string): boolean {
    return this.stmts.delete.run(resource, externalId).changes > 0;
  }

  /** Every record of a kind, oldest first. */
  list<T = Record<string, unknown>>(resource: string): T[] {
    const rows = this.stmts.list.all(resource) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as T);
  }

  listRecords<T = Record<string, unknown>>(resource: string): StoredRecord<T>[] {
    const rows = this.stmts.list.all(resource) as { external_id: string; body: string }[];
    return rows.map((r) => ({ resource, external_id: r.external_id, body: JSON.parse(r.body) as T }));
  }

  /** Records of a kind whose external id starts with `prefix` (uses the unique index), oldest first. */
  listByPrefix<T = Record<string, unknown>>(resource: string, prefix: string): StoredRecord<T>[] {
    const rows = this.stmts.listPrefix.all(resource, prefix, prefix + '\u{10ffff}') as { external_id: string; body: string }[];
    return rows.map((r) => ({ resource, external_id: r.external_id, body: JSON.parse(r.body) as T }));
  }

  count(resource: string): number {
    return (this.stmts.count.get(resource) as { n: number }).n;
  }

  resourcesPresent(): string[] {
    return (this.stmts.resources.all() as { resource: string }[]).map((r) => r.resource);
  }

  /** Run `fn` atomically; handlers that write several records use this so a crash leaves none half-done. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  getMeta(key: string): string | undefined {
    const row = this.stmts.metaGet.get(key) as { value: string } | undefined;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.stmts.metaSet.run(key, value);
  }

  /** Drop every record and meta value (reset to empty). */
  clear(): void {
    this.db.exec('DELETE FROM records; DELETE FROM meta;');
  }

  /** Replace the whole content with a seed file's (reset to seed; loading copies the file instead). */
  replaceWith(seedFile: string): void {
    this.db.exec(`ATTACH DATABASE '${seedFile.replaceAll("'", "''")}' AS seed`);
    try {
      this.transaction(() => {
        this.db.exec(`DELETE FROM records; DELETE FROM meta;
          INSERT INTO records (seq, resource, external_id, body) SELECT seq, resource, external_id, body FROM seed.records;
          INSERT INTO meta (key, value) SELECT key, value FROM seed.meta;`);
      });
    } finally {
      this.db.exec('DETACH DATABASE seed');
    }
  }

  close(): void {
    this.db.close();
  }
}
