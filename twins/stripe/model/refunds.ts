// Refunds: full or partial refunds of a captured charge (named directly or through its payment
// intent), Stripe's over-refund errors, the charge's `amount_refunded` / `refunded`, and the
// `refund.created` + `charge.refunded` events.

import { closeReviewOnRefund } from './reviews.js';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam, resourceMissing } from '../wire/errors.js';
import type { Charge } from './charging.js';
import { getCharge } from './charges.js';
import { recordMovement, recordRefundFunds } from './balance.js';
import { formatMoney } from './amounts.js';
import { unwindConnectCharge } from './transfers.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { eachMatching, newestFirst, readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';

export type Refund = StripeObject & { object: 'refund' };

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;

export interface RefundCreate {
  charge?: string;
  paymentIntent?: string;
  amount?: number;
  reason?: (typeof REFUND_REASONS)[number];
  metadata?: MetadataPatch;
  /** Destination charges: take the destination's share back too. */
  reverseTransfer?: boolean;
  /** Connect charges: give the application fee back in proportion. */
  refundApplicationFee?: boolean;
}

export function getRefund(ctx: TwinContext, id: string): Refund {
  const r = find<Refund>(ctx, 'refund', id);
  if (!r) throw resourceMissing('refund', id, 'id');
  return r;
}

function chargeToRefund(ctx: TwinContext, input: RefundCreate): Charge {
  const { charge: chargeId, paymentIntent: piId } = input;
  if (chargeId && piId) throw invalidRequest('You may only specify one of these parameters: charge, payment_intent.', 'charge');
  if (chargeId) return getCharge(ctx, chargeId, 'charge');
  if (!piId) throw missingParam('charge');
  const pi = find(ctx, 'payment_intent', piId);
  if (!pi) throw resourceMissing('payment_intent', piId, 'payment_intent');
  if (pi.status !== 'succeeded' || !pi.latest_charge) {
    throw invalidRequest(`This PaymentIntent (${piId}) does not have a successful charge to refund.`, 'payment_intent', 'charge_not_refundable');
  }
  return getCharge(ctx, pi.latest_charge as string, 'payment_intent');
}

/** A charge under a chargeback (a dispute that is not a refundable inquiry) cannot be refunded. */
function refuseIfChargedBack(ctx: TwinContext, charge: Charge, param: string): void {
  if (!charge.disputed) return;
  for (const dispute of eachMatching<StripeObject>(ctx, 'dispute', { charge: charge.id })) {
    if (!dispute.is_charge_refundable) throw invalidRequest(`Charge ${charge.id} has been charged back; cannot issue a refund.`, param, 'charge_disputed');
  }
}

/** The card behind `pm_card_refundFail` (4000 0000 0000 5126): its charge succeeds, its refunds fail. */
const REFUND_FAILS_LAST4 = '5126';

/**
 * Create a refund (`param` names what the request named the charge by, for errors). Answers the
 * refund as Stripe answers the create; on a `refundFail` card the refund then fails (see `failRefund`).
 */
export function createRefund(ctx: TwinContext, input: RefundCreate): Refund {
  const charge = chargeToRefund(ctx, input);
  const amount = input.amount;
  const reason = input.reason ?? null;
  const param = input.charge ? 'charge' : 'payment_intent';
  if (charge.status !== 'succeeded') {
    throw invalidRequest(`Charge ${charge.id} has not succeeded and cannot be refunded.`, 'charge', 'charge_not_refundable');
  }
  refuseIfChargedBack(ctx, charge, param);
  if (!charge.captured) {
    throw invalidRequest(`Charge ${charge.id} has not been captured; cancel its PaymentIntent to release the authorization.`, 'charge');
  }
  const remaining = charge.amount_captured - charge.amount_refunded;
  if (remaining <= 0) {
    throw invalidRequest(`Charge ${charge.id} has already been refunded.`, 'charge', 'charge_already_refunded');
  }
  if (amount !== undefined && amount < 1) throw invalidRequest('Refund amount must be positive.', 'amount');
  if (amount !== undefined && amount > charge.amount_captured) {
    throw invalidRequest(
      `Refund amount (${formatMoney(amount, charge.currency)}) is greater than charge amount (${formatMoney(charge.amount_captured, charge.currency)})`,
      'amount',
      'amount_too_large',
    );
  }
  if (amount !== undefined && amount > remaining) {
    throw invalidRequest(
      `Refund amount (${formatMoney(amount, charge.currency)}) is greater than unrefunded amount on charge (${formatMoney(remaining, charge.currency)})`,
      'amount',
      'amount_too_large',
    );
  }
  const refundAmount = amount ?? remaining;
  const refund: Refund = {
    id: newId(ctx, 'refund'),
    object: 'refund',
    amount: refundAmount,
    balance_transaction: null,
    charge: charge.id,
    created: ctx.clock.nowSeconds(),
    currency: charge.currency,
    destination_details: {
      card: { reference_status: 'pending', reference_type: 'acquirer_reference_number', type: 'refund' },
      type: 'card',
    },
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    payment_intent: charge.payment_intent,
    reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: 'succeeded',
    transfer_reversal: null,
  };
  refund.balance_transaction = recordRefundFunds(ctx, refund).id;
  refund.transfer_reversal = unwindConnectCharge(ctx, charge, { id: refund.id, amount: refundAmount }, input);
  save(ctx, 'refund', refund);
  const before = clone(charge);
  charge.amount_refunded += refundAmount;
  charge.refunded = charge.amount_refunded >= charge.amount_captured;
  save(ctx, 'charge', charge);
  emitEvent(ctx, 'refund.created', refund);
  emitEvent(ctx, 'charge.refunded', charge, previousAttributes(before, charge));
  if (charge.refunded) closeReviewOnRefund(ctx, charge);
  if (charge.payment_method_details?.card?.last4 === REFUND_FAILS_LAST4) {
    const created = clone(refund);
    failRefund(ctx, refund, charge);
    return created;
  }
  return refund;
}

