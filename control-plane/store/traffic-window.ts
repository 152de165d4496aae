// The window of an environment's traffic a test attempt judges: request_logs rows with occurred_at
// in [from, to], in arrival order. It answers the evaluator's questions in as few passes as it can,
// so 100,000 logged requests are not each copied out of SQLite in full: one scan marks, per row,
// which matchers' column conditions hold and copies only the columns those matchers still need;
// whole rows are read back only for what a result reports.

import type { Db } from './database.js';
import type { RequestLogRow } from '../testing/observed-request.js';
import { REGEXP_FUNCTION, type SqlCondition } from '../testing/sql-condition.js';

/** The columns of request_logs a matcher can read. */
export type LogColumn =
  | 'twin_slug'
  | 'actor'
  | 'method'
  | 'path'
  | 'query_string'
  | 'status_code'
  | 'request_headers'
  | 'request_content_type'
  | 'request_body'
  | 'response_content_type'
  | 'response_body';

/** One question to the scan: rows where `where` holds, with `columns` copied out for them. */
export interface Probe {
  where: SqlCondition;
  columns: readonly LogColumn[];
}

export interface WindowScan {
  /**
   * Rows where at least one probe holds, in arrival order. Each carries `seq` and the columns the
   * probes asked for, filled where a probe that holds on the row asked for them and null elsewhere.
   */
  rows: RequestLogRow[];
  /** Per probe, the indices into `rows` where it holds, ascending. */
  candidates: number[][];
}

const WHOLE_ROW =
  'seq, id, environment_id, environment_twin_id, twin_slug, actor, method, path, query_string, status_code, duration_ms, occurred_at, request_headers, request_content_type, request_body, response_content_type, response_body';

/** The rows of the window; its parameters are boundParams. */
const IN_WINDOW = 'environment_id = ? AND occurred_at >= ? AND occurred_at <= ?';

/** Probes per integer mask column: JavaScript bit operations are 32-bit. */
const BITS = 30;

const withFunctions = new WeakSet<Db>();

/** Path templates compile to regular expressions that SQL conditions run through this function. */
function registerFunctions(db: Db): void {
  if (withFunctions.has(db)) return;
  const cache = new Map<string, RegExp>();
  db.function(REGEXP_FUNCTION, { deterministic: true }, (source: unknown, text: unknown) => {
    if (typeof source !== 'string' || typeof text !== 'string') return 0;
    let re = cache.get(source);
    if (!re) cache.set(source, (re = new RegExp(source)));
    return re.test(text) ? 1 : 0;
  });
  withFunctions.add(db);
}

export class TrafficWindow {
  constructor(
    private readonly db: Db,
    readonly environmentId: string,
    readonly from: string,
    readonly to: string,
  ) {
    registerFunctions(db);
  }

  /** The parameters of IN_WINDOW. */
  private get boundParams(): string[] {
    return [this.environmentId, this.from, this.to];
  }

  /**
   * Whether the window holds more than `limit` requests: the environment's count first (one row),
   * then, only when that is larger, an index walk of at most `limit` rows.
   */
  holdsMoreThan(limit: number): boolean {
    const env = this.db.prepare('SELECT next_seq - first_seq AS n FROM request_log_environments WHERE environment_id = ?').get(this.environmentId) as
      | { n: number }
      | undefined;
    if (!env || env.n <= limit) return false;
    return this.db.prepare(`SELECT 1 FROM request_logs WHERE ${IN_WINDOW} ORDER BY env_seq LIMIT 1 OFFSET ?`).get(...this.boundParams, limit) !== undefined;
  }

