// Prices: one-time, recurring (licensed or metered against a billing meter), per-unit or tiered,
// with the `price.*` events. Prices cannot be deleted through the API, only deactivated.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam, resourceMissing } from '../wire/errors.js';
import {
  bool,
  decimal,
  emptyableStr,
  int,
  metadata,
  obj,
  objArray,
  oneOf,
  requiredCurrency,
  str,
  strArray,
  type Params,
  type ParamSpec,
} from '../wire/params.js';
import { emitEvent } from './events.js';
import { clone, find, newId, previousAttributes, save, type StripeObject } from './objects.js';
import { RECURRING_SPEC } from '../wire/params.js';
import { blankProduct } from './products.js';

export type Price = StripeObject & { object: 'price' };

export const PRICE_CREATE_SPEC: ParamSpec = {
  currency: true,
  product: true,
  product_data: { name: true, active: true, id: true, metadata: true, statement_descriptor: true, tax_code: true, unit_label: true },
  unit_amount: true,
  unit_amount_decimal: true,
  custom_unit_amount: { enabled: true, maximum: true, minimum: true, preset: true },
  recurring: RECURRING_SPEC,
  active: true,
  billing_scheme: true,
  tiers: { up_to: true, unit_amount: true, unit_amount_decimal: true, flat_amount: true, flat_amount_decimal: true },
  tiers_mode: true,
  lookup_key: true,
  transfer_lookup_key: true,
  metadata: true,
  nickname: true,
  tax_behavior: true,
  transform_quantity: { divide_by: true, round: true },
  currency_options: true,
};

export const PRICE_UPDATE_SPEC: ParamSpec = {
  active: true,
  metadata: true,
  nickname: true,
  lookup_key: true,
  transfer_lookup_key: true,
  tax_behavior: true,
  currency_options: true,
};

export function getPrice(ctx: TwinContext, id: string, param = 'price'): Price {
  const p = find<Price>(ctx, 'price', id);
  if (!p) throw resourceMissing('price', id, param);
  return p;
}

function name(prefix: string | undefined, key: string): string {
  return prefix ? `${prefix}[${key}]` : key;
}

function claimLookupKey(ctx: TwinContext, key: string, transfer: boolean, self: string | undefined, param: string): void {
  for (const other of ctx.store.list<Price>('price')) {
    if (other.id === self || other.lookup_key !== key) continue;
    if (!transfer) throw invalidRequest(`A price (\`${other.id}\`) already uses that lookup key.`, param);
    const before = clone(other);
    other.lookup_key = null;
    save(ctx, 'price', other);
    emitEvent(ctx, 'price.updated', other, previousAttributes(before, other));
  }
}

function recurringFrom(ctx: TwinContext, r: Params, prefix: string): Record<string, unknown> {
  const interval = oneOf(r, 'interval', ['day', 'week', 'month', 'year'] as const, prefix);
  if (!interval) throw missingParam(`${prefix}[interval]`);
  const count = int(r, 'interval_count', prefix) ?? 1;
  const maxCount = { day: 1095, week: 156, month: 36, year: 3 }[interval];
  if (count < 1 || count > maxCount) {
    throw invalidRequest(`Invalid ${prefix}[interval_count]: must be between 1 and ${maxCount} for interval ${interval}.`, `${prefix}[interval_count]`);
  }
  const usageType = oneOf(r, 'usage_type', ['licensed', 'metered'] as const, prefix) ?? 'licensed';
  const meter = str(r, 'meter', prefix) ?? null;
  if (meter !== null) {
    if (usageType !== 'metered') throw invalidRequest('A meter can only be set on a price with usage_type=metered.', `${prefix}[meter]`);
    if (!find(ctx, 'billing_meter', meter)) throw resourceMissing('billing meter', meter, `${prefix}[meter]`);
  }
  if (usageType === 'metered' && meter === null) {
    throw invalidRequest('Metered prices must be backed by a meter: pass recurring[meter].', `${prefix}[meter]`);
  }
  return {
    interval,
    interval_count: count,
    meter,
    trial_period_days: int(r, 'trial_period_days', prefix) ?? null,
    usage_type: usageType,
  };
}

