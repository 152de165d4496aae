// Invoice lines: what a subscription bills for (licensed items in advance, metered usage in
// arrears, tiers and quantity transforms), one-off lines, and prorations (kept pending until the
// subscription's next invoice, or billed at once).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { clone, find, type StripeObject } from './objects.js';
import { cyclePhrase, formatAmount } from './billing-cycle.js';
import { isMetered, planOf, recurrenceOf, subscriptionItems } from './subscription-items.js';
import { meteredUsage } from './meters.js';

// ---------------------------------------------------------------------------------------------
// Building

export interface LineSpec {
  amount: number;
  quantity: number | null;
  description: string;
  price: StripeObject;
  period: { start: number; end: number };
  subscriptionItem: string | null;
  subscription: string | null;
  proration?: boolean;
  /** The line's own tax rates (a subscription item's `tax_rates`). */
  taxRates?: StripeObject[];
  /** The invoice item (`ii_`) the line bills, when it is one. */
  invoiceItem?: string;
}

export function productName(ctx: TwinContext, price: StripeObject): string {
  const productId = typeof price.product === 'string' ? price.product : price.product?.id;
  return find(ctx, 'product', productId)?.name ?? productId ?? 'Item';
}

/** Per-unit amount as a decimal string (`unit_amount_decimal`). */
export function unitDecimal(price: StripeObject): string {
  return price.unit_amount_decimal ?? String(price.unit_amount ?? 0);
}

/** Amount for `quantity` units, with graduated/volume tiers when the price has them. */
export function amountFor(price: StripeObject, quantity: number): number {
  if (price.billing_scheme === 'tiered' && Array.isArray(price.tiers) && price.tiers.length > 0) {
    const tiers = price.tiers as { up_to: number | null; unit_amount: number | null; unit_amount_decimal?: string | null; flat_amount: number | null }[];
    const unit = (t: (typeof tiers)[number]): number => Number(t.unit_amount_decimal ?? t.unit_amount ?? 0);
    if (price.tiers_mode === 'volume') {
      const t = tiers.find((x) => x.up_to === null || quantity <= x.up_to) ?? tiers[tiers.length - 1]!;
      return Math.round(unit(t) * quantity + (quantity > 0 ? (t.flat_amount ?? 0) : 0));
    }
    let total = 0;
    let lower = 0;
    for (const t of tiers) {
      if (quantity <= lower) break;
      const upper = t.up_to === null ? quantity : Math.min(quantity, t.up_to);
      total += unit(t) * (upper - lower) + (t.flat_amount ?? 0);
      lower = upper;
    }
    return Math.round(total);
  }
  let q = quantity;
  const transform = price.transform_quantity as { divide_by: number; round: 'up' | 'down' } | null | undefined;
  if (transform?.divide_by) q = transform.round === 'up' ? Math.ceil(q / transform.divide_by) : Math.floor(q / transform.divide_by);
  return Math.round(Number(unitDecimal(price)) * q);
}

function licensedDescription(ctx: TwinContext, price: StripeObject, quantity: number): string {
  const unit = price.unit_amount ?? Math.round(Number(unitDecimal(price)));
  return `${quantity} × ${productName(ctx, price)} (at ${formatAmount(unit, price.currency)} / ${cyclePhrase(recurrenceOf(price))})`;
}

export function buildLine(ctx: TwinContext, invoiceId: string | null, spec: LineSpec): StripeObject {
  const price = spec.price;
  const productId = typeof price.product === 'string' ? price.product : price.product?.id;
  return {
    id: ctx.ids.next('il_', 24),
    object: 'line_item',
    amount: spec.amount,
    currency: price.currency,
    description: spec.description,
    discount_amounts: [],
    discountable: true,
    discounts: [],
    invoice: invoiceId,
    livemode: false,
    metadata: {},
    parent: spec.subscriptionItem
      ? {
          invoice_item_details: null,
          subscription_item_details: {
            invoice_item: null,
            proration: spec.proration ?? false,
            proration_details: { credited_items: null },
            subscription: spec.subscription,
            subscription_item: spec.subscriptionItem,
          },
          type: 'subscription_item_details',
        }
      : {
          invoice_item_details: {
            invoice_item: spec.invoiceItem ?? ctx.ids.next('ii_', 24),
            proration: false,
            proration_details: { credited_items: null },
            subscription: spec.subscription,
          },
          subscription_item_details: null,
          type: 'invoice_item_details',
        },
    period: spec.period,
    pretax_credit_amounts: [],
    // A line of a plain amount (no price id) has no price, as Stripe's one-off amount lines.
    pricing: price.id
      ? { price_details: { price: price.id, product: productId }, type: 'price_details', unit_amount_decimal: unitDecimal(price) }
      : { type: 'price_details', unit_amount_decimal: unitDecimal(price) },
    quantity: spec.quantity,
    subscription: spec.subscription,
    subtotal: spec.amount,
    taxes: [],
    tax_rates: clone(spec.taxRates ?? []),
    // Pre-2025 API versions read these from the line itself (only they are shown them: wire/versions.ts).
    plan: price.recurring ? planOf(price) : null,
    price: price.id ? clone(price) : null,
    proration: spec.proration ?? false,
    type: spec.subscriptionItem ? 'subscription' : 'invoiceitem',
  };
}

