// Invoices: built from a subscription's items (licensed in advance, metered usage in arrears) or
// by the API, then draft → open (finalize, numbered) → paid / payment failed (retried on a
// Smart-Retries-like schedule) / void / uncollectible. Payment goes through one PaymentIntent per
// invoice, charged with the subscription's or customer's default payment method.

import type { TwinContext, TwinResponse } from '../../../twin-runtime/contract.js';
import { StripeApiError, invalidRequest, stripeError } from '../wire/errors.js';
import { bool, int, metadata, oneOf, str, requiredStr, type Params } from '../wire/params.js';
import { clone, find, load, newId, previousAttributes, type StripeObject } from './objects.js';
import { emitEvent } from './events.js';
import { cyclePhrase, formatAmount, nextBoundary } from './billing-cycle.js';
import { confirmPaymentIntent, createPaymentIntent } from './payment-intents.js';
import { createSetupIntent } from './setup-intents.js';
import { patchCustomer } from './customers.js';
import {
  activateAfterPayment,
  cancelSubscriptionNow,
  isMetered,
  markPastDue,
  planOf,
  recurrenceOf,
  setStatus,
  subscriptionItems,
  subscriptionPaymentMethod,
} from './subscriptions.js';
import { meteredUsage } from './meters.js';

export type Invoice = StripeObject & { object: 'invoice' };

/** How many lines an invoice object embeds; the rest come from `/v1/invoices/{id}/lines`. */
const EMBEDDED_LINES = 10;
const DAY = 86_400;

// ---------------------------------------------------------------------------------------------
// Retry settings (Billing → Revenue recovery on Stripe's dashboard). Kept in the twin's meta
// table; routes/billing-settings.ts reads and changes them.

export interface RetrySettings {
  /** Days after the previous attempt each retry happens (Stripe's custom schedule, up to 8). */
  retry_days: number[];
  /** What happens to the subscription when the last retry fails. */
  subscription_after_final_failure: 'cancel' | 'unpaid' | 'past_due';
  /** What happens to the invoice then. */
  invoice_after_final_failure: 'past_due' | 'uncollectible';
}

export const DEFAULT_RETRY_SETTINGS: RetrySettings = {
  retry_days: [3, 5, 7],
  subscription_after_final_failure: 'cancel',
  invoice_after_final_failure: 'past_due',
};

const SETTINGS_KEY = 'stripe:billing_retry_settings';

export function retrySettings(ctx: TwinContext): RetrySettings {
  const raw = ctx.store.getMeta(SETTINGS_KEY);
  return raw ? { ...DEFAULT_RETRY_SETTINGS, ...(JSON.parse(raw) as Partial<RetrySettings>) } : { ...DEFAULT_RETRY_SETTINGS };
}

export function saveRetrySettings(ctx: TwinContext, s: RetrySettings): void {
  ctx.store.setMeta(SETTINGS_KEY, JSON.stringify(s));
}

/** Decline codes Stripe never retries (hard declines). */
const HARD_DECLINES = new Set([
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
}

function productName(ctx: TwinContext, price: StripeObject): string {
  const productId = typeof price.product === 'string' ? price.product : price.product?.id;
  return find(ctx, 'product', productId)?.name ?? productId ?? 'Item';
}

/** Per-unit amount as a decimal string (`unit_amount_decimal`). */
function unitDecimal(price: StripeObject): string {
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

function buildLine(ctx: TwinContext, invoiceId: string | null, spec: LineSpec): StripeObject {
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
            invoice_item: ctx.ids.next('ii_', 24),
            proration: false,
            proration_details: { credited_items: null },
            subscription: spec.subscription,
          },
          subscription_item_details: null,
          type: 'invoice_item_details',
        },
    period: spec.period,
    pretax_credit_amounts: [],
    pricing: { price_details: { price: price.id, product: productId }, type: 'price_details', unit_amount_decimal: unitDecimal(price) },
    quantity: spec.quantity,
    subscription: spec.subscription,
    subtotal: spec.amount,
    taxes: [],
    // Pre-2025 API versions read these from the line itself.
    plan: price.recurring ? planOf(price) : null,
    price: clone(price),
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
    });
  }
  return lines;
}

