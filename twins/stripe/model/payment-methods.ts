// Payment methods (cards): created from raw numbers, `card[token]` test tokens or the `pm_card_*`
// shortcuts (each use of a shortcut creates a fresh `pm_…`, as in Stripe), attached to and detached
// from customers, with the `payment_method.*` events.

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { base62 } from '../../../twin-runtime/ids.js';
import { StripeApiError, invalidRequest, missingParam, resourceMissing } from '../wire/errors.js';
import { emptyableStr, int, metadata, obj, oneOf, rejectUnknown, str, type Params, type ParamSpec } from '../wire/params.js';
import { emitEvent } from './events.js';
import { ADDRESS_SPEC, clone, find, newId, previousAttributes, save, type StripeObject } from './objects.js';
import { cardFacts, declineFor, luhnValid, shortcutNumber } from './test-cards.js';

export type PaymentMethod = StripeObject & { object: 'payment_method'; customer: string | null };

export const BILLING_DETAILS_SPEC: ParamSpec = { address: ADDRESS_SPEC, email: true, name: true, phone: true, tax_id: true };

export const PAYMENT_METHOD_CREATE_SPEC: ParamSpec = {
  type: true,
  card: { number: true, exp_month: true, exp_year: true, cvc: true, token: true, networks: true },
  billing_details: BILLING_DETAILS_SPEC,
  metadata: true,
  allow_redisplay: true,
  customer: true,
  payment_method: true,
};

const PAYMENT_METHOD_DATA_SPEC: ParamSpec = {
  type: true,
  card: { number: true, exp_month: true, exp_year: true, cvc: true, token: true, networks: true },
  billing_details: BILLING_DETAILS_SPEC,
  metadata: true,
  allow_redisplay: true,
};

export const PAYMENT_METHOD_UPDATE_SPEC: ParamSpec = {
  card: { exp_month: true, exp_year: true, networks: true },
  billing_details: BILLING_DETAILS_SPEC,
  metadata: true,
  allow_redisplay: true,
};

function fingerprint(number: string): string {
  return base62(createHash('sha256').update(`stripe-twin-card:${number}`).digest(), 16);
}

function billingDetails(p: Params | undefined, existing?: Record<string, any>): Record<string, unknown> {
  const base = existing
    ? clone(existing)
    : { address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null }, email: null, name: null, phone: null, tax_id: null };
  if (!p) return base;
  for (const k of ['email', 'name', 'phone', 'tax_id']) {
    const v = emptyableStr(p, k, 'billing_details');
    if (v !== undefined) base[k] = v;
  }
  const addr = obj(p, 'address', 'billing_details');
  if (addr) {
    for (const k of ['city', 'country', 'line1', 'line2', 'postal_code', 'state']) {
      const v = emptyableStr(addr, k, 'billing_details[address]');
      if (v !== undefined) base.address[k] = v;
    }
  }
  return base;
}

function cardError(code: string, message: string, param: string): StripeApiError {
  return new StripeApiError(402, { type: 'card_error', code, message, param });
}

/** A new card payment method record for `number`. */
export function newCardPaymentMethod(
  ctx: TwinContext,
  number: string,
  opts: { expMonth?: number; expYear?: number; cvcGiven?: boolean; billing?: Params; metadata?: Record<string, string> } = {},
): PaymentMethod {
  const facts = cardFacts(number);
  const year = ctx.clock.now().getUTCFullYear();
  const pm: PaymentMethod = {
    id: newId(ctx, 'payment_method'),
    object: 'payment_method',
    allow_redisplay: 'unspecified',
    billing_details: billingDetails(opts.billing),
    card: {
      brand: facts.brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: opts.cvcGiven === false ? null : 'pass' },
      country: facts.country,
      display_brand: facts.brand,
      exp_month: opts.expMonth ?? 12,
      exp_year: opts.expYear ?? year + 3,
      fingerprint: fingerprint(number),
      funding: facts.funding,
      generated_from: null,
      last4: number.slice(-4),
      networks: { available: [facts.brand], preferred: null },
      regulated_status: 'unregulated',
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: ctx.clock.nowSeconds(),
    customer: null,
    livemode: false,
    metadata: opts.metadata ?? {},
    type: 'card',
  };
  return save(ctx, 'payment_method', pm);
}

