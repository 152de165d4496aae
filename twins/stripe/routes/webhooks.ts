// /v1/webhook_endpoints: CRUD. Deliveries and their attempts are the runtime's `delivery` records.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, emptyableStr, readMetadata, readParams, str, strArray } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { checkApiVersion } from '../wire/api-version.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  publicEndpoint,
  updateWebhookEndpoint,
} from '../model/webhooks.js';

export const webhookRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/webhook_endpoints',
    handler: (req, ctx) => {
      const p = readParams(req);
      // The version the endpoint's events are rendered in (model/events.ts): one Stripe knows.
      const apiVersion = str(p, 'api_version');
      if (apiVersion !== undefined) checkApiVersion(apiVersion);
      return ok(
        createWebhookEndpoint(ctx, {
          url: str(p, 'url'),
          enabledEvents: strArray(p, 'enabled_events'),
          apiVersion,
          description: str(p, 'description'),
          metadata: readMetadata(p),
          connect: bool(p, 'connect'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/webhook_endpoints',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listWebhookEndpoints(ctx, readListWindow(p)), '/v1/webhook_endpoints'));
    },
  },
  {
    method: 'GET',
    path: '/v1/webhook_endpoints/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(publicEndpoint(getWebhookEndpoint(ctx, req.params.id!)));
    },
  },
  {
    method: 'POST',
    path: '/v1/webhook_endpoints/{id}',
    handler: (req, ctx) => {
      const p = readParams(req);
      const update = {
        url: str(p, 'url'),
        enabledEvents: strArray(p, 'enabled_events'),
        description: emptyableStr(p, 'description'),
        disabled: bool(p, 'disabled'),
        metadata: readMetadata(p),
      };
      return ok(publicEndpoint(updateWebhookEndpoint(ctx, req.params.id!, update)));
    },
  },
  {
    method: 'DELETE',
    path: '/v1/webhook_endpoints/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(deleteWebhookEndpoint(ctx, req.params.id!));
    },
  },
];
