// Payment intents: requires_payment_method → requires_confirmation → (requires_capture →)
// succeeded, or back to requires_payment_method with `last_payment_error` after a decline; cancel.
// Each confirmation attempt creates a charge (model/charging.ts). A decline is answered as Stripe
// does: 402 `card_error` carrying the intent, and the failed state is kept (not rolled back).

import type { TwinContext, TwinResponse } from '../../../twin-runtime/contract.js';
import { errorObject, invalidRequest, resourceMissing, stripeError, type StripeErrorFields } from '../http/errors.js';
import {
  bool,
  emptyableStr,
  int,
  metadata,
  obj,
  oneOf,
  requiredCurrency,
  requiredInt,
  str,
  strArray,
  type Params,
  type ParamSpec,
} from '../http/params.js';
import { chargePaymentMethod } from './charging.js';
import { captureCharge, releaseAuthorization } from './charges.js';
import { getCustomer } from './customers.js';
import { emitEvent } from './events.js';
import { clone, find, newId, save, type StripeObject } from './objects.js';
import { attachPaymentMethod, paymentMethodFromData, resolvePaymentMethod, type PaymentMethod } from './payment-methods.js';
import { formatMoney } from './refunds.js';
import { authenticationFor } from './test-cards.js';

export type PaymentIntent = StripeObject & { object: 'payment_intent' };

const CONFIRM_FIELDS: ParamSpec = {
  payment_method: true,
  payment_method_data: true,
  payment_method_options: true,
  payment_method_types: true,
  receipt_email: true,
  return_url: true,
  setup_future_usage: true,
  shipping: true,
  off_session: true,
  error_on_requires_action: true,
  mandate: true,
  mandate_data: true,
  use_stripe_sdk: true,
  capture_method: true,
  radar_options: true,
  confirmation_token: true,
};

export const PI_CREATE_SPEC: ParamSpec = {
  ...CONFIRM_FIELDS,
  amount: true,
  currency: true,
  automatic_payment_methods: { enabled: true, allow_redirects: true },
  confirm: true,
  confirmation_method: true,
  customer: true,
  description: true,
  metadata: true,
  statement_descriptor: true,
  statement_descriptor_suffix: true,
  application_fee_amount: true,
  on_behalf_of: true,
  transfer_data: true,
  transfer_group: true,
  payment_method_configuration: true,
  excluded_payment_method_types: true,
};

export const PI_UPDATE_SPEC: ParamSpec = {
  amount: true,
  currency: true,
  customer: true,
  description: true,
  metadata: true,
  payment_method: true,
  payment_method_options: true,
  payment_method_types: true,
  receipt_email: true,
  setup_future_usage: true,
  shipping: true,
  statement_descriptor: true,
  statement_descriptor_suffix: true,
  transfer_group: true,
  capture_method: true,
};

export const PI_CONFIRM_SPEC: ParamSpec = CONFIRM_FIELDS;
export const PI_CAPTURE_SPEC: ParamSpec = {
  amount_to_capture: true,
  metadata: true,
  statement_descriptor: true,
  statement_descriptor_suffix: true,
  final_capture: true,
  application_fee_amount: true,
};
export const PI_CANCEL_SPEC: ParamSpec = { cancellation_reason: true };

/** Smallest chargeable amounts Stripe enforces, by currency (minor units). */
const MINIMUM: Record<string, number> = { usd: 50, eur: 50, gbp: 30, cad: 50, aud: 50, chf: 50, jpy: 50, inr: 50, sek: 300, nok: 300, dkk: 250, mxn: 1000 };
const MAXIMUM = 99_999_999;

export function getPaymentIntent(ctx: TwinContext, id: string, param = 'intent'): PaymentIntent {
  const pi = find<PaymentIntent>(ctx, 'payment_intent', id);
  if (!pi) throw resourceMissing('payment_intent', id, param);
  return pi;
}

function checkAmount(amount: number, currency: string): void {
  const min = MINIMUM[currency] ?? 50;
  if (amount < min) {
    throw invalidRequest(`Amount must be at least ${formatMoney(min, currency)} ${currency}`, 'amount', 'amount_too_small');
  }
  if (amount > MAXIMUM) {
    throw invalidRequest(`Amount must be no more than ${formatMoney(MAXIMUM, currency)} ${currency}`, 'amount', 'amount_too_large');
  }
}

const CAPTURE_METHODS = ['automatic', 'automatic_async', 'manual'] as const;
const FUTURE_USAGE = ['off_session', 'on_session'] as const;

