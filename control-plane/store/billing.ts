// Billing rows: each organization's account at the payment processor, the meter events and the
// units of usage each carries (written before sending, so nothing is reported twice), the twins'
// run intervals (written by triggers, see migration 5), and the heartbeat that bounds a run left
// open by a crash.

import type { Db } from './database.js';

export type PaymentState = 'ok' | 'past_due' | 'delinquent';

export interface BillingAccountRow {
  organization_id: string;
  processor: string;
  customer_id: string | null;
  subscription_id: string | null;
  subscription_status: string | null;
  billing_since: string | null;
  payment_state: PaymentState;
  notice: string | null;
  updated_at: string;
}

export interface TwinRunRow {
  id: number;
  twin_id: string;
  organization_id: string;
  twin_slug: string;
  started_at: string;
  ended_at: string | null;
}

export type BatchState = 'pending' | 'reported' | 'rejected';

/** One meter event: the units it carries are written with it, before it is sent. */
export interface MeterBatchRow {
  identifier: string;
  organization_id: string;
  kind: string;
  twin_slug: string;
  value: number;
  timestamp: number;
  state: BatchState;
  detail: string | null;
  created_at: string;
  reported_at: string | null;
}

export interface UsageReportRow {
  identifier: string;
  organization_id: string;
  kind: string;
  twin_slug: string;
  twin_id: string | null;
  source_id: string | null;
  quantity: number;
  occurred_at: string;
  batch: string;
}

export type AccountPatch = Partial<Omit<BillingAccountRow, 'organization_id' | 'updated_at'>>;

const HEARTBEAT = 'heartbeat';

export class BillingStore {
  constructor(private readonly db: Db) {}

  account(orgId: string): BillingAccountRow | undefined {
    return this.db.prepare('SELECT * FROM billing_accounts WHERE organization_id = ?').get(orgId) as BillingAccountRow | undefined;
  }

  accountByCustomer(customerId: string): BillingAccountRow | undefined {
    return this.db.prepare('SELECT * FROM billing_accounts WHERE customer_id = ?').get(customerId) as BillingAccountRow | undefined;
  }

  accountBySubscription(subscriptionId: string): BillingAccountRow | undefined {
    return this.db.prepare('SELECT * FROM billing_accounts WHERE subscription_id = ?').get(subscriptionId) as BillingAccountRow | undefined;
  }

  /** Accounts with a subscription that still bills (their usage is metered, their status followed). */
  subscribedAccounts(): BillingAccountRow[] {
    return this.db
      .prepare(
        `SELECT * FROM billing_accounts WHERE subscription_id IS NOT NULL
           AND COALESCE(subscription_status, '') NOT IN ('canceled', 'incomplete_expired', 'missing') ORDER BY organization_id`,
      )
      .all() as BillingAccountRow[];
  }

  /** Organizations with no customer at `processor` yet (new, or created while it was unreachable). */
  organizationsWithoutCustomer(processor: string, limit: number): { id: string; name: string }[] {
    return this.db
      .prepare(
        `SELECT o.id, o.name FROM organizations o LEFT JOIN billing_accounts b ON b.organization_id = o.id
         WHERE b.customer_id IS NULL OR b.processor != ? ORDER BY o.created_at LIMIT ?`,
      )
      .all(processor, limit) as { id: string; name: string }[];
  }

  /** Create or change an organization's account row. */
  saveAccount(orgId: string, processor: string, patch: AccountPatch): BillingAccountRow {
    const now = new Date().toISOString();
    this.db.transaction(() => {
      this.db
        .prepare(`INSERT INTO billing_accounts (organization_id, processor, updated_at) VALUES (?, ?, ?) ON CONFLICT (organization_id) DO NOTHING`)
        .run(orgId, processor, now);
      const fields = { ...patch, processor, updated_at: now };
      const keys = Object.keys(fields);
      this.db.prepare(`UPDATE billing_accounts SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE organization_id = @orgId`).run({ ...fields, orgId });
    })();
    return this.account(orgId)!;
  }

  setPlan(orgId: string, plan: string): void {
    this.db.prepare('UPDATE organizations SET plan = ? WHERE id = ?').run(plan, orgId);
  }

  // Usage ------------------------------------------------------------------------------------

  /** Twins of the organization with a run that reaches past `sinceIso` (or is still open). */
  runsSince(orgId: string, sinceIso: string): TwinRunRow[] {
    return this.db
      .prepare(`SELECT * FROM twin_runs WHERE organization_id = ? AND (ended_at IS NULL OR ended_at > ?) ORDER BY twin_id, started_at, id`)
      .all(orgId, sinceIso) as TwinRunRow[];
  }

