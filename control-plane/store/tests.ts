// Tests: a name, the outcome in words, the twins it speaks about, and its assertions compiled once
// into the matcher language (stored as JSON with the language version).

import type { Db } from './database.js';
import type { Assertion } from '../testing/matcher-language.js';

export type TestStatus = 'ready' | 'failed';
export type TestCompiler = 'phrasebook' | 'llm' | 'explicit';

export interface TestRecord {
  id: string;
  organization_id: string;
  name: string;
  outcome: string | null;
  twins: string[];
  status: TestStatus;
  matcher_version: number;
  assertions: Assertion[];
  compiler: TestCompiler;
  failure: string | null;
  created_at: string;
}

interface TestRow extends Omit<TestRecord, 'twins' | 'assertions'> {
  twins: string;
  assertions: string;
}

const fromRow = (r: TestRow): TestRecord => ({ ...r, twins: JSON.parse(r.twins), assertions: JSON.parse(r.assertions) });

export class TestStore {
  constructor(private readonly db: Db) {}

  create(t: TestRecord): void {
    this.db
      .prepare(
        `INSERT INTO tests (id, organization_id, name, outcome, twins, status, matcher_version, assertions, compiler, failure, created_at)
         VALUES (@id, @organization_id, @name, @outcome, @twins, @status, @matcher_version, @assertions, @compiler, @failure, @created_at)`,
      )
      .run({ ...t, twins: JSON.stringify(t.twins), assertions: JSON.stringify(t.assertions) });
  }

  get(orgId: string, id: string): TestRecord | undefined {
    const row = this.db.prepare('SELECT * FROM tests WHERE id = ? AND organization_id = ? AND deleted_at IS NULL').get(id, orgId) as TestRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  count(orgId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM tests WHERE organization_id = ? AND deleted_at IS NULL').get(orgId) as { n: number }).n;
  }

  /** Newest first (docs/decisions.md §3). */
  list(orgId: string, limit: number, offset: number): TestRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM tests WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?')
      .all(orgId, limit, offset) as TestRow[];
    return rows.map(fromRow);
  }

  /** Soft delete: attempts keep pointing at a row that still exists. */
  delete(orgId: string, id: string): boolean {
    return (
      this.db.prepare('UPDATE tests SET deleted_at = ? WHERE id = ? AND organization_id = ? AND deleted_at IS NULL').run(new Date().toISOString(), id, orgId)
        .changes > 0
    );
  }
}
