// /v1/invoices: create, retrieve, update, delete a draft, list, search, preview, lines, finalize,
// pay, void, mark uncollectible, add lines; and the page a finalized invoice's hosted URL shows.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { stripeError } from '../wire/errors.js';
import { listBody, listEnvelope, readListWindow } from '../wire/list.js';
import { searchResponse } from '../wire/search.js';
import { bool, int, objArray, oneOf, readMetadata, readParams, strArray, requiredStr, str, type Params } from '../wire/params.js';
import type { StripeObject } from '../model/objects.js';
import {
  INVOICE_COLLECTION_METHODS,
  INVOICE_STATUSES,
  addLines,
  createInvoice,
  deleteDraftInvoice,
  listInvoices,
  finalizeInvoice,
  loadInvoice,
  markUncollectible,
  presentInvoice,
  updateInvoice,
  sendInvoice,
  voidInvoice,
  type Invoice,
  type InvoiceLineInput,
  type InvoiceUpdate,
} from '../model/invoices.js';
import { payInvoice } from '../model/invoice-payments.js';
import { findPreview, previewInvoice } from '../model/invoice-previews.js';
import { readDiscounts } from './coupons.js';

/** `name=` (empty) clears a text field: null; absent: undefined. */
const clearable = (p: Params, key: string): string | null | undefined => (p[key] === undefined ? undefined : str(p, key) || null);

function readUpdate(p: Params): InvoiceUpdate {
  const input: InvoiceUpdate = {
    metadata: readMetadata(p),
    description: clearable(p, 'description'),
    footer: clearable(p, 'footer'),
    statementDescriptor: clearable(p, 'statement_descriptor'),
    autoAdvance: bool(p, 'auto_advance'),
  };
  if (p.collection_method !== undefined) input.collectionMethod = oneOf(p, 'collection_method', INVOICE_COLLECTION_METHODS);
  if (p.days_until_due !== undefined) input.daysUntilDue = int(p, 'days_until_due');
  if (p.due_date !== undefined) input.dueDate = int(p, 'due_date');
  if (p.default_payment_method !== undefined) input.defaultPaymentMethod = str(p, 'default_payment_method') || null;
  return input;
}

/** `lines[]`: a price (`pricing[price]`, or `price`) × quantity, or an amount. */
function readLines(p: Params): InvoiceLineInput[] | undefined {
  const raw = p.lines;
  const lines = (Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.values(raw) : undefined) as Params[] | undefined;
  return lines?.map((l, i) => {
    const prefix = `lines[${i}]`;
    const price = str((l.pricing as Params | undefined) ?? {}, 'price', `${prefix}[pricing]`) ?? str(l, 'price', prefix);
    return {
      price,
      quantity: int(l, 'quantity', prefix),
      amount: price ? undefined : int(l, 'amount', prefix),
      description: str(l, 'description', prefix),
    };
  });
}

function readPreview(p: Params) {
  const details = (p.subscription_details ?? {}) as Params;
  const prefix = 'subscription_details[items]';
  const items = objArray(details, 'items', 'subscription_details')?.map((it, i) => ({
    id: str(it, 'id', `${prefix}[${i}]`),
    price: str(it, 'price', `${prefix}[${i}]`),
    quantity: int(it, 'quantity', `${prefix}[${i}]`),
    deleted: bool(it, 'deleted', `${prefix}[${i}]`),
  }));
  return {
    subscription: str(p, 'subscription'),
    customer: str(p, 'customer'),
    items,
    cancelNow: bool(details, 'cancel_now', 'subscription_details'),
    cancelAtPeriodEnd: bool(details, 'cancel_at_period_end', 'subscription_details'),
  };
}

/** Fields Stripe's search query language accepts for invoices. */
const INVOICE_SEARCH_FIELDS = {
  created: (o: StripeObject) => o.created,
  currency: (o: StripeObject) => o.currency,
  customer: (o: StripeObject) => o.customer,
  number: (o: StripeObject) => o.number,
  receipt_number: (o: StripeObject) => o.receipt_number,
  status: (o: StripeObject) => o.status,
  subscription: (o: StripeObject) => o.subscription,
  total: (o: StripeObject) => o.total,
};

