// Collecting invoices: one PaymentIntent per invoice, charge attempts, declines (a decline is kept,
// as Stripe keeps it), automatic retries on the configured schedule and the final action after
// the last one, `POST /v1/invoices/{id}/pay`, and one-off charges and setups for checkout.

import type { TwinContext, TwinResponse } from '../../../twin-runtime/contract.js';
import { StripeApiError, invalidRequest, stripeError } from '../wire/errors.js';
import { bool, str, type Params } from '../wire/params.js';
import { clone, find, load, type StripeObject } from './objects.js';
import { confirmPaymentIntent, createPaymentIntent } from './payment-intents.js';
import { createSetupIntent } from './setup-intents.js';
import { patchCustomer } from './customers.js';
import { cancelSubscriptionNow, markPastDue, setStatus } from './subscriptions.js';
import { retrySettings, type RetrySettings } from './billing-settings.js';
import {
  DAY,
  emitInvoice,
  finalizeInvoice,
  invoicePaymentMethod,
  loadInvoice,
  markPaid,
  markUncollectible,
  saveInvoice,
  type Invoice,
} from './invoices.js';

/** Decline codes Stripe never retries (hard declines). */
export const HARD_DECLINES = new Set([
  'incorrect_number',
  'lost_card',
  'pickup_card',
  'stolen_card',
  'revocation_of_authorization',
  'revocation_of_all_authorizations',
  'authentication_required',
  'highest_risk_level',
  'card_not_supported',
  'invalid_account',
  'fraudulent',
]);


// ---------------------------------------------------------------------------------------------
// Payments through the core PaymentIntent / SetupIntent model

interface PaymentResult {
  paymentIntent: string | null;
  charge: string | null;
  failure?: CollectionFailure;
}

function failureOf(pi: StripeObject): CollectionFailure | undefined {
  if (pi.status === 'succeeded' || pi.status === 'requires_capture') return undefined;
  const err = (pi.last_payment_error ?? {}) as Record<string, any>;
  return {
    code: err.code ?? 'card_declined',
    decline_code: err.decline_code ?? null,
    message: err.message ?? 'Your card was declined.',
    charge: pi.latest_charge ?? null,
    payment_intent: pi.id,
  };
}

const MINIMUM_CHARGE: Record<string, number> = { usd: 50, eur: 50, gbp: 30, cad: 50, aud: 50, chf: 50, jpy: 50, inr: 50, sek: 300, nok: 300, dkk: 250, mxn: 1000 };

export function minimumChargeable(currency: string): number {
  return MINIMUM_CHARGE[currency] ?? 50;
}

/** Tag the charge an invoice payment produced with its invoice (Stripe's `charge.invoice`). */
function linkCharge(ctx: TwinContext, chargeId: string | null, invoiceId: string): void {
  if (!chargeId) return;
  const charge = find(ctx, 'charge', chargeId);
  if (charge && !charge.invoice) {
    charge.invoice = invoiceId;
    ctx.store.put('charge', charge.id, charge);
  }
}

/** The invoice's PaymentIntent, created on first need (Stripe creates it at finalization). */
export function invoicePaymentIntent(ctx: TwinContext, inv: Invoice): StripeObject {
  if (inv.payment_intent) {
    const existing = find(ctx, 'payment_intent', inv.payment_intent);
    if (existing) return existing;
  }
  const description =
    inv.billing_reason === 'subscription_create' ? 'Subscription creation' : inv.billing_reason === 'subscription_cycle' ? 'Subscription update' : inv.description ?? null;
  const { intent } = createPaymentIntent(ctx, {
    amount: String(inv.amount_remaining),
    currency: inv.currency,
    customer: inv.customer,
    ...(description ? { description } : {}),
  });
  intent.invoice = inv.id;
  ctx.store.put('payment_intent', intent.id, intent);
  inv.payment_intent = intent.id;
  ctx.store.put('invoice', inv.id, inv);
  return intent;
}

/** One charge attempt of the invoice's PaymentIntent with `paymentMethod`. */
function payInvoiceAmount(ctx: TwinContext, inv: Invoice, paymentMethod: string, opts: { offSession: boolean }): PaymentResult {
  const pi = invoicePaymentIntent(ctx, inv);
  const { intent } = confirmPaymentIntent(ctx, pi.id, { payment_method: paymentMethod, ...(opts.offSession ? { off_session: 'true' } : {}) });
  linkCharge(ctx, intent.latest_charge ?? null, inv.id);
  return { paymentIntent: intent.id, charge: intent.latest_charge ?? null, failure: failureOf(intent) };
}

