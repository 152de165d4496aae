// A twin's own SQLite file: its records (resource, external_id, body JSON, insertion order) and a
// small key/value table for the clock, the storage version and the id source's counters.
//
// The two body fields queries order or filter on, `created` and `status`, are kept beside the body
// in columns of their own, written from the object being stored: an index over
// json_extract(body, …) made SQLite parse the whole JSON of every record written (twice on an
// update: the old key and the new), a quarter of a long advance's CPU. Each column holds exactly
// what json_extract would give (fieldValue), so every query answers as before.

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
/** A record's `created` (0 when it has none): the `created` column. */
const CREATED_SQL = 'created';
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Columns kept from the body (name → the SQL that computes it from a body, for rows written
 * before the column existed or copied by SQL). No declared type: a column holds what
 * json_extract gives, integer, real or text alike.
 */
const BODY_COLUMNS = {
  created: "ifnull(json_extract(body, '$.created'), 0)",
  status: "json_extract(body, '$.status')",
} as const;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  resource TEXT NOT NULL,
  external_id TEXT NOT NULL,
  body TEXT NOT NULL,
  created NOT NULL DEFAULT 0,
  status,
  UNIQUE (resource, external_id)
);
CREATE INDEX IF NOT EXISTS records_by_resource ON records (resource, seq);
CREATE INDEX IF NOT EXISTS records_by_scope ON records (resource, rtrim(external_id, replace(external_id, '/', '')), seq);
CREATE INDEX IF NOT EXISTS records_by_created ON records (resource, created, seq);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

/** SQL for a top-level body field: its column where it has one that holds json_extract's value. */
const fieldSql = (field: string): string => (field === 'status' ? 'status' : `json_extract(body, '$.${field}')`);

/**
 * A top-level field's value as SQLite's json_extract gives it: an integer as an integer (a JS
 * number binds as a real), true/false as 1/0, an object or array as its JSON text, nothing as null.
 */
export function fieldValue(body: unknown, field: string): number | bigint | string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const v = (body as Record<string, unknown>)[field];
  switch (typeof v) {
    case 'number':
      return Number.isSafeInteger(v) ? BigInt(v) : Number.isFinite(v) ? v : null;
    case 'string':
      return v;
    case 'boolean':
      return v ? 1n : 0n;
    case 'object':
      return v === null ? null : JSON.stringify(v);
    default:
      return null;
  }
}

/**
 * Bring a file written before the body columns existed up to date: add them, fill them from the
 * bodies, and replace the indexes that computed them from the JSON.
 */
function addBodyColumns(db: Database.Database): void {
  const columns = new Set((db.prepare('PRAGMA table_info(records)').all() as { name: string }[]).map((c) => c.name));
  if (columns.has('created') && columns.has('status')) return;
  db.transaction(() => {
    db.exec('DROP INDEX IF EXISTS records_by_created; DROP INDEX IF EXISTS records_by_status;');
    if (!columns.has('created')) db.exec('ALTER TABLE records ADD COLUMN created NOT NULL DEFAULT 0');
    if (!columns.has('status')) db.exec('ALTER TABLE records ADD COLUMN status');
    db.exec(`UPDATE records SET created = ${BODY_COLUMNS.created}, status = ${BODY_COLUMNS.status}`);
  })();
}

/**
 * What a store has done since it opened: record and meta rows decoded and written. A lifecycle's
 * work per billing cycle stays flat while it is linear; a test reads these instead of timing it.
 */
export interface StoreWork {
  rowsRead: number;
  rowsWritten: number;
}

/**
 * A deep copy of a JSON value (plain objects, arrays and primitives; nothing else survives):
 * about half the cost of parsing its text again, a third of structuredClone's.
 */
export function copyJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyJson((value as Record<string, unknown>)[key]);
  return out as T;
}

