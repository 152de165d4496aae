// Subscriptions: create (first invoice collected at once), update (quantity, price, cancellation
// at period end; no prorations), cancel now, list. The subscription record embeds its items (as
// the API returns them); each item is mirrored as a `subscription_item` record for lookups.
// Renewals, trial ends and scheduled cancellations happen in lifecycle.ts.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { StripeApiError, invalidRequest, missingParam, resourceMissing } from '../wire/errors.js';
import { applyMetadata, clone, find, load, newId, previousAttributes, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type CreatedRange, type FieldEquals, type ListPage, type ListWindow, type MoreConditions } from './pages.js';
import { syncEntitlements } from './entitlements.js';
import { emitEvent } from './events.js';
import { contextForCustomer, contextForObject } from './clock-scope.js';
import { loadTaxRates } from './tax-rates.js';
import { endDiscount, loadDiscount, redeemAll, replaceDiscounts, type DiscountRef } from './discounts.js';
import { getCustomer } from './customers.js';
import { nextBoundary } from './billing-cycle.js';
import { resolvePrice, type PriceRef } from './prices.js';
import { createInvoiceItem } from './invoice-items.js';
import { isMetered, loadRecurringPrice, planOf, recurrenceOf, subscriptionItems, subscriptionPaymentMethod } from './subscription-items.js';
import { addPendingProrations, prorationLines, type LineSpec } from './invoice-lines.js';
import { closeInvoicesOf, createSubscriptionInvoice, finalizeInvoice, loadInvoice, markUncollectible, onInvoiceOutcome, voidInvoice } from './invoices.js';
import { collectInvoice, finalizeAndCollect, invoiceProrationsNow, type CollectionFailure } from './invoice-payments.js';
import { scheduledSubscriptionCanceled } from './subscription-schedules.js';
import { checkDestination } from './transfers.js';
import { accountOf, isConnectedAccount } from '../wire/connect-scope.js';

