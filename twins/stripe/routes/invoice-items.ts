// /v1/invoiceitems: create, retrieve, update, delete, list (pending items have `invoice: null`).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import {
  LIST_PARAMS,
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
  type ParamSpec,
} from '../wire/params.js';
import { createInvoiceItem, deleteInvoiceItem, getInvoiceItem, listInvoiceItems, updateInvoiceItem, type InvoiceItemFields } from '../model/invoice-items.js';

const FIELDS_SPEC: ParamSpec = {
  amount: true,
  description: true,
  discountable: true,
  discounts: true,
  metadata: true,
  period: { start: true, end: true },
  price: true,
  price_data: true,
  pricing: { price: true },
  quantity: true,
  quantity_decimal: true,
  tax_behavior: true,
  tax_code: true,
  tax_rates: true,
  unit_amount_decimal: true,
};

function readFields(p: Params): InvoiceItemFields {
  const period = obj(p, 'period');
  return {
    amount: int(p, 'amount'),
    price: str(obj(p, 'pricing') ?? {}, 'price', 'pricing') ?? str(p, 'price'),
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
      const p = readParams(req, { ...FIELDS_SPEC, customer: true, customer_account: true, currency: true, invoice: true, subscription: true });
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
      const p = readParams(req, { ...LIST_PARAMS, customer: true, customer_account: true, invoice: true, pending: true });
      const found = listInvoiceItems(ctx, { customer: str(p, 'customer'), invoice: str(p, 'invoice'), pending: bool(p, 'pending') }, readListWindow(p));
      return ok(listEnvelope(found, '/v1/invoiceitems'));
    },
  },
  { method: 'GET', path: '/v1/invoiceitems/{invoiceitem}', handler: (req, ctx) => (readParams(req, {}), ok(getInvoiceItem(ctx, req.params.invoiceitem!))) },
  {
    method: 'POST',
    path: '/v1/invoiceitems/{invoiceitem}',
    handler: (req, ctx) => ok(updateInvoiceItem(ctx, req.params.invoiceitem!, readFields(readParams(req, FIELDS_SPEC)))),
  },
  {
    method: 'DELETE',
    path: '/v1/invoiceitems/{invoiceitem}',
    handler: (req, ctx) => (readParams(req, {}), ok(deleteInvoiceItem(ctx, req.params.invoiceitem!))),
  },
];
