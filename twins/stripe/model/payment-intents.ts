// Payment intents: requires_payment_method → requires_confirmation → (requires_capture →)
// succeeded, or back to requires_payment_method with `last_payment_error` after a decline; cancel.
// Each confirmation attempt creates a charge (model/charging.ts). A decline is answered as Stripe
// does: 402 `card_error` carrying the intent, and the failed state is kept (not rolled back).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { errorObject, invalidRequest, resourceMissing, type StripeErrorFields } from '../wire/errors.js';
import { chargePaymentMethod } from './charging.js';
import { checkDestination } from './transfers.js';
import { accountOf, isConnectedAccount } from '../wire/connect-scope.js';
import { captureCharge, releaseAuthorization } from './charges.js';
import { getCustomer } from './customers.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type ListPage, type ListWindow } from './pages.js';
import { attachPaymentMethod, paymentMethodFromData, resolvePaymentMethod, type PaymentMethod, type PaymentMethodCreate } from './payment-methods.js';
import { checkAmount } from './amounts.js';
import { authenticationFor } from './test-cards.js';

export type PaymentIntent = StripeObject & { object: 'payment_intent' };

export const CAPTURE_METHODS = ['automatic', 'automatic_async', 'manual'] as const;
export const FUTURE_USAGE = ['off_session', 'on_session'] as const;
export const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;

/** What create, update and confirm may set about how the intent is paid. */
export interface PaymentFields {
  paymentMethod?: string;
  paymentMethodData?: PaymentMethodCreate;
  /** `null`: cleared (an empty value). */
  receiptEmail?: string | null;
  setupFutureUsage?: (typeof FUTURE_USAGE)[number] | null;
  captureMethod?: (typeof CAPTURE_METHODS)[number];
  paymentMethodTypes?: string[];
  /** `null`: cleared. */
  shipping?: unknown;
}

/** How a confirmation is made (create with `confirm`, or confirm). */
export interface ConfirmOptions {
  offSession?: boolean;
  returnUrl?: string;
}

export interface PaymentIntentCreate extends PaymentFields, ConfirmOptions {
  amount: number;
  currency: string;
  customer?: string;
  description?: string;
  metadata?: MetadataPatch;
  applicationFeeAmount?: number;
  allowRedirects?: string;
  confirmationMethod?: 'automatic' | 'manual';
  statementDescriptor?: string;
  statementDescriptorSuffix?: string;
  transferGroup?: string;
  /** A destination charge: the connected account its funds go to (and how much of them). */
  transferData?: { destination: string; amount?: number };
  /** The connected account the payment is made for (its settlement merchant). */
  onBehalfOf?: string;
  confirm?: boolean;
}

export interface PaymentIntentUpdate extends PaymentFields {
  amount?: number;
  currency?: string;
  customer?: string;
  description?: string | null;
  metadata?: MetadataPatch;
}

export interface PaymentIntentConfirm extends PaymentFields, ConfirmOptions {}

/**
 * What a confirmation led to. A decline is an outcome, not an error: the intent keeps the failed
 * attempt (`last_payment_error`, its charge) and `decline` says what Stripe answers (402).
 */
export interface PaymentOutcome {
  intent: PaymentIntent;
  decline?: StripeErrorFields;
}

export function getPaymentIntent(ctx: TwinContext, id: string, param = 'intent'): PaymentIntent {
  const pi = find<PaymentIntent>(ctx, 'payment_intent', id);
  if (!pi) throw resourceMissing('payment_intent', id, param);
  return pi;
}

export function statusAfterPaymentMethod(pi: PaymentIntent): void {
  if (pi.status === 'requires_payment_method' && pi.payment_method) pi.status = 'requires_confirmation';
}