/**
 * The payment method an id names: a stored one, or a fresh one for a test shortcut (`pm_card_visa`).
 * Unknown ids are Stripe's 404.
 */
export function resolvePaymentMethod(ctx: TwinContext, id: string, param = 'payment_method'): PaymentMethod {
  const stored = find<PaymentMethod>(ctx, 'payment_method', id);
  if (stored) return stored;
  const number = id.startsWith('pm_') ? shortcutNumber(id) : undefined;
  if (number) return newCardPaymentMethod(ctx, number);
  throw resourceMissing('PaymentMethod', id, param);
}

export function createPaymentMethod(ctx: TwinContext, p: Params): PaymentMethod {
  const type = str(p, 'type');
  if (str(p, 'payment_method')) {
    // Cloning a platform payment method is a Connect feature; without Connect it is simply a lookup.
    throw invalidRequest('Cloning PaymentMethods requires a Connect account (Stripe-Account header).', 'payment_method');
  }
  if (!type) throw missingParam('type');
  if (type !== 'card') {
    throw invalidRequest(`The payment method type "${type}" is not supported by this twin; use "card".`, 'type');
  }
  const card = obj(p, 'card');
  if (!card) throw missingParam('card');
  const md = metadata(p) ?? {};
  const token = str(card, 'token', 'card');
  let number: string;
  if (token) {
    const n = shortcutNumber(token);
    if (!n) throw resourceMissing('token', token, 'card[token]');
    number = n;
  } else {
    const raw = str(card, 'number', 'card');
    if (!raw) throw missingParam('card[number]');
    number = raw.replace(/[\s-]/g, '');
    if (!luhnValid(number)) throw cardError('incorrect_number', 'Your card number is incorrect.', 'card[number]');
  }
  const expMonth = int(card, 'exp_month', 'card');
  const expYear = int(card, 'exp_year', 'card');
  if (!token) {
    if (expMonth === undefined) throw missingParam('card[exp_month]');
    if (expYear === undefined) throw missingParam('card[exp_year]');
  }
  if (expMonth !== undefined && (expMonth < 1 || expMonth > 12)) {
    throw cardError('invalid_expiry_month', "Your card's expiration month is invalid.", 'card[exp_month]');
  }
  const fullYear = expYear !== undefined && expYear < 100 ? 2000 + expYear : expYear;
  if (fullYear !== undefined) {
    const now = ctx.clock.now();
    const expired =
      fullYear < now.getUTCFullYear() || (fullYear === now.getUTCFullYear() && (expMonth ?? 12) < now.getUTCMonth() + 1);
    if (expired || fullYear > now.getUTCFullYear() + 50) {
      throw cardError('invalid_expiry_year', "Your card's expiration year is invalid.", 'card[exp_year]');
    }
  }
  const pm = newCardPaymentMethod(ctx, number, {
    expMonth,
    expYear: fullYear,
    cvcGiven: str(card, 'cvc', 'card') !== undefined || token !== undefined,
    billing: obj(p, 'billing_details'),
    metadata: md,
  });
  const redisplay = oneOf(p, 'allow_redisplay', ['always', 'limited', 'unspecified'] as const);
  if (redisplay) pm.allow_redisplay = redisplay;
  return save(ctx, 'payment_method', pm);
}

