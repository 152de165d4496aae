// /v1/products and /v1/prices: CRUD (prices are only deactivated), list filters, search.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { fieldFilters, keysetListBody, listResponse, searchResponse } from '../http/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, readParams, str } from '../http/params.js';
import { ok } from '../http/pipeline.js';
import {
  PRODUCT_CREATE_SPEC,
  PRODUCT_SEARCH_FIELDS,
  PRODUCT_UPDATE_SPEC,
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  updateProduct,
} from '../model/products.js';
import { PRICE_CREATE_SPEC, PRICE_SEARCH_FIELDS, PRICE_UPDATE_SPEC, createPrice, getPrice, listPrices, updatePrice } from '../model/prices.js';

export const catalogRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/products', handler: (req, ctx) => ok(createProduct(ctx, readParams(req, PRODUCT_CREATE_SPEC))) },
  {
    method: 'GET',
    path: '/v1/products',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, active: true, ids: true, shippable: true, url: true });
      // A page read through the record store's index, unless `ids[]` asks for a set.
      if (p.ids !== undefined) return listResponse(req, ctx, listProducts(ctx, p), '/v1/products');
      return ok(keysetListBody(ctx, p, { resource: 'product', equals: fieldFilters(p, ['url'], ['active', 'shippable']) }, '/v1/products'));
    },
  },
  {
    method: 'GET',
    path: '/v1/products/search',
    handler: (req, ctx) => {
      readParams(req, SEARCH_PARAMS);
      return searchResponse(req, ctx, ctx.store.list<any>('product'), '/v1/products/search', PRODUCT_SEARCH_FIELDS, 'products');
    },
  },
  {
    method: 'GET',
    path: '/v1/products/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(getProduct(ctx, req.params.id!));
    },
  },
  {
    method: 'POST',
    path: '/v1/products/{id}',
    handler: (req, ctx) => ok(updateProduct(ctx, req.params.id!, readParams(req, PRODUCT_UPDATE_SPEC))),
  },
  {
    method: 'DELETE',
    path: '/v1/products/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(deleteProduct(ctx, req.params.id!));
    },
  },
  { method: 'POST', path: '/v1/prices', handler: (req, ctx) => ok(createPrice(ctx, readParams(req, PRICE_CREATE_SPEC))) },
  {
    method: 'GET',
    path: '/v1/prices',
    handler: (req, ctx) => {
      const p = readParams(req, {
        ...LIST_PARAMS,
        active: true,
        currency: true,
        product: true,
        type: true,
        lookup_keys: true,
        recurring: { interval: true, meter: true, usage_type: true },
      });
      if (p.lookup_keys !== undefined || p.recurring !== undefined) return listResponse(req, ctx, listPrices(ctx, p), '/v1/prices');
      const equals = fieldFilters(p, ['product', 'type'], ['active']);
      const currency = str(p, 'currency');
      if (currency !== undefined) equals.currency = currency.toLowerCase();
      return ok(keysetListBody(ctx, p, { resource: 'price', equals }, '/v1/prices'));
    },
  },
  {
    method: 'GET',
    path: '/v1/prices/search',
    handler: (req, ctx) => {
      readParams(req, SEARCH_PARAMS);
      return searchResponse(req, ctx, ctx.store.list<any>('price'), '/v1/prices/search', PRICE_SEARCH_FIELDS, 'prices');
    },
  },
  {
    method: 'GET',
    path: '/v1/prices/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(getPrice(ctx, req.params.id!, 'id'));
    },
  },
  {
    method: 'POST',
    path: '/v1/prices/{id}',
    handler: (req, ctx) => ok(updatePrice(ctx, req.params.id!, readParams(req, PRICE_UPDATE_SPEC))),
  },
];