export const SUBSCRIPTION_STATUSES = ['active', 'canceled', 'incomplete', 'incomplete_expired', 'past_due', 'paused', 'trialing', 'unpaid'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Statuses whose subscriptions keep billing (renewals happen, cancel_at applies). */
export const LIVE_STATUSES: readonly string[] = ['active', 'past_due', 'trialing', 'unpaid'];

const DAY = 86_400;
/** Stripe expires a subscription whose first invoice stays unpaid this long. */
export const INCOMPLETE_EXPIRY_SECONDS = 23 * 3600;

function buildItem(
  ctx: TwinContext,
  subscriptionId: string,
  price: StripeObject,
  quantity: number | undefined,
  meta: Record<string, string>,
  period: { start: number; end: number },
): StripeObject {
  const item: StripeObject = {
    id: newId(ctx, 'subscription_item'),
    object: 'subscription_item',
    billing_thresholds: null,
    created: ctx.clock.nowSeconds(),
    current_period_end: period.end,
    current_period_start: period.start,
    discounts: [],
    metadata: meta,
    plan: planOf(price),
    price: clone(price),
    subscription: subscriptionId,
    tax_rates: [],
  };
  // Metered items carry no quantity: usage comes from meter events.
  if (!isMetered(price)) item.quantity = quantity ?? 1;
  return item;
}

// ---------------------------------------------------------------------------------------------
// Storage

export function loadSubscription(ctx: TwinContext, id: string, param = 'id'): StripeObject {
  return load(ctx, 'subscription', id, param);
}

/** Store the subscription and mirror its items; items removed from it lose their record. */
export function saveSubscription(ctx: TwinContext, sub: StripeObject): StripeObject {
  const items: StripeObject[] = sub.items.data;
  sub.items.total_count = items.length;
  ctx.store.put('subscription', sub.id, sub);
  for (const item of items) ctx.store.put('subscription_item', item.id, item);
  return sub;
}

/** Write the new state and emit `customer.subscription.updated` with what changed. */
export function updateAndEmit(ctx: TwinContext, before: StripeObject, after: StripeObject): StripeObject {
  saveSubscription(ctx, after);
  const prev = previousAttributes(before, after);
  if (Object.keys(prev).length > 0) {
    emitEvent(ctx, 'customer.subscription.updated', after, prev);
    syncEntitlements(ctx, after.customer);
  }
  return after;
}

function setPeriod(sub: StripeObject, start: number, end: number): void {
  sub.current_period_start = start;
  sub.current_period_end = end;
  for (const item of subscriptionItems(sub)) {
    item.current_period_start = start;
    item.current_period_end = end;
  }
}

// ---------------------------------------------------------------------------------------------
// Create

export const PAYMENT_BEHAVIORS = ['allow_incomplete', 'default_incomplete', 'error_if_incomplete', 'pending_if_incomplete'] as const;
export const COLLECTION_METHODS = ['charge_automatically', 'send_invoice'] as const;
export const PRORATION_BEHAVIORS = ['always_invoice', 'create_prorations', 'none'] as const;
export const MISSING_PAYMENT_METHOD = ['cancel', 'create_invoice', 'pause'] as const;
export const FEEDBACK = ['customer_service', 'low_quality', 'missing_features', 'other', 'switched_service', 'too_complex', 'too_expensive', 'unused'] as const;

export interface SubscriptionItemInput extends PriceRef {
  /** The price is the purchase's own (a Checkout Session's or quote's line, maybe inline): taken even if archived. */
  ownPrice?: boolean;
  taxRates?: string[];
  quantity?: number;
  metadata?: MetadataPatch;
}

/** One of `add_invoice_items`: a one-off price (by id or inline) billed on the subscription's next invoice. */
export interface AddInvoiceItem extends PriceRef {
  quantity?: number;
  taxRates?: string[];
}

export interface SubscriptionCreate {
  customer: string;
  items?: SubscriptionItemInput[];
  addInvoiceItems?: AddInvoiceItem[];
  paymentBehavior?: (typeof PAYMENT_BEHAVIORS)[number];
  collectionMethod?: (typeof COLLECTION_METHODS)[number];
  daysUntilDue?: number;
  defaultPaymentMethod?: string;
  /** A timestamp, or `now`; checked against the clock here. */
  trialEnd?: number | 'now';
  trialPeriodDays?: number;
  trialFromPlan?: boolean;
  billingCycleAnchor?: number;
  cancelAtPeriodEnd?: boolean;
  cancelAt?: number;
  description?: string;
  metadata?: MetadataPatch;
  missingPaymentMethod?: (typeof MISSING_PAYMENT_METHOD)[number];
  discounts?: DiscountRef[];
  defaultTaxRates?: string[];
  /** Connect: each invoice's payment goes to this account (or `amountPercent` of it). */
  transferData?: { destination: string; amountPercent?: number };
  /** Connect: the platform's share of each invoice, in percent. */
  applicationFeePercent?: number;
  onBehalfOf?: string;
}

/** An item change: `id` names an existing item (changed or `deleted`), else a new item on `price`. */
export interface SubscriptionItemChange extends PriceRef {
  id?: string;
  /** The price is the caller's own (a schedule phase's, maybe archived inline): taken even if archived. */
  ownPrice?: boolean;
  quantity?: number;
  deleted?: boolean;
  metadata?: MetadataPatch;
}

export interface SubscriptionUpdate {
  items?: SubscriptionItemChange[];
  addInvoiceItems?: AddInvoiceItem[];
  prorationBehavior?: (typeof PRORATION_BEHAVIORS)[number];
  metadata?: MetadataPatch;
  /** `null` clears it. */
  description?: string | null;
  /** `null` unsets it. */
  defaultPaymentMethod?: string | null;
  cancellationDetails?: { comment?: string | null; feedback?: (typeof FEEDBACK)[number] | null };
  cancelAtPeriodEnd?: boolean;
  /** `null` removes a scheduled cancellation. */
  cancelAt?: number | null;
  collectionMethod?: (typeof COLLECTION_METHODS)[number];
  daysUntilDue?: number;
  trialEnd?: number | 'now';
  /** `null` removes every discount. */
  discounts?: DiscountRef[] | null;
  /** `null` resumes collection. */
  pauseCollection?: { behavior: 'keep_as_draft' | 'mark_uncollectible' | 'void'; resumesAt?: number } | null;
  defaultTaxRates?: string[];
}

/** The parameter each field of an update comes from, in the order a refusal names the first one. */
const UPDATE_PARAM_NAMES: [keyof SubscriptionUpdate, string][] = [
  ['items', 'items'],
  ['addInvoiceItems', 'add_invoice_items'],
  ['defaultPaymentMethod', 'default_payment_method'],
  ['cancelAtPeriodEnd', 'cancel_at_period_end'],
  ['cancelAt', 'cancel_at'],
  ['description', 'description'],
  ['prorationBehavior', 'proration_behavior'],
  ['trialEnd', 'trial_end'],
  ['collectionMethod', 'collection_method'],
  ['daysUntilDue', 'days_until_due'],
  ['discounts', 'discounts'],
];

export interface SubscriptionFilter {
  customer?: string;
  status?: 'active' | 'all' | 'canceled' | 'ended' | 'incomplete' | 'incomplete_expired' | 'past_due' | 'paused' | 'trialing' | 'unpaid';
  price?: string;
  collectionMethod?: string;
  testClock?: string;
  /** `current_period_end` / `current_period_start` ranges: an exact value or bounds. */
  currentPeriodEnd?: TimeRange;
  currentPeriodStart?: TimeRange;
}

export type TimeRange = number | { gt?: number; gte?: number; lt?: number; lte?: number };

function readItems(ctx: TwinContext, raw: SubscriptionItemInput[] | undefined): { price: StripeObject; quantity?: number; metadata: Record<string, string> }[] {
  if (!raw || raw.length === 0) throw missingParam('items');
  const items = raw.map((it, i) => {
    const prefix = `items[${i}]`;
    const inline = it.priceData !== undefined || it.ownPrice === true;
    const price = loadRecurringPrice(ctx, resolvePrice(ctx, it, prefix), `${prefix}[price]`, inline);
    const quantity = it.quantity;
    if (quantity !== undefined && quantity < 0) {
      throw invalidRequest('Invalid quantity: must be greater than or equal to 0', `${prefix}[quantity]`);
    }
    if (quantity !== undefined && isMetered(price)) {
      throw invalidRequest(
        'Quantity should not be specified where usage_type is `metered`. Remove quantity from `items[0]`.'.replace('items[0]', prefix),
        `${prefix}[quantity]`,
      );
    }
    return { price, quantity, metadata: it.metadata === undefined ? {} : applyMetadata({}, it.metadata) };
  });
  const first = items[0]!.price;
  for (const [i, it] of items.entries()) {
    if (it.price.currency !== first.currency) {
      throw invalidRequest(
        `The price specified (${it.price.id}) has a currency (${it.price.currency}) that does not match the currency of the other prices (${first.currency}).`,
        `items[${i}][price]`,
      );
    }
    const a = recurrenceOf(it.price);
    const b = recurrenceOf(first);
    if (a.interval !== b.interval || a.interval_count !== b.interval_count) {
      throw invalidRequest(
        'The price specified has a different billing interval than the other prices on this subscription. All prices on a subscription must have the same `recurring.interval` and `recurring.interval_count`.',
        `items[${i}][price]`,
      );
    }
  }
  return items;
}

/** `trial_end` (a timestamp or `now`), `trial_period_days`, or `trial_from_plan`. */
function readTrialEnd(input: SubscriptionCreate, now: number, prices: StripeObject[]): number | null | 'now' {
  if (input.trialEnd === 'now') return 'now';
  const end = input.trialEnd;
  if (end !== undefined) {
    if (end <= now) throw invalidRequest('Invalid timestamp: must be an integer Unix timestamp in the future.', 'trial_end');
    if (end > now + 730 * DAY) {
      throw invalidRequest('Invalid timestamp: can be no more than two years in the future.', 'trial_end');
    }
    return end;
  }
  const days = input.trialPeriodDays;
  if (days !== undefined) {
    if (days < 0) throw invalidRequest('Invalid integer: must be greater than or equal to 0', 'trial_period_days');
    if (days > 730) throw invalidRequest('Invalid integer: must be less than or equal to 730', 'trial_period_days');
    return days === 0 ? null : now + days * DAY;
  }
  if (input.trialFromPlan) {
    const planDays = prices.map((pr) => pr.recurring?.trial_period_days).find((d) => typeof d === 'number' && d > 0);
    if (planDays) return now + planDays * DAY;
  }
  return null;
}

/** Check that a payment method exists and belongs to the customer (Stripe's wording). */
export function checkPaymentMethodFor(ctx: TwinContext, pmId: string, customerId: string, param: string): void {
  const pm = load(ctx, 'payment_method', pmId, param);
  if (pm.customer !== customerId) {
    throw invalidRequest(`The customer does not have a payment method with the ID ${pmId}. The payment method must be attached to the customer.`, param);
  }
}

function noPaymentMethodError(): StripeApiError {
  return new StripeApiError(400, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message:
      'This customer has no attached payment source or default payment method. Please consider adding a default payment method. For more information, visit https://stripe.com/docs/billing/subscriptions/payment-methods-setting#payment-method-priority.',
  });
}

