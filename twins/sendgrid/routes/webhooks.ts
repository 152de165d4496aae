// Event Webhook settings (`/v3/user/webhooks/event/settings`), its signing (`…/signed`, the public
// key to verify with) and the test POST (`/v3/user/webhooks/event/test`).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { sendTestEvent, setSigning, settingsView, updateSettings, webhookSettings } from '../model/events.js';
import { jsonBody, own } from '../wire/params.js';

const S = '/v3/user/webhooks/event/settings';

export const webhookRoutes: TwinRoute[] = [
  { method: 'GET', path: S, handler: (_req, ctx) => ({ status: 200, body: settingsView(webhookSettings(ctx)) }) },
  { method: 'PATCH', path: S, handler: (req, ctx) => ({ status: 200, body: settingsView(updateSettings(ctx, jsonBody(req))) }) },
  {
    method: 'GET',
    path: `${S}/signed`,
    handler: (_req, ctx) => ({ status: 200, body: { public_key: webhookSettings(ctx).signed ? webhookSettings(ctx).public_key : '' } }),
  },
  {
    method: 'PATCH',
    path: `${S}/signed`,
    handler(req, ctx) {
      const s = setSigning(ctx, own(jsonBody(req), 'enabled'));
      return { status: 200, body: { public_key: s.signed ? s.public_key : '' } };
    },
  },
  {
    method: 'POST',
    path: '/v3/user/webhooks/event/test',
    handler(req, ctx) {
      sendTestEvent(ctx, own(jsonBody(req), 'url'));
      return { status: 204 };
    },
  },
];
