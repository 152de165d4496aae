// The request log: one row per request a twin's gateway answered, with the contract's fields plus
// what tests match on (actor, content types, capped bodies, headers without credentials).
//
// It lives in its own SQLite file (request-logs.sqlite beside control-plane.sqlite) written by one
// connection only, the gateway's log writer, so API writes and log writes never wait for each
// other's lock. The control plane's own connection ATTACHes the file and reads it under the same
// table names (the evaluator's window, the logs API).
//
// Every cost is independent of the log's size:
// - each environment's rows carry a dense number `env_seq` (1, 2, 3, …); retention only ever cuts
//   the oldest rows and a deleted environment loses all of them, so the rows kept are always the
//   contiguous range [first_seq, next_seq) kept in `request_log_environments`. The total is a
//   subtraction and page N (newest first) is an index range, never COUNT(*) or OFFSET;
// - retention, the per-environment body cap and the purge of deleted environments run in small
//   steps (maintenance*), each bounded by a row limit.

import Database from 'better-sqlite3';
import type { Db } from './database.js';
import type { FidelityLevel } from '../../twin-runtime/fidelity.js';
import { UNANSWERED } from '../gateway/recording.js';

export interface RequestLogRow {
  id: string;
  organization_id: string;
  environment_id: string;
  environment_twin_id: string;
  twin_slug: string;
  actor: 'agent' | 'seed' | 'lifecycle';
  method: string;
  path: string;
  query_string: string;
  status_code: number;
  duration_ms: number;
  occurred_at: string;
  /** JSON object of request headers, credentials removed. */
  request_headers: string;
  request_content_type: string | null;
  request_body: string | null;
  /** 1 when the stored request body is not the whole body (cut at 64 KiB, or dropped by the body cap). */
  request_body_truncated: 0 | 1;
  response_content_type: string | null;
  response_body: string | null;
  response_body_truncated: 0 | 1;
  /** Bytes of both stored bodies (counted against the environment's cap); computed when absent. */
  body_bytes?: number;
  /**
   * How the twin made the answer, from its `Twin-Fidelity` header (twin-runtime/fidelity.ts); null
   * when it did not say (an answer the gateway made itself, a row older than the header).
   */
  fidelity?: FidelityLevel | null;
  /** The injected fault that made, delayed or dropped the answer (`<fault id> <effect type>`, the twin's `Twin-Fault` header); null otherwise. */
  fault?: string | null;
}

export { UNANSWERED };

/**
 * A row as it is appended: each body as text, or as the UTF-8 bytes that crossed the wire. Bytes
 * are stored as the same TEXT without being decoded in JavaScript (the log writer's rows, straight
 * from the journal): no 7 KB string to build, bind and collect per answer.
 */
export interface RequestLogInput extends Omit<RequestLogRow, 'request_body' | 'response_body'> {
  request_body: string | Buffer | null;
  response_body: string | Buffer | null;
  /**
   * 1: the answer to a request logged UNANSWERED before it was forwarded (same id): it completes
   * that row where it stands (arrival order) instead of adding one.
   */
  completes?: 1 | null;
}

/** Rows back from an environment's newest in which a completion looks for its unanswered row. */
export const UNANSWERED_LOOKBACK = 10_000;

/** Listing columns first: a page reads them without touching the bodies' overflow pages. */
const COLUMNS = [
  'id',
  'organization_id',
  'environment_id',
  'environment_twin_id',
  'twin_slug',
  'actor',
  'method',
  'path',
  'query_string',
  'status_code',
  'duration_ms',
  'occurred_at',
  'request_headers',
  'request_content_type',
  'request_body',
  'request_body_truncated',
  'response_content_type',
  'response_body',
  'response_body_truncated',
  'fidelity',
  'fault',
] as const;

/** What the logs API lists (RequestLogListItem); an unanswered request's status is null. */
const LIST_COLUMNS = [
  'id',
  'environment_id',
  'environment_twin_id',
  'method',
  'path',
  'query_string',
  `NULLIF(status_code, ${UNANSWERED}) AS status_code`,
  'duration_ms',
  'occurred_at',
  'fidelity',
  'fault',
] as const;