/** The 402 Stripe answers when `payment_behavior=error_if_incomplete` and the first payment fails. */
function cardErrorOf(failure: CollectionFailure): StripeApiError {
  return new StripeApiError(402, {
    type: 'card_error',
    code: failure.code,
    decline_code: failure.decline_code ?? undefined,
    message: failure.message,
    extra: { charge: failure.charge, payment_intent: failure.payment_intent },
  });
}

/** A subscription's Connect options, checked as Stripe checks them before anything is made. */
function checkConnectBilling(ctx: TwinContext, input: SubscriptionCreate): void {
  if (input.transferData) checkDestination(ctx, input.transferData.destination, 'transfer_data[destination]');
  if (input.onBehalfOf !== undefined && !isConnectedAccount(ctx, input.onBehalfOf)) throw resourceMissing('account', input.onBehalfOf, 'on_behalf_of');
  for (const [value, param] of [
    [input.applicationFeePercent, 'application_fee_percent'],
    [input.transferData?.amountPercent, 'transfer_data[amount_percent]'],
  ] as const) {
    if (value !== undefined && !(value >= 0 && value <= 100)) throw invalidRequest(`Invalid ${param}: must be between 0 and 100.`, param);
  }
  if (input.applicationFeePercent !== undefined && !input.transferData && !accountOf(ctx)) {
    throw invalidRequest(
      'Can only apply an application_fee_percent when the request is made on behalf of another account (using an OAuth key, the Stripe-Account header, or `transfer_data[destination]`).',
      'application_fee_percent',
    );
  }
}