function statusAfterPaymentMethod(pi: PaymentIntent): void {
  if (pi.status === 'requires_payment_method' && pi.payment_method) pi.status = 'requires_confirmation';
}

/** Fields shared by create, update and confirm. */
function applyCommon(ctx: TwinContext, pi: PaymentIntent, p: Params): void {
  const pmId = str(p, 'payment_method');
  const pmData = obj(p, 'payment_method_data');
  if (pmId && pmData) {
    throw invalidRequest('You may only specify one of these parameters: payment_method, payment_method_data.', 'payment_method_data');
  }
  if (pmId) pi.payment_method = resolvePaymentMethod(ctx, pmId, 'payment_method').id;
  if (pmData) pi.payment_method = paymentMethodFromData(ctx, pmData).id;
  const email = emptyableStr(p, 'receipt_email');
  if (email !== undefined) pi.receipt_email = email;
  const sfu = p.setup_future_usage === '' ? null : oneOf(p, 'setup_future_usage', FUTURE_USAGE);
  if (sfu !== undefined) pi.setup_future_usage = sfu;
  const cm = oneOf(p, 'capture_method', CAPTURE_METHODS);
  if (cm) pi.capture_method = cm;
  const types = strArray(p, 'payment_method_types');
  if (types) {
    pi.payment_method_types = types;
    pi.automatic_payment_methods = null;
  }
  if (p.shipping !== undefined) pi.shipping = p.shipping === '' ? null : p.shipping;
}

export function createPaymentIntent(ctx: TwinContext, p: Params): { intent: PaymentIntent; response: TwinResponse } {
  const amount = requiredInt(p, 'amount');
  const currency = requiredCurrency(p);
  checkAmount(amount, currency);
  const customerId = str(p, 'customer') ?? null;
  if (customerId) getCustomer(ctx, customerId);
  const apm = obj(p, 'automatic_payment_methods');
  const id = newId(ctx, 'payment_intent');
  const pi: PaymentIntent = {
    id,
    object: 'payment_intent',
    amount,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: 0,
    application: null,
    application_fee_amount: int(p, 'application_fee_amount') ?? null,
    automatic_payment_methods: { allow_redirects: (apm && str(apm, 'allow_redirects', 'automatic_payment_methods')) ?? 'always', enabled: true },
    canceled_at: null,
    cancellation_reason: null,
    capture_method: 'automatic_async',
    client_secret: `${id}_secret_${ctx.ids.token(25)}`,
    confirmation_method: oneOf(p, 'confirmation_method', ['automatic', 'manual'] as const) ?? 'automatic',
    created: ctx.clock.nowSeconds(),
    currency,
    customer: customerId,
    description: str(p, 'description') ?? null,
    excluded_payment_method_types: null,
    invoice: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata: metadata(p) ?? {},
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: {
      card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' },
    },
    payment_method_types: ['card'],
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: str(p, 'statement_descriptor') ?? null,
    statement_descriptor_suffix: str(p, 'statement_descriptor_suffix') ?? null,
    status: 'requires_payment_method',
    transfer_data: null,
    transfer_group: str(p, 'transfer_group') ?? null,
  };
  applyCommon(ctx, pi, p);
  statusAfterPaymentMethod(pi);
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, 'payment_intent.created', pi);
  if (bool(p, 'confirm')) return confirmPaymentIntent(ctx, pi.id, p, true);
  return { intent: pi, response: { status: 200, body: pi } };
}

export function updatePaymentIntent(ctx: TwinContext, id: string, p: Params): PaymentIntent {
  const pi = clone(getPaymentIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(pi.status)) {
    throw invalidRequest(
      `This PaymentIntent's amount could not be updated because it has a status of ${pi.status}. You may only update the amount of a PaymentIntent with one of the following statuses: requires_payment_method, requires_confirmation, requires_action.`,
      undefined,
      'payment_intent_unexpected_state',
    );
  }
  const amount = int(p, 'amount');
  const currency = str(p, 'currency')?.toLowerCase();
  if (currency) pi.currency = currency;
  if (amount !== undefined) pi.amount = amount;
  if (amount !== undefined || currency) checkAmount(pi.amount, pi.currency);
  const customer = str(p, 'customer');
  if (customer !== undefined) {
    getCustomer(ctx, customer);
    pi.customer = customer;
  }
  const description = emptyableStr(p, 'description');
  if (description !== undefined) pi.description = description;
  const md = metadata(p, pi.metadata);
  if (md !== undefined) pi.metadata = md;
  applyCommon(ctx, pi, p);
  statusAfterPaymentMethod(pi);
  return save(ctx, 'payment_intent', pi);
}