/** Narrowing of an environment's log (each optional). */
export interface RequestLogFilter {
  twinId?: string;
  statusCode?: number;
  fidelity?: FidelityLevel;
}

/**
 * Rows a filtered listing looks at: the environment's newest. A filter has no counter or dense
 * numbering of its own, so it reads rows; bounding them keeps its cost independent of the log's
 * size (an unfiltered listing needs no bound: it reads one page).
 */
export const FILTER_WINDOW = 50_000;

/**
 * The rows of an environment from `from` on that pass the filter, as a FROM … WHERE clause read
 * from one index only: the index of the filter most likely to be selective (status code, then
 * twin, then fidelity) holds the other filters' columns too (migration 3), so the cost is that
 * filter's matching index entries in the window, never a row read or a sort.
 */
function filteredSql(environmentId: string, from: number, f: RequestLogFilter): { sql: string; params: (string | number)[] } | undefined {
  const lead =
    f.statusCode !== undefined
      ? 'request_logs_by_status'
      : f.twinId !== undefined
        ? 'request_logs_by_twin'
        : f.fidelity !== undefined
          ? 'request_logs_by_fidelity'
          : undefined;
  if (!lead) return undefined;
  const parts = ['environment_id = ?', 'env_seq >= ?'];
  const params: (string | number)[] = [environmentId, from];
  if (f.statusCode !== undefined) parts.push('status_code = ?'), params.push(f.statusCode);
  if (f.twinId !== undefined) parts.push('environment_twin_id = ?'), params.push(f.twinId);
  if (f.fidelity !== undefined) parts.push('fidelity = ?'), params.push(f.fidelity);
  return { sql: `FROM request_logs INDEXED BY ${lead} WHERE ${parts.join(' AND ')}`, params };
}