interface InvoiceSeed {
  customer: StripeObject;
  currency: string;
  subscription: StripeObject | null;
  billingReason: string;
  lines: LineSpec[];
  period: { start: number; end: number };
  collectionMethod: 'charge_automatically' | 'send_invoice';
  daysUntilDue: number | null;
  autoAdvance: boolean;
  autoFinalizeAt: number | null;
  description?: string | null;
  metadata?: Record<string, string>;
  defaultPaymentMethod?: string | null;
}

/** The invoice object (draft, or a preview when `id` is null-ish). */
function invoiceObject(ctx: TwinContext, id: string, seed: InvoiceSeed): Invoice {
  const now = ctx.clock.nowSeconds();
  const lines = seed.lines.map((l) => buildLine(ctx, id, l));
  const total = lines.reduce((s, l) => s + (l.amount as number), 0);
  const c = seed.customer;
  const sub = seed.subscription;
  const startingBalance = 0;
  return {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'Twins Stripe Test Account',
    account_tax_ids: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: seed.autoAdvance,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: seed.autoFinalizeAt,
    billing_reason: seed.billingReason,
    collection_method: seed.collectionMethod,
    created: now,
    currency: seed.currency,
    custom_fields: null,
    customer: c.id,
    customer_account: null,
    customer_address: c.address ?? null,
    customer_email: c.email ?? null,
    customer_name: c.name ?? null,
    customer_phone: c.phone ?? null,
    customer_shipping: c.shipping ?? null,
    customer_tax_exempt: c.tax_exempt ?? 'none',
    customer_tax_ids: [],
    default_payment_method: seed.defaultPaymentMethod ?? null,
    default_source: null,
    default_tax_rates: [],
    description: seed.description ?? null,
    discounts: [],
    due_date: null,
    effective_at: null,
    ending_balance: null,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: null,
    invoice_pdf: null,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: { object: 'list', data: lines, has_more: false, total_count: lines.length, url: `/v1/invoices/${id}/lines` },
    livemode: false,
    metadata: seed.metadata ?? {},
    next_payment_attempt: null,
    number: null,
    on_behalf_of: null,
    parent: sub
      ? {
          quote_details: null,
          subscription_details: { metadata: clone(sub.metadata ?? {}), subscription: sub.id },
          type: 'subscription_details',
        }
      : null,
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    period_end: seed.period.end,
    period_start: seed.period.start,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: startingBalance,
    statement_descriptor: null,
    status: 'draft',
    status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: c.test_clock ?? null,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: null,
    // Pre-2025 API versions read these from the invoice itself.
    charge: null,
    paid: false,
    paid_out_of_band: false,
    payment_intent: null,
    subscription: sub?.id ?? null,
    total_tax_amounts: [],
  };
}

/** The invoice as the API answers it: the first lines embedded, `has_more` for the rest. */
export function presentInvoice(inv: Invoice): Invoice {
  const data = inv.lines.data as StripeObject[];
  if (data.length <= EMBEDDED_LINES) return inv;
  return { ...inv, lines: { ...inv.lines, data: data.slice(0, EMBEDDED_LINES), has_more: true } };
}

export function loadInvoice(ctx: TwinContext, id: string, param = 'id'): Invoice {
  return load<Invoice>(ctx, 'invoice', id, param);
}

function saveInvoice(ctx: TwinContext, inv: Invoice): Invoice {
  ctx.store.put('invoice', inv.id, inv);
  return inv;
}

