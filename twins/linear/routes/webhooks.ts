// Webhooks over GraphQL: `webhooks`/`webhook`, `webhookCreate`/`webhookUpdate`/`webhookDelete`.

import type { TypeModels } from '../wire/types.js';
import { createWebhook, deleteWebhook, updateWebhook, type WebhookInput } from '../model/webhooks.js';
import { actor, all, byId, input, payload, related, str } from './common.js';

export const webhookModels: TypeModels = {
  Query: {
    computed: { webhook: (_r, a, ctx) => byId(ctx, 'webhook', 'Webhook', str(a, 'id')) },
    many: { webhooks: (_r, ctx) => all(ctx, 'webhook') },
  },
  Mutation: {
    computed: {
      webhookCreate: (_r, a, ctx) => payload(ctx, { webhook: createWebhook(ctx, actor(ctx), input<WebhookInput>(a)) }),
      webhookUpdate: (_r, a, ctx) => payload(ctx, { webhook: updateWebhook(ctx, str(a, 'id'), input<Partial<WebhookInput>>(a)) }),
      webhookDelete: (_r, a, ctx) => {
        deleteWebhook(ctx, str(a, 'id'));
        return payload(ctx, { entityId: str(a, 'id') });
      },
    },
  },
  Webhook: {
    one: { team: (w, ctx) => related(ctx, 'team', w.teamId), creator: (w, ctx) => related(ctx, 'user', w.creatorId) },
  },
};
