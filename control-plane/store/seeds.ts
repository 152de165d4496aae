// Seed rows: the prompt, its lifecycle (pending → running → ready | failed), the plan it was
// expanded from and where the generated file is. Every read is scoped to one organization.

import { randomUUID } from 'node:crypto';
import type { Db } from './database.js';

export type SeedStatus = 'pending' | 'running' | 'ready' | 'failed';

export interface SeedRow {
  id: string;
  organization_id: string;
  name: string;
  twin: string;
  prompt: string;
  status: SeedStatus;
  failure: string | null;
  planner: string | null;
  plan: string | null;
  twin_version: string;
  storage_version: number | null;
  size_bytes: number;
  record_count: number;
  clock: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  deleted_at: string | null;
}

export interface SeedCompletion {
  planner: string;
  plan: unknown;
  twinVersion: string;
  storageVersion: number;
  sizeBytes: number;
  recordCount: number;
  clock: string;
}

export class SeedStore {
  constructor(private readonly db: Db) {}

  create(input: { orgId: string; name: string; twin: string; prompt: string; twinVersion: string }): SeedRow {
    const row: SeedRow = {
      id: randomUUID(),
      organization_id: input.orgId,
      name: input.name,
      twin: input.twin,
      prompt: input.prompt,
      status: 'pending',
      failure: null,
      planner: null,
      plan: null,
      twin_version: input.twinVersion,
      storage_version: null,
      size_bytes: 0,
      record_count: 0,
      clock: null,
      attempts: 0,
      created_at: new Date().toISOString(),
      started_at: null,
      completed_at: null,
      deleted_at: null,
    };
    this.db
      .prepare(
        `INSERT INTO seeds (id, organization_id, name, twin, prompt, status, twin_version, created_at)
         VALUES (@id, @organization_id, @name, @twin, @prompt, @status, @twin_version, @created_at)`,
      )
      .run(row);
    return row;
  }

  get(orgId: string, id: string): SeedRow | undefined {
    return this.db.prepare('SELECT * FROM seeds WHERE id = ? AND organization_id = ? AND deleted_at IS NULL').get(id, orgId) as SeedRow | undefined;
  }

  /** Worker side: a seed by id whatever its organization. */
  byId(id: string): SeedRow | undefined {
    return this.db.prepare('SELECT * FROM seeds WHERE id = ? AND deleted_at IS NULL').get(id) as SeedRow | undefined;
  }

  /** Newest first. */
  list(orgId: string, twin?: string): SeedRow[] {
    if (twin !== undefined) {
      return this.db
        .prepare('SELECT * FROM seeds WHERE organization_id = ? AND twin = ? AND deleted_at IS NULL ORDER BY created_at DESC, rowid DESC')
        .all(orgId, twin) as SeedRow[];
    }
    return this.db.prepare('SELECT * FROM seeds WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, rowid DESC').all(orgId) as SeedRow[];
  }

  /** Seeds a crash left unfinished, oldest first (the worker picks them up at start). */
  unfinished(): SeedRow[] {
    return this.db.prepare("SELECT * FROM seeds WHERE status IN ('pending', 'running') AND deleted_at IS NULL ORDER BY created_at, rowid").all() as SeedRow[];
  }

  /** pending|running → running; false when the seed is gone or already finished. */
  markRunning(id: string): boolean {
    return (
      this.db
        .prepare(
          `UPDATE seeds SET status = 'running', started_at = ?, attempts = attempts + 1, failure = NULL
           WHERE id = ? AND deleted_at IS NULL AND status IN ('pending', 'running')`,
        )
        .run(new Date().toISOString(), id).changes > 0
    );
  }

  markReady(id: string, done: SeedCompletion): void {
    this.db
      .prepare(
        `UPDATE seeds SET status = 'ready', failure = NULL, planner = ?, plan = ?, twin_version = ?, storage_version = ?,
           size_bytes = ?, record_count = ?, clock = ?, completed_at = ? WHERE id = ?`,
      )
      .run(
        done.planner,
        JSON.stringify(done.plan),
        done.twinVersion,
        done.storageVersion,
        done.sizeBytes,
        done.recordCount,
        done.clock,
        new Date().toISOString(),
        id,
      );
  }

  markFailed(id: string, failure: string, planner?: string, plan?: unknown): void {
    this.db
      .prepare(`UPDATE seeds SET status = 'failed', failure = ?, planner = ?, plan = ?, completed_at = ? WHERE id = ?`)
      .run(failure, planner ?? null, plan === undefined ? null : JSON.stringify(plan), new Date().toISOString(), id);
  }

  /** Twins of live environments started from this seed (their reset restores its file). */
  liveTwinsUsing(id: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM environment_twins WHERE seed_id = ? AND deleted_at IS NULL').get(id) as { n: number }).n;
  }

  softDelete(orgId: string, id: string): boolean {
    return (
      this.db.prepare('UPDATE seeds SET deleted_at = ? WHERE id = ? AND organization_id = ? AND deleted_at IS NULL').run(new Date().toISOString(), id, orgId)
        .changes > 0
    );
  }
}
