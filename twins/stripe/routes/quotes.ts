// /v1/quotes: create, retrieve, update, list, finalize, accept, cancel, line items and computed
// upfront line items (model/quotes.ts). Parameters read through the spec's operation table; the ones
// the twin does not model (discounts, taxes, Connect fees, revisions, effective dates) are refused
// honestly — unread top-level ones by the pipeline, nested ones here. The PDF stays unsupported.

import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated, operationName } from '../../../twin-runtime/fidelity.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listEnvelope, readListWindow } from '../wire/list.js';
import { bool, emptyableStr, expandPaths, int, obj, objArray, oneOf, paramsOf, readMetadata, readParams, str, type Params } from '../wire/params.js';
import { readPriceRef } from './prices.js';
import {
  QUOTE_COLLECTION_METHODS,
  QUOTE_STATUSES,
  acceptQuote,
  cancelQuote,
  createQuote,
  finalizeQuote,
  listQuotes,
  loadQuote,
  presentQuote,
  quoteLines,
  updateQuote,
  type QuoteFields,
} from '../model/quotes.js';

const expandOf = (req: TwinRequest): string[] => expandPaths(paramsOf(req));

const UNMODELLED = 'The twin computes quote totals from prices and quantities only (no discounts, taxes or Connect fees).';

/** Refuse a parameter the twin would otherwise ignore (a fabricated total), naming it. */
function refuse(req: TwinRequest, param: string): never {
  throw new NotSimulated(`${operationName(req)} with ${param}`, UNMODELLED);
}

/** An empty list (or `''`) is "none", which the twin models; anything else is refused. */
function noneOnly(req: TwinRequest, p: Params, key: string, prefix?: string): void {
  const v = p[key];
  if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) return;
  refuse(req, prefix ? `${prefix}[${key}]` : key);
}

function readFields(req: TwinRequest, p: Params): QuoteFields {
  const at = obj(p, 'automatic_tax');
  if (at && bool(at, 'enabled', 'automatic_tax')) refuse(req, 'automatic_tax[enabled]');
  noneOnly(req, p, 'discounts');
  noneOnly(req, p, 'default_tax_rates');
  const lines = objArray(p, 'line_items')?.map((li, i) => {
    const prefix = `line_items[${i}]`;
    for (const key of ['discounts', 'tax_rates']) noneOnly(req, li, key, prefix);
    // The list replaces the quote's lines; a line's `id` keeps one already on it (an update).
    return { id: str(li, 'id', prefix), ...readPriceRef(li, prefix), quantity: int(li, 'quantity', prefix) };
  });
  const is = obj(p, 'invoice_settings');
  if (is) for (const key of Object.keys(is)) if (key !== 'days_until_due') refuse(req, `invoice_settings[${key}]`);
  const sd = obj(p, 'subscription_data');
  if (sd) {
    for (const key of Object.keys(sd)) if (!['description', 'trial_period_days', 'metadata'].includes(key)) refuse(req, `subscription_data[${key}]`);
  }
  const trial = sd?.trial_period_days;
  return {
    customer: str(p, 'customer'),
    lineItems: lines,
    collectionMethod: oneOf(p, 'collection_method', QUOTE_COLLECTION_METHODS),
    daysUntilDue: is ? int(is, 'days_until_due', 'invoice_settings') : undefined,
    description: emptyableStr(p, 'description'),
    header: emptyableStr(p, 'header'),
    footer: emptyableStr(p, 'footer'),
    expiresAt: int(p, 'expires_at'),
    metadata: readMetadata(p),
    subscriptionData: sd && {
      description: emptyableStr(sd, 'description', 'subscription_data'),
      trialPeriodDays: trial === '' ? null : int(sd, 'trial_period_days', 'subscription_data'),
      metadata: readMetadata(sd),
    },
  };
}

export const quoteRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/quotes',
    handler: (req, ctx) => ok(presentQuote(createQuote(ctx, readFields(req, readParams(req))), expandOf(req))),
  },
  {
    method: 'GET',
    path: '/v1/quotes',
    handler: (req, ctx) => {
      const p = readParams(req);
      if (p.test_clock !== undefined) refuse(req, 'test_clock');
      const filter = { customer: str(p, 'customer'), status: oneOf(p, 'status', QUOTE_STATUSES) };
      return ok(listEnvelope(listQuotes(ctx, filter, readListWindow(p)), '/v1/quotes'));
    },
  },
  {
    method: 'GET',
    path: '/v1/quotes/{quote}',
    handler: (req, ctx) => (readParams(req), ok(presentQuote(loadQuote(ctx, req.params.quote!), expandOf(req)))),
  },
  {
    method: 'POST',
    path: '/v1/quotes/{quote}',
    handler: (req, ctx) => ok(presentQuote(updateQuote(ctx, req.params.quote!, readFields(req, readParams(req))), expandOf(req))),
  },
  {
    method: 'POST',
    path: '/v1/quotes/{quote}/finalize',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(presentQuote(finalizeQuote(ctx, req.params.quote!, { expiresAt: int(p, 'expires_at') }), expandOf(req)));
    },
  },
  {
    method: 'POST',
    path: '/v1/quotes/{quote}/accept',
    handler: (req, ctx) => (readParams(req), ok(presentQuote(acceptQuote(ctx, req.params.quote!), expandOf(req)))),
  },
  {
    method: 'POST',
    path: '/v1/quotes/{quote}/cancel',
    handler: (req, ctx) => (readParams(req), ok(presentQuote(cancelQuote(ctx, req.params.quote!), expandOf(req)))),
  },
  {
    method: 'GET',
    path: '/v1/quotes/{quote}/line_items',
    handler: (req, ctx) => {
      const p = readParams(req);
      const id = req.params.quote!;
      return ok(listBody(p, [...quoteLines(ctx, id, 'all')].reverse(), `/v1/quotes/${id}/line_items`));
    },
  },
  {
    method: 'GET',
    path: '/v1/quotes/{quote}/computed_upfront_line_items',
    handler: (req, ctx) => {
      const p = readParams(req);
      const id = req.params.quote!;
      return ok(listBody(p, [...quoteLines(ctx, id, 'upfront')].reverse(), `/v1/quotes/${id}/computed_upfront_line_items`));
    },
  },
];
