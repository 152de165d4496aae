// /v1/products: create, retrieve, update, delete, list filters, search.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listResponse, searchResponse } from '../wire/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, readParams } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
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

export const productRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/products', handler: (req, ctx) => ok(createProduct(ctx, readParams(req, PRODUCT_CREATE_SPEC))) },
  {
    method: 'GET',
    path: '/v1/products',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, active: true, ids: true, shippable: true, url: true });
      return listResponse(req, ctx, listProducts(ctx, p), '/v1/products');
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
];
