// Scenarios: named, reusable starting setups — which twins an environment gets, each optionally
// loaded from a seed. Every read is scoped to one organization; lists are newest first.

import { randomUUID } from 'node:crypto';
import type { Db } from './database.js';

export interface ScenarioTwin {
  twin: string;
  seed_id: string | null;
}

export interface Scenario {
  id: string;
  name: string;
  description: string;
  twins: ScenarioTwin[];
  created_at: string;
  updated_at: string;
}

interface ScenarioRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export class ScenarioStore {
  constructor(private readonly db: Db) {}

  private twinsOf(id: string): ScenarioTwin[] {
    return this.db.prepare('SELECT twin, seed_id FROM scenario_twins WHERE scenario_id = ? ORDER BY position').all(id) as ScenarioTwin[];
  }

  private toScenario(row: ScenarioRow): Scenario {
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      twins: this.twinsOf(row.id),
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  private writeTwins(id: string, twins: ScenarioTwin[]): void {
    this.db.prepare('DELETE FROM scenario_twins WHERE scenario_id = ?').run(id);
    const insert = this.db.prepare('INSERT INTO scenario_twins (scenario_id, position, twin, seed_id) VALUES (?, ?, ?, ?)');
    for (const [i, t] of twins.entries()) insert.run(id, i, t.twin, t.seed_id ?? null);
  }

  create(orgId: string, input: { name: string; description?: string; twins: ScenarioTwin[] }): Scenario {
    const now = new Date().toISOString();
    const row: ScenarioRow = {
      id: randomUUID(),
      organization_id: orgId,
      name: input.name,
      description: input.description ?? '',
      created_at: now,
      updated_at: now,
    };
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO scenarios (id, organization_id, name, description, created_at, updated_at)
           VALUES (@id, @organization_id, @name, @description, @created_at, @updated_at)`,
        )
        .run(row);
      this.writeTwins(row.id, input.twins);
    })();
    return this.toScenario(row);
  }

  get(orgId: string, id: string): Scenario | undefined {
    const row = this.db.prepare('SELECT * FROM scenarios WHERE id = ? AND organization_id = ? AND deleted_at IS NULL').get(id, orgId) as
      | ScenarioRow
      | undefined;
    return row ? this.toScenario(row) : undefined;
  }

  count(orgId: string): number {
    return (
      this.db.prepare('SELECT COUNT(*) AS n FROM scenarios WHERE organization_id = ? AND deleted_at IS NULL').get(orgId) as {
        n: number;
      }
    ).n;
  }

  /** One page, newest first. */
  list(orgId: string, limit: number, offset: number): Scenario[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM scenarios WHERE organization_id = ? AND deleted_at IS NULL
         ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(orgId, limit, offset) as ScenarioRow[];
    return rows.map((r) => this.toScenario(r));
  }

  update(orgId: string, id: string, patch: { name?: string; description?: string; twins?: ScenarioTwin[] }): Scenario | undefined {
    const current = this.get(orgId, id);
    if (!current) return undefined;
    const now = new Date().toISOString();
    this.db.transaction(() => {
      this.db
        .prepare('UPDATE scenarios SET name = ?, description = ?, updated_at = ? WHERE id = ?')
        .run(patch.name ?? current.name, patch.description ?? current.description, now, id);
      if (patch.twins) this.writeTwins(id, patch.twins);
    })();
    return this.get(orgId, id);
  }

  delete(orgId: string, id: string): boolean {
    return this.db.transaction(() => {
      const changed = this.db
        .prepare('UPDATE scenarios SET deleted_at = ? WHERE id = ? AND organization_id = ? AND deleted_at IS NULL')
        .run(new Date().toISOString(), id, orgId).changes;
      if (changed > 0) this.db.prepare('DELETE FROM scenario_twins WHERE scenario_id = ?').run(id);
      return changed > 0;
    })();
  }

  /** Names of the organization's scenarios that load this seed (a seed in use cannot be deleted). */
  usingSeed(orgId: string, seedId: string): string[] {
    return (
      this.db
        .prepare(
          `SELECT DISTINCT s.name FROM scenario_twins t JOIN scenarios s ON s.id = t.scenario_id
           WHERE t.seed_id = ? AND s.organization_id = ? AND s.deleted_at IS NULL ORDER BY s.name`,
        )
        .all(seedId, orgId) as { name: string }[]
    ).map((r) => r.name);
  }
}
