// The request log the gateway writes: one row per request a twin served, with the contract's
// fields plus what tests match on (actor, content types, capped bodies, headers without
// credentials). Written in batches (one transaction each); read newest first.

import type { Db } from './database.js';

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
  request_body_truncated: 0 | 1;
  response_content_type: string | null;
  response_body: string | null;
  response_body_truncated: 0 | 1;
}

const COLUMNS = [
  'id', 'organization_id', 'environment_id', 'environment_twin_id', 'twin_slug', 'actor', 'method', 'path',
  'query_string', 'status_code', 'duration_ms', 'occurred_at', 'request_headers', 'request_content_type',
  'request_body', 'request_body_truncated', 'response_content_type', 'response_body', 'response_body_truncated',
] as const;

/** Narrowing of an environment's log (both optional). */
export interface RequestLogFilter {
  twinId?: string;
  statusCode?: number;
}

/** `AND …` conditions for a filter, with their parameters in order. */
function filterSql(f: RequestLogFilter): { sql: string; params: (string | number)[] } {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  if (f.twinId !== undefined) (parts.push('environment_twin_id = ?'), params.push(f.twinId));
  if (f.statusCode !== undefined) (parts.push('status_code = ?'), params.push(f.statusCode));
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params };
}

export class RequestLogStore {
  private readonly stmts;
  private readonly insertMany: (rows: RequestLogRow[]) => void;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(`INSERT INTO request_logs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => '@' + c).join(', ')})`),
      count: db.prepare('SELECT COUNT(*) AS n FROM request_logs WHERE environment_id = ?'),
      page: db.prepare('SELECT * FROM request_logs WHERE environment_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?'),
    };
    this.insertMany = db.transaction((rows: RequestLogRow[]) => {
      for (const r of rows) this.stmts.insert.run(r);
    });
  }

  /** Append a batch in one transaction. */
  append(rows: RequestLogRow[]): void {
    if (rows.length > 0) this.insertMany(rows);
  }

  count(environmentId: string, filter: RequestLogFilter = {}): number {
    const f = filterSql(filter);
    if (f.params.length === 0) return (this.stmts.count.get(environmentId) as { n: number }).n;
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM request_logs WHERE environment_id = ?${f.sql}`).get(environmentId, ...f.params) as { n: number }).n;
  }

  /** Newest first. */
  page(environmentId: string, limit: number, offset: number, filter: RequestLogFilter = {}): RequestLogRow[] {
    const f = filterSql(filter);
    if (f.params.length === 0) return this.stmts.page.all(environmentId, limit, offset) as RequestLogRow[];
    const sql = `SELECT * FROM request_logs WHERE environment_id = ?${f.sql} ORDER BY seq DESC LIMIT ? OFFSET ?`;
    return this.db.prepare(sql).all(environmentId, ...f.params, limit, offset) as RequestLogRow[];
  }
}