/** A body the read cache holds: its stored text and, once read twice, its parsed form (never handed out). */
interface CachedBody {
  text: string;
  parsed?: unknown;
}

export class RecordStore {
  readonly db: Database.Database;
  readonly work: StoreWork = { rowsRead: 0, rowsWritten: 0 };
  private readonly stmts;
  /** Bodies by `resource\0external_id` while withReadCache runs (write-through: SQL always holds them too). */
  private readCache: Map<string, CachedBody> | undefined;
  private readCacheDepth = 0;
  /** While withReadCache runs: counters incremented (incrementMeta) and not yet written. */
  private counters: Map<string, number> | undefined;
  /**
   * While a pipeline transaction is open (deferCounters): counters drawn and not yet written, so
   * each costs a map update instead of a statement; flushCounters writes them before the COMMIT.
   */
  private pending: Map<string, number> | undefined;
  /** Undo log of `pending`, one entry per change (the value before; undefined: none), for undoCounters. */
  private pendingUndo: [string, number | undefined][] = [];
  /** While withReadCache runs: query rows by resource, then by query; a write to the resource drops its entry. */
  private queryCache: Map<string, Map<string, unknown[]>> | undefined;
  /** One transaction wrapper for every call (better-sqlite3 builds a new one per `db.transaction`). */
  private runInTransaction: ((body: () => unknown) => unknown) | undefined;
  /** Prepared keyset queries by their SQL (a handful of shapes per twin). */
  private readonly pageStatements = new Map<string, Database.Statement>();
  private statusIndexed = false;

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
    if (this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'").get()) addBodyColumns(this.db);
    this.db.exec(SCHEMA);
    const db = this.db;
    this.stmts = {
      get: db.prepare('SELECT body FROM records WHERE resource = ? AND external_id = ?'),
      upsert: db.prepare(
        `INSERT INTO records (resource, external_id, body, created, status) VALUES (?, ?, ?, ifnull(?, 0), ?)
         ON CONFLICT (resource, external_id) DO UPDATE SET body = excluded.body, created = excluded.created, status = excluded.status`,
      ),
      delete: db.prepare('DELETE FROM records WHERE resource = ? AND external_id = ?'),
      list: db.prepare('SELECT external_id, body FROM records WHERE resource = ? ORDER BY seq'),
      listPrefix: db.prepare('SELECT external_id, body FROM records WHERE resource = ? AND external_id >= ? AND external_id < ? ORDER BY seq'),
      count: db.prepare('SELECT COUNT(*) AS n FROM records WHERE resource = ?'),
      cursor: db.prepare(`SELECT seq, ${CREATED_SQL} AS sortValue FROM records WHERE resource = ? AND external_id = ?`),
      resources: db.prepare('SELECT DISTINCT resource FROM records'),
      metaGet: db.prepare('SELECT value FROM meta WHERE key = ?'),
      metaSet: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      metaIncrement: db.prepare(
        "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING value",
      ),
    };
  }

  get<T = Record<string, unknown>>(resource: string, externalId: string): T | undefined {
    const cache = this.readCache;
    if (cache) {
      const key = `${resource}\0${externalId}`;
      const hit = cache.get(key);
      if (hit) {
        this.work.rowsRead++;
        hit.parsed ??= JSON.parse(hit.text);
        return copyJson(hit.parsed) as T;
      }
      const row = this.stmts.get.get(resource, externalId) as { body: string } | undefined;
      if (!row) return undefined;
      this.work.rowsRead++;
      cache.set(key, { text: row.body });
      return JSON.parse(row.body) as T;
    }
    const row = this.stmts.get.get(resource, externalId) as { body: string } | undefined;
    if (!row) return undefined;
    this.work.rowsRead++;
    return JSON.parse(row.body) as T;
  }