/**
 * A refund the card network sends back (Stripe's `refundFail` test card): it turns `failed`
 * (`failure_reason`), its amount returns to the balance (`refund_failure`, as
 * `failure_balance_transaction`) and to the charge's unrefunded amount, with `refund.updated`,
 * `charge.refund.updated` and `refund.failed`. Stripe does this "some time later"; the twin does it
 * right after the create answers — a retrieve already shows it.
 */
function failRefund(ctx: TwinContext, refund: Refund, charge: Charge): void {
  const before = clone(refund);
  refund.status = 'failed';
  refund.failure_reason = 'expired_or_canceled_card';
  refund.failure_balance_transaction = recordMovement(ctx, {
    amount: refund.amount,
    currency: refund.currency,
    type: 'refund_failure',
    reportingCategory: 'refund_failure',
    source: refund.id,
    description: 'REFUND FAILURE',
  }).id;
  save(ctx, 'refund', refund);
  const prev = previousAttributes(before, refund);
  emitEvent(ctx, 'refund.updated', refund, prev);
  emitEvent(ctx, 'charge.refund.updated', refund, prev);
  emitEvent(ctx, 'refund.failed', refund);
  const chargeBefore = clone(charge);
  charge.amount_refunded -= refund.amount;
  charge.refunded = false;
  save(ctx, 'charge', charge);
  emitEvent(ctx, 'charge.updated', charge, previousAttributes(chargeBefore, charge));
}

/**
 * Cancel a refund: Stripe allows it only while the refund `requires_action` (refunds to methods
 * that need the customer's details). The twin's refunds are card refunds, which never wait, so
 * every cancel is refused as Stripe refuses one in another state.
 */
export function cancelRefund(ctx: TwinContext, id: string): never {
  const refund = getRefund(ctx, id);
  throw invalidRequest(
    `Refund ${id} cannot be canceled because it has a status of ${refund.status}. Only refunds with a status of requires_action can be canceled.`,
  );
}

export function updateRefund(ctx: TwinContext, id: string, patch: MetadataPatch | undefined): Refund {
  const before = getRefund(ctx, id);
  const refund = clone(before);
  if (patch !== undefined) refund.metadata = applyMetadata(refund.metadata, patch);
  const prev = previousAttributes(before, refund);
  if (Object.keys(prev).length > 0) {
    save(ctx, 'refund', refund);
    emitEvent(ctx, 'refund.updated', refund, prev);
  }
  return refund;
}

/** One page of refunds, newest first, of one charge or payment intent or all. */
export function listRefunds(ctx: TwinContext, filter: { charge?: string; paymentIntent?: string }, window: ListWindow): ListPage<Refund> {
  const equals: FieldEquals = {};
  if (filter.charge !== undefined) equals.charge = filter.charge;
  if (filter.paymentIntent !== undefined) equals.payment_intent = filter.paymentIntent;
  return readPage<Refund>(ctx, 'refund', equals, window);
}

/** How many refunds a charge embeds in API versions before 2022-11-15 (Stripe's list page). */
const EMBEDDED_REFUNDS = 10;

/**
 * A charge's refunds as the list the charge carried before 2022-11-15 (and carries when
 * `expand[]=refunds` asks for it): the newest first, `total_count` of them all.
 */
export function chargeRefundList(ctx: TwinContext, chargeId: string): Record<string, unknown> {
  const all = newestFirst([...eachMatching<Refund>(ctx, 'refund', { charge: chargeId })]);
  return {
    object: 'list',
    data: all.slice(0, EMBEDDED_REFUNDS),
    has_more: all.length > EMBEDDED_REFUNDS,
    total_count: all.length,
    url: `/v1/charges/${chargeId}/refunds`,
  };
}
