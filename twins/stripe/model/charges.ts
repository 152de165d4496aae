// Charges: the legacy create, and charges after they exist: retrieve, update, capture of an
// authorization, list, search.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { chargePaymentMethod, settleConnect, type Charge, type ChargeFailure } from './charging.js';
import { defaultPaymentMethod, getCustomer } from './customers.js';
import { resolvePaymentMethod } from './payment-methods.js';
import { cardPaymentMethod, getSource, spendToken } from './tokens.js';
import { checkAmount, formatMoney } from './amounts.js';
import { recordChargeFunds } from './balance.js';
import { disputeIfTestCard } from './disputes.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';

export interface LegacyChargeCreate {
  amount: number;
  currency: string;
  customer?: string;
  /** A test token (`tok_visa`) or a payment method id. */
  source?: string;
  description?: string;
  capture?: boolean;
  metadata?: MetadataPatch;
  receiptEmail?: string;
  statementDescriptor?: string;
}

export interface ChargeUpdate {
  description?: string | null;
  receipt_email?: string | null;
  transfer_group?: string | null;
  customer?: string;
  fraudDetails?: { user_report?: string };
  metadata?: MetadataPatch;
}

/**
 * The legacy Charges API (`POST /v1/charges`): `source` a card token (`tok_…`, spent), a customer's
 * card source (`card_…`, with `customer`), or a payment method id; or only `customer`, charging its
 * `default_source` (else its default payment method). A charge on a card shows it as `source` and
 * its `card_` id as `payment_method`, as Stripe does (the `charge.*` events of the attempt still
 * name the payment method behind it). A decline answers 402 `card_error` and keeps the failed charge.
 */
export function createLegacyCharge(ctx: TwinContext, input: LegacyChargeCreate): { charge: Charge; decline?: ChargeFailure } {
  const { amount, currency: cur, source } = input;
  checkAmount(amount, cur);
  const customerId = input.customer ?? null;
  const customer = customerId ? getCustomer(ctx, customerId) : undefined;
  let pm: StripeObject | undefined;
  let card: StripeObject | undefined;
  if (source?.startsWith('tok_')) {
    card = spendToken(ctx, source, 'source');
  } else if (source?.startsWith('card_')) {
    if (!customerId) throw resourceMissing('source', source, 'source');
    card = find(ctx, 'card', source);
    if (!card || card.customer !== customerId) {
      throw invalidRequest(`Customer ${customerId} does not have a linked source with ID ${source}.`, 'source', 'missing');
    }
  } else if (source) {
    pm = resolvePaymentMethod(ctx, source, 'source');
  } else if (customer) {
    if (customer.default_source) card = getSource(ctx, customer.id, customer.default_source as string, 'customer');
    else pm = defaultPaymentMethod(ctx, customer);
    if (!pm && !card) throw invalidRequest('Cannot charge a customer that has no active card', 'card', 'missing');
  } else {
    throw invalidRequest('Must provide source or customer.', undefined, 'parameter_missing');
  }
  const { charge, failure } = chargePaymentMethod(ctx, {
    amount,
    currency: cur,
    customer: customerId,
    paymentMethod: card ? cardPaymentMethod(ctx, card) : pm!,
    description: input.description ?? null,
    capture: input.capture ?? true,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    receiptEmail: input.receiptEmail ?? null,
    statementDescriptor: input.statementDescriptor ?? null,
  });
  if (card) {
    charge.source = card;
    charge.payment_method = card.id;
    save(ctx, 'charge', charge);
  }
  return failure ? { charge, decline: failure } : { charge };
}

export function getCharge(ctx: TwinContext, id: string, param = 'id'): Charge {
  const c = find<Charge>(ctx, 'charge', id);
  if (!c) throw resourceMissing('charge', id, param);
  return c;
}

export function updateCharge(ctx: TwinContext, id: string, input: ChargeUpdate): Charge {
  const before = getCharge(ctx, id);
  const charge = clone(before);
  for (const k of ['description', 'receipt_email', 'transfer_group'] as const) {
    const v = input[k];
    if (v !== undefined) charge[k] = v;
  }
  const customer = input.customer;
  if (customer !== undefined) {
    if (charge.customer) throw invalidRequest('This charge already has a customer.', 'customer');
    if (!find(ctx, 'customer', customer)) throw resourceMissing('customer', customer, 'customer');
    charge.customer = customer;
  }
  if (input.fraudDetails) charge.fraud_details = { user_report: input.fraudDetails.user_report };
  if (input.metadata !== undefined) charge.metadata = applyMetadata(charge.metadata, input.metadata);
  const prev = previousAttributes(before, charge);
  if (Object.keys(prev).length > 0) {
    save(ctx, 'charge', charge);
    emitEvent(ctx, 'charge.updated', charge, prev);
  }
  return charge;
}

/**
 * Capture an authorized charge (`amount` ≤ authorized). The uncaptured rest is released, not
 * refunded: `amount_refunded` stays 0, so a later refund may take back all that was captured.
 */
export function captureCharge(ctx: TwinContext, id: string, amount?: number, param = 'amount'): Charge {
  const before = getCharge(ctx, id);
  if (before.status !== 'succeeded' || before.captured) {
    throw invalidRequest(`Charge ${id} has already been captured.`, undefined, 'charge_already_captured');
  }
  const toCapture = amount ?? before.amount;
  if (toCapture > before.amount) {
    throw invalidRequest(
      `The amount to capture (${formatMoney(toCapture, before.currency)}) is greater than the amount authorized (${formatMoney(before.amount, before.currency)}).`,
      param,
      'amount_too_large',
    );
  }
  // A capture is a charge too: below the currency's minimum it is refused as a create would be.
  checkAmount(toCapture, before.currency, param);
  const charge = clone(before);
  charge.captured = true;
  charge.amount_captured = toCapture;
  charge.amount_refunded = 0;
  charge.balance_transaction = recordChargeFunds(ctx, charge, toCapture).id;
  settleConnect(ctx, charge);
  save(ctx, 'charge', charge);
  emitEvent(ctx, 'charge.captured', charge, previousAttributes(before, charge));
  disputeIfTestCard(ctx, charge);
  return charge;
}

/** Release an uncaptured authorization (the intent was canceled): the charge shows as refunded. */
export function releaseAuthorization(ctx: TwinContext, id: string): Charge {
  const before = getCharge(ctx, id);
  const charge = clone(before);
  charge.amount_refunded = charge.amount;
  charge.refunded = true;
  save(ctx, 'charge', charge);
  emitEvent(ctx, 'charge.refunded', charge, previousAttributes(before, charge));
  return charge;
}

/** One page of charges, newest first, narrowed by customer, payment intent and transfer group. */
export function listCharges(
  ctx: TwinContext,
  filter: { customer?: string; paymentIntent?: string; transferGroup?: string },
  window: ListWindow,
): ListPage<Charge> {
  const equals: FieldEquals = {};
  if (filter.customer !== undefined) equals.customer = filter.customer;
  if (filter.paymentIntent !== undefined) equals.payment_intent = filter.paymentIntent;
  if (filter.transferGroup !== undefined) equals.transfer_group = filter.transferGroup;
  return readPage<Charge>(ctx, 'charge', equals, window);
}

export const CHARGE_SEARCH_FIELDS = {
  amount: (o: StripeObject) => o.amount,
  created: (o: StripeObject) => o.created,
  currency: (o: StripeObject) => o.currency,
  customer: (o: StripeObject) => o.customer,
  disputed: (o: StripeObject) => o.disputed,
  refunded: (o: StripeObject) => o.refunded,
  status: (o: StripeObject) => o.status,
};
