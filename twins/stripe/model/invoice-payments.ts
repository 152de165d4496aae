// Collecting invoices: one PaymentIntent per invoice, charge attempts, declines (a decline is kept,
// as Stripe keeps it), automatic retries on the configured schedule and the final action after
// the last one, `POST /v1/invoices/{id}/pay`, and one-off charges and setups for checkout.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { StripeApiError, invalidRequest } from '../wire/errors.js';
import { clone, find, load, type StripeJson, type StripeObject } from './objects.js';
import { confirmPaymentIntent, createPaymentIntent, type PaymentIntentCreate } from './payment-intents.js';
import { createSetupIntent } from './setup-intents.js';
import { changeBalance } from './customer-balance.js';
import { contextForObject } from './clock-scope.js';
import { retrySettings, type RetrySettings } from './billing-settings.js';
import { newId } from './objects.js';
import type { LineSpec } from './invoice-lines.js';
import {
  DAY,
  announce,
  emitInvoice,
  invoiceObject,
  invoicePaymentIntent,
  minimumChargeable,
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
  const err = (pi.last_payment_error ?? {}) as StripeJson;
  return {
    code: err.code ?? 'card_declined',
    decline_code: err.decline_code ?? null,
    message: err.message ?? 'Your card was declined.',
    charge: pi.latest_charge ?? null,
    payment_intent: pi.id,
  };
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

/** One charge attempt of the invoice's PaymentIntent with `paymentMethod`. */
function payInvoiceAmount(ctx: TwinContext, inv: Invoice, paymentMethod: string, opts: { offSession: boolean }): PaymentResult {
  const pi = invoicePaymentIntent(ctx, inv);
  const { intent } = confirmPaymentIntent(ctx, pi.id, { paymentMethod, offSession: opts.offSession });
  linkCharge(ctx, intent.latest_charge ?? null, inv.id);
  return { paymentIntent: intent.id, charge: intent.latest_charge ?? null, failure: failureOf(intent) };
}

/** A one-off PaymentIntent confirmed at once (checkout in `payment` mode). */
export function chargeOnce(
  ctx: TwinContext,
  input: {
    amount: number;
    currency: string;
    customer: string | null;
    paymentMethod: string;
    description: string | null;
    metadata: Record<string, string>;
    /** A Checkout Session's Connect options for its payment. */
    connect?: Pick<PaymentIntentCreate, 'transferData' | 'applicationFeeAmount' | 'onBehalfOf' | 'transferGroup'>;
  },
): PaymentResult {
  const { intent } = createPaymentIntent(ctx, {
    ...input.connect,
    amount: input.amount,
    currency: input.currency,
    paymentMethod: input.paymentMethod,
    confirm: true,
    customer: input.customer ?? undefined,
    description: input.description || undefined,
    metadata: Object.keys(input.metadata).length > 0 ? input.metadata : undefined,
  });
  return { paymentIntent: intent.id, charge: intent.latest_charge ?? null, failure: failureOf(intent) };
}

/** A SetupIntent confirmed at once (checkout in `setup` mode); a refused card answers 402. */
export function confirmSetup(
  ctx: TwinContext,
  input: { customer: string | null; paymentMethod: string; description: string | null; metadata: Record<string, string> },
): string {
  const { intent, decline } = createSetupIntent(ctx, {
    paymentMethod: input.paymentMethod,
    confirm: true,
    usage: 'off_session',
    customer: input.customer ?? undefined,
    description: input.description || undefined,
    metadata: Object.keys(input.metadata).length > 0 ? input.metadata : undefined,
  });
  if (decline) throw new StripeApiError(402, { type: decline.type, code: decline.code, decline_code: decline.decline_code, message: decline.message });
  return intent.id;
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
    if (c && !c.deleted) {
      changeBalance(ctx, c.id, { amount: inv.amount_remaining, currency: inv.currency, type: 'invoice_too_small', invoice: inv.id });
    }
    return { invoice: markPaid(ctx, id, { outOfBand: false }) };
  }
  const result = opts.paymentMethod
    ? payInvoiceAmount(ctx, inv, opts.paymentMethod, { offSession: opts.offSession })
    : {
        failure: {
          code: 'invoice_no_payment_method',
          decline_code: null,
          message: 'The customer has no payment method available to pay this invoice.',
          charge: null,
          payment_intent: inv.payment_intent ?? null,
        } as CollectionFailure,
        paymentIntent: inv.payment_intent ?? null,
        charge: null,
      };
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
  const retryable = opts.automatic && !firstOfIncomplete && opts.paymentMethod !== null && !HARD_DECLINES.has(result.failure.decline_code ?? '');
  const settings = retrySettings(ctx);
  // attempt_count 1 is the first charge; retries follow settings.retry_days[0], [1], …
  const delayDays = retryable ? settings.retry_days[failed.attempt_count - 1] : undefined;
  const now = ctx.clock.nowSeconds();
  failed.next_payment_attempt = delayDays !== undefined ? now + delayDays * DAY : null;
  saveInvoice(ctx, failed);
  emitInvoice(ctx, 'invoice.payment_failed', failed, before);
  if (sub && opts.updateSubscription && !firstOfIncomplete) {
    announce(ctx, (l) => l.paymentFailed?.(ctx, failed));
    if (opts.automatic && failed.next_payment_attempt === null) finalFailure(ctx, failed.id, settings);
  }
  return { invoice: loadInvoice(ctx, id), failure: { ...result.failure, charge: result.charge, payment_intent: result.paymentIntent } };
}

