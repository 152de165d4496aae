import type { Migration } from './index.js';

// Environments (one sandbox each), their twins, and the request log the gateway writes.
const migration: Migration = {
  version: 2,
  name: 'environments',
  sql: `
CREATE TABLE environments (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  sandbox_id TEXT NOT NULL UNIQUE,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  scenario_id TEXT,
  clock TEXT NOT NULL,           -- current environment clock (ISO)
  clock_start TEXT NOT NULL,     -- where reset puts the clock back
  ttl_seconds INTEGER,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  deleted_at TEXT
);
CREATE INDEX environments_by_org ON environments (organization_id, deleted_at, created_at);
CREATE TABLE environment_twins (
  id TEXT PRIMARY KEY,
  environment_id TEXT NOT NULL REFERENCES environments(id),
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  twin_slug TEXT NOT NULL,
  twin_version TEXT NOT NULL,
  seed_id TEXT,
  seed_file TEXT,                -- seed file the twin starts from (and reset restores)
  desired_state TEXT NOT NULL,   -- running | stopped
  state TEXT NOT NULL,           -- pending | starting | ready | stopping | stopped | failed
  url TEXT,                      -- gateway URL callers use
  gateway_port INTEGER,
  address TEXT,                  -- internal address of the running workload
  admin_secret TEXT NOT NULL,
  api_key TEXT,                  -- key minted by the current container
  data_file TEXT NOT NULL,
  restarts INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  ready_at TEXT,
  failure TEXT,
  deleted_at TEXT
);
CREATE INDEX environment_twins_by_env ON environment_twins (environment_id, deleted_at);
CREATE INDEX environment_twins_by_org ON environment_twins (organization_id, deleted_at, desired_state);
CREATE TABLE request_logs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- arrival order across the whole service
  id TEXT NOT NULL UNIQUE,
  organization_id TEXT NOT NULL,
  environment_id TEXT NOT NULL,
  environment_twin_id TEXT NOT NULL,
  twin_slug TEXT NOT NULL,
  actor TEXT NOT NULL DEFAULT 'agent',     -- agent | seed | lifecycle
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  query_string TEXT NOT NULL DEFAULT '',
  status_code INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  occurred_at TEXT NOT NULL,
  request_headers TEXT NOT NULL DEFAULT '{}',  -- JSON, credentials removed
  request_content_type TEXT,
  request_body TEXT,                           -- capped at 64 KiB
  request_body_truncated INTEGER NOT NULL DEFAULT 0,
  response_content_type TEXT,
  response_body TEXT,                          -- capped at 64 KiB
  response_body_truncated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX request_logs_by_env ON request_logs (environment_id, seq);
`,
};

export default migration;
