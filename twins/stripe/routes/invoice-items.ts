// /v1/invoiceitems: create, retrieve, update, delete, list (pending items have `invoice: null`).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import {
  bool,
  currency,
  decimal,
  emptyableStr,
  int,
  obj,
  readMetadata,
  readParams,
  requiredInt,
  requiredStr,
  str,
  strArray,
  type Params,
} from '../wire/params.js';
import { readPriceCreate } from './prices.js';
import { createInvoiceItem, deleteInvoiceItem, getInvoiceItem, listInvoiceItems, updateInvoiceItem, type InvoiceItemFields } from '../model/invoice-items.js';

function readFields(p: Params): InvoiceItemFields {
  const period = obj(p, 'period');
  const priceData = obj(p, 'price_data');
  return {
    amount: int(p, 'amount'),
    price: str(obj(p, 'pricing') ?? {}, 'price', 'pricing') ?? str(p, 'price'),
    priceData: priceData && readPriceCreate(priceData, 'price_data'),
    unitAmountDecimal: decimal(p, 'unit_amount_decimal'),
    quantity: int(p, 'quantity'),
    description: emptyableStr(p, 'description') ?? undefined,
    discountable: bool(p, 'discountable'),
    period: period && { start: requiredInt(period, 'start', 'period'), end: requiredInt(period, 'end', 'period') },
    taxRates: strArray(p, 'tax_rates'),
    metadata: readMetadata(p),
  };
}

export const invoiceItemRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/invoiceitems',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        createInvoiceItem(ctx, {
          ...readFields(p),
          customer: requiredStr(p, 'customer'),
          currency: currency(p),
          invoice: str(p, 'invoice'),
          subscription: str(p, 'subscription'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/invoiceitems',
    handler: (req, ctx) => {
      const p = readParams(req);
      const found = listInvoiceItems(ctx, { customer: str(p, 'customer'), invoice: str(p, 'invoice'), pending: bool(p, 'pending') }, readListWindow(p));
      return ok(listEnvelope(found, '/v1/invoiceitems'));
    },
  },
  { method: 'GET', path: '/v1/invoiceitems/{invoiceitem}', handler: (req, ctx) => (readParams(req), ok(getInvoiceItem(ctx, req.params.invoiceitem!))) },
  {
    method: 'POST',
    path: '/v1/invoiceitems/{invoiceitem}',
    handler: (req, ctx) => ok(updateInvoiceItem(ctx, req.params.invoiceitem!, readFields(readParams(req)))),
  },
  {
    method: 'DELETE',
    path: '/v1/invoiceitems/{invoiceitem}',
    handler: (req, ctx) => (readParams(req), ok(deleteInvoiceItem(ctx, req.params.invoiceitem!))),
  },
];
