import type { Migration } from './index.js';

// Tests (compiled assertions in the matcher language, stored once) and their attempts (results).
const migration: Migration = {
  version: 4,
  name: 'tests',
  sql: `
CREATE TABLE tests (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  outcome TEXT,                       -- the words it was compiled from (null for explicit assertions)
  twins TEXT NOT NULL,                -- JSON array of twin slugs
  status TEXT NOT NULL,               -- ready | failed
  matcher_version INTEGER NOT NULL,   -- version of the matcher language the assertions are written in
  assertions TEXT NOT NULL,           -- JSON array of assertions
  compiler TEXT NOT NULL,             -- phrasebook | llm | explicit
  failure TEXT,
  created_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX tests_by_org ON tests (organization_id, deleted_at, created_at);
CREATE TABLE test_attempts (
  id TEXT PRIMARY KEY,
  test_id TEXT NOT NULL REFERENCES tests(id),
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  environment_id TEXT NOT NULL,
  window_from TEXT NOT NULL,
  window_to TEXT NOT NULL,
  passed INTEGER NOT NULL,
  results TEXT NOT NULL,              -- JSON array of assertion results
  evaluated_at TEXT NOT NULL
);
CREATE INDEX test_attempts_by_test ON test_attempts (test_id, evaluated_at);
`,
};

export default migration;