/** The error body of a declined attempt (also what `last_payment_error` holds). */
function declineError(
  failure: { code: string; decline_code: string; message: string },
  chargeId: string,
  pm: PaymentMethod,
): StripeErrorFields {
  return {
    type: 'card_error',
    code: failure.code,
    decline_code: failure.decline_code,
    message: failure.message,
    extra: { charge: chargeId, payment_method: pm },
  };
}

/**
 * Confirm: charge the payment method once. Success → succeeded (or requires_capture for manual
 * capture); decline → requires_payment_method with `last_payment_error`, answered with 402.
 */
export function confirmPaymentIntent(
  ctx: TwinContext,
  id: string,
  p: Params,
  alreadyApplied = false,
): { intent: PaymentIntent; response: TwinResponse } {
  const pi = clone(getPaymentIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(pi.status)) {
    throw invalidRequest(
      `You cannot confirm this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be confirmed: requires_confirmation, requires_action, requires_payment_method.`,
      undefined,
      'payment_intent_unexpected_state',
    );
  }
  if (!alreadyApplied) applyCommon(ctx, pi, p);
  if (!pi.payment_method) {
    throw invalidRequest(
      `You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with ${pi.customer ?? 'a customer'}, specify a payment method attached to this customer along with the customer ID.`,
      'payment_method',
      'payment_intent_unexpected_state',
    );
  }
  const pm = resolvePaymentMethod(ctx, pi.payment_method, 'payment_method');
  if (pm.customer && pi.customer && pm.customer !== pi.customer) {
    throw invalidRequest(
      `The provided PaymentMethod (${pm.id}) is attached to another customer. It can only be used with that customer.`,
      'payment_method',
    );
  }
  if (pm.customer && !pi.customer) {
    throw invalidRequest(
      `The provided PaymentMethod was previously attached to a Customer. To use it in a PaymentIntent, you must also provide the ID of the Customer it is attached to (${pm.customer}).`,
      'payment_method',
    );
  }
  const offSession = bool(p, 'off_session') ?? false;
  const rule = authenticationFor(pm.card?.last4);
  const savedForOffSession = rule === 'on_session' && offSession && pm.customer !== null;
  if (rule && !savedForOffSession) {
    if (offSession) return failAuthenticationOffSession(ctx, pi, pm);
    return requireAction(ctx, pi, str(p, 'return_url'));
  }
  return attemptCharge(ctx, pi, pm);
}

/** The twin-only page a customer "visits" to pass or fail a 3D Secure challenge. */
export function authenticationUrl(ctx: TwinContext, intentId: string): string {
  return `${ctx.baseUrl}${THREE_D_SECURE_PATH.replace('{intent}', intentId)}`;
}

export const THREE_D_SECURE_PATH = '/3d_secure/authenticate/{intent}';

function requireAction(ctx: TwinContext, pi: PaymentIntent, returnUrl: string | undefined): { intent: PaymentIntent; response: TwinResponse } {
  const url = authenticationUrl(ctx, pi.id);
  pi.status = 'requires_action';
  pi.next_action = returnUrl
    ? { type: 'redirect_to_url', redirect_to_url: { return_url: returnUrl, url } }
    : { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: url, source: pi.payment_method } };
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, 'payment_intent.requires_action', pi);
  return { intent: pi, response: { status: 200, body: pi } };
}

function failAuthenticationOffSession(ctx: TwinContext, pi: PaymentIntent, pm: PaymentMethod): { intent: PaymentIntent; response: TwinResponse } {
  const fields: StripeErrorFields = {
    type: 'card_error',
    code: 'authentication_required',
    decline_code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
    extra: { payment_method: pm },
  };
  pi.status = 'requires_payment_method';
  pi.payment_method = null;
  pi.next_action = null;
  pi.last_payment_error = errorObject(fields);
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, 'payment_intent.payment_failed', pi);
  return { intent: pi, response: stripeError(402, { ...fields, extra: { ...fields.extra, payment_intent: pi } }) };
}

/**
 * The customer's answer to the 3D Secure challenge (twin-only helper behind `next_action`):
 * `succeed` charges the card and the intent moves on as after a plain confirm; `fail` returns it to
 * requires_payment_method with `payment_intent_authentication_failure`.
 */
