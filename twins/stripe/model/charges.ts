// Charges after they exist: retrieve, update, capture of an authorization, list, search.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../http/errors.js';
import { emptyableStr, metadata, obj, str, type Params, type ParamSpec } from '../http/params.js';
import type { Charge } from './charging.js';
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

export function listCharges(ctx: TwinContext, p: Params): Charge[] {
  const customer = str(p, 'customer');
  const pi = str(p, 'payment_intent');
  const tg = str(p, 'transfer_group');
  return ctx.store
    .list<Charge>('charge')
    .filter((c) => customer === undefined || c.customer === customer)
    .filter((c) => pi === undefined || c.payment_intent === pi)
    .filter((c) => tg === undefined || c.transfer_group === tg);
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