/** Fields shared by create, update and confirm. */
function applyCommon(ctx: TwinContext, pi: PaymentIntent, input: PaymentFields): void {
  if (input.paymentMethod && input.paymentMethodData) {
    throw invalidRequest('You may only specify one of these parameters: payment_method, payment_method_data.', 'payment_method_data');
  }
  if (input.paymentMethod) pi.payment_method = resolvePaymentMethod(ctx, input.paymentMethod, 'payment_method').id;
  if (input.paymentMethodData) pi.payment_method = paymentMethodFromData(ctx, input.paymentMethodData).id;
  if (input.receiptEmail !== undefined) pi.receipt_email = input.receiptEmail;
  if (input.setupFutureUsage !== undefined) pi.setup_future_usage = input.setupFutureUsage;
  if (input.captureMethod) pi.capture_method = input.captureMethod;
  if (input.paymentMethodTypes) {
    pi.payment_method_types = input.paymentMethodTypes;
    pi.automatic_payment_methods = null;
  }
  if (input.shipping !== undefined) pi.shipping = input.shipping;
}

/** What a payment says about Connect (an intent's, or a Checkout Session's `payment_intent_data`). */
export type ConnectFunds = Pick<PaymentIntentCreate, 'amount' | 'transferData' | 'applicationFeeAmount' | 'onBehalfOf'>;

/** Where a destination charge's funds go, and whether an application fee may be taken at all. */
export function checkConnectFunds(ctx: TwinContext, input: ConnectFunds): void {
  if (input.transferData) {
    checkDestination(ctx, input.transferData.destination, 'transfer_data[destination]');
    if (input.transferData.amount !== undefined && input.transferData.amount > input.amount) {
      throw invalidRequest('The `transfer_data[amount]` must be less than or equal to the PaymentIntent `amount`.', 'transfer_data[amount]');
    }
  }
  if (input.onBehalfOf !== undefined && !isConnectedAccount(ctx, input.onBehalfOf)) throw resourceMissing('account', input.onBehalfOf, 'on_behalf_of');
  if (input.applicationFeeAmount !== undefined) {
    if (!input.transferData && !accountOf(ctx)) {
      throw invalidRequest(
        'Can only apply an application_fee_amount when the PaymentIntent is attempting a direct payment (using an OAuth key or Stripe-Account header) or destination payment (using `transfer_data[destination]`).',
        'application_fee_amount',
      );
    }
    if (input.applicationFeeAmount > input.amount) {
      throw invalidRequest('The application fee amount must be less than or equal to the PaymentIntent amount.', 'application_fee_amount');
    }
  }
}

export function createPaymentIntent(ctx: TwinContext, input: PaymentIntentCreate): PaymentOutcome {
  const { amount, currency } = input;
  checkAmount(amount, currency);
  if (input.offSession === true && !input.confirm) {
    throw invalidRequest('You can only pass in `off_session` when `confirm` is set to true.', 'off_session');
  }
  const customerId = input.customer ?? null;
  if (customerId) getCustomer(ctx, customerId);
  checkConnectFunds(ctx, input);
  const id = newId(ctx, 'payment_intent');
  const pi: PaymentIntent = {
    id,
    object: 'payment_intent',
    amount,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: 0,
    application: null,
    application_fee_amount: input.applicationFeeAmount ?? null,
    automatic_payment_methods: { allow_redirects: input.allowRedirects ?? 'always', enabled: true },
    canceled_at: null,
    cancellation_reason: null,
    capture_method: 'automatic_async',
    client_secret: `${id}_secret_${ctx.ids.token(25)}`,
    confirmation_method: input.confirmationMethod ?? 'automatic',
    created: ctx.clock.nowSeconds(),
    currency,
    customer: customerId,
    description: input.description ?? null,
    excluded_payment_method_types: null,
    invoice: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    next_action: null,
    on_behalf_of: input.onBehalfOf ?? null,
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
    statement_descriptor: input.statementDescriptor ?? null,
    statement_descriptor_suffix: input.statementDescriptorSuffix ?? null,
    status: 'requires_payment_method',
    transfer_data: input.transferData
      ? { ...(input.transferData.amount !== undefined ? { amount: input.transferData.amount } : {}), destination: input.transferData.destination }
      : null,
    transfer_group: input.transferGroup ?? null,
  };
  applyCommon(ctx, pi, input);
  statusAfterPaymentMethod(pi);
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, 'payment_intent.created', pi);
  if (input.confirm) return confirmPaymentIntent(ctx, pi.id, input, true);
  return { intent: pi };
}