export const invoiceRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/invoices/create_preview', handler: (req, ctx) => ok(previewInvoice(ctx, readPreview(readParams(req)))) },
  {
    method: 'GET',
    path: '/v1/invoices/search',
    handler: (req, ctx) => {
      readParams(req);
      return searchResponse(
        req,
        ctx,
        { resource: 'invoice', present: (i: StripeObject) => presentInvoice(i as Invoice) },
        '/v1/invoices/search',
        INVOICE_SEARCH_FIELDS,
        'invoices',
      );
    },
  },
  {
    method: 'POST',
    path: '/v1/invoices',
    handler: (req, ctx) => {
      const p = readParams(req);
      const customer = requiredStr(p, 'customer');
      const input = {
        customer,
        subscription: str(p, 'subscription'),
        collectionMethod: oneOf(p, 'collection_method', INVOICE_COLLECTION_METHODS),
        daysUntilDue: int(p, 'days_until_due'),
        dueDate: int(p, 'due_date'),
        defaultPaymentMethod: str(p, 'default_payment_method'),
        currency: str(p, 'currency'),
        autoAdvance: bool(p, 'auto_advance'),
        description: str(p, 'description'),
        metadata: readMetadata(p),
        footer: clearable(p, 'footer'),
        statementDescriptor: clearable(p, 'statement_descriptor'),
        discounts: readDiscounts(p),
        defaultTaxRates: strArray(p, 'default_tax_rates'),
        pendingInvoiceItems: oneOf(p, 'pending_invoice_items_behavior', ['exclude', 'include'] as const),
      };
      return ok(presentInvoice(createInvoice(ctx, input)));
    },
  },
  {
    method: 'GET',
    path: '/v1/invoices',
    handler: (req, ctx) => {
      const p = readParams(req);
      const filter = {
        customer: str(p, 'customer'),
        subscription: str(p, 'subscription'),
        status: oneOf(p, 'status', INVOICE_STATUSES),
        collectionMethod: str(p, 'collection_method'),
      };
      return ok(listEnvelope(listInvoices(ctx, filter, readListWindow(p)), '/v1/invoices'));
    },
  },
  {
    method: 'GET',
    path: '/v1/invoices/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(presentInvoice(loadInvoice(ctx, req.params.id!)));
    },
  },
  {
    method: 'POST',
    path: '/v1/invoices/{id}',
    handler: (req, ctx) => ok(presentInvoice(updateInvoice(ctx, req.params.id!, readUpdate(readParams(req))))),
  },
  { method: 'DELETE', path: '/v1/invoices/{id}', handler: (req, ctx) => (readParams(req), ok(deleteDraftInvoice(ctx, req.params.id!))) },
  {
    method: 'GET',
    path: '/v1/invoices/{id}/lines',
    handler: (req, ctx) => {
      const p = readParams(req);
      const inv = findPreview(ctx, req.params.id!) ?? loadInvoice(ctx, req.params.id!, 'invoice');
      // Lines keep invoice order (first line first), unlike newest-first object lists.
      const lines = [...(inv.lines.data as StripeObject[])].reverse().map((l, i) => ({ ...l, created: i }));
      const body = listBody(p, lines, `/v1/invoices/${inv.id}/lines`);
      return ok({ ...body, data: body.data.map(({ created: _c, ...l }) => l) });
    },
  },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/finalize',
    handler: (req, ctx) => {
      const p = readParams(req);
      const auto = p.auto_advance === undefined ? undefined : p.auto_advance === 'true' || p.auto_advance === true;
      return ok(presentInvoice(finalizeInvoice(ctx, req.params.id!, { autoAdvance: auto })));
    },
  },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/pay',
    handler: (req, ctx) => {
      const p = readParams(req);
      const { invoice, decline } = payInvoice(ctx, req.params.id!, {
        paidOutOfBand: bool(p, 'paid_out_of_band'),
        paymentMethod: str(p, 'payment_method'),
        offSession: bool(p, 'off_session'),
      });
      if (!decline) return ok(presentInvoice(invoice));
      // A declined payment answers 402 but keeps the attempt (charge, `attempt_count`, events), as
      // Stripe does: answered, not thrown, so nothing is rolled back.
      return stripeError(402, {
        type: 'card_error',
        code: decline.code,
        decline_code: decline.decline_code ?? undefined,
        message: decline.message,
        extra: { charge: decline.charge, payment_intent: decline.payment_intent },
      });
    },
  },
  { method: 'POST', path: '/v1/invoices/{id}/send', handler: (req, ctx) => (readParams(req), ok(presentInvoice(sendInvoice(ctx, req.params.id!)))) },
  { method: 'POST', path: '/v1/invoices/{id}/void', handler: (req, ctx) => (readParams(req), ok(presentInvoice(voidInvoice(ctx, req.params.id!)))) },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/mark_uncollectible',
    handler: (req, ctx) => (readParams(req), ok(presentInvoice(markUncollectible(ctx, req.params.id!)))),
  },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/add_lines',
    handler: (req, ctx) => ok(presentInvoice(addLines(ctx, req.params.id!, readLines(readParams(req))))),
  },
];
