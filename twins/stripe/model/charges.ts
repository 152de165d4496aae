// Charges: the legacy create, and charges after they exist: retrieve, update, capture of an
// authorization, list, search.

import type { TwinContext, TwinResponse } from '../../../twin-runtime/contract.js';
import { StripeApiError, invalidRequest, missingParam, resourceMissing } from '../http/errors.js';
import { bool, currency, emptyableStr, metadata, obj, requiredInt, str, type Params, type ParamSpec } from '../http/params.js';
import { chargePaymentMethod, type Charge } from './charging.js';
import { defaultPaymentMethod, getCustomer } from './customers.js';
import { newCardPaymentMethod, resolvePaymentMethod } from './payment-methods.js';
import { shortcutNumber } from './test-cards.js';
import { emitEvent } from './events.js';
import { clone, find, previousAttributes, save, type StripeObject } from './objects.js';

export const CHARGE_UPDATE_SPEC: ParamSpec = {
  customer: true,
  description: true,
  fraud_details: { user_report: true },
  metadata: true,
  receipt_email: true,
  shipping: true,
  transfer_group: true,
};

export const CHARGE_CREATE_SPEC: ParamSpec = {
  amount: true,
  currency: true,
  customer: true,
  source: true,
  description: true,
  metadata: true,
  capture: true,
  receipt_email: true,
  statement_descriptor: true,
  statement_descriptor_suffix: true,
  shipping: true,
  transfer_group: true,
};

/**
 * The legacy Charges API (`POST /v1/charges` with `source: 'tok_visa'`, a payment method, or a
 * customer's default card). The card is kept as a `pm_…` payment method, so the charge's
 * `payment_method` is a `pm_` id (Stripe shows a `card_…` source there) and `source` stays null.
 * A decline answers 402 `card_error` and keeps the failed charge.
 */
export function createLegacyCharge(ctx: TwinContext, p: Params): { charge: Charge; response: TwinResponse } {
  const amount = requiredInt(p, 'amount');
  const cur = currency(p);
  if (!cur) throw missingParam('currency');
  if (amount < 50) throw invalidRequest(`Amount must be at least 50 cents`, 'amount', 'amount_too_small');
  const customerId = str(p, 'customer') ?? null;
  const customer = customerId ? getCustomer(ctx, customerId) : undefined;
  const source = str(p, 'source');
  let pm: StripeObject | undefined;
  if (source?.startsWith('tok_')) {
    const number = shortcutNumber(source);
    if (!number) throw resourceMissing('source', source, 'source');
    pm = newCardPaymentMethod(ctx, number);
  } else if (source) {
    pm = resolvePaymentMethod(ctx, source, 'source');
  } else if (customer) {
    pm = defaultPaymentMethod(ctx, customer);
    if (!pm) throw invalidRequest('Cannot charge a customer that has no active card', 'card', 'missing');
  } else {
    throw invalidRequest('Must provide source or customer.', undefined, 'parameter_missing');
  }
  const { charge, failure } = chargePaymentMethod(ctx, {
    amount,
    currency: cur,
    customer: customerId,
    paymentMethod: pm,
    description: str(p, 'description') ?? null,
    capture: bool(p, 'capture') ?? true,
    metadata: metadata(p) ?? {},
    receiptEmail: str(p, 'receipt_email') ?? null,
    statementDescriptor: str(p, 'statement_descriptor') ?? null,
  });
  if (failure) {
    const err = new StripeApiError(402, {
      type: 'card_error',
      code: failure.code,
      decline_code: failure.decline_code,
      message: failure.message,
      extra: { charge: charge.id },
    });
    return { charge, response: err.toResponse() };
  }
  return { charge, response: { status: 200, body: charge } };
}

export function getCharge(ctx: TwinContext, id: string, param = 'id'): Charge {
  const c = find<Charge>(ctx, 'charge', id);
  if (!c) throw resourceMissing('charge', id, param);
  return c;
}

export function updateCharge(ctx: TwinContext, id: string, p: Params): Charge {
  const before = getCharge(ctx, id);
  const charge = clone(before);
  for (const k of ['description', 'receipt_email', 'transfer_group'] as const) {
    const v = emptyableStr(p, k);
    if (v !== undefined) charge[k] = v;
  }
  const customer = str(p, 'customer');
  if (customer !== undefined) {
    if (charge.customer) throw invalidRequest('This charge already has a customer.', 'customer');
    if (!find(ctx, 'customer', customer)) throw resourceMissing('customer', customer, 'customer');
    charge.customer = customer;
  }
  const fraud = obj(p, 'fraud_details');
  if (fraud) charge.fraud_details = { user_report: str(fraud, 'user_report', 'fraud_details') };
  const md = metadata(p, charge.metadata);
  if (md !== undefined) charge.metadata = md;
  const prev = previousAttributes(before, charge);
  if (Object.keys(prev).length > 0) {
    save(ctx, 'charge', charge);
    emitEvent(ctx, 'charge.updated', charge, prev);
  }
  return charge;
}

/** Capture an authorized charge (`amount` ≤ authorized; the rest is released as refunded). */
export function captureCharge(ctx: TwinContext, id: string, amount?: number): Charge {
  const before = getCharge(ctx, id);
  if (before.status !== 'succeeded' || before.captured) {
    throw invalidRequest(`Charge ${id} has already been captured.`, undefined, 'charge_already_captured');
  }
  const toCapture = amount ?? before.amount;
  if (toCapture < 1 || toCapture > before.amount) {
    throw invalidRequest(
      `The amount to capture (${toCapture}) must be positive and no more than the amount authorized (${before.amount}).`,
      'amount_to_capture',
      'amount_too_large',
    );
  }
  const charge = clone(before);
  charge.captured = true;
  charge.amount_captured = toCapture;
  charge.amount_refunded = before.amount - toCapture;
  save(ctx, 'charge', charge);
  emitEvent(ctx, 'charge.captured', charge, previousAttributes(before, charge));
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

export const CHARGE_SEARCH_FIELDS = {
  amount: (o: StripeObject) => o.amount,
  created: (o: StripeObject) => o.created,
  currency: (o: StripeObject) => o.currency,
  customer: (o: StripeObject) => o.customer,
  disputed: (o: StripeObject) => o.disputed,
  refunded: (o: StripeObject) => o.refunded,
  status: (o: StripeObject) => o.status,
};
