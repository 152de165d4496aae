// /v1/subscriptions (create, retrieve, update, cancel, list, search) and /v1/subscription_items
// (applied through the subscription update).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listEnvelope, readListWindow } from '../wire/list.js';
import { searchResponse } from '../wire/search.js';
import { bool, int, decimal, obj, objArray, oneOf, readMetadata, readParams, strArray, requiredStr, str, type Params } from '../wire/params.js';
import { resourceMissing } from '../wire/errors.js';
import { find, type StripeObject } from '../model/objects.js';
import {
  COLLECTION_METHODS,
  FEEDBACK,
  MISSING_PAYMENT_METHOD,
  PAYMENT_BEHAVIORS,
  PRORATION_BEHAVIORS,
  cancelSubscription,
  createSubscription,
  listSubscriptions,
  loadSubscription,
  updateSubscription,
  type AddInvoiceItem,
  type SubscriptionCreate,
  type SubscriptionItemChange,
  type SubscriptionUpdate,
  type TimeRange,
  removeSubscriptionDiscount,
  resumeSubscription,
  PAUSE_BEHAVIORS,
} from '../model/subscriptions.js';
import { readDiscounts } from './coupons.js';
import { readPriceRef } from './prices.js';
import { missingParam } from '../wire/errors.js';

const LIST_STATUSES = ['active', 'all', 'canceled', 'ended', 'incomplete', 'incomplete_expired', 'past_due', 'paused', 'trialing', 'unpaid'] as const;

/** `trial_end`: a timestamp or `now`. */
function trialEnd(p: Params): number | 'now' | undefined {
  if (p.trial_end === 'now') return 'now';
  return p.trial_end === undefined ? undefined : int(p, 'trial_end');
}

/** A percentage parameter (`12.5`) as a number. */
function percent(p: Params, key: string, prefix?: string): number | undefined {
  const v = decimal(p, key, prefix);
  return v === undefined ? undefined : Number(v);
}

/** `add_invoice_items`: one-off prices (by id or inline) for the next invoice. */
function readAddInvoiceItems(p: Params): AddInvoiceItem[] | undefined {
  return objArray(p, 'add_invoice_items')?.map((it, i) => {
    const prefix = `add_invoice_items[${i}]`;
    return { ...readPriceRef(it, prefix), quantity: int(it, 'quantity', prefix), taxRates: strArray(it, 'tax_rates', prefix) };
  });
}

export function readSubscriptionCreate(p: Params): SubscriptionCreate {
  const customer = requiredStr(p, 'customer');
  const td = obj(p, 'transfer_data');
  const items = objArray(p, 'items')?.map((it, i) => {
    const prefix = `items[${i}]`;
    return {
      ...readPriceRef(it, prefix),
      quantity: int(it, 'quantity', prefix),
      metadata: readMetadata(it),
      taxRates: strArray(it, 'tax_rates', prefix),
    };
  });
  const input: SubscriptionCreate = {
    customer,
    transferData: td && { destination: requiredStr(td, 'destination', 'transfer_data'), amountPercent: percent(td, 'amount_percent', 'transfer_data') },
    applicationFeePercent: percent(p, 'application_fee_percent'),
    onBehalfOf: str(p, 'on_behalf_of'),
    items,
    addInvoiceItems: readAddInvoiceItems(p),
    paymentBehavior: oneOf(p, 'payment_behavior', PAYMENT_BEHAVIORS),
    collectionMethod: oneOf(p, 'collection_method', COLLECTION_METHODS),
    daysUntilDue: int(p, 'days_until_due'),
    defaultPaymentMethod: str(p, 'default_payment_method'),
    trialEnd: trialEnd(p),
  };
  // Read as Stripe reads them: `trial_end` first, then `trial_period_days`, then `trial_from_plan`.
  if (input.trialEnd === undefined) {
    input.trialPeriodDays = int(p, 'trial_period_days');
    if (input.trialPeriodDays === undefined) input.trialFromPlan = bool(p, 'trial_from_plan');
  }
  input.billingCycleAnchor = int(p, 'billing_cycle_anchor');
  input.cancelAtPeriodEnd = bool(p, 'cancel_at_period_end');
  input.cancelAt = int(p, 'cancel_at');
  input.description = str(p, 'description');
  input.metadata = readMetadata(p);
  const endBehavior = obj(obj(p, 'trial_settings') ?? {}, 'end_behavior', 'trial_settings');
  input.missingPaymentMethod = endBehavior && oneOf(endBehavior, 'missing_payment_method', MISSING_PAYMENT_METHOD, 'trial_settings[end_behavior]');
  input.discounts = readDiscounts(p, true) ?? undefined;
  input.defaultTaxRates = strArray(p, 'default_tax_rates');
  return input;
}

