// /v1/products: create, retrieve, update, delete, list filters, search.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { searchResponse } from '../wire/search.js';
import { bool, emptyableStr, obj, readMetadata, readParams, requiredStr, str, strArray, type Params } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { readPriceCreate } from './prices.js';
import { PRODUCT_SEARCH_FIELDS, createProduct, type ProductFields, deleteProduct, getProduct, listProducts, updateProduct } from '../model/products.js';

function readProductFields(p: Params): ProductFields {
  const out: ProductFields = { name: str(p, 'name'), active: bool(p, 'active') };
  for (const k of ['description', 'statement_descriptor', 'tax_code', 'unit_label', 'url'] as const) out[k] = emptyableStr(p, k);
  out.images = strArray(p, 'images');
  out.shippable = bool(p, 'shippable');
  if (p.marketing_features !== undefined) {
    out.marketingFeatures = p.marketing_features === '' ? [] : Object.values(p.marketing_features as object);
  }
  if (p.package_dimensions !== undefined) {
    const d = obj(p, 'package_dimensions');
    out.packageDimensions = d ? Object.fromEntries(['height', 'length', 'weight', 'width'].map((k) => [k, Number(d[k])])) : null;
  }
  out.metadata = readMetadata(p);
  return out;
}

export const productRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/products',
    handler: (req, ctx) => {
      const p = readParams(req);
      requiredStr(p, 'name');
      const priceData = obj(p, 'default_price_data');
      return ok(
        createProduct(ctx, {
          id: str(p, 'id'),
          ...readProductFields(p),
          defaultPriceData: priceData && readPriceCreate(priceData, 'default_price_data'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/products',
    handler: (req, ctx) => {
      const p = readParams(req);
      const filter = { active: bool(p, 'active'), shippable: bool(p, 'shippable'), ids: strArray(p, 'ids'), url: str(p, 'url') };
      return ok(listEnvelope(listProducts(ctx, filter, readListWindow(p)), '/v1/products'));
    },
  },
  {
    method: 'GET',
    path: '/v1/products/search',
    handler: (req, ctx) => {
      readParams(req);
      return searchResponse(req, ctx, { resource: 'product' }, '/v1/products/search', PRODUCT_SEARCH_FIELDS, 'products');
    },
  },
  {
    method: 'GET',
    path: '/v1/products/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getProduct(ctx, req.params.id!));
    },
  },
  {
    method: 'POST',
    path: '/v1/products/{id}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(updateProduct(ctx, req.params.id!, { ...readProductFields(p), defaultPrice: emptyableStr(p, 'default_price') }));
    },
  },
  {
    method: 'DELETE',
    path: '/v1/products/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(deleteProduct(ctx, req.params.id!));
    },
  },
];