export function createSubscription(ctx: TwinContext, input: SubscriptionCreate): StripeObject {
  checkConnectBilling(ctx, input);
  ctx = contextForCustomer(ctx, input.customer);
  const customerId = input.customer;
  const customer = getCustomer(ctx, customerId, 'customer');
  const items = readItems(ctx, input.items);
  const prices = items.map((i) => i.price);
  const now = ctx.clock.nowSeconds();
  const recurrence = recurrenceOf(prices[0]!);
  const paymentBehavior = input.paymentBehavior ?? 'allow_incomplete';
  const collection = input.collectionMethod ?? 'charge_automatically';
  const daysUntilDue = input.daysUntilDue;
  if (collection === 'send_invoice' && daysUntilDue === undefined) {
    throw invalidRequest('Missing required param: days_until_due.', 'days_until_due', 'parameter_missing');
  }
  if (collection === 'charge_automatically' && daysUntilDue !== undefined) {
    throw invalidRequest('The `days_until_due` parameter can only be set when `collection_method` is `send_invoice`.', 'days_until_due');
  }
  const defaultPm = input.defaultPaymentMethod || null;
  if (defaultPm) checkPaymentMethodFor(ctx, defaultPm, customerId, 'default_payment_method');

  let trialEnd = readTrialEnd(input, now, prices);
  if (trialEnd === 'now') trialEnd = null;
  const anchorParam = input.billingCycleAnchor;
  if (anchorParam !== undefined && anchorParam < now) {
    throw invalidRequest('Invalid timestamp: must be an integer Unix timestamp in the future.', 'billing_cycle_anchor');
  }
  const anchor = trialEnd ?? anchorParam ?? now;
  const periodEnd = trialEnd ?? nextBoundary(anchor, recurrence, now);

  const cancelAtPeriodEnd = input.cancelAtPeriodEnd ?? false;
  const cancelAtParam = input.cancelAt;
  if (cancelAtParam !== undefined && cancelAtParam <= now) {
    throw invalidRequest('Invalid timestamp: must be an integer Unix timestamp in the future.', 'cancel_at');
  }

  const id = newId(ctx, 'subscription');
  const period = { start: now, end: periodEnd };
  const sub: StripeObject = {
    id,
    object: 'subscription',
    application: null,
    application_fee_percent: input.applicationFeePercent ?? null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: anchor,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: 'classic' },
    billing_thresholds: null,
    cancel_at: cancelAtParam ?? (cancelAtPeriodEnd ? periodEnd : null),
    cancel_at_period_end: cancelAtPeriodEnd,
    canceled_at: cancelAtPeriodEnd || cancelAtParam !== undefined ? now : null,
    cancellation_details: { comment: null, feedback: null, reason: cancelAtPeriodEnd || cancelAtParam !== undefined ? 'cancellation_requested' : null },
    collection_method: collection,
    created: now,
    currency: prices[0]!.currency,
    // Pre-2025 API versions read the period from the subscription itself; kept alongside the items'
    // (and shown only to those versions: wire/versions.ts).
    current_period_end: period.end,
    current_period_start: period.start,
    customer: customerId,
    customer_account: null,
    days_until_due: daysUntilDue ?? null,
    default_payment_method: defaultPm,
    default_source: null,
    default_tax_rates: [],
    description: input.description ?? null,
    discounts: [],
    ended_at: null,
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/subscription_items?subscription=${id}` },
    latest_invoice: null,
    livemode: false,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    next_pending_invoice_item_invoice: null,
    on_behalf_of: input.onBehalfOf ?? null,
    pause_collection: null,
    payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: now,
    status: trialEnd ? 'trialing' : 'incomplete',
    test_clock: customer.test_clock ?? null,
    transfer_data: input.transferData ? { amount_percent: input.transferData.amountPercent ?? null, destination: input.transferData.destination } : null,
    trial_end: trialEnd,
    trial_settings: {
      end_behavior: {
        missing_payment_method: input.missingPaymentMethod ?? 'create_invoice',
      },
    },
    trial_start: trialEnd ? now : null,
  };
  sub.items.data = items.map((it) => buildItem(ctx, id, it.price, it.quantity, it.metadata, period));
  (input.items ?? []).forEach((it, i) => {
    if (it.taxRates) sub.items.data[i].tax_rates = loadTaxRates(ctx, it.taxRates, `items[${i}][tax_rates]`);
  });
  if (input.defaultTaxRates) sub.default_tax_rates = loadTaxRates(ctx, input.defaultTaxRates, 'default_tax_rates');
  if (input.discounts && input.discounts.length > 0) sub.discounts = redeemAll(ctx, input.discounts, { customer: customerId, subscription: id });

  const paymentMethod = subscriptionPaymentMethod(ctx, sub);
  const needsPayment = !trialEnd && collection === 'charge_automatically' && paymentBehavior !== 'default_incomplete';
  if (needsPayment && !paymentMethod && firstInvoiceTotal(sub) > 0) throw noPaymentMethodError();

  saveSubscription(ctx, sub);
  addInvoiceItems(ctx, sub, input.addInvoiceItems);
  const invoice = createSubscriptionInvoice(ctx, sub, 'subscription_create', {
    licensed: period,
    trial: Boolean(trialEnd),
  });
  sub.latest_invoice = invoice.id;
  saveSubscription(ctx, sub);
  finalizeInvoice(ctx, invoice.id);

  let status: SubscriptionStatus = trialEnd ? 'trialing' : 'incomplete';
  if (!trialEnd) {
    if (collection === 'send_invoice') {
      status = 'active';
    } else if (loadInvoice(ctx, invoice.id).status === 'paid') {
      status = 'active';
    } else if (paymentBehavior !== 'default_incomplete') {
      const outcome = collectInvoice(ctx, invoice.id, { paymentMethod, offSession: true, automatic: false, updateSubscription: false });
      if (outcome.failure && paymentBehavior === 'error_if_incomplete') throw cardErrorOf(outcome.failure);
      status = outcome.failure ? 'incomplete' : 'active';
    }
  }
  const fresh = loadSubscription(ctx, id);
  fresh.status = status;
  saveSubscription(ctx, fresh);
  emitEvent(ctx, 'customer.subscription.created', fresh);
  syncEntitlements(ctx, fresh.customer);
  return fresh;
}

/**
 * `add_invoice_items`: invoice items pending on the subscription (with their `invoiceitem.created`),
 * which its next invoice takes — the first one on a create.
 */
function addInvoiceItems(ctx: TwinContext, sub: StripeObject, list: AddInvoiceItem[] | undefined): void {
  (list ?? []).forEach((it, i) => {
    const prefix = `add_invoice_items[${i}]`;
    const price = load(ctx, 'price', resolvePrice(ctx, it, prefix), `${prefix}[price]`);
    if (price.type === 'recurring') {
      throw invalidRequest('The price specified is set to `type=recurring` but this field only accepts prices with `type=one_time`.', `${prefix}[price]`);
    }
    if (price.currency !== sub.currency) {
      throw invalidRequest(
        `The price specified (${price.id}) has a currency (${price.currency}) that does not match the subscription's currency (${sub.currency}).`,
        `${prefix}[price]`,
      );
    }
    createInvoiceItem(ctx, { customer: sub.customer, subscription: sub.id, price: price.id, quantity: it.quantity, taxRates: it.taxRates });
  });
}