function emitInvoice(ctx: TwinContext, type: string, inv: Invoice, before?: Invoice): void {
  const prev = before ? previousAttributes(presentInvoice(before), presentInvoice(inv)) : undefined;
  emitEvent(ctx, type, presentInvoice(inv), prev);
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

function takePendingProrations(ctx: TwinContext, subId: string): LineSpec[] {
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
  // A net credit is not charged; Stripe would credit the customer's balance.
  if (inv.total < 0) {
    const c = find(ctx, 'customer', sub.customer);
    if (c && !c.deleted) patchCustomer(ctx, c.id, { balance: (c.balance ?? 0) + inv.total });
    inv.amount_due = 0;
    inv.amount_remaining = 0;
    saveInvoice(ctx, inv);
  }
  return finalizeInvoice(ctx, inv.id, { collect: true });
}

/** A subscription's draft invoice (`invoice.created`). */
export function createSubscriptionInvoice(
  ctx: TwinContext,
  sub: StripeObject,
  billingReason: 'subscription_create' | 'subscription_cycle' | 'subscription_update',
  opts: { licensed?: { start: number; end: number }; usage?: { start: number; end: number }; trial?: boolean; autoFinalizeAt?: number },
): Invoice {
  const customer = load(ctx, 'customer', sub.customer, 'customer');
  // Pending prorations ride on the next cycle invoice, before the new period's lines.
  const prorations = billingReason === 'subscription_cycle' ? takePendingProrations(ctx, sub.id) : [];
  const lines = [...prorations, ...subscriptionLines(ctx, sub, opts)];
  const period =
    billingReason === 'subscription_create'
      ? { start: sub.current_period_start, end: sub.current_period_start }
      : opts.usage ?? { start: sub.current_period_start, end: sub.current_period_start };
  const inv = invoiceObject(ctx, newId(ctx, 'invoice'), {
    customer,
    currency: sub.currency,
    subscription: sub,
    billingReason,
    lines,
    period,
    collectionMethod: sub.collection_method,
    daysUntilDue: sub.days_until_due ?? null,
    autoAdvance: true,
    autoFinalizeAt: opts.autoFinalizeAt ?? null,
  });
  if (sub.collection_method === 'send_invoice' && sub.days_until_due != null) {
    inv.due_date = ctx.clock.nowSeconds() + sub.days_until_due * DAY;
  }
  saveInvoice(ctx, inv);
  emitInvoice(ctx, 'invoice.created', inv);
  return inv;
}

/** `POST /v1/invoices`: a one-off draft for a customer. */
export const INVOICE_CREATE_PARAMS = {
  customer: true,
  auto_advance: true,
  collection_method: true,
  days_until_due: true,
  due_date: true,
  currency: true,
  description: true,
  metadata: true,
  default_payment_method: true,
  subscription: true,
  pending_invoice_items_behavior: true,
  footer: true,
  statement_descriptor: true,
  automatic_tax: { enabled: true },
} as const;

export function createInvoiceByRequest(ctx: TwinContext, p: Params): Invoice {
  const customerId = requiredStr(p, 'customer');
  const customer = load(ctx, 'customer', customerId, 'customer');
  if (customer.deleted) throw invalidRequest(`No such customer: '${customerId}'`, 'customer', 'resource_missing');
  const subId = str(p, 'subscription');
  const sub = subId ? load(ctx, 'subscription', subId, 'subscription') : null;
  const collection = oneOf(p, 'collection_method', ['charge_automatically', 'send_invoice'] as const) ?? 'charge_automatically';
  const daysUntilDue = int(p, 'days_until_due') ?? null;
  const dueDate = int(p, 'due_date') ?? null;
  if (collection === 'send_invoice' && daysUntilDue === null && dueDate === null) {
    throw invalidRequest(
      'Invoices with `collection_method=send_invoice` must have either `days_until_due` or `due_date` set.',
      'days_until_due',
    );
  }
  oneOf(p, 'pending_invoice_items_behavior', ['exclude', 'include'] as const);
  const dpm = str(p, 'default_payment_method') || null;
  if (dpm) load(ctx, 'payment_method', dpm, 'default_payment_method');
  const now = ctx.clock.nowSeconds();
  const inv = invoiceObject(ctx, newId(ctx, 'invoice'), {
    customer,
    currency: (str(p, 'currency') ?? customer.currency ?? 'usd').toLowerCase(),
    subscription: sub,
    billingReason: 'manual',
    lines: [],
    period: { start: now, end: now },
    collectionMethod: collection,
    daysUntilDue,
    autoAdvance: bool(p, 'auto_advance') ?? false,
    autoFinalizeAt: null,
    description: str(p, 'description') ?? null,
    metadata: metadata(p) ?? {},
    defaultPaymentMethod: dpm,
  });
  if (collection === 'send_invoice') inv.due_date = dueDate ?? now + (daysUntilDue ?? 0) * DAY;
  // Stripe finalizes an auto-advancing draft about an hour after creation.
  if (inv.auto_advance) inv.automatically_finalizes_at = now + 3600;
  if (p.footer !== undefined) inv.footer = str(p, 'footer') || null;
  if (p.statement_descriptor !== undefined) inv.statement_descriptor = str(p, 'statement_descriptor') || null;
  saveInvoice(ctx, inv);
  emitInvoice(ctx, 'invoice.created', inv);
  return inv;
}

export const INVOICE_UPDATE_PARAMS = {
  auto_advance: true,
  collection_method: true,
  days_until_due: true,
  due_date: true,
  description: true,
  metadata: true,
  default_payment_method: true,
  footer: true,
  statement_descriptor: true,
  automatic_tax: { enabled: true },
} as const;

export function updateInvoiceByRequest(ctx: TwinContext, id: string, p: Params): Invoice {
  const before = loadInvoice(ctx, id);
  const inv = clone(before);
  const draftOnly = ['collection_method', 'days_until_due', 'due_date', 'default_payment_method', 'statement_descriptor'];
  if (inv.status !== 'draft') {
    const locked = Object.keys(p).find((k) => draftOnly.includes(k));
    if (locked) {
      throw invalidRequest(`You can only update \`${locked}\` on an invoice when it is a draft.`, locked);
    }
    if (inv.status === 'paid' || inv.status === 'void') {
      const other = Object.keys(p).find((k) => k !== 'metadata' && k !== 'expand');
      if (other) throw invalidRequest(`You can only update metadata on an invoice with status \`${inv.status}\`.`, other);
    }
  }
  const meta = metadata(p, inv.metadata ?? {});
  if (meta) inv.metadata = meta;
  if (p.description !== undefined) inv.description = str(p, 'description') || null;
  if (p.footer !== undefined) inv.footer = str(p, 'footer') || null;
  if (p.statement_descriptor !== undefined) inv.statement_descriptor = str(p, 'statement_descriptor') || null;
  const auto = bool(p, 'auto_advance');
  if (auto !== undefined) {
    inv.auto_advance = auto;
    if (inv.status === 'draft') inv.automatically_finalizes_at = auto ? ctx.clock.nowSeconds() + 3600 : null;
  }
  if (p.collection_method !== undefined) inv.collection_method = oneOf(p, 'collection_method', ['charge_automatically', 'send_invoice'] as const);
  if (p.days_until_due !== undefined) {
    const d = int(p, 'days_until_due')!;
    inv.due_date = ctx.clock.nowSeconds() + d * DAY;
  }
  if (p.due_date !== undefined) inv.due_date = int(p, 'due_date') ?? null;
  if (p.default_payment_method !== undefined) {
    const dpm = str(p, 'default_payment_method') || null;
    if (dpm) load(ctx, 'payment_method', dpm, 'default_payment_method');
    inv.default_payment_method = dpm;
  }
  saveInvoice(ctx, inv);
  const prev = previousAttributes(presentInvoice(before), presentInvoice(inv));
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'invoice.updated', presentInvoice(inv), prev);
  return inv;
}