function readItemChange(it: Params, prefix: string): SubscriptionItemChange {
  return {
    id: str(it, 'id', prefix),
    deleted: bool(it, 'deleted', prefix),
    quantity: int(it, 'quantity', prefix),
    ...readPriceRef(it, prefix),
    metadata: readMetadata(it),
  };
}

function readUpdate(p: Params): SubscriptionUpdate {
  const input: SubscriptionUpdate = {
    prorationBehavior: oneOf(p, 'proration_behavior', PRORATION_BEHAVIORS),
    metadata: readMetadata(p),
  };
  if (p.description !== undefined) input.description = str(p, 'description') || null;
  if (p.default_payment_method !== undefined) input.defaultPaymentMethod = str(p, 'default_payment_method') || null;
  const details = p.cancellation_details as Params | undefined;
  if (details && typeof details === 'object') {
    input.cancellationDetails = {};
    if (details.comment !== undefined) input.cancellationDetails.comment = str(details, 'comment', 'cancellation_details') || null;
    if (details.feedback !== undefined) input.cancellationDetails.feedback = oneOf(details, 'feedback', FEEDBACK, 'cancellation_details') ?? null;
  }
  input.cancelAtPeriodEnd = bool(p, 'cancel_at_period_end');
  if (p.cancel_at !== undefined) input.cancelAt = p.cancel_at === '' ? null : int(p, 'cancel_at');
  if (p.collection_method !== undefined) input.collectionMethod = oneOf(p, 'collection_method', COLLECTION_METHODS);
  if (p.days_until_due !== undefined) input.daysUntilDue = int(p, 'days_until_due');
  input.items = objArray(p, 'items')?.map((it, i) => readItemChange(it, `items[${i}]`));
  input.addInvoiceItems = readAddInvoiceItems(p);
  input.trialEnd = trialEnd(p);
  input.discounts = readDiscounts(p, true);
  input.defaultTaxRates = strArray(p, 'default_tax_rates');
  if (p.pause_collection === '') input.pauseCollection = null;
  else {
    const pc = obj(p, 'pause_collection');
    if (pc) {
      const behavior = oneOf(pc, 'behavior', PAUSE_BEHAVIORS, 'pause_collection');
      if (!behavior) throw missingParam('pause_collection[behavior]');
      input.pauseCollection = { behavior, resumesAt: int(pc, 'resumes_at', 'pause_collection') };
    }
  }
  return input;
}

/** `current_period_end=<ts>` or `current_period_end[gt]=…`. */
function readRange(p: Params, key: string): TimeRange | undefined {
  const r = p[key];
  if (r === undefined || r === '') return undefined;
  if (typeof r === 'string') return int(p, key);
  const o = r as Params;
  return { gt: int(o, 'gt', key), gte: int(o, 'gte', key), lt: int(o, 'lt', key), lte: int(o, 'lte', key) };
}

/** An item route's parameters as the subscription update's first (only) item change. */
function itemUpdate(p: Params, id?: string): SubscriptionUpdate {
  const change = readItemChange(p, 'items[0]');
  return {
    items: [{ ...change, ...(id ? { id } : {}) }],
    prorationBehavior: oneOf(p, 'proration_behavior', PRORATION_BEHAVIORS),
  };
}

/** Fields Stripe's search query language accepts for subscriptions. */
const SUBSCRIPTION_SEARCH_FIELDS = {
  created: (o: StripeObject) => o.created,
  status: (o: StripeObject) => o.status,
};