  /**
   * Run `fn` with the bodies it reads and writes through get/put kept in memory: a record read
   * again (a lifecycle step loads the same invoice, subscription and customer several times) is
   * copied from its parsed form instead of read and parsed again, and a query over a kind not
   * written since it was last asked answers its rows again. Writes still go to SQLite at once; a
   * rolled-back transaction inside forgets everything cached. Counters (incrementMeta) count in
   * memory and are written when the outermost call ends. For work that writes only
   * through put/delete (a twin's advance); nested calls share the outermost cache.
   */
  withReadCache<T>(fn: () => T): T {
    if (this.readCacheDepth++ === 0) {
      this.readCache = new Map();
      this.queryCache = new Map();
      this.counters = new Map();
    }
    try {
      return fn();
    } finally {
      if (--this.readCacheDepth === 0) {
        const counters = this.counters!;
        this.readCache = undefined;
        this.queryCache = undefined;
        this.counters = undefined;
        for (const [key, n] of counters) this.writeCounter(key, n);
      }
    }
  }

  /**
   * The rows of a query over one resource: from the query cache while withReadCache runs (a
   * lifecycle pass asks the same questions of kinds it did not write, mostly with no rows), else
   * from SQLite. Rows are never changed in place by their readers.
   */
  private rowsOf<R>(resource: string, query: string, read: () => R[]): R[] {
    const cache = this.queryCache;
    if (!cache) return read();
    let byQuery = cache.get(resource);
    if (!byQuery) cache.set(resource, (byQuery = new Map()));
    let rows = byQuery.get(query) as R[] | undefined;
    if (!rows) byQuery.set(query, (rows = read()));
    return rows;
  }

  /** A record of `resource` was written: what the caches hold of it is stale. */
  private wrote(resource: string, externalId: string, text?: string): void {
    if (!this.readCache) return;
    const key = `${resource}\0${externalId}`;
    if (text === undefined) this.readCache.delete(key);
    else this.readCache.set(key, { text });
    this.queryCache?.delete(resource);
  }

  /**
   * Writes were rolled back (or the content replaced): nothing cached can be trusted, and the
   * status index a rolled-back transaction created is gone with it (made again on next use).
   */
  forgetCached(): void {
    this.readCache?.clear();
    this.queryCache?.clear();
    this.statusIndexed = false;
  }

  has(resource: string, externalId: string): boolean {
    return this.stmts.get.get(resource, externalId) !== undefined;
  }

  /** Insert or replace; a replaced record keeps its place in insertion order. */
  put(resource: string, externalId: string, body: unknown): void {
    const text = JSON.stringify(body);
    this.stmts.upsert.run(resource, externalId, text, fieldValue(body, 'created'), fieldValue(body, 'status'));
    this.work.rowsWritten++;
    this.wrote(resource, externalId, text);
  }

  delete(resource: string, externalId: string): boolean {
    this.work.rowsWritten++;
    this.wrote(resource, externalId);
    return this.stmts.delete.run(resource, externalId).changes > 0;
  }

  /** Every record of a kind, oldest first. */
  list<T = Record<string, unknown>>(resource: string): T[] {
    const rows = this.rowsOf(resource, 'list', () => this.stmts.list.all(resource) as { external_id: string; body: string }[]);
    this.work.rowsRead += rows.length;
    return rows.map((r) => JSON.parse(r.body) as T);
  }

  listRecords<T = Record<string, unknown>>(resource: string): StoredRecord<T>[] {
    const rows = this.rowsOf(resource, 'list', () => this.stmts.list.all(resource) as { external_id: string; body: string }[]);
    this.work.rowsRead += rows.length;
    return rows.map((r) => ({ resource, external_id: r.external_id, body: JSON.parse(r.body) as T }));
  }

