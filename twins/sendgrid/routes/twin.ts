// Twin-only helpers (not SendGrid's API): a recipient opening or clicking a message (an
// engagement event through the Event Webhook), and how long until delivered/bounce (0: at once).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { deliveryDelayMs, engage, setDeliveryDelayMs } from '../model/mail.js';
import { jsonBody, own } from '../wire/params.js';

export const twinRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v3/twin/messages/{sg_message_id}/events',
    unmetered: true,
    handler(req, ctx) {
      const m = engage(ctx, req.params.sg_message_id!, jsonBody(req));
      return { status: 200, body: { sg_message_id: m.sg_message_id, events: m.events } };
    },
  },
  { method: 'GET', path: '/v3/twin/settings', unmetered: true, handler: (_req, ctx) => ({ status: 200, body: { delivery_delay_ms: deliveryDelayMs(ctx) } }) },
  {
    method: 'PATCH',
    path: '/v3/twin/settings',
    unmetered: true,
    handler: (req, ctx) => ({ status: 200, body: { delivery_delay_ms: setDeliveryDelayMs(ctx, own(jsonBody(req), 'delivery_delay_ms')) } }),
  },
];
