// The billing summary of an organization: its plan and limits, the twins it asks to run, and the
// payment-processor side (credit, draft invoice) — null while no payment processor is configured.

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
    ready: z.boolean(),
    upgrade_available: z.boolean(),
    remaining_credit_cents: z.number().nullable(),
    invoice: invoiceSchema.nullable(),
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

export function billingSummary(db: Db, org: { id: string; plan: string }): BillingSummary {
  const plan = planNamed(org.plan);
  return {
    plan: plan.name,
    max_environment_seconds: plan.maxEnvironmentSeconds,
    max_parallel_twins: plan.maxParallelTwins,
    ai_generation_enabled: plan.aiGenerationEnabled,
    active_twins: countActiveTwins(db, org.id),
    // No payment processor is configured in this deployment: the billing account cannot be set
    // up, no card can be taken, and there is no credit or draft invoice to report.
    ready: false,
    upgrade_available: false,
    remaining_credit_cents: null,
    invoice: null,
  };
}

export const NO_PAYMENT_PROCESSOR = 'No payment processor is configured for this deployment; the plan cannot be changed.';