/** `POST /v1/invoices/{id}/add_lines`: one-off lines on a draft (price + quantity, or an amount). */
export function addLinesByRequest(ctx: TwinContext, id: string, p: Params): Invoice {
  const before = loadInvoice(ctx, id);
  if (before.status !== 'draft') {
    throw invalidRequest(`Invoice ${id} is not a draft; lines can only be added to draft invoices.`, 'lines', 'invoice_not_editable');
  }
  const inv = clone(before);
  const raw = p.lines;
  const linesIn = (Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.values(raw) : undefined) as Params[] | undefined;
  if (!linesIn || linesIn.length === 0) throw invalidRequest('Missing required param: lines.', 'lines', 'parameter_missing');
  const now = ctx.clock.nowSeconds();
  linesIn.forEach((l, i) => {
    const prefix = `lines[${i}]`;
    const priceId = str((l.pricing as Params | undefined) ?? {}, 'price', `${prefix}[pricing]`) ?? str(l, 'price', prefix);
    const quantity = int(l, 'quantity', prefix) ?? 1;
    let price: StripeObject;
    let amount: number;
    if (priceId) {
      price = load(ctx, 'price', priceId, `${prefix}[pricing][price]`);
      amount = amountFor(price, quantity);
    } else {
      amount = int(l, 'amount', prefix) ?? 0;
      price = { id: '', object: 'price', currency: inv.currency, unit_amount: amount, unit_amount_decimal: String(amount), product: null };
    }
    const spec: LineSpec = {
      amount,
      quantity,
      description: str(l, 'description', prefix) ?? (priceId ? `${quantity} × ${productName(ctx, price)}` : 'Invoice item'),
      price,
      period: { start: now, end: now },
      subscriptionItem: null,
      subscription: inv.subscription ?? null,
    };
    (inv.lines.data as StripeObject[]).push(buildLine(ctx, id, spec));
  });
  recomputeTotals(inv);
  saveInvoice(ctx, inv);
  emitEvent(ctx, 'invoice.updated', presentInvoice(inv), previousAttributes(presentInvoice(before), presentInvoice(inv)));
  return inv;
}

