// Twin-only helpers (not Notion's API): a webhook subscription made without the integration
// settings page (its verification token is answered, and sent to the URL as Notion does); the
// rate limit a test wants (wire/rate-limit.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { jsonBody } from '../wire/params.js';
import { setRateLimit } from '../wire/rate-limit.js';
import { createSubscription } from '../model/webhooks.js';
import type { WebhookSubscription } from '../model/records.js';

export const twinRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/twin/webhooks',
    unmetered: true,
    handler: (req, ctx) => ({ status: 200, body: { object: 'webhook_subscription', ...createSubscription(ctx, jsonBody(req)) } }),
  },
  {
    method: 'GET',
    path: '/v1/twin/webhooks',
    unmetered: true,
    handler: (_req, ctx) => ({
      status: 200,
      body: { object: 'list', results: ctx.store.list<WebhookSubscription>('webhook_subscription').map((s) => ({ object: 'webhook_subscription', ...s })) },
    }),
  },
  {
    method: 'POST',
    path: '/v1/twin/rate_limit',
    unmetered: true,
    handler: (req, ctx) => ({ status: 200, body: { object: 'rate_limit', limit: setRateLimit(ctx, jsonBody(req)) } }),
  },
];
