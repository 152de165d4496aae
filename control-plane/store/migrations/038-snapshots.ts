import type { Migration } from './index.js';

// Snapshots of environments (issue 38): each twin's file copied consistently with the clock, kept
// under the data directory (orchestration/snapshots.ts). A twin started from a snapshot names it
// (`snapshot_id`, and the snapshot's twin it continues: `snapshot_twin_id`), so a snapshot in use
// is not deleted and a diff pairs the twins of a fork with their parent's. Numbered after the issue.
const migration: Migration = {
  version: 38,
  name: 'snapshots',
  sql: `
CREATE TABLE snapshots (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id TEXT NOT NULL,
  name TEXT NOT NULL,
  clock TEXT NOT NULL,           -- the environment clock's instant when taken (ISO)
  clock_mode TEXT NOT NULL,      -- living | frozen, as the environment ran
  fidelity TEXT NOT NULL,        -- strict | lenient, as the environment ran
  twins TEXT NOT NULL,           -- JSON: [{twin_id, twin_slug, twin_version, storage_version, size_bytes, origin_twin_id}]
  size_bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX snapshots_by_environment ON snapshots (organization_id, environment_id, deleted_at, created_at);
ALTER TABLE environment_twins ADD COLUMN snapshot_id TEXT;
ALTER TABLE environment_twins ADD COLUMN snapshot_twin_id TEXT;
CREATE INDEX environment_twins_by_snapshot ON environment_twins (snapshot_id) WHERE snapshot_id IS NOT NULL;
`,
};

export default migration;
