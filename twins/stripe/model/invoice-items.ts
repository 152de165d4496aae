// Invoice items (`ii_`): one-off charges or credits for a customer. An item created with an
// `invoice` goes on that draft at once; one without stays pending (`invoice: null`) until the
// customer's next invoice takes it — a subscription's next invoice (creation or renewal), or a
// manual one created with `pending_invoice_items_behavior=include`. Items can change or go only
// while pending or on a draft (the draft's line follows).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, deletedObject, find, load, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { eachMatching, readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { contextForCustomer } from './clock-scope.js';
import { getCustomer } from './customers.js';
import { createInlinePrice, type PriceCreate } from './prices.js';
import { loadTaxRates } from './tax-rates.js';
import { amountFor, buildLine, productName, type LineSpec } from './invoice-lines.js';
import { loadInvoice, presentInvoice, priceInvoice, saveInvoice, type Invoice } from './invoices.js';

export interface InvoiceItemFields {
  amount?: number;
  /** A price id (`pricing[price]` or the older `price`). */
  price?: string;
  /** Inline `price_data`: a one-off price made for this item. */
  priceData?: PriceCreate;
  unitAmountDecimal?: string;
  quantity?: number;
  description?: string;
  discountable?: boolean;
  period?: { start: number; end: number };
  taxRates?: string[];
  metadata?: MetadataPatch;
}

export interface InvoiceItemCreate extends InvoiceItemFields {
  customer: string;
  currency?: string;
  invoice?: string;
  subscription?: string;
}

function editableInvoice(ctx: TwinContext, id: string, param: string): Invoice {
  const inv = loadInvoice(ctx, id, param);
  if (inv.status !== 'draft')
    throw invalidRequest(`Invoice ${id} is not a draft; invoice items can only be added to or changed on draft invoices.`, param, 'invoice_not_editable');
  return inv;
}

/** Amount, quantity and price of an item: a price × quantity, a unit amount × quantity, or an amount. */
function pricing(ctx: TwinContext, item: StripeObject, input: InvoiceItemFields): void {
  const quantity = input.quantity ?? item.quantity ?? 1;
  if (quantity < 1) throw invalidRequest('Invalid quantity: must be at least 1.', 'quantity');
  if (input.price !== undefined) {
    const price = load(ctx, 'price', input.price, 'pricing[price]');
    if (price.currency !== item.currency)
      throw invalidRequest(`The price's currency (${price.currency}) must match the invoice item's currency (${item.currency}).`, 'pricing[price]');
    item.price = clone(price);
  } else if (input.unitAmountDecimal !== undefined || input.amount !== undefined) {
    item.price = null;
  }
  if (item.price) {
    item.amount = amountFor(item.price, quantity);
    item.unit_amount_decimal = item.price.unit_amount_decimal ?? String(item.price.unit_amount ?? 0);
  } else if (input.unitAmountDecimal !== undefined) {
    item.unit_amount_decimal = input.unitAmountDecimal;
    item.amount = Math.round(Number(input.unitAmountDecimal) * quantity);
  } else if (input.amount !== undefined) {
    item.amount = input.amount;
    item.unit_amount_decimal = String(input.amount / quantity);
  } else if (item.unit_amount_decimal !== null) {
    item.amount = Math.round(Number(item.unit_amount_decimal) * quantity);
  }
  item.quantity = quantity;
  item.unit_amount = Number.isInteger(Number(item.unit_amount_decimal)) ? Number(item.unit_amount_decimal) : null;
  item.pricing = item.price
    ? { price_details: { price: item.price.id, product: item.price.product }, type: 'price_details', unit_amount_decimal: item.unit_amount_decimal }
    : { type: 'price_details', unit_amount_decimal: item.unit_amount_decimal };
}

function applyFields(ctx: TwinContext, item: StripeObject, input: InvoiceItemFields): void {
  pricing(ctx, item, input);
  if (input.description !== undefined) item.description = input.description;
  if (input.discountable !== undefined) item.discountable = input.discountable;
  if (input.period) {
    if (input.period.end < input.period.start) throw invalidRequest('The period end must be after its start.', 'period[end]');
    item.period = { end: input.period.end, start: input.period.start };
  }
  if (input.taxRates !== undefined) item.tax_rates = loadTaxRates(ctx, input.taxRates, 'tax_rates');
  if (input.metadata !== undefined) item.metadata = applyMetadata(item.metadata ?? {}, input.metadata);
}

