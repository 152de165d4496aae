// Disputes, as Stripe's dispute test cards produce them: a captured charge on 4000 0000 0000 0259
// (`pm_card_createDispute`, fraudulent) or 4000 0000 0000 2685 (product not received) is disputed
// at once (`charge.dispute.created`), and the disputed amount plus the 15.00 USD dispute fee leave
// the balance (`charge.dispute.funds_withdrawn`); 4000 0000 0000 1976 opens an inquiry, which
// withdraws nothing. Evidence is staged or submitted with `disputes.update`; submitted evidence
// whose `uncategorized_text` is `winning_evidence` / `losing_evidence` (Stripe's test values) is
// decided a few minutes later, on `advance`; an unanswered dispute is lost when its `due_by` passes;
// `disputes.close` accepts the loss. A win reinstates the funds and the fee.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { DISPUTE_FEE, recordMovement } from './balance.js';
import { requireFileFor } from './files.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';

export type Dispute = StripeObject & { object: 'dispute' };

/** Time a cardholder's bank gives the merchant to respond. */
export const RESPONSE_WINDOW_SECONDS = 7 * 86_400;
/** How long after submission test evidence is decided ("a few minutes" in Stripe's test mode). */
export const DECISION_SECONDS = 5 * 60;

interface TestDispute {
  reason: string;
  inquiry: boolean;
}

/** Dispute test cards by last four digits. */
const DISPUTE_CARDS: Record<string, TestDispute> = {
  '0259': { reason: 'fraudulent', inquiry: false },
  '2685': { reason: 'product_not_received', inquiry: false },
  '1976': { reason: 'fraudulent', inquiry: true },
};

/** Evidence fields that name an uploaded file (`file_…`, model/files.ts) rather than carry text. */
const FILE_EVIDENCE = new Set([
  'cancellation_policy',
  'customer_communication',
  'customer_signature',
  'duplicate_charge_documentation',
  'receipt',
  'refund_policy',
  'service_documentation',
  'shipping_documentation',
  'uncategorized_file',
]);

export const EVIDENCE_FIELDS = [
  'access_activity_log',
  'billing_address',
  'cancellation_policy',
  'cancellation_policy_disclosure',
  'cancellation_rebuttal',
  'customer_communication',
  'customer_email_address',
  'customer_name',
  'customer_purchase_ip',
  'customer_signature',
  'duplicate_charge_documentation',
  'duplicate_charge_explanation',
  'duplicate_charge_id',
  'product_description',
  'receipt',
  'refund_policy',
  'refund_policy_disclosure',
  'refund_refusal_explanation',
  'service_date',
  'service_documentation',
  'shipping_address',
  'shipping_carrier',
  'shipping_date',
  'shipping_documentation',
  'shipping_tracking_number',
  'uncategorized_file',
  'uncategorized_text',
] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];
export type Evidence = Partial<Record<EvidenceField, string | null>>;

const OPEN_STATUSES = ['needs_response', 'under_review', 'warning_needs_response', 'warning_under_review'];

const decisionKey = (id: string) => `stripe:dispute_decision:${id}`;

function emptyEvidence(): Record<EvidenceField, null> {
  return Object.fromEntries(EVIDENCE_FIELDS.map((f) => [f, null])) as Record<EvidenceField, null>;
}

/** The test dispute a captured charge on this card opens, if any. */
export function testDisputeFor(last4: string | undefined): TestDispute | undefined {
  return last4 ? DISPUTE_CARDS[last4] : undefined;
}

/**
 * A charge just captured on a dispute test card is disputed: the dispute is opened and the charge
 * (saved and passed in) is marked `disputed`. Answers the dispute, if one was opened.
 */
export function disputeIfTestCard(ctx: TwinContext, charge: StripeObject): Dispute | undefined {
  const kind = testDisputeFor(charge.payment_method_details?.card?.last4 ?? undefined);
  if (!kind || !charge.captured) return undefined;
  const dispute = openTestDispute(ctx, charge, kind);
  charge.disputed = true;
  return dispute;
}