/** A one-off PaymentIntent confirmed at once (checkout in `payment` mode). */
export function chargeOnce(
  ctx: TwinContext,
  input: { amount: number; currency: string; customer: string | null; paymentMethod: string; description: string | null; metadata: Record<string, string> },
): PaymentResult {
  const p: Params = { amount: String(input.amount), currency: input.currency, payment_method: input.paymentMethod, confirm: 'true' };
  if (input.customer) p.customer = input.customer;
  if (input.description) p.description = input.description;
  if (Object.keys(input.metadata).length > 0) p.metadata = input.metadata;
  const { intent } = createPaymentIntent(ctx, p);
  return { paymentIntent: intent.id, charge: intent.latest_charge ?? null, failure: failureOf(intent) };
}

/** A SetupIntent confirmed at once (checkout in `setup` mode); a refused card answers 402. */
export function confirmSetup(
  ctx: TwinContext,
  input: { customer: string | null; paymentMethod: string; description: string | null; metadata: Record<string, string> },
): string {
  const p: Params = { payment_method: input.paymentMethod, confirm: 'true', usage: 'off_session' };
  if (input.customer) p.customer = input.customer;
  if (input.description) p.description = input.description;
  if (Object.keys(input.metadata).length > 0) p.metadata = input.metadata;
  const res = createSetupIntent(ctx, p);
  const body = res.body as { error?: Record<string, any>; id?: string };
  if (res.status !== 200 || !body.id) {
    const e = body.error ?? {};
    throw new StripeApiError(res.status, { type: e.type ?? 'card_error', code: e.code, decline_code: e.decline_code, message: e.message ?? 'Your card was declined.' });
  }
  return body.id;
}


export interface CollectionFailure {
  code: string;
  decline_code: string | null;
  message: string;
  charge: string | null;
  payment_intent: string | null;
}

export interface CollectionOutcome {
  invoice: Invoice;
  failure?: CollectionFailure;
}

/**
 * Charge an open invoice once. On failure: `attempt_count` grows, `invoice.payment_failed`; for
 * automatic collection the next retry is scheduled (or, after the last one, the configured
 * final action runs) and a renewing subscription turns `past_due`.
 */
export function collectInvoice(
  ctx: TwinContext,
  id: string,
  opts: { paymentMethod: string | null; offSession: boolean; automatic: boolean; updateSubscription: boolean },
): CollectionOutcome {
  const inv = loadInvoice(ctx, id);
  if (inv.status !== 'open') {
    throw invalidRequest(`Invoice is already ${inv.status === 'paid' ? 'paid' : inv.status}`, undefined, 'invoice_not_open');
  }
  if (inv.amount_remaining < minimumChargeable(inv.currency)) {
    // Below the smallest chargeable amount Stripe carries the amount to the customer's balance
    // (added to the next invoice) and marks this one paid.
    const c = find(ctx, 'customer', inv.customer);
    if (c && !c.deleted) patchCustomer(ctx, c.id, { balance: (c.balance ?? 0) + inv.amount_remaining });
    return { invoice: markPaid(ctx, id, { outOfBand: false }) };
  }
  const result = opts.paymentMethod
    ? payInvoiceAmount(ctx, inv, opts.paymentMethod, { offSession: opts.offSession })
    : { failure: { code: 'invoice_no_payment_method', decline_code: null, message: 'The customer has no payment method available to pay this invoice.', charge: null, payment_intent: inv.payment_intent ?? null } as CollectionFailure, paymentIntent: inv.payment_intent ?? null, charge: null };
  if (!result.failure) {
    const paid = markPaid(ctx, id, { outOfBand: false, charge: result.charge, paymentIntent: result.paymentIntent });
    return { invoice: paid };
  }
  const before = loadInvoice(ctx, id);
  const failed = clone(before);
  failed.attempt_count += 1;
  failed.attempted = true;
  if (result.charge) failed.charge = result.charge;
  if (result.paymentIntent) failed.payment_intent = result.paymentIntent;
  const sub = failed.subscription ? find(ctx, 'subscription', failed.subscription) : undefined;
  const firstOfIncomplete = sub?.status === 'incomplete' && failed.billing_reason === 'subscription_create';
  const retryable =
    opts.automatic && !firstOfIncomplete && opts.paymentMethod !== null && !HARD_DECLINES.has(result.failure.decline_code ?? '');
  const settings = retrySettings(ctx);
  // attempt_count 1 is the first charge; retries follow settings.retry_days[0], [1], …
  const delayDays = retryable ? settings.retry_days[failed.attempt_count - 1] : undefined;
  const now = ctx.clock.nowSeconds();
  failed.next_payment_attempt = delayDays !== undefined ? now + delayDays * DAY : null;
  saveInvoice(ctx, failed);
  emitInvoice(ctx, 'invoice.payment_failed', failed, before);
  if (sub && opts.updateSubscription && !firstOfIncomplete) {
    markPastDue(ctx, sub.id);
    if (opts.automatic && failed.next_payment_attempt === null) finalFailure(ctx, failed.id, settings);
  }
  return { invoice: loadInvoice(ctx, id), failure: { ...result.failure, charge: result.charge, payment_intent: result.paymentIntent } };
}

