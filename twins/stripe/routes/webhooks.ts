// /v1/webhook_endpoints: CRUD. Deliveries and their attempts are the runtime's `delivery` records.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listResponse } from '../wire/list.js';
import { LIST_PARAMS, readParams } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import {
  WEBHOOK_CREATE_SPEC,
  WEBHOOK_UPDATE_SPEC,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  publicEndpoint,
  updateWebhookEndpoint,
  type WebhookEndpoint,
} from '../model/webhooks.js';

export const webhookRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/webhook_endpoints',
    handler: (req, ctx) => ok(createWebhookEndpoint(ctx, readParams(req, WEBHOOK_CREATE_SPEC))),
  },
  {
    method: 'GET',
    path: '/v1/webhook_endpoints',
    handler: (req, ctx) => {
      readParams(req, LIST_PARAMS);
      const all = ctx.store.list<WebhookEndpoint>('webhook_endpoint').map(publicEndpoint);
      return listResponse(req, ctx, all, '/v1/webhook_endpoints');
    },
  },
  {
    method: 'GET',
    path: '/v1/webhook_endpoints/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(publicEndpoint(getWebhookEndpoint(ctx, req.params.id!)));
    },
  },
  {
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}',
    handler: (req, ctx) => ok(publicEndpoint(updateWebhookEndpoint(ctx, req.params.id!, readParams(req, WEBHOOK_UPDATE_SPEC)))),
  },
  {
    method: 'DELETE',
    path: '/v1/webhook_endpoints/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(deleteWebhookEndpoint(ctx, req.params.id!));
    },
  },
];