export function updatePaymentIntent(ctx: TwinContext, id: string, input: PaymentIntentUpdate): PaymentIntent {
  const pi = clone(getPaymentIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(pi.status)) {
    throw invalidRequest(
      `This PaymentIntent's amount could not be updated because it has a status of ${pi.status}. You may only update the amount of a PaymentIntent with one of the following statuses: requires_payment_method, requires_confirmation, requires_action.`,
      undefined,
      'payment_intent_unexpected_state',
    );
  }
  const { amount } = input;
  const currency = input.currency?.toLowerCase();
  if (currency) pi.currency = currency;
  if (amount !== undefined) pi.amount = amount;
  if (amount !== undefined || currency) checkAmount(pi.amount, pi.currency);
  if (input.customer !== undefined) {
    getCustomer(ctx, input.customer);
    pi.customer = input.customer;
  }
  if (input.description !== undefined) pi.description = input.description;
  if (input.metadata !== undefined) pi.metadata = applyMetadata(pi.metadata, input.metadata);
  applyCommon(ctx, pi, input);
  statusAfterPaymentMethod(pi);
  return save(ctx, 'payment_intent', pi);
}

/** The error body of a declined attempt (also what `last_payment_error` holds). */
function declineError(failure: { code: string; decline_code: string; message: string }, chargeId: string, pm: PaymentMethod): StripeErrorFields {
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
export function confirmPaymentIntent(ctx: TwinContext, id: string, input: PaymentIntentConfirm, alreadyApplied = false): PaymentOutcome {
  const pi = clone(getPaymentIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(pi.status)) {
    throw invalidRequest(
      `You cannot confirm this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be confirmed: requires_confirmation, requires_action, requires_payment_method.`,
      undefined,
      'payment_intent_unexpected_state',
    );
  }
  if (!alreadyApplied) applyCommon(ctx, pi, input);
  if (!pi.payment_method) {
    throw invalidRequest(
      `You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with ${pi.customer ?? 'a customer'}, specify a payment method attached to this customer along with the customer ID.`,
      'payment_method',
      'payment_intent_unexpected_state',
    );
  }
  const pm = resolvePaymentMethod(ctx, pi.payment_method, 'payment_method');
  if (pm.customer && pi.customer && pm.customer !== pi.customer) {
    throw invalidRequest(`The provided PaymentMethod (${pm.id}) is attached to another customer. It can only be used with that customer.`, 'payment_method');
  }
  if (pm.customer && !pi.customer) {
    throw invalidRequest(
      `The provided PaymentMethod was previously attached to a Customer. To use it in a PaymentIntent, you must also provide the ID of the Customer it is attached to (${pm.customer}).`,
      'payment_method',
    );
  }
  const offSession = input.offSession ?? false;
  const rule = authenticationFor(pm.card?.last4);
  const savedForOffSession = rule === 'on_session' && offSession && pm.customer !== null;
  if (rule && !savedForOffSession) {
    if (offSession) return failAuthenticationOffSession(ctx, pi, pm);
    return requireAction(ctx, pi, input.returnUrl);
  }
  return attemptCharge(ctx, pi, pm);
}

/** The twin-only page a customer "visits" to pass or fail a 3D Secure challenge. */
export function authenticationUrl(ctx: TwinContext, intentId: string): string {
  return `${ctx.baseUrl}${THREE_D_SECURE_PATH.replace('{intent}', intentId)}`;
}

export const THREE_D_SECURE_PATH = '/3d_secure/authenticate/{intent}';

function requireAction(ctx: TwinContext, pi: PaymentIntent, returnUrl: string | undefined): PaymentOutcome {
  const url = authenticationUrl(ctx, pi.id);
  pi.status = 'requires_action';
  pi.next_action = returnUrl
    ? { type: 'redirect_to_url', redirect_to_url: { return_url: returnUrl, url } }
    : { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: url, source: pi.payment_method } };
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, 'payment_intent.requires_action', pi);
  return { intent: pi };
}

