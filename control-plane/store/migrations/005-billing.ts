import type { Migration } from './index.js';

// Billing: each organization's account at the payment processor; the usage reported to it — each
// unit (a twin's hour, a generation) once, in a meter event written down before it is sent (an
// outbox: a restart sends a pending one again under the same identifier, never a new one) — and
// the run intervals of every twin, kept by triggers on environment_twins so every path that starts
// or stops a twin is covered: a run opens when a twin becomes ready and closes when it stops,
// fails, is asked to stop or is removed (a crash-restart, ready → starting → ready, stays one run).
const migration: Migration = {
  version: 5,
  name: 'billing',
  sql: `
CREATE TABLE billing_accounts (
  organization_id TEXT PRIMARY KEY REFERENCES organizations(id),
  processor TEXT NOT NULL,                 -- house | stripe: where customer_id lives
  customer_id TEXT,
  subscription_id TEXT,
  subscription_status TEXT,                -- as the processor last reported it
  billing_since TEXT,                      -- usage from this instant on is charged (the upgrade)
  payment_state TEXT NOT NULL DEFAULT 'ok',  -- ok | past_due (retries pending) | delinquent (retries over)
  notice TEXT,                             -- the sentence the billing summary shows about payment
  updated_at TEXT NOT NULL
);
CREATE TABLE meter_batches (
  identifier TEXT PRIMARY KEY,             -- the meter event's identifier (and idempotency key)
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  kind TEXT NOT NULL,                      -- twin_hours | ai_generations
  twin_slug TEXT NOT NULL,
  value INTEGER NOT NULL,                  -- units it carries
  timestamp INTEGER NOT NULL,              -- unix seconds the event is dated
  state TEXT NOT NULL,                     -- pending (written before it is sent) | reported | rejected
  detail TEXT,
  created_at TEXT NOT NULL,
  reported_at TEXT
);
CREATE INDEX meter_batches_pending ON meter_batches (organization_id, state);
CREATE TABLE usage_reports (
  identifier TEXT PRIMARY KEY,             -- one unit of usage (a twin's hour, a generation)
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  kind TEXT NOT NULL,
  twin_slug TEXT NOT NULL,
  twin_id TEXT,                            -- twin-hours: the environment twin
  source_id TEXT,                          -- AI generations: the seed or test
  quantity INTEGER NOT NULL,
  occurred_at TEXT NOT NULL,               -- the hour's start, or when the generation finished
  batch TEXT NOT NULL REFERENCES meter_batches(identifier)
);
CREATE INDEX usage_reports_by_twin ON usage_reports (twin_id, occurred_at);
CREATE INDEX usage_reports_by_batch ON usage_reports (batch);
CREATE TABLE twin_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  twin_id TEXT NOT NULL,
  organization_id TEXT NOT NULL,
  twin_slug TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT
);
CREATE INDEX twin_runs_by_twin ON twin_runs (twin_id, started_at);
CREATE INDEX twin_runs_by_org ON twin_runs (organization_id, ended_at);
CREATE TABLE billing_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TRIGGER twin_run_opens AFTER UPDATE OF state ON environment_twins
WHEN NEW.state = 'ready' AND NEW.deleted_at IS NULL AND NEW.desired_state = 'running'
  AND NOT EXISTS (SELECT 1 FROM twin_runs WHERE twin_id = NEW.id AND ended_at IS NULL)
BEGIN
  INSERT INTO twin_runs (twin_id, organization_id, twin_slug, started_at)
  VALUES (NEW.id, NEW.organization_id, NEW.twin_slug, COALESCE(NEW.ready_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
END;

CREATE TRIGGER twin_run_closes AFTER UPDATE OF state, desired_state, deleted_at ON environment_twins
WHEN NEW.state IN ('stopping', 'stopped', 'failed') OR NEW.desired_state != 'running' OR NEW.deleted_at IS NOT NULL
BEGIN
  UPDATE twin_runs SET ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE twin_id = NEW.id AND ended_at IS NULL;
END;

`,
};

export default migration;