/** What the first invoice would charge (licensed items for the first period). */
function firstInvoiceTotal(sub: StripeObject): number {
  let total = 0;
  for (const item of subscriptionItems(sub)) {
    if (isMetered(item.price)) continue;
    total += (item.price.unit_amount ?? 0) * (item.quantity ?? 1);
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Update

const CANCELED_ONLY: (keyof SubscriptionUpdate)[] = ['cancellationDetails', 'metadata'];

export function updateSubscription(ctx: TwinContext, id: string, input: SubscriptionUpdate): StripeObject {
  ctx = contextForObject(ctx, 'subscription', id);
  const before = loadSubscription(ctx, id);
  const sub = clone(before);
  const now = ctx.clock.nowSeconds();
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
    const other = UPDATE_PARAM_NAMES.find(([field]) => input[field] !== undefined && !CANCELED_ONLY.includes(field));
    if (other) {
      throw invalidRequest('A canceled subscription can only update its cancellation_details and metadata.', other[1]);
    }
  }
  const prorationBehavior = input.prorationBehavior ?? 'create_prorations';
  const itemsBefore = new Map(subscriptionItems(sub).map((i) => [i.id as string, { price: i.price as StripeObject, quantity: (i.quantity ?? 0) as number }]));

  if (input.metadata !== undefined) sub.metadata = applyMetadata(sub.metadata, input.metadata);
  if (input.description !== undefined) sub.description = input.description;
  if (input.defaultPaymentMethod !== undefined) {
    const pm = input.defaultPaymentMethod;
    if (pm) checkPaymentMethodFor(ctx, pm, sub.customer, 'default_payment_method');
    sub.default_payment_method = pm;
  }
  const details = input.cancellationDetails;
  if (details) {
    if (details.comment !== undefined) sub.cancellation_details.comment = details.comment;
    if (details.feedback !== undefined) sub.cancellation_details.feedback = details.feedback;
  }
  const cape = input.cancelAtPeriodEnd;
  if (cape !== undefined) {
    sub.cancel_at_period_end = cape;
    sub.cancel_at = cape ? sub.current_period_end : null;
    sub.canceled_at = cape ? now : null;
    sub.cancellation_details.reason = cape ? 'cancellation_requested' : null;
  }
  if (input.cancelAt !== undefined) {
    const at = input.cancelAt;
    if (at !== null && at <= now) throw invalidRequest('Invalid timestamp: must be an integer Unix timestamp in the future.', 'cancel_at');
    sub.cancel_at = at;
    sub.cancel_at_period_end = at !== null && at === sub.current_period_end;
    sub.canceled_at = at === null ? null : now;
    sub.cancellation_details.reason = at === null ? null : 'cancellation_requested';
  }
  if (input.collectionMethod !== undefined) sub.collection_method = input.collectionMethod;
  if (input.daysUntilDue !== undefined) sub.days_until_due = input.daysUntilDue;
  if (input.pauseCollection !== undefined) {
    const pc = input.pauseCollection;
    if (pc?.resumesAt !== undefined && pc.resumesAt <= now)
      throw invalidRequest('Invalid timestamp: must be an integer Unix timestamp in the future.', 'pause_collection[resumes_at]');
    sub.pause_collection = pc === null ? null : { behavior: pc.behavior, resumes_at: pc.resumesAt ?? null };
  }
  if (input.defaultTaxRates !== undefined) sub.default_tax_rates = loadTaxRates(ctx, input.defaultTaxRates, 'default_tax_rates');
  if (input.discounts !== undefined) {
    sub.discounts = replaceDiscounts(ctx, sub.discounts ?? [], input.discounts, { customer: sub.customer, subscription: sub.id });
  }

  const itemsIn = input.items;
  if (itemsIn) applyItemChanges(ctx, sub, itemsIn);
  addInvoiceItems(ctx, sub, input.addInvoiceItems);

  let endTrialNow = false;
  if (input.trialEnd !== undefined) {
    if (input.trialEnd === 'now') endTrialNow = sub.status === 'trialing';
    else {
      const end = input.trialEnd;
      if (end <= now) throw invalidRequest('Invalid timestamp: must be an integer Unix timestamp in the future.', 'trial_end');
      sub.trial_end = end;
      sub.trial_start ??= now;
      sub.status = 'trialing';
      sub.billing_cycle_anchor = end;
      setPeriod(sub, sub.current_period_start, end);
    }
  }

  // Item changes mid-period are prorated (not during a trial, which bills nothing).
  const prorations: LineSpec[] = [];
  if (itemsIn && prorationBehavior !== 'none' && (sub.status === 'active' || sub.status === 'past_due')) {
    const after = new Map(subscriptionItems(sub).map((i) => [i.id as string, { price: i.price as StripeObject, quantity: (i.quantity ?? 0) as number }]));
    for (const id of new Set([...itemsBefore.keys(), ...after.keys()])) {
      const was = itemsBefore.get(id);
      const is = after.get(id);
      if (was && is && was.price.id === is.price.id && was.quantity === is.quantity) continue;
      prorations.push(...prorationLines(ctx, sub, { itemId: id, old: was, new: is }, now));
    }
  }
  updateAndEmit(ctx, before, sub);
  if (prorations.length > 0) {
    if (prorationBehavior === 'always_invoice') {
      const inv = invoiceProrationsNow(ctx, loadSubscription(ctx, id), prorations);
      const fresh = loadSubscription(ctx, id);
      const prev = clone(fresh);
      fresh.latest_invoice = inv.id;
      updateAndEmit(ctx, prev, fresh);
    } else {
      addPendingProrations(ctx, id, prorations);
    }
  }
  if (endTrialNow) {
    // Ending a trial now starts a paid period at once, billed right away (Stripe resets the anchor).
    const fresh = loadSubscription(ctx, id);
    const prev = clone(fresh);
    fresh.trial_end = now;
    fresh.billing_cycle_anchor = now;
    saveSubscription(ctx, fresh);
    startNewPeriod(ctx, fresh.id, now, { collectNow: true, prevForEvent: prev });
  }
  return loadSubscription(ctx, id);
}

function applyItemChanges(ctx: TwinContext, sub: StripeObject, itemsIn: SubscriptionItemChange[]): void {
  const period = { start: sub.current_period_start, end: sub.current_period_end };
  const items = subscriptionItems(sub);
  itemsIn.forEach((it, i) => {
    const prefix = `items[${i}]`;
    const itemId = it.id;
    const deleted = it.deleted ?? false;
    const quantity = it.quantity;
    const inline = it.priceData !== undefined || it.ownPrice === true;
    // Inline `price_data` becomes its (archived) price here; `price` and `price_data` together are refused.
    const priceId = it.price === undefined && it.priceData === undefined ? undefined : resolvePrice(ctx, it, prefix);
    if (itemId) {
      const idx = items.findIndex((x) => x.id === itemId);
      if (idx === -1) {
        throw invalidRequest(`Subscription item ${itemId} does not belong to this subscription.`, `${prefix}[id]`);
      }
      if (deleted) {
        items.splice(idx, 1);
        ctx.store.delete('subscription_item', itemId);
        return;
      }
      const item = items[idx]!;
      if (priceId && priceId !== item.price.id) {
        const price = loadRecurringPrice(ctx, priceId, `${prefix}[price]`, inline);
        if (price.currency !== sub.currency) {
          throw invalidRequest(
            `The price specified (${price.id}) has a currency (${price.currency}) that does not match the subscription's currency (${sub.currency}).`,
            `${prefix}[price]`,
          );
        }
        item.price = clone(price);
        item.plan = planOf(price);
        if (isMetered(price)) delete item.quantity;
        else item.quantity ??= 1;
      }
      if (quantity !== undefined) {
        if (isMetered(item.price)) {
          throw invalidRequest('Quantity should not be specified where usage_type is `metered`.', `${prefix}[quantity]`);
        }
        item.quantity = quantity;
      }
      if (it.metadata !== undefined) item.metadata = applyMetadata(item.metadata, it.metadata);
      return;
    }
    if (deleted) throw invalidRequest('An item `id` is required to delete an item.', `${prefix}[id]`);
    if (!priceId) throw missingParam(`${prefix}[price]`);
    const price = loadRecurringPrice(ctx, priceId, `${prefix}[price]`, inline);
    items.push(buildItem(ctx, sub.id, price, quantity, it.metadata === undefined ? {} : applyMetadata({}, it.metadata), period));
  });
  if (items.length === 0) {
    throw invalidRequest('A subscription must have at least one active plan. To cancel a subscription, send a DELETE request instead.', 'items');
  }
}

// ---------------------------------------------------------------------------------------------
// Period turnover (renewal, trial end) and cancellation — shared by the API and the lifecycle.

/**
 * Close the current period at `at` and open the next one: bill the new period's licensed items in
 * advance and the closing period's metered usage in arrears on a draft invoice that finalizes an
 * hour later (as Stripe does), or at once when `collectNow`.
 */
export function startNewPeriod(ctx: TwinContext, id: string, at: number, opts: { collectNow?: boolean; prevForEvent?: StripeObject } = {}): StripeObject {
  const sub = loadSubscription(ctx, id);
  const before = opts.prevForEvent ?? clone(sub);
  const closing = { start: sub.current_period_start, end: at };
  const wasTrial = sub.status === 'trialing';
  const end = nextBoundary(sub.billing_cycle_anchor, recurrenceOf(subscriptionItems(sub)[0]!.price), at);
  setPeriod(sub, at, end);
  if (sub.cancel_at_period_end) sub.cancel_at = end;
  if (wasTrial) sub.status = 'active';
  saveSubscription(ctx, sub);
  const invoice = createSubscriptionInvoice(ctx, sub, 'subscription_cycle', {
    licensed: { start: at, end },
    usage: wasTrial ? undefined : closing,
    autoFinalizeAt: opts.collectNow ? undefined : at + 3600,
  });
  sub.latest_invoice = invoice.id;
  updateAndEmit(ctx, before, sub);
  const paused = sub.pause_collection?.behavior as (typeof PAUSE_BEHAVIORS)[number] | undefined;
  if (paused) holdInvoice(ctx, invoice.id, paused);
  else if (opts.collectNow) finalizeAndCollect(ctx, invoice.id);
  return loadSubscription(ctx, id);
}

export const PAUSE_BEHAVIORS = ['keep_as_draft', 'mark_uncollectible', 'void'] as const;

/** An invoice made while collection is paused: kept as a draft, or finalized and voided / marked uncollectible. */
function holdInvoice(ctx: TwinContext, invoiceId: string, behavior: (typeof PAUSE_BEHAVIORS)[number]): void {
  if (behavior === 'keep_as_draft') {
    const inv = loadInvoice(ctx, invoiceId);
    inv.auto_advance = false;
    inv.automatically_finalizes_at = null;
    ctx.store.put('invoice', inv.id, inv);
    return;
  }
  const inv = finalizeInvoice(ctx, invoiceId, { autoAdvance: false });
  if (inv.status !== 'open') return;
  if (behavior === 'void') voidInvoice(ctx, invoiceId);
  else markUncollectible(ctx, invoiceId);
}

/**
 * `POST /v1/subscriptions/{id}/resume`: a `paused` subscription (its trial ended without a payment
 * method) starts a new period now and is billed for it (`customer.subscription.resumed`).
 */
export function resumeSubscription(ctx: TwinContext, id: string): StripeObject {
  ctx = contextForObject(ctx, 'subscription', id);
  const before = loadSubscription(ctx, id);
  if (before.status !== 'paused') {
    throw invalidRequest('Only subscriptions with status `paused` can be resumed.', undefined, 'subscription_not_paused' as string);
  }
  const now = ctx.clock.nowSeconds();
  const sub = clone(before);
  sub.status = 'active';
  sub.billing_cycle_anchor = now;
  saveSubscription(ctx, sub);
  startNewPeriod(ctx, id, now, { collectNow: true, prevForEvent: before });
  const fresh = loadSubscription(ctx, id);
  emitEvent(ctx, 'customer.subscription.resumed', fresh);
  syncEntitlements(ctx, fresh.customer);
  return fresh;
}

/** A trial ended with no payment method and `missing_payment_method=pause`. */
export function pauseAtTrialEnd(ctx: TwinContext, id: string): void {
  const before = loadSubscription(ctx, id);
  const sub = clone(before);
  sub.status = 'paused';
  updateAndEmit(ctx, before, sub);
  emitEvent(ctx, 'customer.subscription.paused', sub);
  syncEntitlements(ctx, sub.customer);
}

/** `pause_collection.resumes_at` came: collection resumes. */
export function endPauseCollection(ctx: TwinContext, id: string): void {
  const before = loadSubscription(ctx, id);
  const sub = clone(before);
  sub.pause_collection = null;
  updateAndEmit(ctx, before, sub);
}

export interface CancelOptions {
  reason: 'cancellation_requested' | 'payment_failed' | 'payment_disputed';
  /** Bill metered usage of the current period on a final invoice. */
  invoiceNow?: boolean;
  comment?: string | null;
  feedback?: string | null;
}

/** `DELETE /v1/subscriptions/{id}/discount`: end the subscription's discounts; answers the deleted discount. */
export function removeSubscriptionDiscount(ctx: TwinContext, id: string): StripeObject {
  ctx = contextForObject(ctx, 'subscription', id);
  const before = loadSubscription(ctx, id);
  const live = ((before.discounts as string[] | undefined) ?? []).filter((d) => loadDiscount(ctx, d));
  if (live.length === 0) throw invalidRequest(`The subscription ${id} has no discount to remove.`, 'subscription');
  const ended = live.map((d) => endDiscount(ctx, d));
  const sub = clone(before);
  sub.discounts = [];
  updateAndEmit(ctx, before, sub);
  return ended[0]!;
}

/** End the subscription at the clock's instant and emit `customer.subscription.deleted`. */
export function cancelSubscriptionNow(ctx: TwinContext, id: string, opts: CancelOptions): StripeObject {
  ctx = contextForObject(ctx, 'subscription', id);
  const sub = loadSubscription(ctx, id);
  const now = ctx.clock.nowSeconds();
  if (opts.invoiceNow && subscriptionItems(sub).some((i) => isMetered(i.price))) {
    const invoice = createSubscriptionInvoice(ctx, sub, 'subscription_cycle', {
      usage: { start: sub.current_period_start, end: now },
    });
    sub.latest_invoice = invoice.id;
    saveSubscription(ctx, sub);
    finalizeAndCollect(ctx, invoice.id);
  }
  const fresh = loadSubscription(ctx, id);
  fresh.status = 'canceled';
  fresh.ended_at = now;
  fresh.canceled_at = fresh.cancel_at && fresh.canceled_at ? fresh.canceled_at : now;
  fresh.cancel_at = fresh.cancel_at ?? null;
  fresh.cancellation_details = {
    comment: opts.comment ?? fresh.cancellation_details?.comment ?? null,
    feedback: opts.feedback ?? fresh.cancellation_details?.feedback ?? null,
    reason: opts.reason,
  };
  saveSubscription(ctx, fresh);
  // Stripe stops automatic collection of the subscription's open invoices.
  closeInvoicesOf(ctx, id);
  emitEvent(ctx, 'customer.subscription.deleted', fresh);
  syncEntitlements(ctx, fresh.customer);
  if (fresh.schedule) scheduledSubscriptionCanceled(ctx, fresh.schedule);
  return fresh;
}

/** `DELETE /v1/subscriptions/{id}`: cancel at once (a subscription already ended is Stripe's 404). */
export function cancelSubscription(ctx: TwinContext, id: string, input: { invoiceNow?: boolean; comment?: string; feedback?: string }): StripeObject {
  const sub = loadSubscription(ctx, id);
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
    throw invalidRequest(`No such subscription: '${id}'`, 'id', 'resource_missing');
  }
  return cancelSubscriptionNow(ctx, id, {
    reason: 'cancellation_requested',
    invoiceNow: input.invoiceNow ?? false,
    comment: input.comment ?? null,
    feedback: input.feedback ?? null,
  });
}

