// A twin's own SQLite file: its records (resource, external_id, body JSON, insertion order) and a
// small key/value table for the clock, the storage version and the id source's counters.

import Database from 'better-sqlite3';

export interface StoredRecord<T = Record<string, unknown>> {
  resource: string;
  external_id: string;
  body: T;
}

/** A record with its place in a keyset order (what a cursor remembers). */
export interface PagedRecord<T = Record<string, unknown>> extends StoredRecord<T> {
  seq: number;
  /** The sort field's value (`created` order), 0 when the body has none. */
  sortValue: number;
}

/** Where a keyset page starts (exclusive): a record's `seq` and, in `created` order, its `created`. */
export interface PageCursor {
  seq: number;
  sortValue?: number;
}

/**
 * One page in keyset order, read through an index so its cost does not grow with the store:
 * `seq` is insertion order; `created` is a top-level numeric `created` field then insertion order
 * (Stripe's "newest first" is `created` descending).
 */
export interface PageQuery {
  resource: string;
  /** Only records whose external id is `<scope><last segment>` (the segment holds no `/`). */
  scope?: string;
  /** Top-level body fields that must equal these values (`null`: missing or null). */
  equals?: Record<string, string | number | boolean | null>;
  /** Top-level body fields whose value must be one of these (SQL `IN`). */
  oneOf?: Record<string, (string | number)[]>;
  /** Top-level body fields whose value must be none of these (a missing field is none of them). */
  noneOf?: Record<string, (string | number)[]>;
  /** Top-level body fields that must be present and not null. */
  present?: string[];
  /** Numeric range conditions on top-level body fields (`created[gte]`). */
  ranges?: { field: string; op: '<' | '<=' | '>' | '>='; value: number }[];
  order: 'seq' | 'created';
  descending: boolean;
  /** Start after this record (exclusive), in the direction of the order. */
  after?: PageCursor;
  limit: number;
  /** Skip this many first (page-number pagination; costs what it skips). */
  offset?: number;
}

/** The scope of an external id: everything up to and including its last `/` ('' for none). */
const SCOPE_SQL = "rtrim(external_id, replace(external_id, '/', ''))";
const CREATED_SQL = "ifnull(json_extract(body, '$.created'), 0)";
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  resource TEXT NOT NULL,
  external_id TEXT NOT NULL,
  body TEXT NOT NULL,
  UNIQUE (resource, external_id)
);
CREATE INDEX IF NOT EXISTS records_by_resource ON records (resource, seq);
CREATE INDEX IF NOT EXISTS records_by_scope ON records (resource, rtrim(external_id, replace(external_id, '/', '')), seq);
CREATE INDEX IF NOT EXISTS records_by_created ON records (resource, ifnull(json_extract(body, '$.created'), 0), seq);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

export class RecordStore {
  readonly db: Database.Database;
  private readonly stmts;
  /** Prepared keyset queries by their SQL (a handful of shapes per twin). */
  private readonly pageStatements = new Map<string, Database.Statement>();

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // A twin answers one request at a time; NORMAL keeps commits durable across a process crash
    // (WAL) while skipping the fsync per transaction that FULL would cost.
    this.db.pragma('synchronous = NORMAL');
    // Every request and every lifecycle step runs in a savepoint, whose undo copies of the pages
    // it touches go to a temporary file by default: kept in memory, the writes of a replayed
    // one-year advance cost ~40 % less (scripts/bench/sqlite-savepoints.ts).
    this.db.pragma('temp_store = MEMORY');
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
      listPrefix: db.prepare('SELECT external_id, body FROM records WHERE resource = ? AND external_id >= ? AND external_id < ? ORDER BY seq'),
      count: db.prepare('SELECT COUNT(*) AS n FROM records WHERE resource = ?'),
      cursor: db.prepare(`SELECT seq, ${CREATED_SQL} AS sortValue FROM records WHERE resource = ? AND external_id = ?`),
      resources: db.prepare('SELECT DISTINCT resource FROM records'),
      metaGet: db.prepare('SELECT value FROM meta WHERE key = ?'),
      metaSet: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
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

  /** The cursor of one record (its `seq` and `created`), for `starting_after`-style paging. */
  cursorOf(resource: string, externalId: string): PageCursor | undefined {
    const row = this.stmts.cursor.get(resource, externalId) as { seq: number; sortValue: number } | undefined;
    return row ? { seq: row.seq, sortValue: Number(row.sortValue) } : undefined;
  }

