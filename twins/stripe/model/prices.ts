// Prices: one-time, recurring (licensed or metered against a billing meter), per-unit or tiered,
// with the `price.*` events. Prices cannot be deleted through the API, only deactivated.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow, type MoreConditions } from './pages.js';
import { blankProduct } from './product-records.js';

export type Price = StripeObject & { object: 'price' };

export const INTERVALS = ['day', 'week', 'month', 'year'] as const;
export const USAGE_TYPES = ['licensed', 'metered'] as const;
export const TAX_BEHAVIORS = ['exclusive', 'inclusive', 'unspecified'] as const;

export interface RecurringInput {
  interval?: (typeof INTERVALS)[number];
  intervalCount?: number;
  usageType?: (typeof USAGE_TYPES)[number];
  meter?: string;
  trialPeriodDays?: number;
}

export interface TierInput {
  /** `null`: `inf`; undefined: not given. */
  upTo: number | null | undefined;
  unitAmount?: number;
  unitAmountDecimal?: string;
  flatAmount?: number;
  flatAmountDecimal?: string;
}

export interface ProductData {
  name?: string;
  id?: string;
  active?: boolean;
  description?: string;
  images?: string[];
  metadata?: MetadataPatch;
  statementDescriptor?: string;
  taxCode?: string;
  unitLabel?: string;
}

export interface PriceCreate {
  /** A chosen id: only plans (model/plans.ts) may name their own. */
  id?: string;
  currency: string;
  product?: string;
  productData?: ProductData;
  billingScheme?: 'per_unit' | 'tiered';
  unitAmount?: number;
  unitAmountDecimal?: string;
  customUnitAmount?: { maximum?: number; minimum?: number; preset?: number };
  tiersMode?: 'graduated' | 'volume';
  tiers?: TierInput[];
  recurring?: RecurringInput;
  active?: boolean;
  metadata?: MetadataPatch;
  nickname?: string;
  taxBehavior?: (typeof TAX_BEHAVIORS)[number];
  transformQuantity?: { divideBy?: number; round?: 'up' | 'down' };
  lookupKey?: string;
  transferLookupKey?: boolean;
}

export interface PriceUpdate {
  active?: boolean;
  nickname?: string | null;
  taxBehavior?: (typeof TAX_BEHAVIORS)[number];
  lookupKey?: string | null;
  transferLookupKey?: boolean;
  metadata?: MetadataPatch;
}

export interface PriceFilter {
  active?: boolean;
  currency?: string;
  product?: string;
  type?: 'one_time' | 'recurring';
  lookupKeys?: string[];
  interval?: string;
  usageType?: string;
  meter?: string;
}

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

function recurringFrom(ctx: TwinContext, r: RecurringInput, prefix: string): Record<string, unknown> {
  const interval = r.interval;
  if (!interval) throw missingParam(`${prefix}[interval]`);
  const count = r.intervalCount ?? 1;
  const maxCount = { day: 1095, week: 156, month: 36, year: 3 }[interval];
  if (count < 1 || count > maxCount) {
    throw invalidRequest(`Invalid ${prefix}[interval_count]: must be between 1 and ${maxCount} for interval ${interval}.`, `${prefix}[interval_count]`);
  }
  const usageType = r.usageType ?? 'licensed';
  const meter = r.meter ?? null;
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
    trial_period_days: r.trialPeriodDays ?? null,
    usage_type: usageType,
  };
}