/** `payment_method_data` on an intent: a payment method created inline (same rules as create). */
export function paymentMethodFromData(ctx: TwinContext, data: Params): PaymentMethod {
  try {
    rejectUnknown(data, PAYMENT_METHOD_DATA_SPEC, 'payment_method_data');
    return createPaymentMethod(ctx, data);
  } catch (e) {
    if (e instanceof StripeApiError && e.fields.param && !e.fields.param.startsWith('payment_method_data')) {
      const param = e.fields.param.replace(/^([^[]+)/, '[$1]');
      throw new StripeApiError(e.status, { ...e.fields, param: `payment_method_data${param}` });
    }
    throw e;
  }
}

/** The issuer's answer when a card is saved (attach, setup intent): some test cards refuse already here. */
export function checkCardOnAttach(pm: PaymentMethod): { code: string; decline_code: string; message: string } | undefined {
  const d = declineFor(pm.card?.last4);
  return d?.onAttach ? { code: d.code, decline_code: d.decline_code, message: d.message } : undefined;
}

export function attachPaymentMethod(ctx: TwinContext, pm: PaymentMethod, customerId: string): PaymentMethod {
  if (pm.customer === customerId) return pm;
  if (pm.customer) {
    throw invalidRequest('The payment method you provided has already been attached to a customer.', 'payment_method');
  }
  const refused = checkCardOnAttach(pm);
  if (refused) {
    throw new StripeApiError(402, { type: 'card_error', code: refused.code, decline_code: refused.decline_code, message: refused.message });
  }
  pm.customer = customerId;
  save(ctx, 'payment_method', pm);
  emitEvent(ctx, 'payment_method.attached', pm);
  return pm;
}

export function detachPaymentMethod(ctx: TwinContext, id: string): PaymentMethod {
  const pm = find<PaymentMethod>(ctx, 'payment_method', id);
  if (!pm) throw resourceMissing('PaymentMethod', id, 'payment_method');
  if (!pm.customer) {
    throw invalidRequest('The payment method you provided is not attached to a customer so detachment is impossible.', 'payment_method');
  }
  const customer = find(ctx, 'customer', pm.customer);
  if (customer && customer.invoice_settings?.default_payment_method === pm.id) {
    const beforeCustomer = clone(customer);
    customer.invoice_settings.default_payment_method = null;
    save(ctx, 'customer', customer);
    emitEvent(ctx, 'customer.updated', customer, previousAttributes(beforeCustomer, customer));
  }
  const previousCustomer = pm.customer;
  pm.customer = null;
  save(ctx, 'payment_method', pm);
  emitEvent(ctx, 'payment_method.detached', pm, { customer: previousCustomer });
  return pm;
}

export function updatePaymentMethod(ctx: TwinContext, id: string, p: Params): PaymentMethod {
  const before = find<PaymentMethod>(ctx, 'payment_method', id);
  if (!before) throw resourceMissing('PaymentMethod', id, 'payment_method');
  const pm = clone(before);
  const md = metadata(p, pm.metadata);
  if (md !== undefined) pm.metadata = md;
  if (p.billing_details !== undefined) pm.billing_details = billingDetails(obj(p, 'billing_details'), pm.billing_details);
  const card = obj(p, 'card');
  if (card) {
    const m = int(card, 'exp_month', 'card');
    const y = int(card, 'exp_year', 'card');
    if (m !== undefined) pm.card.exp_month = m;
    if (y !== undefined) pm.card.exp_year = y;
  }
  const redisplay = oneOf(p, 'allow_redisplay', ['always', 'limited', 'unspecified'] as const);
  if (redisplay) pm.allow_redisplay = redisplay;
  save(ctx, 'payment_method', pm);
  const prev = previousAttributes(before, pm);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'payment_method.updated', pm, prev);
  return pm;
}

export function listPaymentMethods(ctx: TwinContext, customer: string | undefined, type: string | undefined): PaymentMethod[] {
  return ctx.store
    .list<PaymentMethod>('payment_method')
    .filter((pm) => (customer === undefined ? true : pm.customer === customer))
    .filter((pm) => (type === undefined ? true : pm.type === type));
}
