// The billing summary of an organization: its plan and limits, the twins it asks to run, and the
// payment-processor side (account ready, credit, draft invoice, payment standing) that the billing
// service fills in — null while the processor is unreachable or the account is not set up.

import { z } from 'zod';
import type { Db } from '../store/database.js';
import { planNamed } from './plans.js';

const invoiceLineItem = z.object({
  name: z.string(),
  total_cents: z.number().int(),
  twin: z.string(),
  quantity: z.number(),
  unit_price_cents: z.number().int(),
});

export const invoiceSchema = z.object({
  period_start: z.string(),
  period_end: z.string(),
  total_cents: z.number().int(),
  line_items: z.array(invoiceLineItem),
  credits_applied_cents: z.number().int(),
});

export const billingSummarySchema = z
  .object({
    plan: z.enum(['free', 'paygo']),
    max_environment_seconds: z.number().int().nullable(),
    max_parallel_twins: z.number().int().nullable(),
    ai_generation_enabled: z.boolean(),
    active_twins: z.number().int(),
    storage_bytes: z.number().int().describe("bytes the organization's seeds and environment snapshots take on disk"),
    ready: z.boolean(),
    upgrade_available: z.boolean(),
    remaining_credit_cents: z.number().nullable(),
    invoice: invoiceSchema.nullable(),
    past_due: z.boolean().describe('a payment failed and is not settled yet'),
    notice: z.string().nullable().describe('what happened with payments and what to do about it; null when all is in order'),
  })
  .meta({ id: 'BillingSummary' });
export type BillingSummary = z.infer<typeof billingSummarySchema>;

/** Twins the organization currently asks to run (desired running, not deleted). */
export function countActiveTwins(db: Db, orgId: string): number {
  const row = db
    .prepare(`SELECT COUNT(*) AS n FROM environment_twins WHERE organization_id = ? AND desired_state = 'running' AND deleted_at IS NULL`)
    .get(orgId) as { n: number };
  return row.n;
}

/** Bytes the organization's seeds and snapshots hold (deleted ones are gone from the disk too). */
export function storageBytes(db: Db, orgId: string): number {
  const row = db
    .prepare(
      `SELECT (SELECT ifnull(SUM(size_bytes), 0) FROM seeds WHERE organization_id = ? AND deleted_at IS NULL)
            + (SELECT ifnull(SUM(size_bytes), 0) FROM snapshots WHERE organization_id = ? AND deleted_at IS NULL) AS n`,
    )
    .get(orgId, orgId) as { n: number };
  return row.n;
}

/** The payment-processor side of the summary. */
export type ProcessorSide = Pick<BillingSummary, 'ready' | 'upgrade_available' | 'remaining_credit_cents' | 'invoice' | 'past_due' | 'notice'>;

/** No payment processor in this deployment: no account, no card, no credit, no invoice. */
export const NO_PROCESSOR_SIDE: ProcessorSide = {
  ready: false,
  upgrade_available: false,
  remaining_credit_cents: null,
  invoice: null,
  past_due: false,
  notice: null,
};

export function billingSummary(db: Db, org: { id: string; plan: string }, side: ProcessorSide = NO_PROCESSOR_SIDE): BillingSummary {
  const plan = planNamed(org.plan);
  return {
    plan: plan.name,
    max_environment_seconds: plan.maxEnvironmentSeconds,
    max_parallel_twins: plan.maxParallelTwins,
    ai_generation_enabled: plan.aiGenerationEnabled,
    active_twins: countActiveTwins(db, org.id),
    storage_bytes: storageBytes(db, org.id),
    ...side,
  };
}

export const NO_PAYMENT_PROCESSOR = 'No payment processor is configured for this deployment; the plan cannot be changed.';
