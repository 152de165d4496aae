// Integration webhooks: a subscription (made with the twin-only `POST /v1/twin/webhooks`, as a
// user makes one in the integration's settings) first receives `{verification_token}`; every event
// after that is signed `X-Notion-Signature: sha256=<hex HMAC-SHA256 of the body keyed by the
// verification token>`, as Notion documents. Events: page.created, page.properties_updated,
// page.content_updated, page.moved, page.deleted, page.undeleted, comment.created, comment.updated,
// comment.deleted; `attempt_number` is stamped per attempt.

import { createHmac } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { DeliveryRecord } from '../../../twin-runtime/deliveries.js';
import { bodyInvalid } from '../wire/errors.js';
import { field } from '../wire/params.js';
import { newId, type WebhookSubscription } from './records.js';
import { me, workspace } from './workspace.js';

export const EVENT_TYPES = [
  'page.created',
  'page.properties_updated',
  'page.content_updated',
  'page.moved',
  'page.deleted',
  'page.undeleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
];

export function createSubscription(ctx: TwinContext, body: Record<string, unknown>): WebhookSubscription {
  const rawUrl = field(body, 'url');
  let url: URL;
  try {
    url = new URL(String(rawUrl));
  } catch {
    throw bodyInvalid('url', 'should be a valid URL', rawUrl);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bodyInvalid('url', 'should be a valid URL', rawUrl);
  const types = field(body, 'event_types');
  const eventTypes = types === undefined ? EVENT_TYPES : Array.isArray(types) ? types.map(String) : [];
  const unknown = eventTypes.find((t) => !EVENT_TYPES.includes(t));
  if (eventTypes.length === 0 || unknown) throw bodyInvalid('event_types', `should be a list of ${EVENT_TYPES.join(', ')}`, types);
  const sub: WebhookSubscription = {
    id: newId(ctx),
    url: url.toString(),
    event_types: eventTypes,
    verification_token: `secret_${ctx.ids.token(43)}`,
    created_time: ctx.clock.now().toISOString(),
  };
  ctx.store.put('webhook_subscription', sub.id, sub);
  // The one-time verification request (unsigned: the token is what signs everything later).
  ctx.deliveries.send({
    event: 'verification',
    source_id: `verification:${sub.id}`,
    endpoint_id: sub.id,
    url: sub.url,
    payload: JSON.stringify({ verification_token: sub.verification_token }),
    signing_secret: null,
  });
  return sub;
}

export interface WebhookEvent {
  type: string;
  entity: { id: string; type: 'page' | 'comment' | 'database' | 'block' };
  data: Record<string, unknown>;
}

/** Queue one event to every subscription that listens for its type. */
export function emitEvent(ctx: TwinContext, event: WebhookEvent): void {
  const subs = ctx.store.list<WebhookSubscription>('webhook_subscription').filter((s) => s.event_types.includes(event.type));
  if (subs.length === 0) return;
  const ws = workspace(ctx);
  const bot = me(ctx);
  for (const sub of subs) {
    const payload = {
      id: newId(ctx),
      timestamp: ctx.clock.now().toISOString(),
      workspace_id: ws.id,
      workspace_name: ws.name,
      subscription_id: sub.id,
      integration_id: bot.id,
      authors: [{ id: bot.id, type: 'bot' }],
      attempt_number: 1,
      entity: event.entity,
      type: event.type,
      data: event.data,
    };
    ctx.deliveries.send({
      event: event.type,
      source_id: payload.id,
      endpoint_id: sub.id,
      url: sub.url,
      payload: JSON.stringify(payload),
      headers: { 'user-agent': 'notion-api' },
      signing_secret: sub.verification_token,
    });
  }
}

export function notionSignature(token: string, body: string): string {
  return `sha256=${createHmac('sha256', token).update(body).digest('hex')}`;
}

/** Each attempt carries its own `attempt_number` inside the signed body. */
export function stampDelivery(delivery: DeliveryRecord): string {
  if (delivery.event === 'verification') return delivery.payload;
  try {
    const body = JSON.parse(delivery.payload) as Record<string, unknown>;
    body.attempt_number = delivery.attempts.length + 1;
    return JSON.stringify(body);
  } catch {
    return delivery.payload;
  }
}

export function signDelivery(delivery: DeliveryRecord, payload: string): Record<string, string> {
  return delivery.signing_secret ? { 'x-notion-signature': notionSignature(delivery.signing_secret, payload) } : {};
}
