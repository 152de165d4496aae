// Invoices: built from a subscription's items (licensed in advance, metered usage in arrears) or
// by the API, then draft → open (finalize, numbered) → paid / payment failed (retried on a
// Smart-Retries-like schedule) / void / uncollectible. Lines are built in invoice-lines.ts,
// payment and retries are in invoice-payments.ts, previews in invoice-previews.ts.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest } from '../wire/errors.js';
import { applyMetadata, clone, find, load, newId, previousAttributes, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { emitEvent } from './events.js';
import { contextForCustomer, contextForObject } from './clock-scope.js';
import { balanceApplication, changeBalance } from './customer-balance.js';
import { lineTaxes, loadTaxRates, type LineTax } from './tax-rates.js';
import { discountLines, redeemAll, takeInvoiceDiscounts, type DiscountRef } from './discounts.js';
import { subscriptionPaymentMethod } from './subscription-items.js';
import { createPaymentIntent, type PaymentIntentCreate } from './payment-intents.js';
import type { SubscriptionAfterFinalFailure } from './billing-settings.js';
import { releaseItems, takePendingItems } from './invoice-items.js';
import { amountFor, buildLine, productName, subscriptionLines, takePendingProrations, type LineSpec } from './invoice-lines.js';

export type Invoice = StripeObject & { object: 'invoice' };

/** How many lines an invoice object embeds; the rest come from `/v1/invoices/{id}/lines`. */
const EMBEDDED_LINES = 10;
export const DAY = 86_400;

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
export function invoiceObject(ctx: TwinContext, id: string, seed: InvoiceSeed): Invoice {
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
    // Pre-2025 API versions read these from the invoice itself (only they are shown them: wire/versions.ts).
    charge: null,
    paid: false,
    paid_out_of_band: false,
    payment_intent: null,
    subscription: sub?.id ?? null,
    total_tax_amounts: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Outcome hook: what an invoice's payment means for the resource it bills. Subscriptions listen
// (subscriptions.ts), so invoices need not know the subscription rules.

export interface InvoiceOutcomeListener {
  /** Paid in full: charged, carried to the balance below the minimum, or paid out of band. */
  paid?(ctx: TwinContext, invoice: Invoice): void;
  /** A collection attempt failed (not the first invoice of an incomplete subscription). */
  paymentFailed?(ctx: TwinContext, invoice: Invoice): void;
  /** The last automatic retry failed: the configured action for what the invoice bills. */
  retriesExhausted?(ctx: TwinContext, invoice: Invoice, action: SubscriptionAfterFinalFailure): void;
}

const listeners: InvoiceOutcomeListener[] = [];

export function onInvoiceOutcome(listener: InvoiceOutcomeListener): void {
  if (!listeners.includes(listener)) listeners.push(listener);
}

export function announce(_ctx: TwinContext, call: (l: InvoiceOutcomeListener) => void): void {
  for (const l of listeners) call(l);
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

export function saveInvoice(ctx: TwinContext, inv: Invoice): Invoice {
  ctx.store.put('invoice', inv.id, inv);
  return inv;
}

export function emitInvoice(ctx: TwinContext, type: string, inv: Invoice, before?: Invoice): void {
  const prev = before ? previousAttributes(presentInvoice(before), presentInvoice(inv)) : undefined;
  emitEvent(ctx, type, presentInvoice(inv), prev);
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
  const id = newId(ctx, 'invoice');
  // The customer's pending invoice items ride on the subscription's next invoice too.
  const items = billingReason === 'subscription_update' ? [] : takePendingItems(ctx, customer.id, id, { subscription: sub.id, currency: sub.currency });
  const lines = [...prorations, ...subscriptionLines(ctx, sub, opts), ...items];
  const period =
    billingReason === 'subscription_create'
      ? { start: sub.current_period_start, end: sub.current_period_start }
      : (opts.usage ?? { start: sub.current_period_start, end: sub.current_period_start });
  const inv = invoiceObject(ctx, id, {
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
  inv.default_tax_rates = clone(sub.default_tax_rates ?? []);
  inv.discounts = takeInvoiceDiscounts(ctx, { subscription: sub, customer });
  // The caller saves `sub` again: keep the discounts this invoice used up or saw end.
  sub.discounts = find(ctx, 'subscription', sub.id)?.discounts ?? sub.discounts;
  priceInvoice(ctx, inv);
  if (sub.collection_method === 'send_invoice' && sub.days_until_due != null) {
    inv.due_date = ctx.clock.nowSeconds() + sub.days_until_due * DAY;
  }
  saveInvoice(ctx, inv);
  emitInvoice(ctx, 'invoice.created', inv);
  return inv;
}

export const INVOICE_COLLECTION_METHODS = ['charge_automatically', 'send_invoice'] as const;
export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'uncollectible', 'void'] as const;

export interface InvoiceCreate {
  customer: string;
  subscription?: string;
  collectionMethod?: (typeof INVOICE_COLLECTION_METHODS)[number];
  daysUntilDue?: number;
  dueDate?: number;
  defaultPaymentMethod?: string;
  currency?: string;
  autoAdvance?: boolean;
  description?: string;
  metadata?: MetadataPatch;
  /** `null` for an empty value. */
  footer?: string | null;
  statementDescriptor?: string | null;
  /** `null`: none (not even the customer's). */
  discounts?: DiscountRef[] | null;
  defaultTaxRates?: string[];
  /** `include`: the customer's pending invoice items go on the new draft (Stripe's default is `exclude`). */
  pendingInvoiceItems?: 'exclude' | 'include';
}

export interface InvoiceUpdate {
  metadata?: MetadataPatch;
  /** `null` clears it. */
  description?: string | null;
  footer?: string | null;
  statementDescriptor?: string | null;
  autoAdvance?: boolean;
  collectionMethod?: (typeof INVOICE_COLLECTION_METHODS)[number];
  daysUntilDue?: number;
  dueDate?: number;
  /** `null` unsets it. */
  defaultPaymentMethod?: string | null;
}

/** A one-off line: a price (× quantity) or a plain amount. */
export interface InvoiceLineInput {
  price?: string;
  quantity?: number;
  amount?: number;
  description?: string;
}

export interface InvoiceFilter {
  customer?: string;
  subscription?: string;
  status?: (typeof INVOICE_STATUSES)[number];
  collectionMethod?: string;
}

/** `POST /v1/invoices`: a one-off draft for a customer. */
export function createInvoice(ctx: TwinContext, input: InvoiceCreate): Invoice {
  ctx = contextForCustomer(ctx, input.customer);
  const customerId = input.customer;
  const customer = load(ctx, 'customer', customerId, 'customer');
  if (customer.deleted) throw invalidRequest(`No such customer: '${customerId}'`, 'customer', 'resource_missing');
  const subId = input.subscription;
  const sub = subId ? load(ctx, 'subscription', subId, 'subscription') : null;
  const collection = input.collectionMethod ?? 'charge_automatically';
  const daysUntilDue = input.daysUntilDue ?? null;
  const dueDate = input.dueDate ?? null;
  if (collection === 'send_invoice' && daysUntilDue === null && dueDate === null) {
    throw invalidRequest('Invoices with `collection_method=send_invoice` must have either `days_until_due` or `due_date` set.', 'days_until_due');
  }
  const dpm = input.defaultPaymentMethod || null;
  if (dpm) load(ctx, 'payment_method', dpm, 'default_payment_method');
  const now = ctx.clock.nowSeconds();
  const id = newId(ctx, 'invoice');
  const currency = (input.currency ?? customer.currency ?? 'usd').toLowerCase();
  const inv = invoiceObject(ctx, id, {
    customer,
    currency,
    subscription: sub,
    billingReason: 'manual',
    lines: input.pendingInvoiceItems === 'include' ? takePendingItems(ctx, customer.id, id, { subscription: sub?.id ?? null, currency }) : [],
    period: { start: now, end: now },
    collectionMethod: collection,
    daysUntilDue,
    autoAdvance: input.autoAdvance ?? false,
    autoFinalizeAt: null,
    description: input.description ?? null,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    defaultPaymentMethod: dpm,
  });
  if (input.defaultTaxRates) inv.default_tax_rates = loadTaxRates(ctx, input.defaultTaxRates, 'default_tax_rates');
  inv.discounts =
    input.discounts === undefined ? takeInvoiceDiscounts(ctx, { customer }) : redeemAll(ctx, input.discounts ?? [], { customer: customer.id, invoice: inv.id });
  priceInvoice(ctx, inv);
  if (collection === 'send_invoice') inv.due_date = dueDate ?? now + (daysUntilDue ?? 0) * DAY;
  // Stripe finalizes an auto-advancing draft about an hour after creation.
  if (inv.auto_advance) inv.automatically_finalizes_at = now + 3600;
  if (input.footer !== undefined) inv.footer = input.footer;
  if (input.statementDescriptor !== undefined) inv.statement_descriptor = input.statementDescriptor;
  saveInvoice(ctx, inv);
  emitInvoice(ctx, 'invoice.created', inv);
  return inv;
}

/** The parameter each field of an update comes from, in the order a refusal names the first one. */
const UPDATE_PARAM_NAMES: [keyof InvoiceUpdate, string][] = [
  ['autoAdvance', 'auto_advance'],
  ['collectionMethod', 'collection_method'],
  ['daysUntilDue', 'days_until_due'],
  ['dueDate', 'due_date'],
  ['description', 'description'],
  ['defaultPaymentMethod', 'default_payment_method'],
  ['footer', 'footer'],
  ['statementDescriptor', 'statement_descriptor'],
];
const DRAFT_ONLY: (keyof InvoiceUpdate)[] = ['collectionMethod', 'daysUntilDue', 'dueDate', 'defaultPaymentMethod', 'statementDescriptor'];

export function updateInvoice(ctx: TwinContext, id: string, input: InvoiceUpdate): Invoice {
  const before = loadInvoice(ctx, id);
  const inv = clone(before);
  if (inv.status !== 'draft') {
    const locked = UPDATE_PARAM_NAMES.find(([field]) => DRAFT_ONLY.includes(field) && input[field] !== undefined)?.[1];
    if (locked) {
      throw invalidRequest(`You can only update \`${locked}\` on an invoice when it is a draft.`, locked);
    }
    if (inv.status === 'paid' || inv.status === 'void') {
      const other = UPDATE_PARAM_NAMES.find(([field]) => input[field] !== undefined)?.[1];
      if (other) throw invalidRequest(`You can only update metadata on an invoice with status \`${inv.status}\`.`, other);
    }
  }
  if (input.metadata !== undefined) inv.metadata = applyMetadata(inv.metadata ?? {}, input.metadata);
  if (input.description !== undefined) inv.description = input.description;
  if (input.footer !== undefined) inv.footer = input.footer;
  if (input.statementDescriptor !== undefined) inv.statement_descriptor = input.statementDescriptor;
  const auto = input.autoAdvance;
  if (auto !== undefined) {
    inv.auto_advance = auto;
    if (inv.status === 'draft') inv.automatically_finalizes_at = auto ? ctx.clock.nowSeconds() + 3600 : null;
  }
  if (input.collectionMethod !== undefined) inv.collection_method = input.collectionMethod;
  if (input.daysUntilDue !== undefined) inv.due_date = ctx.clock.nowSeconds() + input.daysUntilDue * DAY;
  if (input.dueDate !== undefined) inv.due_date = input.dueDate;
  if (input.defaultPaymentMethod !== undefined) {
    const dpm = input.defaultPaymentMethod;
    if (dpm) load(ctx, 'payment_method', dpm, 'default_payment_method');
    inv.default_payment_method = dpm;
  }
  saveInvoice(ctx, inv);
  const prev = previousAttributes(presentInvoice(before), presentInvoice(inv));
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'invoice.updated', presentInvoice(inv), prev);
  return inv;
}

/** `POST /v1/invoices/{id}/add_lines`: one-off lines on a draft (price + quantity, or an amount). */
export function addLines(ctx: TwinContext, id: string, linesIn: InvoiceLineInput[] | undefined): Invoice {
  const before = loadInvoice(ctx, id);
  if (before.status !== 'draft') {
    throw invalidRequest(`Invoice ${id} is not a draft; lines can only be added to draft invoices.`, 'lines', 'invoice_not_editable');
  }
  const inv = clone(before);
  if (!linesIn || linesIn.length === 0) throw invalidRequest('Missing required param: lines.', 'lines', 'parameter_missing');
  const now = ctx.clock.nowSeconds();
  linesIn.forEach((l, i) => {
    const prefix = `lines[${i}]`;
    const priceId = l.price;
    const quantity = l.quantity ?? 1;
    let price: StripeObject;
    let amount: number;
    if (priceId) {
      price = load(ctx, 'price', priceId, `${prefix}[pricing][price]`);
      amount = amountFor(price, quantity);
    } else {
      amount = l.amount ?? 0;
      price = { id: '', object: 'price', currency: inv.currency, unit_amount: amount, unit_amount_decimal: String(amount), product: null };
    }
    const spec: LineSpec = {
      amount,
      quantity,
      description: l.description ?? (priceId ? `${quantity} × ${productName(ctx, price)}` : 'Invoice item'),
      price,
      period: { start: now, end: now },
      subscriptionItem: null,
      subscription: inv.subscription ?? null,
    };
    (inv.lines.data as StripeObject[]).push(buildLine(ctx, id, spec));
  });
  priceInvoice(ctx, inv);
  saveInvoice(ctx, inv);
  emitEvent(ctx, 'invoice.updated', presentInvoice(inv), previousAttributes(presentInvoice(before), presentInvoice(inv)));
  return inv;
}

/**
 * Totals from the lines, the invoice's discounts and tax rates (a line's own `tax_rates`, else
 * the invoice's `default_tax_rates`); the customer balance is applied at finalization.
 */
export function priceInvoice(ctx: TwinContext, inv: Invoice): void {
  const data = inv.lines.data as StripeObject[];
  inv.total_discount_amounts = discountLines(ctx, data as unknown as Parameters<typeof discountLines>[1], (inv.discounts as string[]) ?? [], inv.currency);
  const defaults = (inv.default_tax_rates as StripeObject[] | undefined) ?? [];
  const perRate = new Map<string, { amount: number; taxable: number; inclusive: boolean }>();
  let exclusiveTax = 0;
  let inclusiveTax = 0;
  for (const line of data) {
    const own = (line.tax_rates as StripeObject[] | undefined) ?? [];
    const discounted = (line.amount as number) - (line.discount_amounts as { amount: number }[]).reduce((s, d) => s + d.amount, 0);
    line.taxes = lineTaxes(discounted, own.length > 0 ? own : defaults);
    for (const tax of line.taxes as LineTax[]) {
      const inclusive = tax.tax_behavior === 'inclusive';
      if (inclusive) inclusiveTax += tax.amount;
      else exclusiveTax += tax.amount;
      const sum = perRate.get(tax.tax_rate_details.tax_rate) ?? { amount: 0, taxable: 0, inclusive };
      sum.amount += tax.amount;
      sum.taxable += tax.taxable_amount;
      perRate.set(tax.tax_rate_details.tax_rate, sum);
    }
  }
  const subtotal = data.reduce((s, l) => s + (l.amount as number), 0);
  const discounted = (inv.total_discount_amounts as { amount: number }[]).reduce((s, d) => s + d.amount, 0);
  const total = subtotal - discounted + exclusiveTax;
  inv.total_taxes = [...perRate].map(([rate, t]) => ({
    amount: t.amount,
    tax_behavior: t.inclusive ? 'inclusive' : 'exclusive',
    tax_rate_details: { tax_rate: rate },
    taxability_reason: 'standard_rated',
    taxable_amount: t.taxable,
    type: 'tax_rate_details',
  }));
  // Pre-2025 API versions read `total_tax_amounts`.
  inv.total_tax_amounts = [...perRate].map(([rate, t]) => ({
    amount: t.amount,
    inclusive: t.inclusive,
    tax_rate: rate,
    taxability_reason: 'standard_rated',
    taxable_amount: t.taxable,
  }));
  inv.lines.total_count = data.length;
  inv.subtotal = subtotal;
  inv.subtotal_excluding_tax = subtotal - inclusiveTax;
  inv.total = total;
  inv.total_excluding_tax = total - exclusiveTax - inclusiveTax;
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
  releaseItems(ctx, id);
  emitInvoice(ctx, 'invoice.deleted', inv);
  return { id, object: 'invoice', deleted: true };
}

// ---------------------------------------------------------------------------------------------
// Finalize, collect, void, mark uncollectible

const MINIMUM_CHARGE: Record<string, number> = {
  usd: 50,
  eur: 50,
  gbp: 30,
  cad: 50,
  aud: 50,
  chf: 50,
  jpy: 50,
  inr: 50,
  sek: 300,
  nok: 300,
  dkk: 250,
  mxn: 1000,
};

export function minimumChargeable(currency: string): number {
  return MINIMUM_CHARGE[currency] ?? 50;
}

/**
 * A subscription's Connect options as its invoice's payment carries them: a destination charge to
 * `transfer_data[destination]` (`amount_percent` of it, or all) and the platform's
 * `application_fee_percent` of the amount as the fee.
 */
function connectShare(ctx: TwinContext, inv: Invoice): Pick<PaymentIntentCreate, 'transferData' | 'applicationFeeAmount' | 'onBehalfOf'> {
  const sub = inv.subscription ? find(ctx, 'subscription', inv.subscription as string) : undefined;
  if (!sub || (!sub.transfer_data && sub.application_fee_percent == null)) return {};
  const part = (pct: number) => Math.round((inv.amount_remaining * pct) / 100);
  const td = sub.transfer_data as { destination: string; amount_percent: number | null } | null;
  return {
    transferData: td ? { destination: td.destination, ...(td.amount_percent != null ? { amount: part(td.amount_percent) } : {}) } : undefined,
    applicationFeeAmount: sub.application_fee_percent != null ? part(sub.application_fee_percent) : undefined,
    onBehalfOf: sub.on_behalf_of ?? undefined,
  };
}

/** The invoice's PaymentIntent, created on first need (Stripe creates it at finalization). */
export function invoicePaymentIntent(ctx: TwinContext, inv: Invoice): StripeObject {
  if (inv.payment_intent) {
    const existing = find(ctx, 'payment_intent', inv.payment_intent);
    if (existing) return existing;
  }
  const description =
    inv.billing_reason === 'subscription_create'
      ? 'Subscription creation'
      : inv.billing_reason === 'subscription_cycle'
        ? 'Subscription update'
        : (inv.description ?? null);
  const { intent } = createPaymentIntent(ctx, {
    amount: inv.amount_remaining,
    currency: inv.currency,
    customer: inv.customer,
    description: description || undefined,
    ...connectShare(ctx, inv),
  });
  intent.invoice = inv.id;
  ctx.store.put('payment_intent', intent.id, intent);
  inv.payment_intent = intent.id;
  ctx.store.put('invoice', inv.id, inv);
  return intent;
}

export function nextInvoiceNumber(ctx: TwinContext, customerId: string): string {
  const c = find(ctx, 'customer', customerId);
  if (!c || c.deleted) return `${customerId.slice(4, 12).toUpperCase()}-0001`;
  const seq = (c.next_invoice_sequence as number | undefined) ?? 1;
  c.next_invoice_sequence = seq + 1;
  ctx.store.put('customer', c.id, c);
  return `${c.invoice_prefix ?? 'INV'}-${String(seq).padStart(4, '0')}`;
}

/**
 * Draft → open (`invoice.finalized`); a zero-amount invoice is paid at once. Charging it is
 * invoice-payments.ts's `finalizeAndCollect`.
 */
export function finalizeInvoice(ctx: TwinContext, id: string, opts: { autoAdvance?: boolean } = {}): Invoice {
  ctx = contextForObject(ctx, 'invoice', id);
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
  applyCustomerBalance(ctx, inv);
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
  return loadInvoice(ctx, id);
}

/**
 * Finalization applies the customer's balance: credit lowers `amount_due` (down to 0), debt
 * raises it, a negative total becomes credit; the ledger records what moved.
 */
function applyCustomerBalance(ctx: TwinContext, inv: Invoice): void {
  const customer = find(ctx, 'customer', inv.customer);
  const balance = customer && !customer.deleted ? ((customer.balance as number | undefined) ?? 0) : 0;
  const { amountDue, endingBalance } = balanceApplication(balance, inv.total);
  inv.starting_balance = balance;
  inv.ending_balance = endingBalance;
  inv.amount_due = amountDue;
  inv.amount_remaining = Math.max(0, amountDue - inv.amount_paid);
  if (customer && !customer.deleted && endingBalance !== balance) {
    changeBalance(ctx, customer.id, { amount: endingBalance - balance, currency: inv.currency, type: 'applied_to_invoice', invoice: inv.id });
  }
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

export function markPaid(ctx: TwinContext, id: string, opts: { outOfBand: boolean; charge?: string | null; paymentIntent?: string | null }): Invoice {
  ctx = contextForObject(ctx, 'invoice', id);
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
  announce(ctx, (l) => l.paid?.(ctx, inv));
  return inv;
}

/**
 * `POST /v1/invoices/{id}/send`: a `send_invoice` invoice is finalized if still a draft and sent
 * to the customer (`invoice.sent`); the customer pays it on its hosted page.
 */
export function sendInvoice(ctx: TwinContext, id: string): Invoice {
  ctx = contextForObject(ctx, 'invoice', id);
  const before = loadInvoice(ctx, id);
  if (before.collection_method !== 'send_invoice') {
    throw invalidRequest("You can only manually send an invoice if its collection method is 'send_invoice'.", undefined, 'invoice_not_editable');
  }
  if (before.status === 'void' || before.status === 'uncollectible') {
    throw invalidRequest(`You cannot send an invoice with status \`${before.status}\`.`, undefined, 'invoice_not_open');
  }
  const inv = before.status === 'draft' ? finalizeInvoice(ctx, id) : before;
  emitInvoice(ctx, 'invoice.sent', inv);
  return inv;
}

export function voidInvoice(ctx: TwinContext, id: string): Invoice {
  ctx = contextForObject(ctx, 'invoice', id);
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

// ---------------------------------------------------------------------------------------------
// List and preview

/** `GET /v1/invoices`: one page read through the store's index. */
export function listInvoices(ctx: TwinContext, f: InvoiceFilter, window: ListWindow): ListPage<Invoice> {
  const equals: FieldEquals = {};
  if (f.customer) equals.customer = f.customer;
  if (f.subscription) equals.subscription = f.subscription;
  if (f.status) equals.status = f.status;
  if (f.collectionMethod) equals.collection_method = f.collectionMethod;
  const page = readPage<Invoice>(ctx, 'invoice', equals, window);
  return { ...page, data: page.data.map(presentInvoice) };
}
