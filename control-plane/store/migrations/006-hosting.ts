import type { Migration } from './index.js';

// Safe hosting (issue 20): the request log moves to its own file (request-logs.sqlite, written by
// the gateway's log writer alone); a removed member stays removed; advances long enough to be
// followed are kept as resources.
const migration: Migration = {
  version: 6,
  name: 'hosting',
  sql: `
DROP TABLE IF EXISTS main.request_logs;
ALTER TABLE memberships ADD COLUMN removed_at TEXT;             -- when an admin removed the member
ALTER TABLE memberships ADD COLUMN tokens_valid_after INTEGER;  -- unix seconds: tokens issued earlier answer 401
CREATE TABLE advances (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  environment_id TEXT NOT NULL REFERENCES environments(id),
  status TEXT NOT NULL,            -- running | succeeded | failed
  from_clock TEXT NOT NULL,
  to_clock TEXT NOT NULL,
  clock TEXT NOT NULL,             -- the environment clock now (equal to every twin's)
  failure TEXT,
  created_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX advances_by_environment ON advances (environment_id, status);
`,
};

export default migration;