function failAuthenticationOffSession(ctx: TwinContext, pi: PaymentIntent, pm: PaymentMethod): PaymentOutcome {
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
  return { intent: pi, decline: fields };
}

/**
 * The customer's answer to the 3D Secure challenge (twin-only helper behind `next_action`):
 * `succeed` charges the card and the intent moves on as after a plain confirm; `fail` returns it to
 * requires_payment_method with `payment_intent_authentication_failure`.
 */
export function completeAuthentication(ctx: TwinContext, id: string, outcome: 'succeed' | 'fail'): PaymentIntent {
  const pi = clone(getPaymentIntent(ctx, id));
  if (pi.status !== 'requires_action') {
    throw invalidRequest(
      `This PaymentIntent has a status of ${pi.status}; there is no authentication to complete.`,
      undefined,
      'payment_intent_unexpected_state',
    );
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
function attemptCharge(ctx: TwinContext, pi: PaymentIntent, pm: PaymentMethod): PaymentOutcome {
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
    transferData: pi.transfer_data,
    onBehalfOf: pi.on_behalf_of,
    applicationFeeAmount: pi.application_fee_amount,
    transferGroup: pi.transfer_group,
  });
  pi.latest_charge = charge.id;
  pi.review = charge.review ?? null;
  if (failure) {
    const fields = declineError(failure, charge.id, pm);
    pi.status = 'requires_payment_method';
    pi.payment_method = null;
    pi.last_payment_error = errorObject(fields);
    save(ctx, 'payment_intent', pi);
    emitEvent(ctx, 'payment_intent.payment_failed', pi);
    return { intent: pi, decline: fields };
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
  return { intent: pi };
}

export function capturePaymentIntent(ctx: TwinContext, id: string, input: { amountToCapture?: number; metadata?: MetadataPatch }): PaymentIntent {
  const pi = clone(getPaymentIntent(ctx, id));
  if (pi.status !== 'requires_capture') {
    throw invalidRequest(
      `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
      undefined,
      'payment_intent_unexpected_state',
    );
  }
  const amount = input.amountToCapture ?? pi.amount_capturable;
  if (amount > pi.amount_capturable) {
    throw invalidRequest(
      `The amount_to_capture (${amount}) cannot be greater than the amount_capturable (${pi.amount_capturable}).`,
      'amount_to_capture',
      'amount_too_large',
    );
  }
  captureCharge(ctx, pi.latest_charge as string, amount, 'amount_to_capture');
  if (input.metadata !== undefined) pi.metadata = applyMetadata(pi.metadata, input.metadata);
  pi.amount_capturable = 0;
  pi.amount_received = amount;
  pi.status = 'succeeded';
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, 'payment_intent.succeeded', pi);
  return pi;
}

const CANCELABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];

export function cancelPaymentIntent(ctx: TwinContext, id: string, reason: (typeof CANCELLATION_REASONS)[number] | null): PaymentIntent {
  const pi = clone(getPaymentIntent(ctx, id));
  if (!CANCELABLE.includes(pi.status)) {
    throw invalidRequest(
      `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`,
      undefined,
      'payment_intent_unexpected_state',
    );
  }
  if (pi.status === 'requires_capture' && pi.latest_charge) releaseAuthorization(ctx, pi.latest_charge as string);
  pi.status = 'canceled';
  pi.canceled_at = ctx.clock.nowSeconds();
  pi.cancellation_reason = reason;
  pi.amount_capturable = 0;
  save(ctx, 'payment_intent', pi);
  emitEvent(ctx, 'payment_intent.canceled', pi);
  return pi;
}

/** One page of payment intents, newest first, of one customer or all. */
export function listPaymentIntents(ctx: TwinContext, customer: string | undefined, window: ListWindow): ListPage<PaymentIntent> {
  return readPage<PaymentIntent>(ctx, 'payment_intent', customer === undefined ? {} : { customer }, window);
}

export const PI_SEARCH_FIELDS = {
  amount: (o: StripeObject) => o.amount,
  created: (o: StripeObject) => o.created,
  currency: (o: StripeObject) => o.currency,
  customer: (o: StripeObject) => o.customer,
  status: (o: StripeObject) => o.status,
};
