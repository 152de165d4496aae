// Payment methods (cards): created from raw numbers, `card[token]` test tokens or the `pm_card_*`
// shortcuts (each use of a shortcut creates a fresh `pm_…`, as in Stripe), attached to and detached
// from customers, with the `payment_method.*` events.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { base62, hmacStream } from '../../../twin-runtime/ids.js';
import { StripeApiError, invalidRequest, missingParam, resourceMissing, underParam } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, previousAttributes, save, type MetadataPatch, type StripeJson, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { cardFacts, declineFor, luhnValid, shortcutNumber } from './test-cards.js';

export type PaymentMethod = StripeObject & { object: 'payment_method'; customer: string | null };

export const ADDRESS_FIELDS = ['city', 'country', 'line1', 'line2', 'postal_code', 'state'] as const;
/** An address change: a field given as `null` is cleared (an empty value), one left out is kept. */
export type AddressInput = Partial<Record<(typeof ADDRESS_FIELDS)[number], string | null>>;

export interface BillingDetailsInput {
  email?: string | null;
  name?: string | null;
  phone?: string | null;
  tax_id?: string | null;
  address?: AddressInput;
}

export interface CardInput {
  /** The number as typed (spaces and dashes are removed here). */
  number?: string;
  /** A test token (`tok_visa`) naming the card instead of a number. */
  token?: string;
  expMonth?: number;
  expYear?: number;
  cvcGiven: boolean;
}

export type AllowRedisplay = 'always' | 'limited' | 'unspecified';

export interface PaymentMethodCreate {
  type?: string;
  /** `payment_method`: cloning a platform's payment method (Connect only). */
  cloneOf?: string;
  card?: CardInput;
  billing?: BillingDetailsInput;
  metadata?: MetadataPatch;
  allowRedisplay?: AllowRedisplay;
}

export interface PaymentMethodUpdate {
  metadata?: MetadataPatch;
  billing?: BillingDetailsInput;
  card?: { expMonth?: number; expYear?: number };
  allowRedisplay?: AllowRedisplay;
}

function fingerprint(number: string): string {
  return base62(hmacStream('stripe-twin-card', number), 16);
}

function billingDetails(input: BillingDetailsInput | undefined, existing?: StripeJson): Record<string, unknown> {
  const base = existing
    ? clone(existing)
    : { address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null }, email: null, name: null, phone: null, tax_id: null };
  if (!input) return base;
  for (const k of ['email', 'name', 'phone', 'tax_id'] as const) {
    if (input[k] !== undefined) base[k] = input[k];
  }
  if (input.address) {
    for (const k of ADDRESS_FIELDS) {
      if (input.address[k] !== undefined) base.address[k] = input.address[k];
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
  opts: { expMonth?: number; expYear?: number; cvcGiven?: boolean; billing?: BillingDetailsInput; metadata?: Record<string, string> } = {},
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

/**
 * A card's details checked as Stripe checks them when it tokenizes one (a payment method, a card
 * token): the number by Luhn (`incorrect_number`), the expiry (`invalid_expiry_month`,
 * `invalid_expiry_year`; two-digit years are 20xx), all as 402 `card_error` under `prefix`. A test
 * token (`tok_visa`) stands for its card.
 */
export function checkedCard(ctx: TwinContext, card: CardInput, prefix: string): { number: string; expMonth?: number; expYear?: number } {
  const token = card.token;
  let number: string;
  if (token) {
    const n = shortcutNumber(token);
    if (!n) throw resourceMissing('token', token, `${prefix}[token]`);
    number = n;
  } else {
    const raw = card.number;
    if (!raw) throw missingParam(`${prefix}[number]`);
    number = raw.replace(/[\s-]/g, '');
    if (!luhnValid(number)) throw cardError('incorrect_number', 'Your card number is incorrect.', `${prefix}[number]`);
  }
  const { expMonth, expYear } = card;
  if (!token) {
    if (expMonth === undefined) throw missingParam(`${prefix}[exp_month]`);
    if (expYear === undefined) throw missingParam(`${prefix}[exp_year]`);
  }
  if (expMonth !== undefined && (expMonth < 1 || expMonth > 12)) {
    throw cardError('invalid_expiry_month', "Your card's expiration month is invalid.", `${prefix}[exp_month]`);
  }
  const fullYear = expYear !== undefined && expYear < 100 ? 2000 + expYear : expYear;
  if (fullYear !== undefined) {
    const now = ctx.clock.now();
    const expired = fullYear < now.getUTCFullYear() || (fullYear === now.getUTCFullYear() && (expMonth ?? 12) < now.getUTCMonth() + 1);
    if (expired || fullYear > now.getUTCFullYear() + 50) {
      throw cardError('invalid_expiry_year', "Your card's expiration year is invalid.", `${prefix}[exp_year]`);
    }
  }
  return { number, expMonth, expYear: fullYear };
}

export function createPaymentMethod(ctx: TwinContext, input: PaymentMethodCreate): PaymentMethod {
  const type = input.type;
  if (input.cloneOf) {
    // Cloning a platform payment method is a Connect feature; without Connect it is simply a lookup.
    throw invalidRequest('Cloning PaymentMethods requires a Connect account (Stripe-Account header).', 'payment_method');
  }
  if (!type) throw missingParam('type');
  if (type !== 'card') {
    throw invalidRequest(`The payment method type "${type}" is not supported by this twin; use "card".`, 'type');
  }
  const card = input.card;
  if (!card) throw missingParam('card');
  const md = input.metadata === undefined ? {} : applyMetadata({}, input.metadata);
  const token = card.token;
  const { number, expMonth, expYear: fullYear } = checkedCard(ctx, card, 'card');
  const pm = newCardPaymentMethod(ctx, number, {
    expMonth,
    expYear: fullYear,
    cvcGiven: card.cvcGiven || token !== undefined,
    billing: input.billing,
    metadata: md,
  });
  if (input.allowRedisplay) pm.allow_redisplay = input.allowRedisplay;
  return save(ctx, 'payment_method', pm);
}

/** `payment_method_data` on an intent: a payment method created inline (same rules as create). */
export function paymentMethodFromData(ctx: TwinContext, data: PaymentMethodCreate): PaymentMethod {
  return underParam('payment_method_data', () => createPaymentMethod(ctx, data));
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

export function updatePaymentMethod(ctx: TwinContext, id: string, input: PaymentMethodUpdate): PaymentMethod {
  const before = find<PaymentMethod>(ctx, 'payment_method', id);
  if (!before) throw resourceMissing('PaymentMethod', id, 'payment_method');
  const pm = clone(before);
  if (input.metadata !== undefined) pm.metadata = applyMetadata(pm.metadata, input.metadata);
  if (input.billing !== undefined) pm.billing_details = billingDetails(input.billing, pm.billing_details);
  if (input.card) {
    if (input.card.expMonth !== undefined) pm.card.exp_month = input.card.expMonth;
    if (input.card.expYear !== undefined) pm.card.exp_year = input.card.expYear;
  }
  if (input.allowRedisplay) pm.allow_redisplay = input.allowRedisplay;
  save(ctx, 'payment_method', pm);
  const prev = previousAttributes(before, pm);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'payment_method.updated', pm, prev);
  return pm;
}

export function listPaymentMethods(ctx: TwinContext, customer: string | undefined, type: string | undefined, window: ListWindow): ListPage<PaymentMethod> {
  const equals: FieldEquals = {};
  if (customer !== undefined) equals.customer = customer;
  if (type !== undefined) equals.type = type;
  return readPage<PaymentMethod>(ctx, 'payment_method', equals, window);
}