/** Create a price from `p` (`prefix` names the enclosing parameter for messages, e.g. `default_price_data`). */
export function createPrice(ctx: TwinContext, p: Params, prefix?: string): Price {
  const currency = requiredCurrency(p, 'currency', prefix);
  let productId = str(p, 'product', prefix);
  const productData = obj(p, 'product_data', prefix);
  if (productId && productData) throw invalidRequest('You may only specify one of these parameters: product, product_data.', name(prefix, 'product'));
  if (!productId && !productData) throw missingParam(name(prefix, 'product'));
  if (productId) {
    if (!find(ctx, 'product', productId)) throw resourceMissing('product', productId, name(prefix, 'product'));
  } else {
    productId = createProductInline(ctx, productData!);
  }
  const billingScheme = oneOf(p, 'billing_scheme', ['per_unit', 'tiered'] as const, prefix) ?? 'per_unit';
  const unitAmount = int(p, 'unit_amount', prefix);
  const unitAmountDecimal = decimal(p, 'unit_amount_decimal', prefix);
  const custom = obj(p, 'custom_unit_amount', prefix);
  if (unitAmount !== undefined && unitAmount < 0) throw invalidRequest('This value must be greater than or equal to 0.', name(prefix, 'unit_amount'));
  if (unitAmount !== undefined && unitAmountDecimal !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: unit_amount, unit_amount_decimal.', name(prefix, 'unit_amount'));
  }
  let tiers: Record<string, unknown>[] | null = null;
  let tiersMode: string | null = null;
  if (billingScheme === 'tiered') {
    tiersMode = oneOf(p, 'tiers_mode', ['graduated', 'volume'] as const, prefix) ?? null;
    if (!tiersMode) throw missingParam(name(prefix, 'tiers_mode'));
    const raw = objArray(p, 'tiers', prefix);
    if (!raw || raw.length === 0) throw missingParam(name(prefix, 'tiers'));
    tiers = raw.map((t, i) => {
      const tp = `${name(prefix, 'tiers')}[${i}]`;
      const upTo = t.up_to === 'inf' ? null : int(t, 'up_to', tp);
      if (upTo === undefined) throw missingParam(`${tp}[up_to]`);
      const ua = int(t, 'unit_amount', tp) ?? null;
      const fa = int(t, 'flat_amount', tp) ?? null;
      return {
        flat_amount: fa,
        flat_amount_decimal: fa === null ? (decimal(t, 'flat_amount_decimal', tp) ?? null) : String(fa),
        unit_amount: ua,
        unit_amount_decimal: ua === null ? (decimal(t, 'unit_amount_decimal', tp) ?? null) : String(ua),
        up_to: upTo,
      };
    });
    if (tiers[tiers.length - 1]!.up_to !== null) {
      throw invalidRequest('The last tier must have up_to set to inf.', name(prefix, 'tiers'));
    }
  } else if (unitAmount === undefined && unitAmountDecimal === undefined && !custom) {
    throw missingParam(name(prefix, 'unit_amount'));
  }
  const r = obj(p, 'recurring', prefix);
  const recurring = r ? recurringFrom(ctx, r, name(prefix, 'recurring')) : null;
  const price: Price = {
    id: newId(ctx, 'price'),
    object: 'price',
    active: bool(p, 'active', prefix) ?? true,
    billing_scheme: billingScheme,
    created: ctx.clock.nowSeconds(),
    currency,
    custom_unit_amount: custom
      ? { maximum: int(custom, 'maximum') ?? null, minimum: int(custom, 'minimum') ?? null, preset: int(custom, 'preset') ?? null }
      : null,
    livemode: false,
    lookup_key: null,
    metadata: metadata(p) ?? {},
    nickname: str(p, 'nickname', prefix) ?? null,
    product: productId,
    recurring,
    tax_behavior: oneOf(p, 'tax_behavior', ['exclusive', 'inclusive', 'unspecified'] as const, prefix) ?? 'unspecified',
    tiers_mode: tiersMode,
    transform_quantity: null,
    type: recurring ? 'recurring' : 'one_time',
    unit_amount: billingScheme === 'tiered' ? null : (unitAmount ?? null),
    unit_amount_decimal:
      billingScheme === 'tiered' ? null : unitAmount !== undefined ? String(unitAmount) : (unitAmountDecimal ?? null),
  };
  if (tiers) price.tiers = tiers;
  const tq = obj(p, 'transform_quantity', prefix);
  if (tq) {
    const divideBy = int(tq, 'divide_by', name(prefix, 'transform_quantity'));
    if (!divideBy || divideBy < 1) throw missingParam(name(prefix, 'transform_quantity[divide_by]'));
    price.transform_quantity = { divide_by: divideBy, round: oneOf(tq, 'round', ['up', 'down'] as const) ?? 'up' };
  }
  const lookupKey = str(p, 'lookup_key', prefix);
  if (lookupKey) {
    claimLookupKey(ctx, lookupKey, bool(p, 'transfer_lookup_key', prefix) ?? false, undefined, name(prefix, 'lookup_key'));
    price.lookup_key = lookupKey;
  }
  save(ctx, 'price', price);
  emitEvent(ctx, 'price.created', price);
  return price;
}