export const subscriptionRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/subscriptions', handler: (req, ctx) => ok(createSubscription(ctx, readSubscriptionCreate(readParams(req)))) },
  {
    method: 'GET',
    path: '/v1/subscriptions/search',
    handler: (req, ctx) => {
      readParams(req);
      return searchResponse(req, ctx, { resource: 'subscription' }, '/v1/subscriptions/search', SUBSCRIPTION_SEARCH_FIELDS, 'subscriptions');
    },
  },
  {
    method: 'GET',
    path: '/v1/subscriptions',
    handler: (req, ctx) => {
      const p = readParams(req);
      const filter = {
        customer: str(p, 'customer'),
        status: oneOf(p, 'status', LIST_STATUSES),
        price: str(p, 'price'),
        collectionMethod: str(p, 'collection_method'),
        testClock: str(p, 'test_clock'),
        currentPeriodEnd: readRange(p, 'current_period_end'),
        currentPeriodStart: readRange(p, 'current_period_start'),
      };
      return ok(listEnvelope(listSubscriptions(ctx, filter, readListWindow(p)), '/v1/subscriptions'));
    },
  },
  {
    method: 'GET',
    path: '/v1/subscriptions/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(loadSubscription(ctx, req.params.id!));
    },
  },
  {
    method: 'POST',
    path: '/v1/subscriptions/{id}/resume',
    handler: (req, ctx) => (readParams(req), ok(resumeSubscription(ctx, req.params.id!))),
  },
  {
    method: 'DELETE',
    path: '/v1/subscriptions/{id}/discount',
    handler: (req, ctx) => (readParams(req), ok(removeSubscriptionDiscount(ctx, req.params.id!))),
  },
  {
    method: 'POST',
    path: '/v1/subscriptions/{id}',
    handler: (req, ctx) => ok(updateSubscription(ctx, req.params.id!, readUpdate(readParams(req)))),
  },
  {
    method: 'DELETE',
    path: '/v1/subscriptions/{id}',
    handler: (req, ctx) => {
      const p = readParams(req);
      const details = (p.cancellation_details ?? {}) as Params;
      return ok(
        cancelSubscription(ctx, req.params.id!, {
          invoiceNow: bool(p, 'invoice_now'),
          comment: str(details, 'comment', 'cancellation_details'),
          feedback: str(details, 'feedback', 'cancellation_details'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/subscription_items',
    handler: (req, ctx) => {
      const p = readParams(req);
      const sub = loadSubscription(ctx, requiredStr(p, 'subscription'), 'subscription');
      return ok(listBody(p, [...(sub.items.data as StripeObject[])].reverse(), '/v1/subscription_items'));
    },
  },
  {
    method: 'POST',
    path: '/v1/subscription_items',
    handler: (req, ctx) => {
      const p = readParams(req);
      const subId = requiredStr(p, 'subscription');
      const sub = updateSubscription(ctx, subId, itemUpdate(p));
      const items = sub.items.data as StripeObject[];
      return ok(items[items.length - 1]);
    },
  },
  {
    method: 'POST',
    path: '/v1/subscription_items/{id}',
    handler: (req, ctx) => {
      const p = readParams(req);
      const item = find(ctx, 'subscription_item', req.params.id!);
      if (!item) throw resourceMissing('subscription_item', req.params.id!, 'id');
      const sub = updateSubscription(ctx, item.subscription, itemUpdate(p, item.id));
      return ok((sub.items.data as StripeObject[]).find((i) => i.id === item.id));
    },
  },
  {
    method: 'DELETE',
    path: '/v1/subscription_items/{id}',
    handler: (req, ctx) => {
      readParams(req);
      const item = find(ctx, 'subscription_item', req.params.id!);
      if (!item) throw resourceMissing('subscription_item', req.params.id!, 'id');
      updateSubscription(ctx, item.subscription, { items: [{ id: item.id, deleted: true }] });
      return ok({ id: item.id, object: 'subscription_item', deleted: true });
    },
  },
  {
    method: 'GET',
    path: '/v1/subscription_items/{id}',
    handler: (req, ctx) => {
      readParams(req);
      const item = find(ctx, 'subscription_item', req.params.id!);
      if (!item) throw resourceMissing('subscription_item', req.params.id!, 'id');
      return ok(item);
    },
  },
];
