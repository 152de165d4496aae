// `POST /v1/invoices/create_preview`: the next invoice a subscription will produce, with changes
// applied in memory only, or the first invoice of a subscription that does not exist yet. The
// answer embeds the first lines; the newest previews are kept so `GET /v1/invoices/{id}/lines`
// lists all of a preview's lines, as Stripe lets a preview's id do.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { clone, load, type StripeObject } from './objects.js';
import { nextBoundary } from './billing-cycle.js';
import { isMetered, planOf, recurrenceOf, subscriptionItems } from './subscription-items.js';
import { pendingProrations, subscriptionLines } from './invoice-lines.js';
import { invoiceObject, presentInvoice, type Invoice } from './invoices.js';
import { pendingItemLines } from './invoice-items.js';

/** Where previews wait for their lines to be listed. */
const PREVIEW = 'invoice_preview';
/** How many previews a twin keeps (the newest): an older one's lines answer as a missing invoice. */
const PREVIEWS_KEPT = 100;

/** Keep the preview (all its lines) and answer it with the first lines embedded. */
function keepPreview(ctx: TwinContext, inv: Invoice): Invoice {
  ctx.store.put(PREVIEW, inv.id, inv);
  const extra = ctx.store.count(PREVIEW) - PREVIEWS_KEPT;
  if (extra > 0) {
    for (const old of ctx.store.page({ resource: PREVIEW, order: 'seq', descending: false, limit: extra }).items) ctx.store.delete(PREVIEW, old.external_id);
  }
  return presentInvoice(inv);
}

/** A kept preview by its `upcoming_in_…` id. */
export function findPreview(ctx: TwinContext, id: string): Invoice | undefined {
  return ctx.store.get<Invoice>(PREVIEW, id);
}

/** One item of `subscription_details[items]`: a change to an existing item (`id`) or a new one. */
export interface PreviewItem {
  id?: string;
  price?: string;
  quantity?: number;
  deleted?: boolean;
}

export interface InvoicePreviewInput {
  customer?: string;
  subscription?: string;
  items?: PreviewItem[];
  cancelNow?: boolean;
  cancelAtPeriodEnd?: boolean;
}

/**
 * `POST /v1/invoices/create_preview`: the next invoice the subscription will produce — licensed
 * items for the coming period plus metered usage recorded so far in the current one — or, with
 * `subscription_details.items` and no subscription, the first invoice of a new one.
 */