/** The invoice line an item becomes. */
export function itemLine(ctx: TwinContext, item: StripeObject): LineSpec {
  const price = item.price ?? {
    id: '',
    object: 'price',
    currency: item.currency,
    unit_amount: item.unit_amount,
    unit_amount_decimal: item.unit_amount_decimal,
    product: null,
  };
  return {
    amount: item.amount,
    quantity: item.quantity,
    description: item.description ?? (item.price ? `${item.quantity} × ${productName(ctx, item.price)}` : 'Invoice item'),
    price,
    period: item.period,
    subscriptionItem: null,
    subscription: item.subscription ?? null,
    taxRates: item.tax_rates ?? [],
    invoiceItem: item.id,
  };
}

/** Put the item's line on its draft invoice (replacing the line it had there) and reprice it. */
function syncLine(ctx: TwinContext, item: StripeObject, opts: { remove?: boolean } = {}): void {
  if (!item.invoice) return;
  const before = loadInvoice(ctx, item.invoice);
  const inv = clone(before);
  const lines = (inv.lines.data as StripeObject[]).filter((l) => l.parent?.invoice_item_details?.invoice_item !== item.id);
  if (!opts.remove) {
    const at = (before.lines.data as StripeObject[]).findIndex((l) => l.parent?.invoice_item_details?.invoice_item === item.id);
    const line = buildLine(ctx, inv.id, itemLine(ctx, item));
    if (at === -1) lines.push(line);
    else lines.splice(at, 0, line);
  }
  inv.lines.data = lines;
  priceInvoice(ctx, inv);
  saveInvoice(ctx, inv);
  const prev = previousAttributes(presentInvoice(before), presentInvoice(inv));
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'invoice.updated', presentInvoice(inv), prev);
}

/** `price_data` made into its (archived) price, so the item reads as one on `price`. */
function withInlinePrice<T extends InvoiceItemFields>(ctx: TwinContext, input: T): T {
  if (input.priceData === undefined) return input;
  if (input.price !== undefined) throw invalidRequest('You may only specify one of these parameters: price, price_data.', 'price');
  return { ...input, price: createInlinePrice(ctx, input.priceData, 'price_data').id, priceData: undefined };
}

export function createInvoiceItem(ctx: TwinContext, input: InvoiceItemCreate): StripeObject {
  ctx = contextForCustomer(ctx, input.customer);
  const customer = getCustomer(ctx, input.customer);
  input = withInlinePrice(ctx, input);
  const invoice = input.invoice ? editableInvoice(ctx, input.invoice, 'invoice') : undefined;
  if (invoice && invoice.customer !== customer.id) throw invalidRequest(`The invoice ${invoice.id} belongs to another customer.`, 'invoice');
  const sub = input.subscription ? load(ctx, 'subscription', input.subscription, 'subscription') : undefined;
  if (input.price === undefined && input.amount === undefined && input.unitAmountDecimal === undefined) throw missingParam('amount');
  const price = input.price ? load(ctx, 'price', input.price, 'pricing[price]') : undefined;
  const currency = (input.currency ?? price?.currency ?? invoice?.currency ?? sub?.currency ?? customer.currency)?.toLowerCase();
  if (!currency) throw missingParam('currency');
  const now = ctx.clock.nowSeconds();
  const id = newId(ctx, 'invoiceitem');
  const item: StripeObject = {
    id,
    object: 'invoiceitem',
    amount: 0,
    currency,
    customer: customer.id,
    customer_account: null,
    date: now,
    description: null,
    discountable: true,
    discounts: [],
    invoice: invoice?.id ?? null,
    livemode: false,
    metadata: {},
    parent: sub ? { subscription_details: { subscription: sub.id }, type: 'subscription_details' } : null,
    period: { end: now, start: now },
    price: null,
    pricing: null,
    proration: false,
    quantity: 1,
    subscription: sub?.id ?? null,
    tax_rates: [],
    test_clock: customer.test_clock ?? null,
    unit_amount: null,
    unit_amount_decimal: null,
  };
  applyFields(ctx, item, input);
  save(ctx, 'invoiceitem', item);
  syncLine(ctx, item);
  emitEvent(ctx, 'invoiceitem.created', item);
  return item;
}

