import type { Migration } from './index.js';

// Seeds (a prompt, its plan, and the generated twin-format SQLite file) and scenarios (named
// starting setups: which twins, each optionally from a seed).
const migration: Migration = {
  version: 3,
  name: 'seeds-scenarios',
  sql: `
CREATE TABLE seeds (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  twin TEXT NOT NULL,
  prompt TEXT NOT NULL,
  status TEXT NOT NULL,             -- pending | running | ready | failed
  failure TEXT,
  planner TEXT,                     -- builtin | llm (which planner produced the plan)
  plan TEXT,                        -- the validated plan (JSON), stored with the seed
  twin_version TEXT NOT NULL,       -- twin release at creation, then at generation
  storage_version INTEGER,          -- twin storage version the file was written in
  size_bytes INTEGER NOT NULL DEFAULT 0,
  record_count INTEGER NOT NULL DEFAULT 0,
  clock TEXT,                       -- the seed's frozen clock (ISO); a twin loaded from it starts here
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT,
  completed_at TEXT,
  deleted_at TEXT
);
CREATE INDEX seeds_by_org ON seeds (organization_id, deleted_at, created_at);
CREATE INDEX seeds_by_status ON seeds (status);
CREATE TABLE scenarios (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX scenarios_by_org ON scenarios (organization_id, deleted_at, created_at);
CREATE TABLE scenario_twins (
  scenario_id TEXT NOT NULL REFERENCES scenarios(id),
  position INTEGER NOT NULL,
  twin TEXT NOT NULL,
  seed_id TEXT,
  PRIMARY KEY (scenario_id, position)
);
CREATE INDEX scenario_twins_by_seed ON scenario_twins (seed_id);
`,
};

export default migration;
