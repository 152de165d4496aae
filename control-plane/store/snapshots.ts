// Snapshot rows (issue 38): which environment, the clock and settings it ran with, and each twin's
// file as taken. Every read a route makes is scoped to an organization.

import type { Db } from './database.js';

export interface SnapshotTwin {
  /** The twin the file was taken from. */
  twin_id: string;
  twin_slug: string;
  twin_version: string;
  /** The twin storage version the file is written in (a twin of another one cannot load it). */
  storage_version: number;
  size_bytes: number;
  /** The snapshot twin that twin itself started from, if any (a diff pairs a fork's twins with its parent's). */
  origin_twin_id: string | null;
}

export interface SnapshotRow {
  id: string;
  organization_id: string;
  environment_id: string;
  name: string;
  clock: string;
  clock_mode: 'living' | 'frozen';
  fidelity: 'strict' | 'lenient';
  /** JSON of SnapshotTwin[]. */
  twins: string;
  size_bytes: number;
  created_at: string;
  deleted_at: string | null;
}

export class SnapshotStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO snapshots (id, organization_id, environment_id, name, clock, clock_mode, fidelity, twins, size_bytes, created_at)
         VALUES (@id, @organization_id, @environment_id, @name, @clock, @clock_mode, @fidelity, @twins, @size_bytes, @created_at)`,
      ),
      get: db.prepare('SELECT * FROM snapshots WHERE id = ? AND organization_id = ? AND deleted_at IS NULL'),
      count: db.prepare('SELECT COUNT(*) AS n FROM snapshots WHERE organization_id = ? AND environment_id = ? AND deleted_at IS NULL'),
      list: db.prepare(
        'SELECT * FROM snapshots WHERE organization_id = ? AND environment_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?',
      ),
      softDelete: db.prepare('UPDATE snapshots SET deleted_at = ? WHERE id = ? AND organization_id = ? AND deleted_at IS NULL'),
      liveTwinsUsing: db.prepare(
        `SELECT COUNT(*) AS n FROM environment_twins t JOIN environments e ON e.id = t.environment_id
         WHERE t.snapshot_id = ? AND t.deleted_at IS NULL AND e.deleted_at IS NULL`,
      ),
    };
  }

  insert(row: Omit<SnapshotRow, 'deleted_at'>): void {
    this.stmts.insert.run(row);
  }

  get(orgId: string, id: string): SnapshotRow | undefined {
    return this.stmts.get.get(id, orgId) as SnapshotRow | undefined;
  }

  count(orgId: string, environmentId: string): number {
    return (this.stmts.count.get(orgId, environmentId) as { n: number }).n;
  }

  list(orgId: string, environmentId: string, limit: number, offset: number): SnapshotRow[] {
    return this.stmts.list.all(orgId, environmentId, limit, offset) as SnapshotRow[];
  }

  softDelete(orgId: string, id: string): boolean {
    return this.stmts.softDelete.run(new Date().toISOString(), id, orgId).changes > 0;
  }

  /** Twins of live environments started from the snapshot (reset returns to it). */
  liveTwinsUsing(id: string): number {
    return (this.stmts.liveTwinsUsing.get(id) as { n: number }).n;
  }
}

export function snapshotTwins(row: Pick<SnapshotRow, 'twins'>): SnapshotTwin[] {
  return JSON.parse(row.twins) as SnapshotTwin[];
}