/** `product_data` on a price: a minimal product created alongside (product.created emitted). */
function createProductInline(ctx: TwinContext, d: Params): string {
  const productName = str(d, 'name', 'product_data');
  if (!productName) throw missingParam('product_data[name]');
  const product = blankProduct(ctx, str(d, 'id', 'product_data') ?? newId(ctx, 'product'));
  product.active = bool(d, 'active', 'product_data') ?? true;
  product.metadata = metadata(d) ?? {};
  product.name = productName;
  product.statement_descriptor = str(d, 'statement_descriptor', 'product_data') ?? null;
  product.tax_code = str(d, 'tax_code', 'product_data') ?? null;
  product.unit_label = str(d, 'unit_label', 'product_data') ?? null;
  save(ctx, 'product', product);
  emitEvent(ctx, 'product.created', product);
  return product.id;
}

export function updatePrice(ctx: TwinContext, id: string, p: Params): Price {
  const before = getPrice(ctx, id, 'id');
  const price = clone(before);
  const active = bool(p, 'active');
  if (active !== undefined) price.active = active;
  const nickname = emptyableStr(p, 'nickname');
  if (nickname !== undefined) price.nickname = nickname;
  const tb = oneOf(p, 'tax_behavior', ['exclusive', 'inclusive', 'unspecified'] as const);
  if (tb !== undefined) price.tax_behavior = tb;
  const lookupKey = emptyableStr(p, 'lookup_key');
  if (lookupKey) claimLookupKey(ctx, lookupKey, bool(p, 'transfer_lookup_key') ?? false, id, 'lookup_key');
  if (lookupKey !== undefined) price.lookup_key = lookupKey;
  const md = metadata(p, price.metadata);
  if (md !== undefined) price.metadata = md;
  const prev = previousAttributes(before, price);
  if (Object.keys(prev).length > 0) {
    save(ctx, 'price', price);
    emitEvent(ctx, 'price.updated', price, prev);
  }
  return price;
}

export function listPrices(ctx: TwinContext, p: Params): Price[] {
  const active = bool(p, 'active');
  const currency = str(p, 'currency')?.toLowerCase();
  const product = str(p, 'product');
  const type = oneOf(p, 'type', ['one_time', 'recurring'] as const);
  const lookupKeys = strArray(p, 'lookup_keys');
  const r = obj(p, 'recurring');
  const interval = r ? str(r, 'interval', 'recurring') : undefined;
  const usageType = r ? str(r, 'usage_type', 'recurring') : undefined;
  const meter = r ? str(r, 'meter', 'recurring') : undefined;
  return ctx.store
    .list<Price>('price')
    .filter((x) => active === undefined || x.active === active)
    .filter((x) => currency === undefined || x.currency === currency)
    .filter((x) => product === undefined || x.product === product)
    .filter((x) => type === undefined || x.type === type)
    .filter((x) => lookupKeys === undefined || (x.lookup_key !== null && lookupKeys.includes(x.lookup_key)))
    .filter((x) => interval === undefined || x.recurring?.interval === interval)
    .filter((x) => usageType === undefined || x.recurring?.usage_type === usageType)
    .filter((x) => meter === undefined || x.recurring?.meter === meter);
}

export const PRICE_SEARCH_FIELDS = {
  active: (o: StripeObject) => o.active,
  created: (o: StripeObject) => o.created,
  currency: (o: StripeObject) => o.currency,
  lookup_key: (o: StripeObject) => o.lookup_key,
  product: (o: StripeObject) => o.product,
  type: (o: StripeObject) => o.type,
};
