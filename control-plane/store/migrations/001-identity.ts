import type { Migration } from './index.js';

// Organizations, users, memberships (refreshed from each verified token), invitations, API keys.
const migration: Migration = {
  version: 1,
  name: 'identity',
  sql: `
CREATE TABLE organizations (
  id TEXT PRIMARY KEY,               -- uuid
  external_id TEXT NOT NULL UNIQUE,  -- the organization id the identity provider names
  name TEXT NOT NULL,
  plan TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE users (
  id TEXT PRIMARY KEY,               -- uuid
  external_id TEXT NOT NULL UNIQUE,  -- the token's sub
  email TEXT NOT NULL,
  first_name TEXT NOT NULL DEFAULT '',
  last_name TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL
);
CREATE TABLE memberships (
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  joined_at TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_by_org ON memberships (organization_id, active, joined_at);
CREATE TABLE invitations (
  id TEXT PRIMARY KEY,               -- the invitation's id at the identity provider
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  email TEXT NOT NULL,               -- normalized address
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  state TEXT NOT NULL,               -- pending | revoked | accepted
  provider TEXT NOT NULL DEFAULT 'local',  -- local | workos: who sent it
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  invited_by TEXT REFERENCES users(id),
  closed_at TEXT                     -- when it was revoked or accepted
);
CREATE INDEX invitations_by_email ON invitations (organization_id, email, state);
CREATE INDEX invitations_by_org ON invitations (organization_id, state, created_at);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  token_sha256 TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  created_by TEXT NOT NULL REFERENCES users(id),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX api_keys_by_org ON api_keys (organization_id, revoked_at, created_at);
`,
};

export default migration;
