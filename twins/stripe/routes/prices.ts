// /v1/prices: create, retrieve, update (prices are only deactivated), list filters, search.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { searchResponse } from '../wire/search.js';
import {
  bool,
  decimal,
  emptyableStr,
  int,
  obj,
  objArray,
  oneOf,
  readMetadata,
  readParams,
  requiredCurrency,
  str,
  strArray,
  type Params,
} from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { invalidRequest } from '../wire/errors.js';
import {
  INTERVALS,
  PRICE_SEARCH_FIELDS,
  TAX_BEHAVIORS,
  USAGE_TYPES,
  createPrice,
  getPrice,
  listPrices,
  updatePrice,
  type PriceCreate,
  type PriceRef,
  type ProductData,
  type RecurringInput,
  type TierInput,
} from '../model/prices.js';

function name(prefix: string | undefined, key: string): string {
  return prefix ? `${prefix}[${key}]` : key;
}

function readRecurring(r: Params, prefix: string): RecurringInput {
  return {
    interval: oneOf(r, 'interval', INTERVALS, prefix),
    intervalCount: int(r, 'interval_count', prefix),
    usageType: oneOf(r, 'usage_type', USAGE_TYPES, prefix),
    meter: str(r, 'meter', prefix),
    trialPeriodDays: int(r, 'trial_period_days', prefix),
  };
}

export function readProductData(d: Params, prefix: string): ProductData {
  return {
    name: str(d, 'name', prefix),
    id: str(d, 'id', prefix),
    active: bool(d, 'active', prefix),
    description: str(d, 'description', prefix),
    images: strArray(d, 'images', prefix),
    metadata: readMetadata(d),
    statementDescriptor: str(d, 'statement_descriptor', prefix),
    taxCode: str(d, 'tax_code', prefix),
    unitLabel: str(d, 'unit_label', prefix),
  };
}

/** An item's `price` or inline `price_data` (`prefix` names the item, e.g. `line_items[0]`). */
export function readPriceRef(item: Params, prefix: string): PriceRef {
  const data = obj(item, 'price_data', prefix);
  // `plan` is the older name of a recurring price's id (a plan is a price: model/plans.ts).
  const plan = str(item, 'plan', prefix);
  const price = str(item, 'price', prefix);
  if (plan !== undefined && price !== undefined) throw invalidRequest('You may only specify one of these parameters: plan, price.', `${prefix}[plan]`);
  return { price: price ?? plan, priceData: data && readPriceCreate(data, `${prefix}[price_data]`) };
}

/** `tiers[]` of a tiered price or plan (`up_to: inf` is the last tier's open end). */
export function readTiers(p: Params, prefix?: string): TierInput[] | undefined {
  return objArray(p, 'tiers', prefix)?.map((t, i) => {
    const tp = `${name(prefix, 'tiers')}[${i}]`;
    const unitAmount = int(t, 'unit_amount', tp);
    const flatAmount = int(t, 'flat_amount', tp);
    return {
      upTo: t.up_to === 'inf' ? null : int(t, 'up_to', tp),
      unitAmount,
      unitAmountDecimal: unitAmount === undefined ? decimal(t, 'unit_amount_decimal', tp) : undefined,
      flatAmount,
      flatAmountDecimal: flatAmount === undefined ? decimal(t, 'flat_amount_decimal', tp) : undefined,
    };
  });
}

/** A price's parameters (`prefix` names the enclosing parameter, e.g. `default_price_data`). */
export function readPriceCreate(p: Params, prefix?: string): PriceCreate {
  const currency = requiredCurrency(p, 'currency', prefix);
  const productData = obj(p, 'product_data', prefix);
  const custom = obj(p, 'custom_unit_amount', prefix);
  const billingScheme = oneOf(p, 'billing_scheme', ['per_unit', 'tiered'] as const, prefix);
  const input: PriceCreate = {
    currency,
    product: str(p, 'product', prefix),
    productData: productData && readProductData(productData, name(prefix, 'product_data')),
    billingScheme,
    unitAmount: int(p, 'unit_amount', prefix),
    unitAmountDecimal: decimal(p, 'unit_amount_decimal', prefix),
    customUnitAmount: custom && { maximum: int(custom, 'maximum'), minimum: int(custom, 'minimum'), preset: int(custom, 'preset') },
  };
  if (billingScheme === 'tiered') {
    input.tiersMode = oneOf(p, 'tiers_mode', ['graduated', 'volume'] as const, prefix);
    input.tiers = readTiers(p, prefix);
  }
  const r = obj(p, 'recurring', prefix);
  if (r) input.recurring = readRecurring(r, name(prefix, 'recurring'));
  input.active = bool(p, 'active', prefix);
  input.metadata = readMetadata(p);
  input.nickname = str(p, 'nickname', prefix);
  input.taxBehavior = oneOf(p, 'tax_behavior', TAX_BEHAVIORS, prefix);
  const tq = obj(p, 'transform_quantity', prefix);
  if (tq) input.transformQuantity = { divideBy: int(tq, 'divide_by', name(prefix, 'transform_quantity')), round: oneOf(tq, 'round', ['up', 'down'] as const) };
  input.lookupKey = str(p, 'lookup_key', prefix);
  if (input.lookupKey) input.transferLookupKey = bool(p, 'transfer_lookup_key', prefix);
  return input;
}

export const priceRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/prices', handler: (req, ctx) => ok(createPrice(ctx, readPriceCreate(readParams(req)))) },
  {
    method: 'GET',
    path: '/v1/prices',
    handler: (req, ctx) => {
      const p = readParams(req);
      const r = obj(p, 'recurring');
      const filter = {
        active: bool(p, 'active'),
        currency: str(p, 'currency'),
        product: str(p, 'product'),
        type: oneOf(p, 'type', ['one_time', 'recurring'] as const),
        lookupKeys: strArray(p, 'lookup_keys'),
        interval: r ? str(r, 'interval', 'recurring') : undefined,
        usageType: r ? str(r, 'usage_type', 'recurring') : undefined,
        meter: r ? str(r, 'meter', 'recurring') : undefined,
      };
      return ok(listEnvelope(listPrices(ctx, filter, readListWindow(p)), '/v1/prices'));
    },
  },
  {
    method: 'GET',
    path: '/v1/prices/search',
    handler: (req, ctx) => {
      readParams(req);
      return searchResponse(req, ctx, { resource: 'price' }, '/v1/prices/search', PRICE_SEARCH_FIELDS, 'prices');
    },
  },
  {
    method: 'GET',
    path: '/v1/prices/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getPrice(ctx, req.params.id!, 'id'));
    },
  },
  {
    method: 'POST',
    path: '/v1/prices/{id}',
    handler: (req, ctx) => {
      const p = readParams(req);
      const lookupKey = emptyableStr(p, 'lookup_key');
      return ok(
        updatePrice(ctx, req.params.id!, {
          active: bool(p, 'active'),
          nickname: emptyableStr(p, 'nickname'),
          taxBehavior: oneOf(p, 'tax_behavior', TAX_BEHAVIORS),
          lookupKey,
          transferLookupKey: lookupKey ? bool(p, 'transfer_lookup_key') : undefined,
          metadata: readMetadata(p),
        }),
      );
    },
  },
];