/** Create a price (`prefix` names the enclosing parameter in messages, e.g. `default_price_data`). */
export function createPrice(ctx: TwinContext, input: PriceCreate, prefix?: string): Price {
  const { currency } = input;
  let productId = input.product;
  const productData = input.productData;
  if (productId && productData) throw invalidRequest('You may only specify one of these parameters: product, product_data.', name(prefix, 'product'));
  if (!productId && !productData) throw missingParam(name(prefix, 'product'));
  if (productId) {
    if (!find(ctx, 'product', productId)) throw resourceMissing('product', productId, name(prefix, 'product'));
  } else {
    productId = createProductInline(ctx, productData!);
  }
  const billingScheme = input.billingScheme ?? 'per_unit';
  const { unitAmount, unitAmountDecimal } = input;
  const custom = input.customUnitAmount;
  if (unitAmount !== undefined && unitAmount < 0) throw invalidRequest('This value must be greater than or equal to 0.', name(prefix, 'unit_amount'));
  if (unitAmount !== undefined && unitAmountDecimal !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: unit_amount, unit_amount_decimal.', name(prefix, 'unit_amount'));
  }
  let tiers: Record<string, unknown>[] | null = null;
  let tiersMode: string | null = null;
  if (billingScheme === 'tiered') {
    tiersMode = input.tiersMode ?? null;
    if (!tiersMode) throw missingParam(name(prefix, 'tiers_mode'));
    const raw = input.tiers;
    if (!raw || raw.length === 0) throw missingParam(name(prefix, 'tiers'));
    tiers = raw.map((t, i) => {
      const tp = `${name(prefix, 'tiers')}[${i}]`;
      if (t.upTo === undefined) throw missingParam(`${tp}[up_to]`);
      const ua = t.unitAmount ?? null;
      const fa = t.flatAmount ?? null;
      return {
        flat_amount: fa,
        flat_amount_decimal: fa === null ? (t.flatAmountDecimal ?? null) : String(fa),
        unit_amount: ua,
        unit_amount_decimal: ua === null ? (t.unitAmountDecimal ?? null) : String(ua),
        up_to: t.upTo,
      };
    });
    if (tiers[tiers.length - 1]!.up_to !== null) {
      throw invalidRequest('The last tier must have up_to set to inf.', name(prefix, 'tiers'));
    }
  } else if (unitAmount === undefined && unitAmountDecimal === undefined && !custom) {
    throw missingParam(name(prefix, 'unit_amount'));
  }
  const recurring = input.recurring ? recurringFrom(ctx, input.recurring, name(prefix, 'recurring')) : null;
  const price: Price = {
    id: input.id ?? newId(ctx, 'price'),
    object: 'price',
    active: input.active ?? true,
    billing_scheme: billingScheme,
    created: ctx.clock.nowSeconds(),
    currency,
    custom_unit_amount: custom ? { maximum: custom.maximum ?? null, minimum: custom.minimum ?? null, preset: custom.preset ?? null } : null,
    livemode: false,
    lookup_key: null,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    nickname: input.nickname ?? null,
    product: productId,
    recurring,
    tax_behavior: input.taxBehavior ?? 'unspecified',
    tiers_mode: tiersMode,
    transform_quantity: null,
    type: recurring ? 'recurring' : 'one_time',
    unit_amount: billingScheme === 'tiered' ? null : (unitAmount ?? null),
    unit_amount_decimal: billingScheme === 'tiered' ? null : unitAmount !== undefined ? String(unitAmount) : (unitAmountDecimal ?? null),
  };
  if (tiers) price.tiers = tiers;
  const tq = input.transformQuantity;
  if (tq) {
    if (!tq.divideBy || tq.divideBy < 1) throw missingParam(name(prefix, 'transform_quantity[divide_by]'));
    price.transform_quantity = { divide_by: tq.divideBy, round: tq.round ?? 'up' };
  }
  if (input.lookupKey) {
    claimLookupKey(ctx, input.lookupKey, input.transferLookupKey ?? false, undefined, name(prefix, 'lookup_key'));
    price.lookup_key = input.lookupKey;
  }
  save(ctx, 'price', price);
  emitEvent(ctx, 'price.created', price);
  return price;
}

/** A price named by id (`price`) or described inline (`price_data`), as line items and invoice items take it. */
export interface PriceRef {
  price?: string;
  priceData?: PriceCreate;
}

/**
 * A price made from inline `price_data`, as Stripe makes one: a real price, archived at once
 * (`active: false`, so not offered for new purchases) but retrievable, with its `price.created`.
 */