  /** Records of a kind whose external id starts with `prefix` (uses the unique index), oldest first. */
  listByPrefix<T = Record<string, unknown>>(resource: string, prefix: string): StoredRecord<T>[] {
    const rows = this.stmts.listPrefix.all(resource, prefix, prefix + '\u{10ffff}') as { external_id: string; body: string }[];
    this.work.rowsRead += rows.length;
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
      if (value === null) where.push(`${fieldSql(field)} IS NULL`);
      else {
        where.push(`${fieldSql(field)} = ?`);
        args.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
      }
    }
    for (const [field, values] of Object.entries(q.oneOf ?? {})) {
      if (!FIELD_NAME.test(field)) throw new Error(`not a field name: ${field}`);
      if (values.length === 0) where.push('0');
      else where.push(`${fieldSql(field)} IN (${values.map(() => '?').join(', ')})`);
      args.push(...values);
    }
    for (const [field, values] of Object.entries(q.noneOf ?? {})) {
      if (!FIELD_NAME.test(field)) throw new Error(`not a field name: ${field}`);
      if (values.length === 0) continue;
      where.push(`ifnull(${fieldSql(field)} NOT IN (${values.map(() => '?').join(', ')}), 1)`);
      args.push(...values);
    }
    for (const field of q.present ?? []) {
      if (!FIELD_NAME.test(field)) throw new Error(`not a field name: ${field}`);
      where.push(`${fieldSql(field)} IS NOT NULL`);
    }
    for (const r of q.ranges ?? []) {
      if (!FIELD_NAME.test(r.field) || !['<', '<=', '>', '>='].includes(r.op)) throw new Error(`bad range on ${r.field}`);
      where.push(`${fieldSql(r.field)} ${r.op} ?`);
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
    const params = [...args, q.limit + 1, q.offset ?? 0];
    const rows = this.rowsOf(q.resource, `${sql}\0${JSON.stringify(params)}`, () => this.prepared(sql).all(...params)) as {
      seq: number;
      external_id: string;
      body: string;
      sortValue: number;
    }[];
    this.work.rowsRead += rows.length;
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

  /**
   * Records of a kind whose `status` column is one of `statuses`, oldest first, read through an
   * index on the status (made on first use, by the twins that ask): a lifecycle pass over the live
   * records then costs what they number, not every record ever made (without it ten years of a
   * daily subscription went quadratic).
   */
  withStatus<T = Record<string, unknown>>(resource: string, statuses: readonly string[]): T[] {
    if (statuses.length === 0) return [];
    if (!this.statusIndexed) {
      this.db.exec('CREATE INDEX IF NOT EXISTS records_by_status ON records (resource, status, seq)');
      this.statusIndexed = true;
    }
    // INDEXED BY: left alone, the planner may prefer the (resource, seq) index and read every
    // record of the kind. Sorted here rather than by SQLite: its sorter costs more than
    // the whole lookup for the few rows a lifecycle pass finds (half the time of each query).
    const marks = statuses.map(() => '?').join(', ');
    const rows = this.rowsOf(resource, `status\0${statuses.join('\0')}`, () => {
      const found = this.prepared(`SELECT seq, body FROM records INDEXED BY records_by_status WHERE resource = ? AND status IN (${marks})`).all(
        resource,
        ...statuses,
      ) as { seq: number; body: string }[];
      return found.length > 1 ? found.sort((a, b) => a.seq - b.seq) : found;
    });
    this.work.rowsRead += rows.length;
    return rows.map((r) => JSON.parse(r.body) as T);
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
    const mark = this.counterMark();
    try {
      this.runInTransaction ??= this.db.transaction((body: () => unknown) => body());
      return this.runInTransaction(fn) as T;
    } catch (e) {
      // What the rolled-back writes cached is gone from the file: forget it all.
      this.forgetCached();
      this.undoCounters(mark);
      throw e;
    }
  }

  getMeta(key: string): string | undefined {
    const counted = this.counters?.get(key) ?? this.pending?.get(key);
    if (counted !== undefined) return String(counted);
    const row = this.stmts.metaGet.get(key) as { value: string } | undefined;
    if (row) this.work.rowsRead++;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.counters?.delete(key);
    if (this.pending?.has(key)) this.setPending(key, undefined);
    this.stmts.metaSet.run(key, value);
    this.work.rowsWritten++;
  }

  /**
   * Add one to the integer kept under `key` (missing: 0) and return the new value: one statement
   * where a read and a write were two (an advance draws a dozen ids per billing cycle).
   */
  incrementMeta(key: string): number {
    this.work.rowsWritten++;
    const counters = this.counters;
    if (counters) {
      // Counted in memory while withReadCache runs, written once when it ends. A step rolled back
      // meanwhile keeps the numbers it drew (ids are skipped, never given twice).
      const n = (counters.get(key) ?? Number(this.getMeta(key) ?? 0)) + 1;
      counters.set(key, n);
      return n;
    }
    if (this.pending) {
      const n = Number(this.getMeta(key) ?? 0) + 1;
      this.setPending(key, n);
      return n;
    }
    return Number((this.stmts.metaIncrement.get(key) as { value: string | number }).value);
  }

  /** A counter's new value: kept pending while a pipeline transaction defers them, else written. */
  private writeCounter(key: string, n: number): void {
    if (this.pending) this.setPending(key, n);
    else this.stmts.metaSet.run(key, String(n));
  }

  private setPending(key: string, n: number | undefined): void {
    const pending = this.pending!;
    this.pendingUndo.push([key, pending.get(key)]);
    if (n === undefined) pending.delete(key);
    else pending.set(key, n);
  }

  /**
   * From now until flushCounters (or dropCounters), counters are kept in memory: the request
   * pipeline calls it after BEGIN. They are written in the same transaction, so a crash never
   * loses a committed counter nor keeps one whose writes were lost.
   */
  deferCounters(): void {
    this.pending = new Map();
    this.pendingUndo = [];
  }

  /** Where the pending counters stand (taken before a savepoint, for undoCounters). */
  counterMark(): number {
    return this.pendingUndo.length;
  }

  /** A savepoint was rolled back: the counters drawn since `mark` are drawn again, as SQL would have it. */
  undoCounters(mark: number): void {
    const pending = this.pending;
    if (!pending) return;
    while (this.pendingUndo.length > mark) {
      const [key, before] = this.pendingUndo.pop()!;
      if (before === undefined) pending.delete(key);
      else pending.set(key, before);
    }
  }

  /** Write the pending counters (inside the transaction, before its COMMIT) and stop deferring. */
  flushCounters(): void {
    const pending = this.pending;
    this.pending = undefined;
    this.pendingUndo = [];
    if (pending) for (const [key, n] of pending) this.stmts.metaSet.run(key, String(n));
  }

  /** The meta table is emptied or replaced: no pending counter stands (undone with the rest on a rollback). */
  private forgetPending(): void {
    if (this.pending) for (const key of [...this.pending.keys()]) this.setPending(key, undefined);
  }

  /** The transaction was rolled back: what was pending is gone with it. */
  dropCounters(): void {
    this.pending = undefined;
    this.pendingUndo = [];
  }

  /** Drop every record and meta value (reset to empty). */
  clear(): void {
    this.forgetCached();
    this.forgetPending();
    this.db.exec('DELETE FROM records; DELETE FROM meta;');
  }

  /** Replace the whole content with a seed file's (reset to seed; loading copies the file instead). */
  replaceWith(seedFile: string): void {
    this.forgetCached();
    this.forgetPending();
    this.db.exec(`ATTACH DATABASE '${seedFile.replaceAll("'", "''")}' AS seed`);
    try {
      this.transaction(() => {
        this.db.exec(`DELETE FROM records; DELETE FROM meta;
          INSERT INTO records (seq, resource, external_id, body, created, status)
            SELECT seq, resource, external_id, body, ${BODY_COLUMNS.created}, ${BODY_COLUMNS.status} FROM seed.records;
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
