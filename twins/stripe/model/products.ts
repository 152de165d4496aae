// Products: create (optionally with `default_price_data`), update, delete (refused while prices
// exist, as Stripe does), with the `product.*` events.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { StripeApiError, invalidRequest, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { createPrice, type PriceCreate } from './prices.js';
import { blankProduct, type Product } from './product-records.js';

export type { Product };

/** What create and update may set; a `null` clears (an empty value). */
export interface ProductFields {
  name?: string;
  active?: boolean;
  description?: string | null;
  statement_descriptor?: string | null;
  tax_code?: string | null;
  unit_label?: string | null;
  url?: string | null;
  images?: string[];
  shippable?: boolean;
  /** `[]` for an empty value. */
  marketingFeatures?: unknown[];
  /** `null` for an empty value. */
  packageDimensions?: Record<string, number> | null;
  metadata?: MetadataPatch;
}

export interface ProductCreate extends ProductFields {
  id?: string;
  /** A price created with the product and made its default. */
  defaultPriceData?: Omit<PriceCreate, 'product'>;
}

export interface ProductUpdate extends ProductFields {
  /** `null` unsets it. */
  defaultPrice?: string | null;
}

export interface ProductFilter {
  active?: boolean;
  shippable?: boolean;
  ids?: string[];
  url?: string;
}

export function getProduct(ctx: TwinContext, id: string, param = 'id'): Product {
  const p = find<Product>(ctx, 'product', id);
  if (!p) throw resourceMissing('product', id, param);
  return p;
}

function applyFields(product: Product, input: ProductFields): void {
  const name = input.name;
  if (name !== undefined) {
    if (name === '') throw invalidRequest('You must provide a non-empty name for the product.', 'name');
    product.name = name;
  }
  if (input.active !== undefined) product.active = input.active;
  for (const k of ['description', 'statement_descriptor', 'tax_code', 'unit_label', 'url'] as const) {
    if (input[k] !== undefined) product[k] = input[k];
  }
  if (product.statement_descriptor && product.statement_descriptor.length > 22) {
    throw invalidRequest('The statement descriptor must be at most 22 characters.', 'statement_descriptor');
  }
  if (input.images !== undefined) product.images = input.images;
  if (input.shippable !== undefined) product.shippable = input.shippable;
  if (input.marketingFeatures !== undefined) product.marketing_features = input.marketingFeatures;
  if (input.packageDimensions !== undefined) product.package_dimensions = input.packageDimensions;
  if (input.metadata !== undefined) product.metadata = applyMetadata(product.metadata, input.metadata);
}

export function createProduct(ctx: TwinContext, input: ProductCreate): Product {
  const customId = input.id;
  if (customId !== undefined && find(ctx, 'product', customId)) {
    throw new StripeApiError(400, {
      type: 'invalid_request_error',
      code: 'resource_already_exists',
      message: 'Product already exists.',
      param: 'id',
    });
  }
  const product = blankProduct(ctx, customId ?? newId(ctx, 'product'));
  applyFields(product, input);
  save(ctx, 'product', product);
  emitEvent(ctx, 'product.created', product);
  const priceData = input.defaultPriceData;
  if (priceData) {
    const price = createPrice(ctx, { ...priceData, product: product.id }, 'default_price_data');
    const before = clone(product);
    product.default_price = price.id;
    save(ctx, 'product', product);
    emitEvent(ctx, 'product.updated', product, previousAttributes(before, product));
  }
  return product;
}

export function updateProduct(ctx: TwinContext, id: string, input: ProductUpdate): Product {
  const before = getProduct(ctx, id);
  const product = clone(before);
  applyFields(product, input);
  const dp = input.defaultPrice;
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

/**
 * One page of products, newest first. Field equalities and `ids` (a set the caller names) are
 * read through the record store's index.
 */
export function listProducts(ctx: TwinContext, filter: ProductFilter, window: ListWindow): ListPage<Product> {
  const { active, shippable, ids, url } = filter;
  const equals: FieldEquals = {};
  if (active !== undefined) equals.active = active;
  if (shippable !== undefined) equals.shippable = shippable;
  if (url !== undefined) equals.url = url;
  return readPage<Product>(ctx, 'product', equals, window, ids === undefined ? {} : { oneOf: { id: ids } });
}

export const PRODUCT_SEARCH_FIELDS = {
  active: (o: StripeObject) => o.active,
  created: (o: StripeObject) => o.created,
  description: (o: StripeObject) => o.description,
  name: (o: StripeObject) => o.name,
  shippable: (o: StripeObject) => o.shippable,
  url: (o: StripeObject) => o.url,
};