/** Schema of the log file, applied in order (its own numbering, apart from control-plane.sqlite). */
const LOG_MIGRATIONS: { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE request_logs (
  seq INTEGER PRIMARY KEY,                 -- arrival order (within an environment it only grows: new rows get max + 1)
  env_seq INTEGER NOT NULL,                -- arrival order within the environment, dense from 1
  id TEXT NOT NULL,
  organization_id TEXT NOT NULL,
  environment_id TEXT NOT NULL,
  environment_twin_id TEXT NOT NULL,
  twin_slug TEXT NOT NULL,
  actor TEXT NOT NULL DEFAULT 'agent',     -- agent | seed | lifecycle
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  query_string TEXT NOT NULL DEFAULT '',   -- provider credentials redacted
  status_code INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  occurred_at TEXT NOT NULL,
  request_headers TEXT NOT NULL DEFAULT '{}',  -- JSON, credentials removed
  request_content_type TEXT,
  request_body TEXT,                           -- capped at 64 KiB, credentials redacted
  request_body_truncated INTEGER NOT NULL DEFAULT 0,
  response_content_type TEXT,
  response_body TEXT,                          -- capped at 64 KiB
  response_body_truncated INTEGER NOT NULL DEFAULT 0,
  body_bytes INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX request_logs_by_env ON request_logs (environment_id, env_seq);
CREATE TABLE request_log_environments (
  environment_id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL,
  first_seq INTEGER NOT NULL DEFAULT 1,    -- env_seq of the oldest row kept
  next_seq INTEGER NOT NULL DEFAULT 1,     -- env_seq of the next row; rows kept = next_seq - first_seq
  body_bytes INTEGER NOT NULL DEFAULT 0,   -- bytes of bodies kept
  body_floor INTEGER NOT NULL DEFAULT 1,   -- rows below this env_seq had their bodies dropped (body cap)
  retention_days INTEGER,                  -- null: the service default
  deleted INTEGER NOT NULL DEFAULT 0       -- the environment is gone: its rows are being purged
) WITHOUT ROWID;
CREATE INDEX request_log_environments_deleted ON request_log_environments (deleted);
CREATE TABLE request_log_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`,
  },
  {
    // The answer's Twin-Fidelity level (decisions §15); rows from before read as null.
    version: 2,
    sql: `ALTER TABLE request_logs ADD COLUMN fidelity TEXT;`,
  },
  {
    // An index per listing filter, each covering the filters that may come with it (issue 33): a
    // filtered listing counts and pages index entries only, never the fat rows (bodies inline in
    // 32 KB pages). Before, one filtered listing of a 200,000-row log held the API's thread
    // ~50-100 ms; 200/s of them moved another organization's API p99 by 90 ms.
    version: 3,
    sql: `
CREATE INDEX request_logs_by_status ON request_logs (environment_id, status_code, env_seq, environment_twin_id, fidelity);
CREATE INDEX request_logs_by_twin ON request_logs (environment_id, environment_twin_id, env_seq, fidelity);
CREATE INDEX request_logs_by_fidelity ON request_logs (environment_id, fidelity, env_seq);
`,
  },
  {
    // The injected fault that made, delayed or dropped an answer (issue 38); rows from before read as null.
    version: 4,
    sql: `ALTER TABLE request_logs ADD COLUMN fault TEXT;`,
  },
];

/** Schema name of the log file inside the control plane's connection. */
export const LOGS_SCHEMA = 'logs';

export const LOG_FILE_NAME = 'request-logs.sqlite';

function setPragmas(db: Db, schema?: string): void {
  const p = schema ? `${schema}.` : '';
  db.pragma(`${p}journal_mode = WAL`);
  // A commit reaches the operating system before the response is sent: it survives SIGKILL.
  db.pragma(`${p}synchronous = NORMAL`);
}

/** Create or upgrade the log schema (in `schema` of an ATTACHing connection, or the main one). */
export function migrateLogs(db: Db, schema?: string): void {
  const p = schema ? `${schema}.` : '';
  const fresh = (db.prepare(`SELECT COUNT(*) AS n FROM ${p}sqlite_master`).get() as { n: number }).n === 0;
  // Set before the first table exists: space freed by retention goes back to the file system, and
  // 32 KB pages hold a row with a 7 KB answer whole (4 KB pages spread it over an overflow chain):
  // the log writer's CPU per such row 33-35 -> 20-21 µs, commit plus checkpoint. A file created
  // with other pages keeps them.
  if (fresh) {
    db.pragma(`${p}page_size = 32768`);
    db.pragma(`${p}auto_vacuum = INCREMENTAL`);
  }
  setPragmas(db, schema);
  db.exec(`CREATE TABLE IF NOT EXISTS ${p}log_schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`);
  const applied = new Set((db.prepare(`SELECT version FROM ${p}log_schema_migrations`).all() as { version: number }[]).map((r) => r.version));
  for (const m of LOG_MIGRATIONS) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      // Unqualified CREATE and ALTER statements land in `main`; qualify them for an attached schema.
      const sql = schema
        ? m.sql
            .replace(/CREATE (UNIQUE )?(TABLE|INDEX) (\w+)/g, (_all, u, kind, name) => `CREATE ${u ?? ''}${kind} ${schema}.${name}`)
            .replace(/ALTER TABLE (\w+)/g, (_all, name) => `ALTER TABLE ${schema}.${name}`)
        : m.sql;
      db.exec(sql);
      db.prepare(`INSERT INTO ${p}log_schema_migrations (version, applied_at) VALUES (?, ?)`).run(m.version, new Date().toISOString());
    })();
  }
}

/** Attach the log file to the control plane's connection (reads go through the same table names). */
export function attachLogs(db: Db, file: string): void {
  db.prepare(`ATTACH DATABASE ? AS ${LOGS_SCHEMA}`).run(file);
  migrateLogs(db, LOGS_SCHEMA);
}

/** The log writer's own connection to the log file. */
export function openLogDatabase(file: string): Db {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  migrateLogs(db);
  return db;
}

function byteLength(body: string | Buffer | null): number {
  return body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
}

interface EnvCounters {
  environment_id: string;
  organization_id: string;
  first_seq: number;
  next_seq: number;
  body_bytes: number;
  body_floor: number;
  retention_days: number | null;
  deleted: number;
}

/** The public fields the logs API lists (`status_code` null: unanswered). */
export type RequestLogListItem = Pick<
  RequestLogRow,
  'id' | 'environment_id' | 'environment_twin_id' | 'method' | 'path' | 'query_string' | 'duration_ms' | 'occurred_at'
> & { status_code: number | null; fidelity: FidelityLevel | null; fault: string | null };

export interface MaintenanceLimits {
  /** Days rows are kept when an environment names none (TWINS_LOG_RETENTION_DAYS or the plan's). */
  defaultRetentionDays: number;
  /** Bytes of bodies an environment keeps; older bodies are dropped beyond it (marker set). */
  bodyCapBytes: number;
  /** Rows one step may touch. */
  rowLimit: number;
  now?: Date;
}

export class RequestLogStore {
  private readonly stmts;
  private readonly appendTx: (rows: RequestLogInput[]) => void;
  /** The filtered listing's statements by text (one per combination of filters). */
  private readonly filteredStatements = new Map<string, Database.Statement>();
  /** Rows appended UNANSWERED whose answer has not come yet: id → where the row is. */
  private readonly unanswered = new Map<string, { env_seq: number; body_bytes: number }>();

  constructor(readonly db: Db) {
    const insertColumns = [...COLUMNS, 'env_seq', 'body_bytes'];
    // A body bound as bytes is cast to TEXT: SQLite keeps its UTF-8 as it is (no conversion).
    const placeholders = insertColumns.map((c) => (c === 'request_body' || c === 'response_body' ? 'CAST(? AS TEXT)' : '?'));
    this.stmts = {
      insert: db.prepare(`INSERT INTO request_logs (${insertColumns.join(', ')}) VALUES (${placeholders.join(', ')})`),
      counters: db.prepare('SELECT * FROM request_log_environments WHERE environment_id = ?'),
      newCounters: db.prepare('INSERT INTO request_log_environments (environment_id, organization_id) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      saveCounters: db.prepare('UPDATE request_log_environments SET next_seq = ?, body_bytes = ? WHERE environment_id = ?'),
      range: db.prepare(`SELECT ${LIST_COLUMNS.join(', ')} FROM request_logs WHERE environment_id = ? AND env_seq >= ? AND env_seq <= ? ORDER BY env_seq DESC`),
      openRow: db.prepare(
        `SELECT env_seq, body_bytes FROM request_logs WHERE environment_id = ? AND env_seq >= ? AND id = ? AND status_code = ${UNANSWERED} LIMIT 1`,
      ),
      complete: db.prepare(
        `UPDATE request_logs SET status_code = ?, duration_ms = ?, response_content_type = ?, response_body = CAST(? AS TEXT),
           response_body_truncated = ?, body_bytes = ?, fidelity = ?, fault = ? WHERE environment_id = ? AND env_seq = ?`,
      ),
      rowsRange: db.prepare('SELECT * FROM request_logs WHERE environment_id = ? AND env_seq >= ? AND env_seq <= ? ORDER BY env_seq DESC'),
      markDeleted: db.prepare('UPDATE request_log_environments SET deleted = 1 WHERE environment_id = ?'),
      setRetention: db.prepare(
        `INSERT INTO request_log_environments (environment_id, organization_id, retention_days) VALUES (?, ?, ?)
         ON CONFLICT (environment_id) DO UPDATE SET retention_days = excluded.retention_days`,
      ),
      deletedEnvs: db.prepare('SELECT * FROM request_log_environments WHERE deleted = 1 LIMIT 16'),
      dropEnv: db.prepare('DELETE FROM request_log_environments WHERE environment_id = ?'),
      deleteRange: db.prepare('DELETE FROM request_logs WHERE environment_id = ? AND env_seq >= ? AND env_seq < ?'),
      bytesInRange: db.prepare('SELECT COALESCE(SUM(body_bytes), 0) AS n FROM request_logs WHERE environment_id = ? AND env_seq >= ? AND env_seq < ?'),
      occurredInRange: db.prepare('SELECT env_seq, occurred_at FROM request_logs WHERE environment_id = ? AND env_seq >= ? AND env_seq < ? ORDER BY env_seq'),
      firstOccurred: db.prepare('SELECT occurred_at FROM request_logs WHERE environment_id = ? AND env_seq = ?'),
      liveEnvs: db.prepare(
        'SELECT * FROM request_log_environments WHERE deleted = 0 AND next_seq > first_seq AND environment_id >= ? ORDER BY environment_id LIMIT ?',
      ),
      bodiesFrom: db.prepare('SELECT env_seq, body_bytes FROM request_logs WHERE environment_id = ? AND env_seq >= ? AND env_seq < ? ORDER BY env_seq'),
      overCap: db.prepare('SELECT * FROM request_log_environments WHERE deleted = 0 AND body_bytes > ? LIMIT 16'),
      cutPrefix: db.prepare(
        'UPDATE request_log_environments SET first_seq = ?, body_bytes = body_bytes - ?, body_floor = MAX(body_floor, ?) WHERE environment_id = ?',
      ),
      dropBodies: db.prepare(
        `UPDATE request_logs SET
           request_body_truncated = CASE WHEN request_body IS NULL THEN request_body_truncated ELSE 1 END,
           response_body_truncated = CASE WHEN response_body IS NULL THEN response_body_truncated ELSE 1 END,
           request_body = NULL, response_body = NULL, body_bytes = 0
         WHERE environment_id = ? AND env_seq >= ? AND env_seq < ? AND body_bytes > 0`,
      ),
      raiseFloor: db.prepare('UPDATE request_log_environments SET body_floor = ?, body_bytes = body_bytes - ? WHERE environment_id = ?'),
    };
    this.appendTx = db.transaction((rows: RequestLogInput[]) => this.appendRows(rows));
  }

  /** Append a batch in one transaction; each row gets the next number of its environment. */
  append(rows: RequestLogInput[]): void {
    if (rows.length > 0) this.appendTx(rows);
  }

  /** The body of append, for a caller that already holds a transaction. */
  appendRows(rows: RequestLogInput[]): void {
    const touched = new Map<string, EnvCounters>();
    for (const r of rows) {
      let c = touched.get(r.environment_id);
      if (!c) {
        c = this.stmts.counters.get(r.environment_id) as EnvCounters | undefined;
        if (!c) {
          this.stmts.newCounters.run(r.environment_id, r.organization_id);
          c = this.stmts.counters.get(r.environment_id) as EnvCounters;
        }
        touched.set(r.environment_id, c);
      }
      const bytes = r.body_bytes ?? byteLength(r.request_body) + byteLength(r.response_body);
      if (r.completes) {
        const open = this.unanswered.get(r.id) ?? this.findUnanswered(c, r.id);
        if (open) {
          this.unanswered.delete(r.id);
          this.stmts.complete.run(
            r.status_code,
            r.duration_ms,
            r.response_content_type,
            r.response_body,
            r.response_body_truncated,
            bytes,
            r.fidelity ?? null,
            r.fault ?? null,
            r.environment_id,
            open.env_seq,
          );
          c.body_bytes += bytes - open.body_bytes;
          continue;
        }
      }
      if (r.status_code === UNANSWERED) this.unanswered.set(r.id, { env_seq: c.next_seq, body_bytes: bytes });
      this.stmts.insert.run(
        r.id,
        r.organization_id,
        r.environment_id,
        r.environment_twin_id,
        r.twin_slug,
        r.actor,
        r.method,
        r.path,
        r.query_string,
        r.status_code,
        r.duration_ms,
        r.occurred_at,
        r.request_headers,
        r.request_content_type,
        r.request_body,
        r.request_body_truncated,
        r.response_content_type,
        r.response_body,
        r.response_body_truncated,
        r.fidelity ?? null,
        r.fault ?? null,
        c.next_seq,
        bytes,
      );
      c.next_seq += 1;
      c.body_bytes += bytes;
    }
    for (const c of touched.values()) this.stmts.saveCounters.run(c.next_seq, c.body_bytes, c.environment_id);
  }

  /**
   * An unanswered row of this writer's time is found in `unanswered`; one an earlier process wrote
   * (its answer replayed from the journal after a crash) among the environment's newest rows.
   */
  private findUnanswered(c: EnvCounters, id: string): { env_seq: number; body_bytes: number } | undefined {
    return this.stmts.openRow.get(c.environment_id, Math.max(c.first_seq, c.next_seq - UNANSWERED_LOOKBACK), id) as
      | { env_seq: number; body_bytes: number }
      | undefined;
  }

  private counters(environmentId: string): EnvCounters | undefined {
    return this.stmts.counters.get(environmentId) as EnvCounters | undefined;
  }

  private filtered(sql: string): Database.Statement {
    let st = this.filteredStatements.get(sql);
    if (!st) this.filteredStatements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /** Rows kept for the environment (0 once it is deleted). */
  count(environmentId: string): number {
    const c = this.counters(environmentId);
    return !c || c.deleted ? 0 : c.next_seq - c.first_seq;
  }

  /** The env_seq range [low, high] of `limit` rows after skipping `offset` newest, or undefined past the end. */
  private window(c: EnvCounters, limit: number, offset: number): [number, number] | undefined {
    const high = c.next_seq - 1 - offset;
    if (high < c.first_seq || limit <= 0) return undefined;
    return [Math.max(c.first_seq, high - limit + 1), high];
  }

  /**
   * One page of the listing, newest first, with the total. Unfiltered: an index range, whatever the
   * page. Filtered: among the newest FILTER_WINDOW rows.
   */
  listPage(environmentId: string, page: number, size: number, filter: RequestLogFilter = {}): { total: number; items: RequestLogListItem[] } {
    const c = this.counters(environmentId);
    if (!c || c.deleted) return { total: 0, items: [] };
    const f = filteredSql(environmentId, Math.max(c.first_seq, c.next_seq - FILTER_WINDOW), filter);
    if (f) {
      const total = (this.filtered(`SELECT COUNT(*) AS n ${f.sql}`).get(...f.params) as { n: number }).n;
      // The page's numbers from the index, then only those rows.
      const items = this.filtered(
        `SELECT ${LIST_COLUMNS.join(', ')} FROM request_logs WHERE environment_id = ? AND env_seq IN
           (SELECT env_seq ${f.sql} ORDER BY env_seq DESC LIMIT ? OFFSET ?) ORDER BY env_seq DESC`,
      ).all(environmentId, ...f.params, size, (page - 1) * size) as RequestLogListItem[];
      return { total, items };
    }
    const range = this.window(c, size, (page - 1) * size);
    const items = range ? (this.stmts.range.all(environmentId, range[0], range[1]) as RequestLogListItem[]) : [];
    return { total: c.next_seq - c.first_seq, items };
  }

  /** Whole rows, newest first, `limit` of them after the `offset` newest (tests, export). */
  page(environmentId: string, limit: number, offset: number): RequestLogRow[] {
    const c = this.counters(environmentId);
    const range = c && !c.deleted ? this.window(c, limit, offset) : undefined;
    return range ? (this.stmts.rowsRange.all(environmentId, range[0], range[1]) as RequestLogRow[]) : [];
  }

  // ---- retention, body cap, deleted environments (the writer's maintenance) --------------------

  /** The environment is gone: its rows disappear from every read now and from the file step by step. */
  markDeleted(environmentId: string): void {
    this.stmts.markDeleted.run(environmentId);
  }

  /** How long the environment's rows are kept (null: the service default). */
  setRetention(environmentId: string, organizationId: string, days: number | null): void {
    this.stmts.setRetention.run(environmentId, organizationId, days);
  }

  /** Delete up to `limit` rows of deleted environments; returns the rows deleted. */
  purgeStep(limit: number): number {
    let left = limit;
    for (const c of this.stmts.deletedEnvs.all() as EnvCounters[]) {
      if (left <= 0) break;
      const upTo = Math.min(c.next_seq, c.first_seq + left);
      const deleted = this.stmts.deleteRange.run(c.environment_id, c.first_seq, upTo).changes;
      left -= Math.max(1, deleted);
      if (upTo >= c.next_seq) this.stmts.dropEnv.run(c.environment_id);
      else this.stmts.cutPrefix.run(upTo, 0, upTo, c.environment_id);
    }
    return limit - left;
  }

  /**
   * Cut rows older than their environment's retention from the oldest end, visiting environments
   * in id order from `from` (inclusive): a sweep resumes where the last step's budget ran out.
   * Returns the rows deleted and where to resume (undefined when the sweep went round them all).
   */
  retentionStep(o: MaintenanceLimits, from = ''): { deleted: number; cursor: string | undefined } {
    const now = (o.now ?? new Date()).getTime();
    let left = o.rowLimit;
    let cursor = from;
    for (;;) {
      const envs = this.stmts.liveEnvs.all(cursor, 64) as EnvCounters[];
      if (envs.length === 0) return { deleted: o.rowLimit - left, cursor: undefined };
      for (const c of envs) {
        cursor = c.environment_id;
        const days = c.retention_days ?? o.defaultRetentionDays;
        const cutoff = new Date(now - days * 86_400_000).toISOString();
        const oldest = this.stmts.firstOccurred.get(c.environment_id, c.first_seq) as { occurred_at: string } | undefined;
        if (oldest && oldest.occurred_at < cutoff) {
          // The prefix of rows older than the cutoff, within the step's budget.
          const window = this.stmts.occurredInRange.all(c.environment_id, c.first_seq, Math.min(c.next_seq, c.first_seq + left)) as {
            env_seq: number;
            occurred_at: string;
          }[];
          let upTo = c.first_seq;
          for (const r of window) {
            if (r.occurred_at >= cutoff) break;
            upTo = r.env_seq + 1;
          }
          const bytes = (this.stmts.bytesInRange.get(c.environment_id, c.first_seq, upTo) as { n: number }).n;
          left -= this.stmts.deleteRange.run(c.environment_id, c.first_seq, upTo).changes;
          this.stmts.cutPrefix.run(upTo, bytes, upTo, c.environment_id);
          // Budget spent: the next step starts with this environment again.
          if (left <= 0) return { deleted: o.rowLimit - left, cursor };
        }
        cursor = c.environment_id + '\u0000';
      }
    }
  }

  /** Drop the oldest bodies of environments over the body cap (marker set on each); returns rows touched. */
  bodyCapStep(o: MaintenanceLimits): number {
    let left = o.rowLimit;
    for (const c of this.stmts.overCap.all(o.bodyCapBytes) as EnvCounters[]) {
      if (left <= 0) break;
      const from = Math.max(c.body_floor, c.first_seq);
      // Drop a tenth of the cap at a time so a steady stream does not trim on every step.
      let excess = c.body_bytes - o.bodyCapBytes * 0.9;
      let upTo = from;
      const window = this.stmts.bodiesFrom.all(c.environment_id, from, Math.min(c.next_seq, from + left)) as { env_seq: number; body_bytes: number }[];
      let freed = 0;
      for (const r of window) {
        if (excess <= 0) break;
        excess -= r.body_bytes;
        freed += r.body_bytes;
        upTo = r.env_seq + 1;
      }
      if (upTo === from) continue;
      this.stmts.dropBodies.run(c.environment_id, from, upTo);
      this.stmts.raiseFloor.run(upTo, freed, c.environment_id);
      left -= upTo - from;
    }
    return o.rowLimit - left;
  }
}