/** Lines a subscription bills for: licensed items over `licensed`, metered usage over `usage`. */
export function subscriptionLines(
  ctx: TwinContext,
  sub: StripeObject,
  opts: { licensed?: { start: number; end: number }; usage?: { start: number; end: number }; trial?: boolean },
): LineSpec[] {
  const lines: LineSpec[] = [];
  for (const item of subscriptionItems(sub)) {
    const price = item.price as StripeObject;
    if (isMetered(price)) {
      if (!opts.usage) continue;
      const usage = meteredUsage(ctx, price, sub.customer, opts.usage.start, opts.usage.end);
      lines.push({
        amount: opts.trial ? 0 : amountFor(price, usage),
        quantity: usage,
        description: `${productName(ctx, price)}`,
        price,
        period: opts.usage,
        subscriptionItem: item.id,
        subscription: sub.id,
      });
      continue;
    }
    if (!opts.licensed) continue;
    const quantity = item.quantity ?? 1;
    lines.push({
      amount: opts.trial ? 0 : amountFor(price, quantity),
      quantity,
      description: opts.trial ? `Trial period for ${productName(ctx, price)}` : licensedDescription(ctx, price, quantity),
      price,
      period: opts.licensed,
      subscriptionItem: item.id,
      subscription: sub.id,
      taxRates: item.tax_rates ?? [],
    });
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Prorations: `create_prorations` keeps them pending until the subscription's next invoice;
// `always_invoice` bills them at once. Pending ones live in the twin's meta table (on Stripe they
// are pending invoice items), keyed by subscription.

const prorationKey = (subId: string): string => `stripe:pending_prorations:${subId}`;

export function pendingProrations(ctx: TwinContext, subId: string): LineSpec[] {
  const raw = ctx.store.getMeta(prorationKey(subId));
  return raw ? (JSON.parse(raw) as LineSpec[]) : [];
}

export function addPendingProrations(ctx: TwinContext, subId: string, lines: LineSpec[]): void {
  ctx.store.setMeta(prorationKey(subId), JSON.stringify([...pendingProrations(ctx, subId), ...lines]));
}

export function takePendingProrations(ctx: TwinContext, subId: string): LineSpec[] {
  const lines = pendingProrations(ctx, subId);
  if (lines.length > 0) ctx.store.setMeta(prorationKey(subId), '[]');
  return lines;
}

function shortDate(t: number): string {
  const d = new Date(t * 1000);
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  return `${d.getUTCDate()} ${month} ${d.getUTCFullYear()}`;
}

/**
 * The proration lines of one item change at `at` within [start, end): a credit for the unused
 * time of the old price × quantity and a charge for the remaining time of the new one (Stripe
 * prorates by the second).
 */
export function prorationLines(
  ctx: TwinContext,
  sub: StripeObject,
  change: { itemId: string; old?: { price: StripeObject; quantity: number }; new?: { price: StripeObject; quantity: number } },
  at: number,
): LineSpec[] {
  const start = sub.current_period_start as number;
  const end = sub.current_period_end as number;
  if (at <= start || at >= end) return [];
  const fraction = (end - at) / (end - start);
  const lines: LineSpec[] = [];
  const period = { start: at, end };
  if (change.old && !isMetered(change.old.price)) {
    lines.push({
      amount: -Math.round(amountFor(change.old.price, change.old.quantity) * fraction),
      quantity: change.old.quantity,
      description: `Unused time on ${change.old.quantity} × ${productName(ctx, change.old.price)} after ${shortDate(at)}`,
      price: change.old.price,
      period,
      subscriptionItem: change.itemId,
      subscription: sub.id,
      proration: true,
    });
  }
  if (change.new && !isMetered(change.new.price)) {
    lines.push({
      amount: Math.round(amountFor(change.new.price, change.new.quantity) * fraction),
      quantity: change.new.quantity,
      description: `Remaining time on ${change.new.quantity} × ${productName(ctx, change.new.price)} after ${shortDate(at)}`,
      price: change.new.price,
      period,
      subscriptionItem: change.itemId,
      subscription: sub.id,
      proration: true,
    });
  }
  return lines.filter((l) => l.amount !== 0);
}
