// Reading the request log as a feed: entries after a cursor (the live stream), the newest few
// (the stream's backlog) and one whole entry (its headers and bodies). Kept apart from the writer's
// store so the stream reads new entries through these functions only; a cursor is opaque to
// clients (today the row's arrival number within its environment, `env_seq`, as a decimal string).

import type { Db } from './database.js';
import { UNANSWERED, type RequestLogRow } from './request-logs.js';

export interface FeedRow extends RequestLogRow {
  cursor: string;
}

/**
 * How long the feed waits at a request journaled before it was forwarded and not answered yet: its
 * answer completes the same entry, usually within milliseconds, and a stream that sent the entry
 * at once would show it unanswered for ever (it never sends an entry twice). Past this, it is sent
 * as it stands (status null), so one slow request holds the stream back by this much at most.
 */
export const UNANSWERED_HOLD_MS = 10_000;

/** A cursor clients may send back: decimal digits, at most 15 (fits a double exactly). */
export const CURSOR_PATTERN = /^\d{1,15}$/;

export class RequestLogFeed {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      after: db.prepare('SELECT * FROM request_logs WHERE environment_id = ? AND env_seq > ? ORDER BY env_seq ASC LIMIT ?'),
      newest: db.prepare('SELECT * FROM request_logs WHERE environment_id = ? ORDER BY env_seq DESC LIMIT ?'),
      head: db.prepare('SELECT MAX(env_seq) AS seq FROM request_logs WHERE environment_id = ?'),
      one: db.prepare('SELECT * FROM request_logs WHERE environment_id = ? AND id = ?'),
    };
  }

  /**
   * Entries of the environment that arrived after `cursor`, oldest first, at most `limit`; up to
   * (not including) a request still waiting for its answer, for UNANSWERED_HOLD_MS at most.
   */
  entriesAfter(environmentId: string, cursor: string, limit: number, now = Date.now()): FeedRow[] {
    const rows = this.stmts.after.all(environmentId, Number(cursor), limit) as (RequestLogRow & { env_seq: number })[];
    const waiting = rows.findIndex((r) => {
      if (r.status_code !== UNANSWERED) return false;
      const age = now - Date.parse(r.occurred_at);
      return age >= 0 && age < UNANSWERED_HOLD_MS;
    });
    return (waiting < 0 ? rows : rows.slice(0, waiting)).map(withCursor);
  }

  /** The cursor of the newest entry ('0' when there is none): a stream starting now reads after it. */
  head(environmentId: string): string {
    const row = this.stmts.head.get(environmentId) as { seq: number | null };
    return String(row.seq ?? 0);
  }

  /** The `count` newest entries, oldest first. */
  newest(environmentId: string, count: number): FeedRow[] {
    if (count <= 0) return [];
    const rows = this.stmts.newest.all(environmentId, count) as (RequestLogRow & { env_seq: number })[];
    return rows.reverse().map(withCursor);
  }

  entry(environmentId: string, id: string): RequestLogRow | undefined {
    return this.stmts.one.get(environmentId, id) as RequestLogRow | undefined;
  }
}

function withCursor(row: RequestLogRow & { env_seq: number }): FeedRow {
  const { env_seq, ...rest } = row;
  return { ...rest, cursor: String(env_seq) };
}