/** After the first invoice of an incomplete subscription is paid (on Stripe: any later payment). */
export function activateAfterPayment(ctx: TwinContext, id: string): void {
  const sub = find(ctx, 'subscription', id);
  if (!sub) return;
  if (sub.status !== 'incomplete' && sub.status !== 'past_due' && sub.status !== 'unpaid') return;
  const before = clone(sub);
  sub.status = 'active';
  updateAndEmit(ctx, before, sub);
}

/** A failed renewal payment: an active (or trialing) subscription becomes `past_due`. */
export function markPastDue(ctx: TwinContext, id: string): void {
  const sub = find(ctx, 'subscription', id);
  if (!sub || (sub.status !== 'active' && sub.status !== 'trialing')) return;
  const before = clone(sub);
  sub.status = 'past_due';
  updateAndEmit(ctx, before, sub);
}

export function setStatus(ctx: TwinContext, id: string, status: SubscriptionStatus): void {
  const sub = find(ctx, 'subscription', id);
  if (!sub || sub.status === status) return;
  const before = clone(sub);
  sub.status = status;
  if (status === 'incomplete_expired') sub.ended_at = ctx.clock.nowSeconds();
  updateAndEmit(ctx, before, sub);
}

// What an invoice's payment means for the subscription it bills (invoices.ts announces it).
onInvoiceOutcome({
  paid(ctx, invoice) {
    if (invoice.subscription) activateAfterPayment(ctx, invoice.subscription);
  },
  paymentFailed(ctx, invoice) {
    if (invoice.subscription) markPastDue(ctx, invoice.subscription);
  },
  retriesExhausted(ctx, invoice, action) {
    if (action === 'cancel') {
      const sub = find(ctx, 'subscription', invoice.subscription);
      if (sub && sub.status !== 'canceled') cancelSubscriptionNow(ctx, sub.id, { reason: 'payment_failed' });
    } else if (action === 'unpaid') {
      setStatus(ctx, invoice.subscription, 'unpaid');
    }
  },
});