/** Open the dispute a dispute test card produces on a captured charge (saved and announced). */
function openTestDispute(ctx: TwinContext, charge: StripeObject, kind: TestDispute): Dispute {
  const now = ctx.clock.nowSeconds();
  const id = newId(ctx, 'dispute');
  const amount = charge.amount_captured as number;
  const dispute: Dispute = {
    id,
    object: 'dispute',
    amount,
    balance_transactions: [],
    charge: charge.id,
    created: now,
    currency: charge.currency,
    enhanced_eligibility_types: [],
    evidence: { ...emptyEvidence(), enhanced_evidence: {} },
    evidence_details: { due_by: now + RESPONSE_WINDOW_SECONDS, enhanced_eligibility: {}, has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: kind.inquiry,
    livemode: false,
    metadata: {},
    network_reason_code: kind.reason === 'fraudulent' ? '10.4' : '13.1',
    payment_intent: charge.payment_intent ?? null,
    payment_method_details: {
      card: {
        brand: charge.payment_method_details?.card?.brand ?? 'visa',
        case_type: kind.inquiry ? 'inquiry' : 'chargeback',
        network_reason_code: kind.reason === 'fraudulent' ? '10.4' : '13.1',
      },
      type: 'card',
    },
    reason: kind.reason,
    status: kind.inquiry ? 'warning_needs_response' : 'needs_response',
  };
  if (!kind.inquiry) {
    const withdrawal = recordMovement(ctx, {
      amount: -amount,
      currency: charge.currency,
      type: 'adjustment',
      reportingCategory: 'dispute',
      source: id,
      description: `Chargeback withdrawal for ${charge.id}`,
      fee: { amount: DISPUTE_FEE, description: 'Dispute fee' },
    });
    dispute.balance_transactions = [withdrawal];
  }
  save(ctx, 'dispute', dispute);
  const disputedCharge = { ...clone(charge), disputed: true };
  save(ctx, 'charge', disputedCharge);
  emitEvent(ctx, 'charge.dispute.created', dispute);
  if (!kind.inquiry) emitEvent(ctx, 'charge.dispute.funds_withdrawn', dispute);
  return dispute;
}

export function getDispute(ctx: TwinContext, id: string): Dispute {
  const d = find<Dispute>(ctx, 'dispute', id);
  if (!d) throw resourceMissing('dispute', id, 'dispute');
  return d;
}

export interface DisputeUpdate {
  evidence?: Evidence;
  metadata?: MetadataPatch;
  /** Default true: submit the evidence now; false stages it. */
  submit?: boolean;
}

function requireOpen(d: Dispute): void {
  if (!OPEN_STATUSES.includes(d.status)) {
    throw invalidRequest(`This dispute is already closed with status '${d.status}'.`, undefined, 'dispute_already_closed');
  }
}

export function updateDispute(ctx: TwinContext, id: string, input: DisputeUpdate): Dispute {
  const before = getDispute(ctx, id);
  const dispute = clone(before);
  if (input.evidence !== undefined) {
    requireOpen(dispute);
    if (dispute.status === 'under_review' || dispute.status === 'warning_under_review') {
      throw invalidRequest('This dispute is under review; its evidence can no longer be changed.', 'evidence');
    }
    for (const [k, v] of Object.entries(input.evidence)) {
      if (typeof v === 'string' && v !== '' && FILE_EVIDENCE.has(k))
        requireFileFor(ctx, v, k === 'customer_signature' ? ['dispute_evidence', 'customer_signature'] : ['dispute_evidence'], `evidence[${k}]`);
      dispute.evidence[k] = v === '' ? null : v;
    }
    dispute.evidence_details.has_evidence = EVIDENCE_FIELDS.some((f) => dispute.evidence[f] != null);
  }
  if (input.metadata !== undefined) dispute.metadata = applyMetadata(dispute.metadata, input.metadata);
  const submit = input.submit ?? true;
  if (submit && input.evidence !== undefined) {
    dispute.status = dispute.status === 'warning_needs_response' ? 'warning_under_review' : 'under_review';
    dispute.evidence_details.submission_count += 1;
    const text = dispute.evidence.uncategorized_text as string | null;
    const outcome = text === 'winning_evidence' ? 'won' : text === 'losing_evidence' ? 'lost' : undefined;
    if (outcome) ctx.store.setMeta(decisionKey(id), JSON.stringify({ at: ctx.clock.nowSeconds() + DECISION_SECONDS, outcome }));
  }
  const prev = previousAttributes(before, dispute);
  if (Object.keys(prev).length > 0) {
    save(ctx, 'dispute', dispute);
    emitEvent(ctx, 'charge.dispute.updated', dispute, prev);
  }
  return dispute;
}

/** Accept the dispute: it is lost (an inquiry is closed), the funds stay withdrawn. */
export function closeDispute(ctx: TwinContext, id: string): Dispute {
  const d = getDispute(ctx, id);
  requireOpen(d);
  return settleDispute(ctx, id, 'lost');
}

/** The decision due for a submitted dispute, if its evidence asked for one. */
export function pendingDecision(ctx: TwinContext, id: string): { at: number; outcome: 'won' | 'lost' } | undefined {
  const raw = ctx.store.getMeta(decisionKey(id));
  return raw ? (JSON.parse(raw) as { at: number; outcome: 'won' | 'lost' }) : undefined;
}

/** Close a dispute as won or lost (`charge.dispute.closed`); a won chargeback gets its funds back. */
export function settleDispute(ctx: TwinContext, id: string, outcome: 'won' | 'lost'): Dispute {
  const before = getDispute(ctx, id);
  if (!OPEN_STATUSES.includes(before.status)) return before;
  const dispute = clone(before);
  const inquiry = before.status.startsWith('warning_');
  dispute.status = inquiry ? 'warning_closed' : outcome;
  dispute.is_charge_refundable = false;
  if (before.status === 'needs_response' && ctx.clock.nowSeconds() >= dispute.evidence_details.due_by) dispute.evidence_details.past_due = true;
  let reinstated = false;
  if (!inquiry && outcome === 'won') {
    const reinstatement = recordMovement(ctx, {
      amount: dispute.amount,
      currency: dispute.currency,
      type: 'adjustment',
      reportingCategory: 'dispute_reversal',
      source: id,
      description: `Chargeback reversal for ${dispute.charge}`,
      fee: { amount: -DISPUTE_FEE, description: 'Dispute fee refund' },
    });
    dispute.balance_transactions = [...dispute.balance_transactions, reinstatement];
    reinstated = true;
  }
  save(ctx, 'dispute', dispute);
  emitEvent(ctx, 'charge.dispute.closed', dispute, previousAttributes(before, dispute));
  if (reinstated) emitEvent(ctx, 'charge.dispute.funds_reinstated', dispute);
  return dispute;
}

/** What `advance` has to decide for one open dispute, and when. */
export function dueDecision(ctx: TwinContext, d: Dispute): { at: number; outcome: 'won' | 'lost' } | undefined {
  const decision = pendingDecision(ctx, d.id);
  // A decision is kept after it ran; only an open dispute under review still waits for it.
  if (decision && (d.status === 'under_review' || d.status === 'warning_under_review')) return decision;
  // Unanswered by the deadline: the cardholder's bank rules for the cardholder.
  if (d.status === 'needs_response' || d.status === 'warning_needs_response') return { at: d.evidence_details.due_by, outcome: 'lost' };
  return undefined;
}

export function listDisputes(ctx: TwinContext, filter: { charge?: string; paymentIntent?: string }, window: ListWindow): ListPage<Dispute> {
  const equals: FieldEquals = {};
  if (filter.charge !== undefined) equals.charge = filter.charge;
  if (filter.paymentIntent !== undefined) equals.payment_intent = filter.paymentIntent;
  return readPage<Dispute>(ctx, 'dispute', equals, window);
}
