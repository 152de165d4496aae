// /v1/invoices: create, retrieve, update, delete a draft, list, search, preview, lines, finalize,
// pay, void, mark uncollectible, add lines; and the page a finalized invoice's hosted URL shows.

import type { TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listResponse, searchResponse } from '../wire/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, readParams } from '../wire/params.js';
import { find, type StripeObject } from '../model/objects.js';
import {
  INVOICE_CREATE_PARAMS,
  INVOICE_LIST_FILTERS,
  INVOICE_UPDATE_PARAMS,
  addLinesByRequest,
  createInvoiceByRequest,
  deleteDraftInvoice,
  filterInvoices,
  finalizeInvoice,
  loadInvoice,
  markUncollectible,
  presentInvoice,
  updateInvoiceByRequest,
  voidInvoice,
} from '../model/invoices.js';
import { DeclinedPayment, PAY_PARAMS, payInvoiceByRequest } from '../model/invoice-payments.js';
import { PREVIEW_PARAMS, previewInvoice } from '../model/invoice-previews.js';

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
  { method: 'POST', path: '/v1/invoices/create_preview', handler: (req, ctx) => ok(previewInvoice(ctx, readParams(req, PREVIEW_PARAMS))) },
  {
    method: 'GET',
    path: '/v1/invoices/search',
    handler: (req, ctx) => {
      readParams(req, SEARCH_PARAMS);
      const all = ctx.store.list<StripeObject>('invoice').map((i) => presentInvoice(i as any));
      return searchResponse(req, ctx, all, '/v1/invoices/search', INVOICE_SEARCH_FIELDS, 'invoices');
    },
  },
  {
    // The page a finalized invoice's `hosted_invoice_url` points at: a plain summary.
    method: 'GET',
    path: '/i/{id}',
    public: true,
    handler: (req, ctx): TwinResponse => {
      const inv = find(ctx, 'invoice', req.params.id!);
      const html = (b: string, status = 200): TwinResponse => ({ status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: b });
      if (!inv || inv.status === 'draft') return html('<h1>Invoice not found</h1>', 404);
      const esc = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      const rows = (inv.lines.data as StripeObject[]).map((l) => `<tr><td>${esc(l.description)}</td><td>${esc(l.amount)}</td></tr>`).join('');
      return html(
        `<!doctype html><title>Invoice ${esc(inv.number)}</title><h1>Invoice ${esc(inv.number)}</h1><p>Status: ${esc(inv.status)}</p>` +
          `<table>${rows}</table><p>Amount due: ${esc(inv.amount_due)} ${esc(inv.currency)}; remaining: ${esc(inv.amount_remaining)}</p>`,
      );
    },
  },
  { method: 'POST', path: '/v1/invoices', handler: (req, ctx) => ok(presentInvoice(createInvoiceByRequest(ctx, readParams(req, INVOICE_CREATE_PARAMS)))) },
  {
    method: 'GET',
    path: '/v1/invoices',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, ...INVOICE_LIST_FILTERS });
      return listResponse(req, ctx, filterInvoices(ctx, p), '/v1/invoices');
    },
  },
  {
    method: 'GET',
    path: '/v1/invoices/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(presentInvoice(loadInvoice(ctx, req.params.id!)));
    },
  },
  { method: 'POST', path: '/v1/invoices/{id}', handler: (req, ctx) => ok(presentInvoice(updateInvoiceByRequest(ctx, req.params.id!, readParams(req, INVOICE_UPDATE_PARAMS)))) },
  { method: 'DELETE', path: '/v1/invoices/{id}', handler: (req, ctx) => (readParams(req, {}), ok(deleteDraftInvoice(ctx, req.params.id!))) },
  {
    method: 'GET',
    path: '/v1/invoices/{id}/lines',
    handler: (req, ctx) => {
      const p = readParams(req, LIST_PARAMS);
      const inv = loadInvoice(ctx, req.params.id!, 'invoice');
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
      const p = readParams(req, { auto_advance: true });
      const auto = p.auto_advance === undefined ? undefined : p.auto_advance === 'true' || p.auto_advance === true;
      return ok(presentInvoice(finalizeInvoice(ctx, req.params.id!, { autoAdvance: auto })));
    },
  },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/pay',
    handler: (req, ctx) => {
      const out = payInvoiceByRequest(ctx, req.params.id!, readParams(req, PAY_PARAMS));
      return out instanceof DeclinedPayment ? out.response : ok(presentInvoice(out));
    },
  },
  { method: 'POST', path: '/v1/invoices/{id}/void', handler: (req, ctx) => (readParams(req, {}), ok(presentInvoice(voidInvoice(ctx, req.params.id!)))) },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/mark_uncollectible',
    handler: (req, ctx) => (readParams(req, {}), ok(presentInvoice(markUncollectible(ctx, req.params.id!)))),
  },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/add_lines',
    handler: (req, ctx) => ok(presentInvoice(addLinesByRequest(ctx, req.params.id!, readParams(req, { lines: true, invoice_metadata: true })))),
  },
];
