// Advances of an environment's clock that took long enough to be followed (POST …/advance → 202):
// each is a resource until it ends, with where the clock is and why it failed, if it did.

import type { Db } from './database.js';

export type AdvanceStatus = 'running' | 'succeeded' | 'failed';

export interface AdvanceRow {
  id: string;
  organization_id: string;
  environment_id: string;
  status: AdvanceStatus;
  from_clock: string;
  to_clock: string;
  clock: string;
  failure: string | null;
  created_at: string;
  completed_at: string | null;
}

export class AdvanceStore {
  constructor(private readonly db: Db) {}

  insert(row: AdvanceRow): void {
    this.db
      .prepare(
        `INSERT INTO advances (id, organization_id, environment_id, status, from_clock, to_clock, clock, failure, created_at, completed_at)
         VALUES (@id, @organization_id, @environment_id, @status, @from_clock, @to_clock, @clock, @failure, @created_at, @completed_at)`,
      )
      .run(row);
  }

  finish(id: string, status: Exclude<AdvanceStatus, 'running'>, clock: string, failure: string | null): void {
    this.db
      .prepare('UPDATE advances SET status = ?, clock = ?, failure = ?, completed_at = ? WHERE id = ?')
      .run(status, clock, failure, new Date().toISOString(), id);
  }

  get(orgId: string, environmentId: string, id: string): AdvanceRow | undefined {
    return this.db.prepare('SELECT * FROM advances WHERE id = ? AND organization_id = ? AND environment_id = ?').get(id, orgId, environmentId) as
      | AdvanceRow
      | undefined;
  }

  byId(id: string): AdvanceRow | undefined {
    return this.db.prepare('SELECT * FROM advances WHERE id = ?').get(id) as AdvanceRow | undefined;
  }

  /** Advances still marked running (after a restart: cut short). */
  running(): AdvanceRow[] {
    return this.db.prepare("SELECT * FROM advances WHERE status = 'running'").all() as AdvanceRow[];
  }
}
