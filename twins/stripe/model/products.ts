// Products: create (optionally with `default_price_data`), update, delete (refused while prices
// exist, as Stripe does), with the `product.*` events.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { StripeApiError, invalidRequest, resourceMissing } from '../wire/errors.js';
import { bool, emptyableStr, metadata, obj, requiredStr, str, strArray, type Params, type ParamSpec } from '../wire/params.js';
import { emitEvent } from './events.js';
import { clone, find, newId, previousAttributes, save, type StripeObject } from './objects.js';
import { RECURRING_SPEC } from '../wire/params.js';
import { createPrice } from './prices.js';

export type Product = StripeObject & { object: 'product' };

const PRODUCT_FIELDS: ParamSpec = {
  active: true,
  description: true,
  images: true,
  marketing_features: { name: true },
  metadata: true,
  name: true,
  package_dimensions: { height: true, length: true, weight: true, width: true },
  shippable: true,
  statement_descriptor: true,
  tax_code: true,
  unit_label: true,
  url: true,
};

export const PRODUCT_CREATE_SPEC: ParamSpec = {
  ...PRODUCT_FIELDS,
  id: true,
  type: true,
  default_price_data: {
    currency: true,
    unit_amount: true,
    unit_amount_decimal: true,
    recurring: RECURRING_SPEC,
    tax_behavior: true,
    currency_options: true,
    metadata: true,
  },
};

export const PRODUCT_UPDATE_SPEC: ParamSpec = { ...PRODUCT_FIELDS, default_price: true };

export function getProduct(ctx: TwinContext, id: string, param = 'id'): Product {
  const p = find<Product>(ctx, 'product', id);
  if (!p) throw resourceMissing('product', id, param);
  return p;
}

function applyFields(product: Product, p: Params): void {
  const name = str(p, 'name');
  if (name !== undefined) {
    if (name === '') throw invalidRequest('You must provide a non-empty name for the product.', 'name');
    product.name = name;
  }
  const active = bool(p, 'active');
  if (active !== undefined) product.active = active;
  for (const k of ['description', 'statement_descriptor', 'tax_code', 'unit_label', 'url'] as const) {
    const v = emptyableStr(p, k);
    if (v !== undefined) product[k] = v;
  }
  if (product.statement_descriptor && product.statement_descriptor.length > 22) {
    throw invalidRequest('The statement descriptor must be at most 22 characters.', 'statement_descriptor');
  }
  const images = strArray(p, 'images');
  if (images !== undefined) product.images = images;
  const shippable = bool(p, 'shippable');
  if (shippable !== undefined) product.shippable = shippable;
  if (p.marketing_features !== undefined) {
    product.marketing_features = p.marketing_features === '' ? [] : Object.values(p.marketing_features as object);
  }
  if (p.package_dimensions !== undefined) {
    const d = obj(p, 'package_dimensions');
    product.package_dimensions = d
      ? Object.fromEntries(['height', 'length', 'weight', 'width'].map((k) => [k, Number(d[k])]))
      : null;
  }
  const md = metadata(p, product.metadata);
  if (md !== undefined) product.metadata = md;
}

/** A product with Stripe's defaults, created now; callers fill in what was asked for. */
export function blankProduct(ctx: TwinContext, id: string): Product {
  const now = ctx.clock.nowSeconds();
  return {
    id,
    object: 'product',
    active: true,
    attributes: [],
    created: now,
    default_price: null,
    description: null,
    images: [],
    livemode: false,
    marketing_features: [],
    metadata: {},
    name: '',
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: null,
    type: 'service',
    unit_label: null,
    updated: now,
    url: null,
  };
}

export function createProduct(ctx: TwinContext, p: Params): Product {
  requiredStr(p, 'name');
  const customId = str(p, 'id');
  if (customId !== undefined && find(ctx, 'product', customId)) {
    throw new StripeApiError(400, {
      type: 'invalid_request_error',
      code: 'resource_already_exists',
      message: 'Product already exists.',
      param: 'id',
    });
  }
  const product = blankProduct(ctx, customId ?? newId(ctx, 'product'));
  applyFields(product, p);
  save(ctx, 'product', product);
  emitEvent(ctx, 'product.created', product);
  const priceData = obj(p, 'default_price_data');
  if (priceData) {
    const price = createPrice(ctx, { ...priceData, product: product.id }, 'default_price_data');
    const before = clone(product);
    product.default_price = price.id;
    save(ctx, 'product', product);
    emitEvent(ctx, 'product.updated', product, previousAttributes(before, product));
  }
  return product;
}

export function updateProduct(ctx: TwinContext, id: string, p: Params): Product {
  const before = getProduct(ctx, id);
  const product = clone(before);
  applyFields(product, p);
  const dp = emptyableStr(p, 'default_price');
  if (dp !== undefined) {
    if (dp !== null) {
      const price = find(ctx, 'price', dp);
      if (!price) throw resourceMissing('price', dp, 'default_price');
      if (price.product !== product.id) {
        throw invalidRequest(`The price ${dp} does not belong to product ${product.id}.`, 'default_price');
      }
    }
    product.default_price = dp;
  }
  const prev = previousAttributes(before, product);
  if (Object.keys(prev).length > 0) {
    product.updated = ctx.clock.nowSeconds();
    save(ctx, 'product', product);
    emitEvent(ctx, 'product.updated', product, previousAttributes(before, product));
  }
  return product;
}

export function deleteProduct(ctx: TwinContext, id: string): StripeObject {
  const product = getProduct(ctx, id);
  if (ctx.store.list<StripeObject>('price').some((pr) => pr.product === id)) {
    throw invalidRequest('This product cannot be deleted because it has one or more user-created prices.', 'id');
  }
  ctx.store.delete('product', id);
  emitEvent(ctx, 'product.deleted', product);
  return { id, object: 'product', deleted: true };
}

export function listProducts(ctx: TwinContext, p: Params): Product[] {
  const active = bool(p, 'active');
  const shippable = bool(p, 'shippable');
  const ids = strArray(p, 'ids');
  const url = str(p, 'url');
  return ctx.store
    .list<Product>('product')
    .filter((x) => active === undefined || x.active === active)
    .filter((x) => shippable === undefined || x.shippable === shippable)
    .filter((x) => ids === undefined || ids.includes(x.id))
    .filter((x) => url === undefined || x.url === url);
}

export const PRODUCT_SEARCH_FIELDS = {
  active: (o: StripeObject) => o.active,
  created: (o: StripeObject) => o.created,
  description: (o: StripeObject) => o.description,
  name: (o: StripeObject) => o.name,
  shippable: (o: StripeObject) => o.shippable,
  url: (o: StripeObject) => o.url,
};
