// /v1/entitlements/features, /v1/products/{product}/features and
// /v1/entitlements/active_entitlements (model/entitlements.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, readMetadata, readParams, requiredStr, str } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import {
  activeEntitlementView,
  attachFeature,
  createFeature,
  detachFeature,
  getActiveEntitlement,
  getFeature,
  getProductFeature,
  listActiveEntitlements,
  listFeatures,
  listProductFeatures,
  productFeatureView,
  updateFeature,
} from '../model/entitlements.js';

export const entitlementRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/entitlements/features',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(createFeature(ctx, { name: requiredStr(p, 'name'), lookupKey: requiredStr(p, 'lookup_key'), metadata: readMetadata(p) }));
    },
  },
  {
    method: 'GET',
    path: '/v1/entitlements/features',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        listEnvelope(listFeatures(ctx, { archived: bool(p, 'archived'), lookupKey: str(p, 'lookup_key') }, readListWindow(p)), '/v1/entitlements/features'),
      );
    },
  },
  { method: 'GET', path: '/v1/entitlements/features/{id}', handler: (req, ctx) => (readParams(req), ok(getFeature(ctx, req.params.id!))) },
  {
    method: 'POST',
    path: '/v1/entitlements/features/{id}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(updateFeature(ctx, req.params.id!, { active: bool(p, 'active'), name: str(p, 'name'), metadata: readMetadata(p) }));
    },
  },
  {
    method: 'POST',
    path: '/v1/products/{product}/features',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(productFeatureView(attachFeature(ctx, req.params.product!, requiredStr(p, 'entitlement_feature'))));
    },
  },
  {
    method: 'GET',
    path: '/v1/products/{product}/features',
    handler: (req, ctx) => {
      const p = readParams(req);
      const product = req.params.product!;
      const page = listProductFeatures(ctx, product, readListWindow(p));
      return ok(listEnvelope({ data: page.data.map(productFeatureView), hasMore: page.hasMore }, `/v1/products/${product}/features`));
    },
  },
  {
    method: 'GET',
    path: '/v1/products/{product}/features/{id}',
    handler: (req, ctx) => (readParams(req), ok(productFeatureView(getProductFeature(ctx, req.params.product!, req.params.id!)))),
  },
  {
    method: 'DELETE',
    path: '/v1/products/{product}/features/{id}',
    handler: (req, ctx) => (readParams(req), ok(detachFeature(ctx, req.params.product!, req.params.id!))),
  },
  {
    method: 'GET',
    path: '/v1/entitlements/active_entitlements',
    handler: (req, ctx) => {
      const p = readParams(req);
      const page = listActiveEntitlements(ctx, requiredStr(p, 'customer'), readListWindow(p));
      return ok(listEnvelope({ data: page.data.map(activeEntitlementView), hasMore: page.hasMore }, '/v1/entitlements/active_entitlements'));
    },
  },
  {
    method: 'GET',
    path: '/v1/entitlements/active_entitlements/{id}',
    handler: (req, ctx) => (readParams(req), ok(activeEntitlementView(getActiveEntitlement(ctx, req.params.id!)))),
  },
];