function recomputeTotals(inv: Invoice): void {
  const data = inv.lines.data as StripeObject[];
  const total = data.reduce((s, l) => s + (l.amount as number), 0);
  inv.lines.total_count = data.length;
  inv.subtotal = inv.subtotal_excluding_tax = inv.total = inv.total_excluding_tax = total;
  inv.amount_due = total;
  inv.amount_remaining = total - inv.amount_paid;
}

export function deleteDraftInvoice(ctx: TwinContext, id: string): StripeObject {
  const inv = loadInvoice(ctx, id);
  if (inv.status !== 'draft') {
    throw invalidRequest(`You can only delete draft invoices. This invoice has status \`${inv.status}\`; void it instead.`, 'id');
  }
  if (inv.subscription) {
    throw invalidRequest('You cannot delete a draft invoice that was created by a subscription. Void it instead once finalized.', 'id');
  }
  ctx.store.delete('invoice', id);
  emitInvoice(ctx, 'invoice.deleted', inv);
  return { id, object: 'invoice', deleted: true };
}

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

function minimumChargeable(currency: string): number {
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
function invoicePaymentIntent(ctx: TwinContext, inv: Invoice): StripeObject {
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

// ---------------------------------------------------------------------------------------------
// Finalize, collect, void, mark uncollectible

function nextInvoiceNumber(ctx: TwinContext, customerId: string): string {
  const c = find(ctx, 'customer', customerId);
  if (!c || c.deleted) return `${customerId.slice(4, 12).toUpperCase()}-0001`;
  const seq = (c.next_invoice_sequence as number | undefined) ?? 1;
  c.next_invoice_sequence = seq + 1;
  ctx.store.put('customer', c.id, c);
  return `${c.invoice_prefix ?? 'INV'}-${String(seq).padStart(4, '0')}`;
}

/**
 * Draft → open (`invoice.finalized`); a zero-amount invoice is paid at once. With `collect`, an
 * automatically collected invoice is then charged.
 */
export function finalizeInvoice(ctx: TwinContext, id: string, opts: { collect: boolean; autoAdvance?: boolean }): Invoice {
  const before = loadInvoice(ctx, id);
  if (before.status !== 'draft') {
    throw invalidRequest(`This invoice is already finalized, you can't re-finalize a non-draft invoice.`, undefined, 'invoice_not_editable');
  }
  const inv = clone(before);
  const now = ctx.clock.nowSeconds();
  inv.status = 'open';
  inv.number = nextInvoiceNumber(ctx, inv.customer);
  inv.status_transitions.finalized_at = now;
  inv.effective_at = now;
  inv.automatically_finalizes_at = null;
  inv.ending_balance = inv.starting_balance;
  if (opts.autoAdvance !== undefined) inv.auto_advance = opts.autoAdvance;
  inv.hosted_invoice_url = `${ctx.baseUrl}/i/${inv.id}`;
  inv.invoice_pdf = null;
  saveInvoice(ctx, inv);
  if (inv.collection_method === 'charge_automatically' && inv.amount_due >= minimumChargeable(inv.currency)) {
    // Stripe creates the invoice's PaymentIntent at finalization; clients confirm it with the
    // `confirmation_secret` (e.g. subscriptions created with payment_behavior=default_incomplete).
    const pi = invoicePaymentIntent(ctx, inv);
    inv.payment_intent = pi.id;
    inv.confirmation_secret = { client_secret: pi.client_secret, type: 'payment_intent' };
    saveInvoice(ctx, inv);
  }
  emitInvoice(ctx, 'invoice.finalized', inv);
  if (inv.amount_due === 0) {
    markPaid(ctx, inv.id, { outOfBand: false });
    return loadInvoice(ctx, id);
  }
  if (opts.collect && inv.collection_method === 'charge_automatically' && inv.auto_advance !== false) {
    const sub = inv.subscription ? find(ctx, 'subscription', inv.subscription) : undefined;
    collectInvoice(ctx, id, {
      paymentMethod: inv.default_payment_method ?? (sub ? subscriptionPaymentMethod(ctx, sub) : customerDefaultPm(ctx, inv.customer)),
      offSession: true,
      automatic: true,
      updateSubscription: true,
    });
  }
  return loadInvoice(ctx, id);
}

function customerDefaultPm(ctx: TwinContext, customerId: string): string | null {
  const c = find(ctx, 'customer', customerId);
  return c?.invoice_settings?.default_payment_method ?? null;
}

/** The payment method an invoice is charged with when none is given. */
export function invoicePaymentMethod(ctx: TwinContext, inv: Invoice): string | null {
  if (inv.default_payment_method) return inv.default_payment_method;
  const sub = inv.subscription ? find(ctx, 'subscription', inv.subscription) : undefined;
  return sub ? subscriptionPaymentMethod(ctx, sub) : customerDefaultPm(ctx, inv.customer);
}

function markPaid(ctx: TwinContext, id: string, opts: { outOfBand: boolean; charge?: string | null; paymentIntent?: string | null }): Invoice {
  const before = loadInvoice(ctx, id);
  const inv = clone(before);
  const now = ctx.clock.nowSeconds();
  inv.status = 'paid';
  inv.amount_paid = inv.amount_due;
  inv.amount_remaining = 0;
  inv.paid = true;
  inv.paid_out_of_band = opts.outOfBand;
  inv.status_transitions.paid_at = now;
  inv.next_payment_attempt = null;
  if (opts.charge !== undefined) inv.charge = opts.charge;
  if (opts.paymentIntent !== undefined) inv.payment_intent = opts.paymentIntent;
  if (!opts.outOfBand) inv.attempted = true;
  if (opts.charge) inv.attempt_count += 1;
  saveInvoice(ctx, inv);
  emitInvoice(ctx, 'invoice.paid', inv, before);
  if (!opts.outOfBand) emitInvoice(ctx, 'invoice.payment_succeeded', inv, before);
  if (inv.subscription) activateAfterPayment(ctx, inv.subscription);
  return inv;
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

export function voidInvoice(ctx: TwinContext, id: string): Invoice {
  const before = loadInvoice(ctx, id);
  if (before.status === 'draft') {
    throw invalidRequest('You can only pass in open or uncollectible invoices.', undefined, 'invoice_not_open');
  }
  if (before.status === 'paid' || before.status === 'void') {
    throw invalidRequest(`You can only pass in open or uncollectible invoices. This invoice's status is \`${before.status}\`.`, undefined, 'invoice_not_open');
  }
  const inv = clone(before);
  inv.status = 'void';
  inv.amount_remaining = 0;
  inv.next_payment_attempt = null;
  inv.status_transitions.voided_at = ctx.clock.nowSeconds();
  saveInvoice(ctx, inv);
  emitInvoice(ctx, 'invoice.voided', inv, before);
  return inv;
}

export function markUncollectible(ctx: TwinContext, id: string): Invoice {
  const before = loadInvoice(ctx, id);
  if (before.status !== 'open') {
    throw invalidRequest(`You can only mark open invoices as uncollectible. This invoice's status is \`${before.status}\`.`, undefined, 'invoice_not_open');
  }
  const inv = clone(before);
  inv.status = 'uncollectible';
  inv.next_payment_attempt = null;
  inv.status_transitions.marked_uncollectible_at = ctx.clock.nowSeconds();
  saveInvoice(ctx, inv);
  emitInvoice(ctx, 'invoice.marked_uncollectible', inv, before);
  return inv;
}

/** A canceled subscription's open invoices stop being collected automatically. */
export function closeInvoicesOf(ctx: TwinContext, subscriptionId: string): void {
  for (const inv of ctx.store.list<Invoice>('invoice')) {
    if (inv.subscription !== subscriptionId) continue;
    if (inv.status === 'draft') {
      const before = clone(inv);
      inv.automatically_finalizes_at = null;
      inv.auto_advance = false;
      saveInvoice(ctx, inv);
      emitInvoice(ctx, 'invoice.updated', inv, before);
    } else if (inv.status === 'open' && (inv.next_payment_attempt !== null || inv.auto_advance)) {
      const before = clone(inv);
      inv.next_payment_attempt = null;
      inv.auto_advance = false;
      saveInvoice(ctx, inv);
      emitInvoice(ctx, 'invoice.updated', inv, before);
    }
  }
}

/** Called when an invoice's PaymentIntent succeeds outside the invoice flow (client confirmation). */
export function onInvoicePaymentIntentSucceeded(ctx: TwinContext, invoiceId: string, paymentIntent: StripeObject): void {
  const inv = find<Invoice>(ctx, 'invoice', invoiceId);
  if (!inv || inv.status !== 'open') return;
  markPaid(ctx, invoiceId, { outOfBand: false, charge: paymentIntent.latest_charge ?? null, paymentIntent: paymentIntent.id });
}

// ---------------------------------------------------------------------------------------------
// List and preview

export const INVOICE_LIST_FILTERS = {
  customer: true,
  subscription: true,
  status: true,
  collection_method: true,
  due_date: { gt: true, gte: true, lt: true, lte: true },
} as const;

export function filterInvoices(ctx: TwinContext, p: Params): Invoice[] {
  const customer = str(p, 'customer');
  const subscription = str(p, 'subscription');
  const status = oneOf(p, 'status', ['draft', 'open', 'paid', 'uncollectible', 'void'] as const);
  const collection = str(p, 'collection_method');
  return ctx.store
    .list<Invoice>('invoice')
    .filter(
      (i) =>
        (!customer || i.customer === customer) &&
        (!subscription || i.subscription === subscription) &&
        (!status || i.status === status) &&
        (!collection || i.collection_method === collection),
    )
    .map(presentInvoice);
}

export const PREVIEW_PARAMS = {
  customer: true,
  subscription: true,
  subscription_details: {
    items: { id: true, price: true, quantity: true, deleted: true, metadata: true, clear_usage: true },
    proration_behavior: true,
    proration_date: true,
    cancel_at_period_end: true,
    cancel_now: true,
    trial_end: true,
    billing_cycle_anchor: true,
    start_date: true,
  },
  currency: true,
  automatic_tax: { enabled: true },
  preview_mode: true,
  customer_details: true,
  invoice_items: true,
} as const;

/**
 * `POST /v1/invoices/create_preview`: the next invoice the subscription will produce — licensed
 * items for the coming period plus metered usage recorded so far in the current one — or, with
 * `subscription_details.items` and no subscription, the first invoice of a new one.
 */
export function previewInvoice(ctx: TwinContext, p: Params): Invoice {
  const subId = str(p, 'subscription');
  let customerId = str(p, 'customer');
  const details = (p.subscription_details ?? {}) as Params;
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
    const itemsIn = details.items as Params[] | Params | undefined;
    if (itemsIn) previewItemChanges(ctx, sub, Array.isArray(itemsIn) ? itemsIn : (Object.values(itemsIn) as Params[]));
    const cancelNow = bool(details, 'cancel_now', 'subscription_details');
    const capeParam = bool(details, 'cancel_at_period_end', 'subscription_details');
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
    return presentInvoice(inv);
  }
  // A subscription that does not exist yet.
  const customer = load(ctx, 'customer', customerId!, 'customer');
  const rawItems = details.items as Params[] | Params | undefined;
  const itemsIn = rawItems ? (Array.isArray(rawItems) ? rawItems : (Object.values(rawItems) as Params[])) : [];
  if (itemsIn.length === 0) {
    throw invalidRequest('Missing required param: subscription_details[items] (or subscription).', 'subscription_details[items]', 'parameter_missing');
  }
  const draft: StripeObject = { id: 'sub_preview', object: 'subscription', customer: customer.id, metadata: {}, items: { data: [] } };
  itemsIn.forEach((it, i) => {
    const prefix = `subscription_details[items][${i}]`;
    const price = load(ctx, 'price', requiredStr(it, 'price', prefix), `${prefix}[price]`);
    draft.items.data.push({ id: `si_preview_${i}`, price, plan: planOf(price), quantity: isMetered(price) ? undefined : (int(it, 'quantity', prefix) ?? 1) });
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
  return presentInvoice(inv);
}

function addOnePeriod(sub: StripeObject, from: number): number {
  return addOnePeriodFrom(subscriptionItems(sub)[0]!.price, from, sub.billing_cycle_anchor);
}

/** The boundary after `from` on the cycle of `price` anchored at `anchor`. */
function addOnePeriodFrom(price: StripeObject, from: number, anchor = from): number {
  return nextBoundary(anchor, recurrenceOf(price), from);
}


function previewItemChanges(ctx: TwinContext, sub: StripeObject, itemsIn: Params[]): void {
  const items = subscriptionItems(sub);
  itemsIn.forEach((it, i) => {
    const prefix = `subscription_details[items][${i}]`;
    const itemId = str(it, 'id', prefix);
    const priceId = str(it, 'price', prefix);
    const quantity = int(it, 'quantity', prefix);
    if (itemId) {
      const idx = items.findIndex((x) => x.id === itemId);
      if (idx === -1) throw invalidRequest(`Subscription item ${itemId} does not belong to this subscription.`, `${prefix}[id]`);
      if (bool(it, 'deleted', prefix)) {
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
