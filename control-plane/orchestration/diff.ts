// The diff of two twin files (issue 38, decisions §13): which records were added, changed (with
// the changed field paths) and removed, each as `{resource, external_id}`. Both files are opened
// read-only on one connection (the second ATTACHed) and compared in SQL by key, through the unique
// (resource, external_id) index: a record changed when its stored JSON text differs, compared
// byte for byte as SQLite compares text (what a body hash would tell, without computing one). Only
// changed rows are parsed, for their field paths (microdiff). A record whose body says
// `"deleted": true` is the provider's tombstone (Stripe keeps `{id, object, deleted: true}` for a
// deleted customer, Slack a deleted file): it counts as absent. The output is bounded: at most
// `limit` entries per twin, with `truncated` saying more differ.

import Database from 'better-sqlite3';
import diff from 'microdiff';
import { DELIVERY_RESOURCE } from '../../twin-runtime/deliveries.js';

export interface RecordRef {
  resource: string;
  external_id: string;
}

export interface ChangedRecord extends RecordRef {
  /** Paths of the fields that differ (`metadata.plan`, `items.data.0.quantity`). */
  fields: string[];
}

export interface TwinDiff {
  twin_id: string;
  added: RecordRef[];
  changed: ChangedRecord[];
  removed: RecordRef[];
  /** True when more records differ than the answer lists (`limit` per twin). */
  truncated: boolean;
}

/** Entries per twin a diff lists at most. */
export const DIFF_LIMIT = 1000;

/** Field paths listed per changed record at most. */
const FIELD_LIMIT = 100;

export interface DiffOptions {
  limit?: number;
  /** Kinds of record that log what happened rather than hold state (a twin's `journal`); left out. */
  journal?: readonly string[];
}

const EMPTY = "(SELECT '' AS resource, '' AS external_id, '' AS body, 0 AS seq WHERE 0)";

/** SQL: the record (alias) is not a tombstone; the substring test spares parsing most bodies. */
const live = (alias: string) => `(instr(${alias}.body, '"deleted":true') = 0 OR json_extract(${alias}.body, '$.deleted') IS NOT 1)`;

/** Compare `before` with `after` (either may be absent: a twin on one side only). */
export function diffTwinFiles(twinId: string, before: string | undefined, after: string | undefined, options: DiffOptions = {}): TwinDiff {
  const limit = options.limit ?? DIFF_LIMIT;
  const out: TwinDiff = { twin_id: twinId, added: [], changed: [], removed: [], truncated: false };
  const main = after ?? before;
  if (!main) return out;
  const db = new Database(main, { readonly: true, fileMustExist: true });
  try {
    // Attached databases share the connection's read-only flag.
    if (after && before) db.prepare('ATTACH DATABASE ? AS before').run(before);
    const a = after ? 'main.records' : EMPTY;
    const b = before ? (after ? 'before.records' : 'main.records') : EMPTY;
    const skipped = [...new Set([DELIVERY_RESOURCE, ...(options.journal ?? [])])];
    const keep = (alias: string) => `${alias}.resource NOT IN (${skipped.map(() => '?').join(', ')})`;
    let left = limit;
    const take = <T>(rows: T[]): T[] => {
      if (rows.length > left) out.truncated = true;
      const kept = rows.slice(0, left);
      left -= kept.length;
      return kept;
    };
    // One read transaction: both files as of one moment each (a live twin's last commit).
    db.transaction(() => {
      out.added = take(
        db
          .prepare(
            `SELECT x.resource, x.external_id FROM ${a} x WHERE ${keep('x')} AND ${live('x')}
             AND NOT EXISTS (SELECT 1 FROM ${b} y WHERE y.resource = x.resource AND y.external_id = x.external_id AND ${live('y')}) ORDER BY x.seq LIMIT ?`,
          )
          .all(...skipped, left + 1) as RecordRef[],
      );
      const changed = take(
        db
          .prepare(
            `SELECT x.resource, x.external_id, x.body AS now, y.body AS was FROM ${a} x JOIN ${b} y ON y.resource = x.resource AND y.external_id = x.external_id
             WHERE ${keep('x')} AND x.body != y.body AND ${live('x')} AND ${live('y')} ORDER BY x.seq LIMIT ?`,
          )
          .all(...skipped, left + 1) as (RecordRef & { now: string; was: string })[],
      );
      out.changed = changed.map((r) => ({ resource: r.resource, external_id: r.external_id, fields: fieldPaths(r.was, r.now) }));
      out.removed = take(
        db
          .prepare(
            `SELECT y.resource, y.external_id FROM ${b} y WHERE ${keep('y')} AND ${live('y')}
             AND NOT EXISTS (SELECT 1 FROM ${a} x WHERE x.resource = y.resource AND x.external_id = y.external_id AND ${live('x')}) ORDER BY y.seq LIMIT ?`,
          )
          .all(...skipped, left + 1) as RecordRef[],
      );
    })();
  } finally {
    db.close();
  }
  return out;
}

/** The paths (dot-joined) where two JSON bodies differ, at most FIELD_LIMIT; `''` when the body changed kind. */
export function fieldPaths(was: string, now: string): string[] {
  const before = JSON.parse(was) as unknown;
  const after = JSON.parse(now) as unknown;
  const kind = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
  if (kind(before) !== kind(after) || typeof before !== 'object' || before === null) return [''];
  const paths = new Set<string>();
  for (const d of diff(before as Record<string, unknown>, after as Record<string, unknown>)) {
    paths.add(d.path.join('.'));
    if (paths.size >= FIELD_LIMIT) break;
  }
  return [...paths];
}
