// /v1/prices: create, retrieve, update (prices are only deactivated), list filters, search.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listResponse, searchResponse } from '../wire/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, readParams } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { PRICE_CREATE_SPEC, PRICE_SEARCH_FIELDS, PRICE_UPDATE_SPEC, createPrice, getPrice, listPrices, updatePrice } from '../model/prices.js';

export const priceRoutes: TwinRoute[] = [
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
      return listResponse(req, ctx, listPrices(ctx, p), '/v1/prices');
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