export function previewInvoice(ctx: TwinContext, input: InvoicePreviewInput): Invoice {
  const subId = input.subscription;
  let customerId = input.customer;
  if (!subId && !customerId) {
    throw invalidRequest('Missing required param: customer or subscription.', 'customer', 'parameter_missing');
  }
  const now = ctx.clock.nowSeconds();
  if (subId) {
    const sub = clone(load(ctx, 'subscription', subId, 'subscription'));
    if (customerId && customerId !== sub.customer) {
      throw invalidRequest(`The subscription ${subId} does not belong to customer ${customerId}.`, 'subscription');
    }
    customerId = sub.customer;
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
      throw invalidRequest(`No upcoming invoices for customer: ${customerId}`, undefined, 'invoice_upcoming_none');
    }
    if (input.items) previewItemChanges(ctx, sub, input.items);
    const cancelNow = input.cancelNow;
    const capeParam = input.cancelAtPeriodEnd;
    const endsAtPeriodEnd = capeParam ?? sub.cancel_at_period_end;
    const start = sub.current_period_start;
    const end = sub.current_period_end;
    const nextEnd = addOnePeriod(sub, end);
    const customer = load(ctx, 'customer', sub.customer, 'customer');
    const lines = [
      ...pendingProrations(ctx, sub.id),
      ...subscriptionLines(ctx, sub, {
        licensed: cancelNow || endsAtPeriodEnd ? undefined : { start: end, end: nextEnd },
        usage: sub.status === 'trialing' ? undefined : { start, end: cancelNow ? now : end },
      }),
      ...pendingItemLines(ctx, sub.customer, { subscription: sub.id, currency: sub.currency }),
    ];
    const inv = invoiceObject(ctx, `upcoming_in_${ctx.ids.token(24)}`, {
      customer,
      currency: sub.currency,
      subscription: sub,
      billingReason: 'upcoming',
      lines,
      period: { start, end: cancelNow ? now : end },
      collectionMethod: sub.collection_method,
      daysUntilDue: sub.days_until_due ?? null,
      autoAdvance: true,
      autoFinalizeAt: null,
    });
    inv.created = cancelNow ? now : end;
    inv.next_payment_attempt = cancelNow ? now : end + 3600;
    inv.automatically_finalizes_at = null;
    for (const l of inv.lines.data as StripeObject[]) l.invoice = null;
    return keepPreview(ctx, inv);
  }
  // A subscription that does not exist yet.
  const customer = load(ctx, 'customer', customerId!, 'customer');
  const itemsIn = input.items ?? [];
  if (itemsIn.length === 0) {
    throw invalidRequest('Missing required param: subscription_details[items] (or subscription).', 'subscription_details[items]', 'parameter_missing');
  }
  const draft: StripeObject = { id: 'sub_preview', object: 'subscription', customer: customer.id, metadata: {}, items: { data: [] } };
  itemsIn.forEach((it, i) => {
    const prefix = `subscription_details[items][${i}]`;
    if (!it.price) throw missingParam(`${prefix}[price]`);
    const price = load(ctx, 'price', it.price, `${prefix}[price]`);
    draft.items.data.push({ id: `si_preview_${i}`, price, plan: planOf(price), quantity: isMetered(price) ? undefined : (it.quantity ?? 1) });
  });
  const first = draft.items.data[0].price as StripeObject;
  draft.currency = first.currency;
  const end = addOnePeriodFrom(first, now);
  const lines = subscriptionLines(ctx, draft, { licensed: { start: now, end } });
  const inv = invoiceObject(ctx, `upcoming_in_${ctx.ids.token(24)}`, {
    customer,
    currency: first.currency,
    subscription: null,
    billingReason: 'upcoming',
    lines: lines.map((l) => ({ ...l, subscription: null })),
    period: { start: now, end: now },
    collectionMethod: 'charge_automatically',
    daysUntilDue: null,
    autoAdvance: true,
    autoFinalizeAt: null,
  });
  for (const l of inv.lines.data as StripeObject[]) l.invoice = null;
  return keepPreview(ctx, inv);
}

function addOnePeriod(sub: StripeObject, from: number): number {
  return addOnePeriodFrom(subscriptionItems(sub)[0]!.price, from, sub.billing_cycle_anchor);
}

/** The boundary after `from` on the cycle of `price` anchored at `anchor`. */
function addOnePeriodFrom(price: StripeObject, from: number, anchor = from): number {
  return nextBoundary(anchor, recurrenceOf(price), from);
}

function previewItemChanges(ctx: TwinContext, sub: StripeObject, itemsIn: PreviewItem[]): void {
  const items = subscriptionItems(sub);
  itemsIn.forEach((it, i) => {
    const prefix = `subscription_details[items][${i}]`;
    const itemId = it.id;
    const priceId = it.price;
    const quantity = it.quantity;
    if (itemId) {
      const idx = items.findIndex((x) => x.id === itemId);
      if (idx === -1) throw invalidRequest(`Subscription item ${itemId} does not belong to this subscription.`, `${prefix}[id]`);
      if (it.deleted) {
        items.splice(idx, 1);
        return;
      }
      if (priceId) {
        const price = load(ctx, 'price', priceId, `${prefix}[price]`);
        items[idx]!.price = price;
        items[idx]!.plan = planOf(price);
      }
      if (quantity !== undefined) items[idx]!.quantity = quantity;
      return;
    }
    if (!priceId) throw invalidRequest(`Missing required param: ${prefix}[price].`, `${prefix}[price]`, 'parameter_missing');
    const price = load(ctx, 'price', priceId, `${prefix}[price]`);
    items.push({ id: `si_preview_${i}`, object: 'subscription_item', price, plan: planOf(price), quantity: isMetered(price) ? undefined : (quantity ?? 1) });
  });
}