  /** Starts (ms) of a twin's hours already written down (in any meter event) since `sinceIso`. */
  reportedHourStarts(twinId: string, sinceIso: string): Set<number> {
    const rows = this.db
      .prepare(`SELECT occurred_at FROM usage_reports WHERE twin_id = ? AND kind = 'twin_hours' AND occurred_at >= ?`)
      .all(twinId, sinceIso) as { occurred_at: string }[];
    return new Set(rows.map((r) => Date.parse(r.occurred_at)));
  }

  /** Seeds generated since `sinceIso` that no report covers yet. */
  unreportedSeeds(orgId: string, sinceIso: string, limit: number): { id: string; twin: string; completed_at: string }[] {
    return this.db
      .prepare(
        `SELECT s.id, s.twin, s.completed_at FROM seeds s
         WHERE s.organization_id = ? AND s.status = 'ready' AND s.completed_at >= ?
           AND NOT EXISTS (SELECT 1 FROM usage_reports u WHERE u.identifier = 'twins-ai-generation-seed-' || s.id)
         ORDER BY s.completed_at LIMIT ?`,
      )
      .all(orgId, sinceIso, limit) as { id: string; twin: string; completed_at: string }[];
  }

  /** Outcomes compiled into tests (not explicit assertions) since `sinceIso`, not reported yet. */
  unreportedCompiledTests(orgId: string, sinceIso: string, limit: number): { id: string; twins: string; created_at: string }[] {
    return this.db
      .prepare(
        `SELECT t.id, t.twins, t.created_at FROM tests t
         WHERE t.organization_id = ? AND t.status = 'ready' AND t.compiler != 'explicit' AND t.created_at >= ?
           AND NOT EXISTS (SELECT 1 FROM usage_reports u WHERE u.identifier = 'twins-ai-generation-test-' || t.id)
         ORDER BY t.created_at LIMIT ?`,
      )
      .all(orgId, sinceIso, limit) as { id: string; twins: string; created_at: string }[];
  }

  /** Write a meter event and the units it carries, before it is sent (one transaction). */
  stageBatch(batch: Omit<MeterBatchRow, 'state' | 'detail' | 'reported_at'>, units: Omit<UsageReportRow, 'batch'>[]): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO meter_batches (identifier, organization_id, kind, twin_slug, value, timestamp, state, created_at)
           VALUES (@identifier, @organization_id, @kind, @twin_slug, @value, @timestamp, 'pending', @created_at)`,
        )
        .run(batch);
      const insert = this.db.prepare(
        `INSERT INTO usage_reports (identifier, organization_id, kind, twin_slug, twin_id, source_id, quantity, occurred_at, batch)
         VALUES (@identifier, @organization_id, @kind, @twin_slug, @twin_id, @source_id, @quantity, @occurred_at, @batch)`,
      );
      for (const u of units) insert.run({ ...u, batch: batch.identifier });
    })();
  }

  /** Meter events written down but not known to have reached the processor. */
  pendingBatches(orgId: string): MeterBatchRow[] {
    return this.db
      .prepare(`SELECT * FROM meter_batches WHERE organization_id = ? AND state = 'pending' ORDER BY created_at, identifier`)
      .all(orgId) as MeterBatchRow[];
  }

  finishBatch(identifier: string, state: Exclude<BatchState, 'pending'>, detail: string | null, atIso: string): void {
    this.db.prepare('UPDATE meter_batches SET state = ?, detail = ?, reported_at = ? WHERE identifier = ?').run(state, detail, atIso, identifier);
  }

  batches(orgId: string): MeterBatchRow[] {
    return this.db.prepare('SELECT * FROM meter_batches WHERE organization_id = ? ORDER BY created_at, identifier').all(orgId) as MeterBatchRow[];
  }

  /** Units written down for the organization (in meter events sent, pending or refused). */
  reports(orgId: string): (UsageReportRow & { state: BatchState })[] {
    return this.db
      .prepare(
        `SELECT u.*, b.state FROM usage_reports u JOIN meter_batches b ON b.identifier = u.batch WHERE u.organization_id = ? ORDER BY u.occurred_at, u.identifier`,
      )
      .all(orgId) as (UsageReportRow & { state: BatchState })[];
  }

  // Runs left open -------------------------------------------------------------------------

  heartbeat(atIso: string): void {
    this.db.prepare(`INSERT INTO billing_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(HEARTBEAT, atIso);
  }

  lastHeartbeat(): string | undefined {
    return (this.db.prepare('SELECT value FROM billing_meta WHERE key = ?').get(HEARTBEAT) as { value: string } | undefined)?.value;
  }

  /**
   * Close every open run at `atIso` (never before its start): at shutdown, and at start for the
   * runs a crashed control plane left open (its twins died with it; the reconciler opens new runs).
   */
  closeOpenRuns(atIso: string): number {
    return this.db.prepare(`UPDATE twin_runs SET ended_at = CASE WHEN started_at > ? THEN started_at ELSE ? END WHERE ended_at IS NULL`).run(atIso, atIso)
      .changes;
  }
}