/**
 * Draft → open, then, for an automatically collected invoice, the first charge (renewals, billed
 * prorations, auto-advancing drafts coming due).
 */
export function finalizeAndCollect(ctx: TwinContext, id: string): Invoice {
  const inv = finalizeInvoice(ctx, id);
  if (inv.status === 'open' && inv.collection_method === 'charge_automatically' && inv.auto_advance !== false) {
    collectInvoice(ctx, id, { paymentMethod: invoicePaymentMethod(ctx, inv), offSession: true, automatic: true, updateSubscription: true });
  }
  return loadInvoice(ctx, id);
}

/** `always_invoice`: bill proration lines at once on a `subscription_update` invoice. */
export function invoiceProrationsNow(ctx: TwinContext, sub: StripeObject, lines: LineSpec[]): Invoice {
  const customer = load(ctx, 'customer', sub.customer, 'customer');
  const now = ctx.clock.nowSeconds();
  const inv = invoiceObject(ctx, newId(ctx, 'invoice'), {
    customer,
    currency: sub.currency,
    subscription: sub,
    billingReason: 'subscription_update',
    lines,
    period: { start: now, end: now },
    collectionMethod: sub.collection_method,
    daysUntilDue: sub.days_until_due ?? null,
    autoAdvance: true,
    autoFinalizeAt: null,
  });
  saveInvoice(ctx, inv);
  emitInvoice(ctx, 'invoice.created', inv);
  // A net credit is not charged: finalization credits it to the customer's balance.
  return finalizeAndCollect(ctx, inv.id);
}

/** Every retry failed: apply the configured subscription and invoice actions. */
function finalFailure(ctx: TwinContext, invoiceId: string, settings: RetrySettings): void {
  const inv = loadInvoice(ctx, invoiceId);
  if (settings.invoice_after_final_failure === 'uncollectible') markUncollectible(ctx, inv.id);
  if (!inv.subscription) return;
  announce(ctx, (l) => l.retriesExhausted?.(ctx, inv, settings.subscription_after_final_failure));
}

/** A retry that came due (lifecycle). */
export function retryInvoice(ctx: TwinContext, id: string): void {
  const inv = loadInvoice(ctx, id);
  if (inv.status !== 'open' || inv.next_payment_attempt === null) return;
  collectInvoice(ctx, id, { paymentMethod: invoicePaymentMethod(ctx, inv), offSession: true, automatic: true, updateSubscription: true });
}

export interface InvoicePayment {
  paymentMethod?: string;
  paidOutOfBand?: boolean;
  offSession?: boolean;
}

/**
 * `POST /v1/invoices/{id}/pay`: finalize a draft if needed, then charge. A decline is an outcome:
 * the attempt is kept (charge, `attempt_count`, events) and `decline` says what failed (402).
 */
export function payInvoice(ctx: TwinContext, id: string, input: InvoicePayment): { invoice: Invoice; decline?: CollectionFailure } {
  ctx = contextForObject(ctx, 'invoice', id);
  let inv = loadInvoice(ctx, id);
  if (inv.status === 'paid') throw invalidRequest('Invoice is already paid', undefined, 'invoice_already_paid' as string);
  if (inv.status === 'void') {
    throw invalidRequest('This invoice can no longer be paid because it has been voided.', undefined, 'invoice_not_open');
  }
  if (inv.status === 'draft') inv = finalizeInvoice(ctx, id);
  if (inv.status === 'paid') return { invoice: inv };
  if (input.paidOutOfBand) return { invoice: markPaid(ctx, id, { outOfBand: true }) };
  const pm = input.paymentMethod || invoicePaymentMethod(ctx, inv);
  if (!pm) {
    throw new StripeApiError(400, {
      type: 'invalid_request_error',
      code: 'invoice_no_payment_method_types',
      message: 'This customer has no attached payment source or default payment method.',
    });
  }
  load(ctx, 'payment_method', pm, 'payment_method');
  const outcome = collectInvoice(ctx, id, { paymentMethod: pm, offSession: input.offSession ?? true, automatic: false, updateSubscription: true });
  return outcome.failure ? { invoice: outcome.invoice, decline: outcome.failure } : { invoice: outcome.invoice };
}

/** Called when an invoice's PaymentIntent succeeds outside the invoice flow (client confirmation). */
export function onInvoicePaymentIntentSucceeded(ctx: TwinContext, invoiceId: string, paymentIntent: StripeObject): void {
  const inv = find<Invoice>(ctx, 'invoice', invoiceId);
  if (inv?.status !== 'open') return;
  markPaid(ctx, invoiceId, { outOfBand: false, charge: paymentIntent.latest_charge ?? null, paymentIntent: paymentIntent.id });
}