/** Every retry failed: apply the configured subscription and invoice actions. */
function finalFailure(ctx: TwinContext, invoiceId: string, settings: RetrySettings): void {
  const inv = loadInvoice(ctx, invoiceId);
  if (settings.invoice_after_final_failure === 'uncollectible') markUncollectible(ctx, inv.id);
  if (!inv.subscription) return;
  if (settings.subscription_after_final_failure === 'cancel') {
    const sub = find(ctx, 'subscription', inv.subscription);
    if (sub && sub.status !== 'canceled') cancelSubscriptionNow(ctx, sub.id, { reason: 'payment_failed' });
  } else if (settings.subscription_after_final_failure === 'unpaid') {
    setStatus(ctx, inv.subscription, 'unpaid');
  }
}

/** A retry that came due (lifecycle). */
export function retryInvoice(ctx: TwinContext, id: string): void {
  const inv = loadInvoice(ctx, id);
  if (inv.status !== 'open' || inv.next_payment_attempt === null) return;
  collectInvoice(ctx, id, { paymentMethod: invoicePaymentMethod(ctx, inv), offSession: true, automatic: true, updateSubscription: true });
}

export const PAY_PARAMS = { payment_method: true, off_session: true, paid_out_of_band: true, forgive: true, source: true, mandate: true } as const;

/** `POST /v1/invoices/{id}/pay`: finalize a draft if needed, then charge (402 on a decline). */
/**
 * A declined payment answers 402 but keeps the attempt (charge, `attempt_count`, events), as
 * Stripe does: the route returns this response instead of throwing, so nothing is rolled back.
 */
export class DeclinedPayment {
  constructor(readonly response: TwinResponse) {}
}

export function payInvoiceByRequest(ctx: TwinContext, id: string, p: Params): Invoice | DeclinedPayment {
  let inv = loadInvoice(ctx, id);
  if (inv.status === 'paid') throw invalidRequest('Invoice is already paid', undefined, 'invoice_already_paid' as string);
  if (inv.status === 'void') {
    throw invalidRequest('This invoice can no longer be paid because it has been voided.', undefined, 'invoice_not_open');
  }
  if (inv.status === 'draft') inv = finalizeInvoice(ctx, id, { collect: false });
  if (inv.status === 'paid') return inv;
  if (bool(p, 'paid_out_of_band')) return markPaid(ctx, id, { outOfBand: true });
  const pm = str(p, 'payment_method') || invoicePaymentMethod(ctx, inv);
  if (!pm) {
    throw new StripeApiError(400, {
      type: 'invalid_request_error',
      code: 'invoice_no_payment_method_types',
      message: 'This customer has no attached payment source or default payment method.',
    });
  }
  load(ctx, 'payment_method', pm, 'payment_method');
  const outcome = collectInvoice(ctx, id, { paymentMethod: pm, offSession: bool(p, 'off_session') ?? true, automatic: false, updateSubscription: true });
  if (outcome.failure) {
    return new DeclinedPayment(stripeError(402, {
      type: 'card_error',
      code: outcome.failure.code,
      decline_code: outcome.failure.decline_code ?? undefined,
      message: outcome.failure.message,
      extra: { charge: outcome.failure.charge, payment_intent: outcome.failure.payment_intent },
    }));
  }
  return outcome.invoice;
}


/** Called when an invoice's PaymentIntent succeeds outside the invoice flow (client confirmation). */
export function onInvoicePaymentIntentSucceeded(ctx: TwinContext, invoiceId: string, paymentIntent: StripeObject): void {
  const inv = find<Invoice>(ctx, 'invoice', invoiceId);
  if (!inv || inv.status !== 'open') return;
  markPaid(ctx, invoiceId, { outOfBand: false, charge: paymentIntent.latest_charge ?? null, paymentIntent: paymentIntent.id });
}