  private filterSql(q: Omit<PageQuery, 'order' | 'descending' | 'limit'>): { where: string[]; args: unknown[] } {
    const where = ['resource = ?'];
    const args: unknown[] = [q.resource];
    if (q.scope !== undefined) {
      where.push(`${SCOPE_SQL} = ?`);
      args.push(q.scope);
    }
    for (const [field, value] of Object.entries(q.equals ?? {})) {
      if (!FIELD_NAME.test(field)) throw new Error(`not a field name: ${field}`);
      if (value === null) where.push(`json_extract(body, '$.${field}') IS NULL`);
      else {
        where.push(`json_extract(body, '$.${field}') = ?`);
        args.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
      }
    }
    for (const [field, values] of Object.entries(q.oneOf ?? {})) {
      if (!FIELD_NAME.test(field)) throw new Error(`not a field name: ${field}`);
      if (values.length === 0) where.push('0');
      else where.push(`json_extract(body, '$.${field}') IN (${values.map(() => '?').join(', ')})`);
      args.push(...values);
    }
    for (const [field, values] of Object.entries(q.noneOf ?? {})) {
      if (!FIELD_NAME.test(field)) throw new Error(`not a field name: ${field}`);
      if (values.length === 0) continue;
      where.push(`ifnull(json_extract(body, '$.${field}') NOT IN (${values.map(() => '?').join(', ')}), 1)`);
      args.push(...values);
    }
    for (const field of q.present ?? []) {
      if (!FIELD_NAME.test(field)) throw new Error(`not a field name: ${field}`);
      where.push(`json_extract(body, '$.${field}') IS NOT NULL`);
    }
    for (const r of q.ranges ?? []) {
      if (!FIELD_NAME.test(r.field) || !['<', '<=', '>', '>='].includes(r.op)) throw new Error(`bad range on ${r.field}`);
      where.push(`json_extract(body, '$.${r.field}') ${r.op} ?`);
      args.push(r.value);
    }
    return { where, args };
  }

  private prepared(sql: string): Database.Statement {
    let st = this.pageStatements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.pageStatements.set(sql, st);
    }
    return st;
  }

  /** One keyset page (and whether more follow in that direction). */
  page<T = Record<string, unknown>>(q: PageQuery): { items: PagedRecord<T>[]; hasMore: boolean } {
    const { where, args } = this.filterSql(q);
    const dir = q.descending ? 'DESC' : 'ASC';
    const cmp = q.descending ? '<' : '>';
    const sortSql = q.order === 'created' ? CREATED_SQL : '0';
    if (q.after) {
      if (q.order === 'created') {
        const v = q.after.sortValue ?? 0;
        // Spelled so SQLite reads a range on records_by_created (a row-value comparison is not).
        where.push(`${CREATED_SQL} ${cmp}= ? AND (${CREATED_SQL} ${cmp} ? OR seq ${cmp} ?)`);
        args.push(v, v, q.after.seq);
      } else {
        where.push(`seq ${cmp} ?`);
        args.push(q.after.seq);
      }
    }
    const orderSql = q.order === 'created' ? `${CREATED_SQL} ${dir}, seq ${dir}` : `seq ${dir}`;
    const sql = `SELECT seq, external_id, body, ${sortSql} AS sortValue FROM records WHERE ${where.join(' AND ')} ` + `ORDER BY ${orderSql} LIMIT ? OFFSET ?`;
    const rows = this.prepared(sql).all(...args, q.limit + 1, q.offset ?? 0) as {
      seq: number;
      external_id: string;
      body: string;
      sortValue: number;
    }[];
    const hasMore = rows.length > q.limit;
    const items = rows.slice(0, q.limit).map((r) => ({
      resource: q.resource,
      external_id: r.external_id,
      body: JSON.parse(r.body) as T,
      seq: r.seq,
      sortValue: Number(r.sortValue),
    }));
    return { items, hasMore };
  }

  /** How many records a page query's filters admit (for `rel="last"` links). */
  countWhere(q: Omit<PageQuery, 'order' | 'descending' | 'limit' | 'after' | 'offset'>): number {
    const { where, args } = this.filterSql(q);
    return (this.prepared(`SELECT COUNT(*) AS n FROM records WHERE ${where.join(' AND ')}`).get(...args) as { n: number }).n;
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
