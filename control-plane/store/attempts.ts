// Attempts: one evaluation of a test over a window of an environment's traffic, with its results,
// and the window of request_logs that the evaluator judges.

import type { Db } from './database.js';
import type { AssertionResult } from '../testing/evaluator.js';
import { TrafficWindow } from './traffic-window.js';

export interface AttemptRecord {
  id: string;
  test_id: string;
  organization_id: string;
  environment_id: string;
  from: string;
  to: string;
  passed: boolean;
  results: AssertionResult[];
  evaluated_at: string;
}

interface AttemptRow {
  id: string;
  test_id: string;
  organization_id: string;
  environment_id: string;
  window_from: string;
  window_to: string;
  passed: number;
  results: string;
  evaluated_at: string;
}

const fromRow = (r: AttemptRow): AttemptRecord => ({
  id: r.id,
  test_id: r.test_id,
  organization_id: r.organization_id,
  environment_id: r.environment_id,
  from: r.window_from,
  to: r.window_to,
  passed: r.passed === 1,
  results: JSON.parse(r.results),
  evaluated_at: r.evaluated_at,
});

export class AttemptStore {
  constructor(private readonly db: Db) {}

  create(a: AttemptRecord): void {
    this.db
      .prepare(
        `INSERT INTO test_attempts (id, test_id, organization_id, environment_id, window_from, window_to, passed, results, evaluated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(a.id, a.test_id, a.organization_id, a.environment_id, a.from, a.to, a.passed ? 1 : 0, JSON.stringify(a.results), a.evaluated_at);
  }

  get(testId: string, id: string): AttemptRecord | undefined {
    const row = this.db.prepare('SELECT * FROM test_attempts WHERE id = ? AND test_id = ?').get(id, testId) as AttemptRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  count(testId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM test_attempts WHERE test_id = ?').get(testId) as { n: number }).n;
  }

  /** Newest first (docs/decisions.md §3). */
  list(testId: string, limit: number, offset: number): AttemptRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM test_attempts WHERE test_id = ? ORDER BY evaluated_at DESC, rowid DESC LIMIT ? OFFSET ?')
      .all(testId, limit, offset) as AttemptRow[];
    return rows.map(fromRow);
  }

  /** The environment, when it belongs to the organization and is not deleted. */
  environment(orgId: string, environmentId: string): { id: string; created_at: string } | undefined {
    return this.db.prepare('SELECT id, created_at FROM environments WHERE id = ? AND organization_id = ? AND deleted_at IS NULL').get(environmentId, orgId) as
      | { id: string; created_at: string }
      | undefined;
  }

  /** The window of traffic a test judges: requests with occurred_at in [from, to], in arrival order. */
  traffic(environmentId: string, fromIso: string, toIso: string): TrafficWindow {
    return new TrafficWindow(this.db, environmentId, fromIso, toIso);
  }
}