// ---------------------------------------------------------------------------------------------
// List

/** `current_period_*` filters as record-store range conditions. */
function rangeConditions(field: string, range: TimeRange | undefined): CreatedRange[] {
  if (range === undefined) return [];
  if (typeof range === 'number')
    return [
      { field, op: '>=', value: range },
      { field, op: '<=', value: range },
    ];
  const out: CreatedRange[] = [];
  for (const [k, op] of [
    ['gt', '>'],
    ['gte', '>='],
    ['lt', '<'],
    ['lte', '<='],
  ] as const) {
    const v = range[k];
    if (v !== undefined) out.push({ field, op, value: v });
  }
  return out;
}

/**
 * `GET /v1/subscriptions`: one page read through the store's index; a `price` filter (which
 * looks inside the items) is a test applied while the page fills.
 */
export function listSubscriptions(ctx: TwinContext, f: SubscriptionFilter, window: ListWindow): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  if (f.customer) equals.customer = f.customer;
  if (f.collectionMethod) equals.collection_method = f.collectionMethod;
  if (f.testClock) equals.test_clock = f.testClock;
  const more: MoreConditions = {
    ranges: [...rangeConditions('current_period_end', f.currentPeriodEnd), ...rangeConditions('current_period_start', f.currentPeriodStart)],
  };
  // Stripe lists every subscription but the canceled ones unless a status is asked for.
  if (f.status === undefined) more.noneOf = { status: ['canceled'] };
  else if (f.status === 'ended') more.oneOf = { status: ['canceled', 'incomplete_expired'] };
  else if (f.status !== 'all') equals.status = f.status;
  const { price } = f;
  if (price) more.keep = (s) => subscriptionItems(s).some((i) => i.price?.id === price);
  return readPage<StripeObject>(ctx, 'subscription', equals, window, more);
}