export function getInvoiceItem(ctx: TwinContext, id: string, param = 'id'): StripeObject {
  return load(ctx, 'invoiceitem', id, param);
}

function editable(ctx: TwinContext, item: StripeObject, verb: string): void {
  if (!item.invoice) return;
  const inv = find(ctx, 'invoice', item.invoice);
  if (inv && inv.status !== 'draft') {
    throw invalidRequest(
      `You cannot ${verb} an invoice item that is attached to an invoice that is no longer editable. Invoice ${inv.id} has status \`${inv.status}\`.`,
      undefined,
      'invoice_not_editable',
    );
  }
}

export function updateInvoiceItem(ctx: TwinContext, id: string, input: InvoiceItemFields): StripeObject {
  const before = getInvoiceItem(ctx, id);
  editable(ctx, before, 'modify');
  const item = clone(before);
  applyFields(ctx, item, withInlinePrice(ctx, input));
  save(ctx, 'invoiceitem', item);
  syncLine(ctx, item);
  return item;
}

export function deleteInvoiceItem(ctx: TwinContext, id: string): StripeObject {
  const item = getInvoiceItem(ctx, id);
  editable(ctx, item, 'delete');
  syncLine(ctx, item, { remove: true });
  ctx.store.delete('invoiceitem', id);
  emitEvent(ctx, 'invoiceitem.deleted', { ...item, deleted: true });
  return deletedObject(item);
}

/** `GET /v1/invoiceitems`: one page through the store's index (`pending`: on no invoice yet). */
export function listInvoiceItems(ctx: TwinContext, f: { customer?: string; invoice?: string; pending?: boolean }, window: ListWindow): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  if (f.customer !== undefined) equals.customer = f.customer;
  if (f.invoice !== undefined) equals.invoice = f.invoice;
  if (f.pending === true) equals.invoice = null;
  return readPage<StripeObject>(ctx, 'invoiceitem', equals, window, f.pending === false ? { present: ['invoice'] } : {});
}

/** The customer's pending items a new invoice takes: of no subscription, or of `subscription`. */
function pendingItemsFor(ctx: TwinContext, customerId: string, opts: { subscription?: string | null; currency: string }): StripeObject[] {
  // Filtered in SQL: every invoice a subscription makes asks, so this must not parse every item ever made.
  const pending = ctx.store.page<StripeObject>({
    resource: 'invoiceitem',
    equals: { customer: customerId, invoice: null },
    order: 'seq',
    descending: false,
    limit: 10_000,
  });
  return pending.items.map((r) => r.body).filter((item) => item.currency === opts.currency && (!item.subscription || item.subscription === opts.subscription));
}

/** The lines the customer's pending items would add to its next invoice (a preview: nothing changes). */
export function pendingItemLines(ctx: TwinContext, customerId: string, opts: { subscription?: string | null; currency: string }): LineSpec[] {
  return pendingItemsFor(ctx, customerId, opts).map((item) => itemLine(ctx, item));
}

/** The customer's pending items as lines of the invoice `invoiceId` (being built), now attached to it. */
export function takePendingItems(
  ctx: TwinContext,
  customerId: string,
  invoiceId: string,
  opts: { subscription?: string | null; currency: string },
): LineSpec[] {
  return pendingItemsFor(ctx, customerId, opts).map((item) => {
    save(ctx, 'invoiceitem', { ...item, invoice: invoiceId });
    return itemLine(ctx, item);
  });
}

/** A deleted draft's invoice items become pending again. */
export function releaseItems(ctx: TwinContext, invoiceId: string): void {
  for (const item of [...eachMatching<StripeObject>(ctx, 'invoiceitem', { invoice: invoiceId })]) save(ctx, 'invoiceitem', { ...item, invoice: null });
}