  /** One pass over the window answering every probe at once. */
  scan(probes: Probe[]): WindowScan {
    const candidates: number[][] = probes.map(() => []);
    if (probes.length === 0) return { rows: [], candidates };
    const maskCount = Math.ceil(probes.length / BITS);
    const maskExprs: string[] = [];
    const maskParams: (string | number)[] = [];
    for (let m = 0; m < maskCount; m++) {
      const terms = probes.slice(m * BITS, (m + 1) * BITS).map((p, bit) => {
        maskParams.push(...p.where.params);
        return `(CASE WHEN ${p.where.text} THEN ${2 ** bit} ELSE 0 END)`;
      });
      maskExprs.push(`${terms.join(' | ')} AS m${m}`);
    }
    // A column is copied for a row only when a probe that holds there asked for it.
    const columns = [...new Set(probes.flatMap((p) => p.columns))];
    const columnExprs = columns.map((c) => {
      const needs: number[] = new Array(maskCount).fill(0);
      probes.forEach((p, i) => {
        if (p.columns.includes(c)) needs[Math.floor(i / BITS)]! |= 2 ** (i % BITS);
      });
      const when = needs.map((n, m) => (n === 0 ? null : `(m${m} & ${n}) != 0`)).filter(Boolean);
      return `CASE WHEN ${when.join(' OR ')} THEN ${c} END`;
    });
    const masks = Array.from({ length: maskCount }, (_, m) => `m${m}`);
    // ORDER BY … LIMIT -1 keeps SQLite from flattening the inner query, which would evaluate the
    // masks again for every column that depends on them. Arrival order within an environment is
    // env_seq, which its index already holds (no sort).
    const sql =
      `SELECT seq, ${[...masks, ...columnExprs].join(', ')} FROM (` +
      `SELECT seq, ${[...columns, ...maskExprs].join(', ')} FROM request_logs WHERE ${IN_WINDOW} ORDER BY env_seq LIMIT -1` +
      `) WHERE ${masks.map((m) => `${m} != 0`).join(' OR ')}`;
    const raw = this.db
      .prepare(sql)
      .raw()
      .all(...maskParams, ...this.boundParams) as unknown[][];
    const rows: RequestLogRow[] = new Array(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const values = raw[i]!;
      const row: Record<string, unknown> = { seq: values[0] };
      for (let m = 0; m < maskCount; m++) {
        const mask = values[1 + m] as number;
        for (let bit = 0; bit < BITS && mask >= 2 ** bit; bit++) if (mask & (2 ** bit)) candidates[m * BITS + bit]!.push(i);
      }
      for (let c = 0; c < columns.length; c++) row[columns[c]!] = values[1 + maskCount + c];
      rows[i] = row as unknown as RequestLogRow;
    }
    return { rows, candidates };
  }

  /**
   * Arrival numbers of up to `limit` rows after `afterSeq` where `where` holds, best first: each
   * rank key is the number of its conditions that hold, keys compared in turn, higher first; then
   * earliest.
   */
  ranked(where: SqlCondition, rank: SqlCondition[][], afterSeq: number, limit: number): number[] {
    const keys = rank.map((key) => `(${key.map((c) => `(CASE WHEN ${c.text} THEN 1 ELSE 0 END)`).join(' + ') || '0'}) DESC`);
    const sql = `SELECT seq FROM request_logs WHERE ${IN_WINDOW} AND seq > ? AND (${where.text}) ORDER BY ${[...keys, 'seq'].join(', ')} LIMIT ?`;
    return this.db
      .prepare(sql)
      .pluck()
      .all(...this.boundParams, afterSeq, ...where.params, ...rank.flat().flatMap((c) => c.params), limit) as number[];
  }

  /** Whole rows by arrival number, in the order asked. */
  rows(seqs: number[]): RequestLogRow[] {
    const bySeq = new Map<number, RequestLogRow>();
    for (let at = 0; at < seqs.length; at += 500) {
      const chunk = seqs.slice(at, at + 500);
      const found = this.db
        .prepare(`SELECT ${WHOLE_ROW} FROM request_logs WHERE environment_id = ? AND seq IN (${chunk.map(() => '?').join(', ')})`)
        .all(this.environmentId, ...chunk) as RequestLogRow[];
      for (const r of found) bySeq.set(r.seq, r);
    }
    return seqs.map((s) => bySeq.get(s)).filter((r): r is RequestLogRow => r !== undefined);
  }
}
