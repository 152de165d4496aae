// Quotes: a draft with line items on existing prices (its totals computed as Stripe computes them,
// upfront and recurring), edited while `draft`, finalized to `open` (a number, `finalized_at`),
// accepted — which creates what the quote sells: a subscription when it has recurring prices (the
// one-time lines ride on its first invoice), otherwise a draft invoice — or canceled. Discounts and
// taxes are not modelled: the routes refuse those parameters rather than compute a wrong total.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest } from '../wire/errors.js';
import { lineItem } from './checkout.js';
import { createInvoiceItem } from './invoice-items.js';
import { createInvoice, loadInvoice, saveInvoice } from './invoices.js';
import { applyMetadata, clone, load, newId, previousAttributes, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { emitEvent } from './events.js';
import { isMetered } from './subscription-items.js';
import { createSubscription } from './subscriptions.js';
import { resolvePrice, type PriceRef } from './prices.js';

/** A quote is valid 30 days unless `expires_at` says otherwise. */
const DEFAULT_LIFETIME = 30 * 86_400;

export const QUOTE_STATUSES = ['accepted', 'canceled', 'draft', 'open'] as const;
/** The statuses a quote leaves for `canceled` when its `expires_at` passes. */
export const QUOTE_EXPIRING: readonly string[] = ['draft', 'open'];
export const QUOTE_COLLECTION_METHODS = ['charge_automatically', 'send_invoice'] as const;

/** A new line on `price`, or (`id`, on update) a line the quote keeps, its quantity changed or not. */
export interface QuoteLineInput extends PriceRef {
  id?: string;
  quantity?: number;
}

export interface QuoteSubscriptionData {
  description?: string | null;
  trialPeriodDays?: number | null;
  metadata?: MetadataPatch;
}

/** The fields a create sets and a draft's update changes (`null` unsets). */
export interface QuoteFields {
  customer?: string;
  lineItems?: QuoteLineInput[];
  collectionMethod?: (typeof QUOTE_COLLECTION_METHODS)[number];
  daysUntilDue?: number | null;
  description?: string | null;
  header?: string | null;
  footer?: string | null;
  expiresAt?: number;
  metadata?: MetadataPatch;
  subscriptionData?: QuoteSubscriptionData;
}

export interface QuoteFilter {
  customer?: string;
  status?: (typeof QUOTE_STATUSES)[number];
}

const zeroDetails = () => ({ amount_discount: 0, amount_shipping: 0, amount_tax: 0 });

/** The quote's line items from the request's, each price checked (`No such price: 'price_x'`). */
function buildLines(ctx: TwinContext, input: QuoteLineInput[], existing: StripeObject[]): StripeObject[] {
  const lines = input.map((li, i): StripeObject => {
    const prefix = `line_items[${i}]`;
    const kept = li.id === undefined ? undefined : existing.find((line) => line.id === li.id);
    if (li.id !== undefined && !kept) throw invalidRequest(`No such line item: '${li.id}'`, `${prefix}[id]`, 'resource_missing');
    if (kept && (li.price !== undefined || li.priceData !== undefined)) {
      throw invalidRequest(`You may only specify one of these parameters: id, ${li.price === undefined ? 'price_data' : 'price'}.`, `${prefix}[price]`);
    }
    const price = kept ? kept.price : load(ctx, 'price', resolvePrice(ctx, li, prefix), `${prefix}[price]`);
    if (!kept && !price.active && li.priceData === undefined)
      throw invalidRequest(`The price \`${price.id}\` is not active and cannot be used on a quote.`, `${prefix}[price]`);
    if (isMetered(price)) {
      if (li.quantity !== undefined) throw invalidRequest('Quantity cannot be set for a price with `usage_type=metered`.', `${prefix}[quantity]`);
    } else if (li.quantity !== undefined && li.quantity < 0) {
      throw invalidRequest('This value must be greater than or equal to 0.', `${prefix}[quantity]`);
    }
    const line = lineItem(ctx, price, isMetered(price) ? 0 : (li.quantity ?? kept?.quantity ?? 1));
    return kept ? { ...line, id: kept.id } : line;
  });
  if (new Set(lines.map((li) => li.currency)).size > 1) throw invalidRequest('All prices on a quote must have the same currency.', 'line_items');
  const intervals = new Set(
    lines.filter((li) => li.price.type === 'recurring').map((li) => `${li.price.recurring.interval}/${li.price.recurring.interval_count}`),
  );
  if (intervals.size > 1) throw invalidRequest('All recurring prices on a quote must have the same billing interval.', 'line_items');
  return lines;
}

/** Amounts, `computed.upfront` and `computed.recurring` from the lines (a trial makes recurring lines free upfront). */
function computeTotals(quote: StripeObject): void {
  const lines = quote.line_items.data as StripeObject[];
  const recurring = lines.filter((li) => li.price.type === 'recurring');
  const trial = (quote.subscription_data?.trial_period_days ?? 0) > 0;
  const upfrontLines = lines.map((li) => (trial && li.price.type === 'recurring' ? { ...li, amount_subtotal: 0, amount_total: 0 } : li));
  const upfront = upfrontLines.reduce((s, li) => s + li.amount_subtotal, 0);
  quote.currency = lines[0]?.currency ?? quote.currency ?? null;
  quote.amount_subtotal = upfront;
  quote.amount_total = upfront;
  quote.total_details = zeroDetails();
  const first = recurring[0]?.price.recurring;
  const recurringTotal = recurring.reduce((s, li) => s + li.amount_subtotal, 0);
  quote.computed = {
    recurring: first
      ? {
          amount_subtotal: recurringTotal,
          amount_total: recurringTotal,
          interval: first.interval,
          interval_count: first.interval_count,
          total_details: zeroDetails(),
        }
      : null,
    upfront: {
      amount_subtotal: upfront,
      amount_total: upfront,
      total_details: zeroDetails(),
      // Expandable only (see presentQuote).
      line_items: { object: 'list', data: upfrontLines, has_more: false, url: `/v1/quotes/${quote.id}/computed_upfront_line_items` },
    },
  };
}

function setCustomer(ctx: TwinContext, quote: StripeObject, customerId: string): void {
  const customer = load(ctx, 'customer', customerId, 'customer');
  if (customer.deleted) throw invalidRequest(`No such customer: '${customerId}'`, 'customer', 'resource_missing');
  quote.customer = customer.id;
  quote.test_clock = customer.test_clock ?? null;
}

function applyFields(ctx: TwinContext, quote: StripeObject, input: QuoteFields): void {
  const now = ctx.clock.nowSeconds();
  if (input.customer !== undefined) setCustomer(ctx, quote, input.customer);
  if (input.lineItems !== undefined) quote.line_items.data = buildLines(ctx, input.lineItems, quote.line_items.data);
  if (input.collectionMethod !== undefined) quote.collection_method = input.collectionMethod;
  if (input.daysUntilDue !== undefined) quote.invoice_settings.days_until_due = input.daysUntilDue;
  if (input.description !== undefined) quote.description = input.description;
  if (input.header !== undefined) quote.header = input.header;
  if (input.footer !== undefined) quote.footer = input.footer;
  if (input.metadata !== undefined) quote.metadata = applyMetadata(quote.metadata ?? {}, input.metadata);
  if (input.expiresAt !== undefined) {
    if (input.expiresAt <= now) throw invalidRequest('The `expires_at` timestamp must be in the future.', 'expires_at');
    quote.expires_at = input.expiresAt;
  }
  const sd = input.subscriptionData;
  if (sd) {
    if (sd.description !== undefined) quote.subscription_data.description = sd.description;
    if (sd.trialPeriodDays !== undefined) quote.subscription_data.trial_period_days = sd.trialPeriodDays;
    if (sd.metadata !== undefined) quote.subscription_data.metadata = applyMetadata(quote.subscription_data.metadata ?? {}, sd.metadata);
  }
  if (quote.collection_method === 'send_invoice' && quote.invoice_settings.days_until_due == null) {
    throw invalidRequest('`invoice_settings[days_until_due]` is required when `collection_method` is `send_invoice`.', 'invoice_settings[days_until_due]');
  }
  computeTotals(quote);
}

export function createQuote(ctx: TwinContext, input: QuoteFields): StripeObject {
  const now = ctx.clock.nowSeconds();
  const id = newId(ctx, 'quote');
  const quote: StripeObject = {
    id,
    object: 'quote',
    amount_subtotal: 0,
    amount_total: 0,
    application: null,
    application_fee_amount: null,
    application_fee_percent: null,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    collection_method: 'charge_automatically',
    computed: null,
    created: now,
    currency: null,
    customer: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    expires_at: now + DEFAULT_LIFETIME,
    footer: null,
    from_quote: null,
    header: null,
    invoice: null,
    invoice_settings: { days_until_due: null, issuer: { type: 'self' } },
    livemode: false,
    metadata: {},
    number: null,
    on_behalf_of: null,
    status: 'draft',
    status_transitions: { accepted_at: null, canceled_at: null, finalized_at: null },
    subscription: null,
    subscription_data: { description: null, effective_date: null, metadata: null, trial_period_days: null },
    subscription_schedule: null,
    test_clock: null,
    total_details: zeroDetails(),
    transfer_data: null,
    line_items: { object: 'list', data: [], has_more: false, url: `/v1/quotes/${id}/line_items` },
  };
  applyFields(ctx, quote, input);
  ctx.store.put('quote', id, quote);
  emitEvent(ctx, 'quote.created', presentQuote(quote, []));
  return quote;
}

/** The quote as the API answers it: `line_items` and `computed.upfront.line_items` only when expanded. */
export function presentQuote(quote: StripeObject, expand: string[]): StripeObject {
  const out = clone(quote);
  if (!expand.includes('line_items')) delete out.line_items;
  if (out.computed && !expand.includes('computed.upfront.line_items')) delete out.computed.upfront.line_items;
  return out;
}

export function loadQuote(ctx: TwinContext, id: string, param = 'quote'): StripeObject {
  return load(ctx, 'quote', id, param);
}

function save(ctx: TwinContext, type: string | null, before: StripeObject, quote: StripeObject): StripeObject {
  ctx.store.put('quote', quote.id, quote);
  const shown = presentQuote(quote, []);
  if (type) emitEvent(ctx, type, shown, previousAttributes(presentQuote(before, []), shown));
  return quote;
}

/** `POST /v1/quotes/{id}`: a draft takes any field; an open quote only a new `expires_at` and metadata. */
export function updateQuote(ctx: TwinContext, id: string, input: QuoteFields): StripeObject {
  const before = loadQuote(ctx, id);
  const quote = clone(before);
  if (before.status !== 'draft') {
    const others = Object.entries(input).filter(([k, v]) => v !== undefined && k !== 'expiresAt' && k !== 'metadata');
    if (before.status !== 'open' || others.length > 0) {
      throw invalidRequest(
        `You can only update a quote in \`draft\` status (only \`expires_at\` and \`metadata\` while \`open\`). This quote is \`${before.status}\`.`,
      );
    }
  }
  applyFields(ctx, quote, input);
  return save(ctx, null, before, quote);
}

function statusError(quote: StripeObject, action: string, allowed: string[]): never {
  throw invalidRequest(
    `This quote cannot be ${action} because it has a status of \`${quote.status}\`. Only quotes with a status of ${allowed.map((s) => `\`${s}\``).join(' or ')} can be ${action}.`,
  );
}

/** The number Stripe gives a finalized quote: `QT-<customer's invoice prefix>-<sequence>-<revision>`. */
function quoteNumber(ctx: TwinContext, customer: StripeObject): string {
  const key = `stripe:quote_sequence:${customer.id}`;
  const seq = Number(ctx.store.getMeta(key) ?? '0') + 1;
  ctx.store.setMeta(key, String(seq));
  return `QT-${customer.invoice_prefix ?? customer.id.slice(4, 12).toUpperCase()}-${String(seq).padStart(4, '0')}-1`;
}

export function finalizeQuote(ctx: TwinContext, id: string, opts: { expiresAt?: number }): StripeObject {
  const before = loadQuote(ctx, id);
  if (before.status !== 'draft') statusError(before, 'finalized', ['draft']);
  if (!before.customer) throw invalidRequest('A quote must have a `customer` before it can be finalized.', 'customer');
  if ((before.line_items.data as StripeObject[]).length === 0)
    throw invalidRequest('A quote must have at least one line item before it can be finalized.', 'line_items');
  const quote = clone(before);
  const now = ctx.clock.nowSeconds();
  if (opts.expiresAt !== undefined) {
    if (opts.expiresAt <= now) throw invalidRequest('The `expires_at` timestamp must be in the future.', 'expires_at');
    quote.expires_at = opts.expiresAt;
  }
  quote.status = 'open';
  quote.number = quoteNumber(ctx, load(ctx, 'customer', quote.customer, 'customer'));
  quote.status_transitions.finalized_at = now;
  return save(ctx, 'quote.finalized', before, quote);
}

/**
 * `open` → `accepted`: recurring prices start a subscription (one-time lines become invoice items on
 * its first invoice); one-time prices only make a draft invoice for the customer.
 */
export function acceptQuote(ctx: TwinContext, id: string): StripeObject {
  const before = loadQuote(ctx, id);
  if (before.status !== 'open') statusError(before, 'accepted', ['open']);
  const quote = clone(before);
  const lines = quote.line_items.data as StripeObject[];
  const recurring = lines.filter((li) => li.price.type === 'recurring');
  const oneTime = lines.filter((li) => li.price.type !== 'recurring');
  const daysUntilDue = quote.invoice_settings.days_until_due ?? undefined;
  const quoteRef = { quote_details: { quote: quote.id }, subscription_details: null, type: 'quote_details' };
  if (recurring.length > 0) {
    // Pending items the subscription's first invoice takes up (createSubscriptionInvoice).
    for (const li of oneTime) createInvoiceItem(ctx, { customer: quote.customer, price: li.price.id, quantity: li.quantity });
    const sd = quote.subscription_data;
    const sub = createSubscription(ctx, {
      customer: quote.customer,
      // The quote's own lines (an inline price is archived from birth).
      items: recurring.map((li) => ({ price: li.price.id, ownPrice: true, ...(isMetered(li.price) ? {} : { quantity: li.quantity }) })),
      collectionMethod: quote.collection_method,
      daysUntilDue,
      trialPeriodDays: sd.trial_period_days ?? undefined,
      description: sd.description ?? undefined,
      metadata: sd.metadata ?? undefined,
    });
    quote.subscription = sub.id;
  } else {
    const draft = createInvoice(ctx, {
      customer: quote.customer,
      collectionMethod: quote.collection_method,
      daysUntilDue,
      currency: quote.currency,
      description: quote.description ?? undefined,
      footer: quote.footer ?? undefined,
    });
    for (const li of oneTime) createInvoiceItem(ctx, { customer: quote.customer, invoice: draft.id, price: li.price.id, quantity: li.quantity });
    const inv = loadInvoice(ctx, draft.id);
    inv.parent = quoteRef;
    saveInvoice(ctx, inv);
    quote.invoice = inv.id;
  }
  quote.status = 'accepted';
  quote.status_transitions.accepted_at = ctx.clock.nowSeconds();
  return save(ctx, 'quote.accepted', before, quote);
}

export function cancelQuote(ctx: TwinContext, id: string): StripeObject {
  const before = loadQuote(ctx, id);
  if (!QUOTE_EXPIRING.includes(before.status)) statusError(before, 'canceled', ['draft', 'open']);
  const quote = clone(before);
  quote.status = 'canceled';
  quote.status_transitions.canceled_at = ctx.clock.nowSeconds();
  return save(ctx, 'quote.canceled', before, quote);
}

export function listQuotes(ctx: TwinContext, f: QuoteFilter, window: ListWindow): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  if (f.customer) equals.customer = f.customer;
  if (f.status) equals.status = f.status;
  const page = readPage<StripeObject>(ctx, 'quote', equals, window);
  return { ...page, data: page.data.map((q) => presentQuote(q, [])) };
}

/** The lines a quote sells (`/line_items`) or the ones its first invoice bills (`/computed_upfront_line_items`). */
export function quoteLines(ctx: TwinContext, id: string, which: 'all' | 'upfront'): StripeObject[] {
  const quote = loadQuote(ctx, id);
  return (which === 'all' ? quote.line_items.data : (quote.computed?.upfront.line_items.data ?? [])) as StripeObject[];
}