export function createInlinePrice(ctx: TwinContext, data: PriceCreate, param: string): Price {
  return createPrice(ctx, { ...data, active: false }, param);
}

/** The id of the price a `price`/`price_data` pair names (`prefix` names the item, `line_items[0]`). */
export function resolvePrice(ctx: TwinContext, ref: PriceRef, prefix: string): string {
  if (ref.price !== undefined && ref.priceData !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: price, price_data.', `${prefix}[price]`);
  }
  if (ref.priceData !== undefined) return createInlinePrice(ctx, ref.priceData, `${prefix}[price_data]`).id;
  if (!ref.price) throw missingParam(`${prefix}[price]`);
  return ref.price;
}

/** `product_data` on a price: a minimal product created alongside (product.created emitted). */
function createProductInline(ctx: TwinContext, d: ProductData): string {
  const productName = d.name;
  if (!productName) throw missingParam('product_data[name]');
  const product = blankProduct(ctx, d.id ?? newId(ctx, 'product'));
  product.active = d.active ?? true;
  product.metadata = d.metadata === undefined ? {} : applyMetadata({}, d.metadata);
  product.name = productName;
  if (d.description !== undefined) product.description = d.description;
  if (d.images !== undefined) product.images = d.images;
  product.statement_descriptor = d.statementDescriptor ?? null;
  product.tax_code = d.taxCode ?? null;
  product.unit_label = d.unitLabel ?? null;
  save(ctx, 'product', product);
  emitEvent(ctx, 'product.created', product);
  return product.id;
}

export function updatePrice(ctx: TwinContext, id: string, input: PriceUpdate): Price {
  const before = getPrice(ctx, id, 'id');
  const price = clone(before);
  if (input.active !== undefined) price.active = input.active;
  if (input.nickname !== undefined) price.nickname = input.nickname;
  if (input.taxBehavior !== undefined) price.tax_behavior = input.taxBehavior;
  const lookupKey = input.lookupKey;
  if (lookupKey) claimLookupKey(ctx, lookupKey, input.transferLookupKey ?? false, id, 'lookup_key');
  if (lookupKey !== undefined) price.lookup_key = lookupKey;
  if (input.metadata !== undefined) price.metadata = applyMetadata(price.metadata, input.metadata);
  const prev = previousAttributes(before, price);
  if (Object.keys(prev).length > 0) {
    save(ctx, 'price', price);
    emitEvent(ctx, 'price.updated', price, prev);
  }
  return price;
}

/**
 * One page of prices, newest first. Top-level field equalities are read through the record store's
 * index, `lookup_keys` too; `recurring` filters are a test applied while the page fills.
 */
export function listPrices(ctx: TwinContext, f: PriceFilter, window: ListWindow): ListPage<Price> {
  const equals: FieldEquals = {};
  if (f.active !== undefined) equals.active = f.active;
  if (f.currency !== undefined) equals.currency = f.currency.toLowerCase();
  if (f.product !== undefined) equals.product = f.product;
  if (f.type !== undefined) equals.type = f.type;
  const more: MoreConditions = {};
  if (f.lookupKeys !== undefined) more.oneOf = { lookup_key: f.lookupKeys };
  if (f.interval !== undefined || f.usageType !== undefined || f.meter !== undefined) {
    more.keep = (x) => {
      const recurring = (x as Price).recurring;
      return (
        (f.interval === undefined || recurring?.interval === f.interval) &&
        (f.usageType === undefined || recurring?.usage_type === f.usageType) &&
        (f.meter === undefined || recurring?.meter === f.meter)
      );
    };
  }
  return readPage<Price>(ctx, 'price', equals, window, more);
}

export const PRICE_SEARCH_FIELDS = {
  active: (o: StripeObject) => o.active,
  created: (o: StripeObject) => o.created,
  currency: (o: StripeObject) => o.currency,
  lookup_key: (o: StripeObject) => o.lookup_key,
  product: (o: StripeObject) => o.product,
  type: (o: StripeObject) => o.type,
};