export function completeAuthentication(ctx: TwinContext, id: string, outcome: 'succeed' | 'fail'): PaymentIntent {
  const pi = clone(getPaymentIntent(ctx, id));
  if (pi.status !== 'requires_action') {
    throw invalidRequest(`This PaymentIntent has a status of ${pi.status}; there is no authentication to complete.`, undefined, 'payment_intent_unexpected_state');
  }
  const pm = resolvePaymentMethod(ctx, pi.payment_method as string, 'payment_method');
  pi.next_action = null;
  if (outcome === 'fail') {
    pi.status = 'requires_payment_method';
    pi.payment_method = null;
    pi.last_payment_error = errorObject({
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      message:
        'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
      extra: { payment_method: pm },
    });
    save(ctx, 'payment_intent', pi);
    emitEvent(ctx, 'payment_intent.payment_failed', pi);
    return pi;
  }
  return attemptCharge(ctx, pi, pm).intent;
}

/** One charge attempt for a confirmed intent, and the status it leads to. */
function attemptCharge(ctx: TwinContext, pi: PaymentIntent, pm: PaymentMethod): { intent: PaymentIntent; response: TwinResponse } {
  pi.next_action = null;
  const manual = pi.capture_method === 'manual';
  const { charge, failure } = chargePaymentMethod(ctx, {
    amount: pi.amount,
    currency: pi.currency,
    customer: pi.customer,
    paymentMethod: pm,
    description: pi.description,
    paymentIntent: pi.id,
    capture: !manual,
    metadata: pi.metadata,
    receiptEmail: pi.receipt_email,
    statementDescriptor: pi.statement_descriptor,
  });
  pi.latest_charge = charge.id;
  if (failure) {
    const fields = declineError(failure, charge.id, pm);
    pi.status = 'requires_payment_method';
    pi.payment_method = null;
    pi.last_payment_error = errorObject(fields);
    save(ctx, 'payment_intent', pi);
    emitEvent(ctx, 'payment_intent.payment_failed', pi);
    return { intent: pi, response: stripeError(402, { ...fields, extra: { ...fields.extra, payment_intent: pi } }) };
  }
  pi.last_payment_error = null;
  pi.payment_method = pm.id;
  if (manual) {
    pi.status = 'requires_capture';
    pi.amount_capturable = pi.amount;
  } else {
    pi.status = 'succeeded';
    pi.amount_received = pi.amount;
  }
  if (pi.setup_future_usage && pi.customer && !pm.customer) attachPaymentMethod(ctx, pm, pi.customer);
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, manual ? 'payment_intent.amount_capturable_updated' : 'payment_intent.succeeded', pi);
  return { intent: pi, response: { status: 200, body: pi } };
}

export function capturePaymentIntent(ctx: TwinContext, id: string, p: Params): PaymentIntent {
  const pi = clone(getPaymentIntent(ctx, id));
  if (pi.status !== 'requires_capture') {
    throw invalidRequest(
      `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
      undefined,
      'payment_intent_unexpected_state',
    );
  }
  const amount = int(p, 'amount_to_capture') ?? pi.amount_capturable;
  if (amount > pi.amount_capturable) {
    throw invalidRequest(
      `The amount_to_capture (${amount}) cannot be greater than the amount_capturable (${pi.amount_capturable}).`,
      'amount_to_capture',
      'amount_too_large',
    );
  }
  captureCharge(ctx, pi.latest_charge as string, amount);
  const md = metadata(p, pi.metadata);
  if (md !== undefined) pi.metadata = md;
  pi.amount_capturable = 0;
  pi.amount_received = amount;
  pi.status = 'succeeded';
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, 'payment_intent.succeeded', pi);
  return pi;
}

const CANCELABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];

export function cancelPaymentIntent(ctx: TwinContext, id: string, p: Params): PaymentIntent {
  const pi = clone(getPaymentIntent(ctx, id));
  if (!CANCELABLE.includes(pi.status)) {
    throw invalidRequest(
      `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`,
      undefined,
      'payment_intent_unexpected_state',
    );
  }
  const reason =
    oneOf(p, 'cancellation_reason', ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const) ?? null;
  if (pi.status === 'requires_capture' && pi.latest_charge) releaseAuthorization(ctx, pi.latest_charge as string);
  pi.status = 'canceled';
  pi.canceled_at = ctx.clock.nowSeconds();
  pi.cancellation_reason = reason;
  pi.amount_capturable = 0;
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, 'payment_intent.canceled', pi);
  return pi;
}

export const PI_SEARCH_FIELDS = {
  amount: (o: StripeObject) => o.amount,
  created: (o: StripeObject) => o.created,
  currency: (o: StripeObject) => o.currency,
  customer: (o: StripeObject) => o.customer,
  status: (o: StripeObject) => o.status,
};
