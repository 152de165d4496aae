// Webhooks as Linear sends them: a POST per change to every enabled webhook whose resource types
// include the entity's (`Issue`, `Comment`, `IssueLabel`, `Project`, `Cycle`) and whose team scope
// covers it, with `{action, actor, createdAt, data, url, type, organizationId, webhookTimestamp,
// webhookId}` (and `updatedFrom` on updates). `Linear-Signature` is the hex HMAC-SHA256 of the
// body with the webhook's secret; `webhookTimestamp` is the wall-clock time of each attempt (the
// SDK's LinearWebhookClient refuses one more than a minute old), so it is stamped per attempt.

import { createHmac } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { DeliveryRecord } from '../../../twin-runtime/deliveries.js';
import { invalidInput, notFound } from '../wire/errors.js';
import { stamps, uuid, type User, type Webhook } from './records.js';
import { organization } from './workspace.js';

export interface WebhookInput {
  url: string;
  label?: string | null;
  enabled?: boolean;
  secret?: string | null;
  resourceTypes: string[];
  teamId?: string | null;
  allPublicTeams?: boolean;
}

export function createWebhook(ctx: TwinContext, actor: User, input: WebhookInput): Webhook {
  let parsed: URL;
  try {
    parsed = new URL(input.url);
  } catch {
    throw invalidInput('url must be a URL address');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalidInput('url must be a URL address');
  if (input.resourceTypes.length === 0) throw invalidInput('resourceTypes should not be empty');
  if (input.teamId && !ctx.store.has('team', input.teamId)) throw notFound('Team');
  const hook: Webhook = {
    id: uuid(ctx),
    ...stamps(ctx),
    url: input.url,
    label: input.label ?? null,
    enabled: input.enabled ?? true,
    secret: input.secret ?? `lin_wh_${ctx.ids.token(40)}`,
    resourceTypes: input.resourceTypes,
    teamId: input.teamId ?? null,
    allPublicTeams: input.allPublicTeams ?? !input.teamId,
    creatorId: actor.id,
  };
  ctx.store.put('webhook', hook.id, hook);
  return hook;
}

export function updateWebhook(ctx: TwinContext, id: string, input: Partial<WebhookInput>): Webhook {
  const hook = ctx.store.get<Webhook>('webhook', id);
  if (!hook) throw notFound('Webhook');
  if (input.url !== undefined) hook.url = input.url;
  if (input.label !== undefined) hook.label = input.label;
  if (input.enabled !== undefined) hook.enabled = input.enabled;
  if (input.secret) hook.secret = input.secret;
  if (input.resourceTypes) hook.resourceTypes = input.resourceTypes;
  hook.updatedAt = ctx.clock.now().toISOString();
  ctx.store.put('webhook', hook.id, hook);
  return hook;
}

export function deleteWebhook(ctx: TwinContext, id: string): void {
  if (!ctx.store.delete('webhook', id)) throw notFound('Webhook');
}

export type WebhookAction = 'create' | 'update' | 'remove';

/** Queue the webhook deliveries for one change. `teamIds` scopes it (empty: organization-wide). */
export function emitWebhook(
  ctx: TwinContext,
  change: {
    type: string;
    action: WebhookAction;
    data: Record<string, unknown>;
    url: string;
    teamIds: string[];
    actor?: User;
    updatedFrom?: Record<string, unknown>;
  },
): void {
  const hooks = ctx.store
    .list<Webhook>('webhook')
    .filter((h) => h.enabled && h.resourceTypes.includes(change.type) && (h.allPublicTeams || (h.teamId !== null && change.teamIds.includes(h.teamId))));
  if (hooks.length === 0) return;
  const org = organization(ctx);
  for (const hook of hooks) {
    const payload = {
      action: change.action,
      ...(change.actor ? { actor: { id: change.actor.id, name: change.actor.name, email: change.actor.email, type: 'user' } } : {}),
      createdAt: ctx.clock.now().toISOString(),
      data: change.data,
      url: change.url,
      type: change.type,
      ...(change.updatedFrom ? { updatedFrom: change.updatedFrom } : {}),
      organizationId: org.id,
      webhookTimestamp: 0,
      webhookId: hook.id,
    };
    const delivery = uuid(ctx);
    ctx.deliveries.send({
      event: `${change.type}.${change.action}`,
      source_id: delivery,
      endpoint_id: hook.id,
      url: hook.url,
      payload: JSON.stringify(payload),
      headers: { 'linear-delivery': delivery, 'linear-event': change.type, 'user-agent': 'Linear-Webhook' },
      signing_secret: hook.secret,
    });
  }
}

/** The body of one attempt: the queued payload with `webhookTimestamp` set to the attempt's time. */
export function stampDelivery(delivery: DeliveryRecord, wallNow: Date): string {
  const body = JSON.parse(delivery.payload) as Record<string, unknown>;
  body.webhookTimestamp = wallNow.getTime();
  return JSON.stringify(body);
}

export function linearSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function signDelivery(delivery: DeliveryRecord, payload: string): Record<string, string> {
  return { 'linear-signature': linearSignature(delivery.signing_secret ?? '', payload) };
}
