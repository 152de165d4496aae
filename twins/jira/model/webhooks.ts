// Webhooks as a Jira Cloud admin registers them (`/rest/webhooks/1.0/webhook`: name, url,
// events, an optional JQL filter and a secret). Each matching event POSTs Jira's payload
// (`{timestamp, webhookEvent, issue_event_type_name, user, issue, changelog?, comment?}`); with a
// secret, `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>` as Atlassian documents.

import { createHmac } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { DeliveryRecord } from '../../../twin-runtime/deliveries.js';
import { JiraError } from '../wire/errors.js';
import { jiraTime, numericId, type Webhook } from './records.js';

export const WEBHOOK_EVENTS = ['jira:issue_created', 'jira:issue_updated', 'jira:issue_deleted', 'comment_created', 'comment_updated', 'comment_deleted'];

export function createWebhook(
  ctx: TwinContext,
  input: { name?: unknown; url?: unknown; events?: unknown; filters?: unknown; secret?: unknown; enabled?: unknown },
): Webhook {
  if (typeof input.name !== 'string' || input.name === '') throw new JiraError(400, ['Webhook name must be provided.']);
  let url: URL;
  try {
    url = new URL(String(input.url));
  } catch {
    throw new JiraError(400, ['Webhook URL must be a valid URL.']);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new JiraError(400, ['Webhook URL must be a valid URL.']);
  const events = Array.isArray(input.events) ? input.events.map(String) : [];
  const unknown = events.find((e) => !WEBHOOK_EVENTS.includes(e));
  if (events.length === 0 || unknown) throw new JiraError(400, [unknown ? `Unknown webhook event '${unknown}'.` : 'At least one event must be provided.']);
  const filters = (input.filters && typeof input.filters === 'object' ? input.filters : {}) as Record<string, unknown>;
  const jql = typeof filters['issue-related-events-section'] === 'string' ? (filters['issue-related-events-section'] as string) : null;
  const hook: Webhook = {
    id: numericId(ctx, 'webhook', 1),
    name: input.name,
    url: url.toString(),
    events,
    jql: jql && jql.trim() !== '' ? jql : null,
    secret: typeof input.secret === 'string' && input.secret !== '' ? input.secret : null,
    enabled: input.enabled !== false,
    created: jiraTime(ctx),
  };
  ctx.store.put('webhook', hook.id, hook);
  return hook;
}

export function webhookView(ctx: TwinContext, h: Webhook): Record<string, unknown> {
  return {
    name: h.name,
    url: h.url,
    events: h.events,
    filters: { 'issue-related-events-section': h.jql ?? '' },
    enabled: h.enabled,
    self: `${ctx.baseUrl}/rest/webhooks/1.0/webhook/${h.id}`,
    lastUpdatedUser: null,
    lastUpdatedDisplayName: null,
    lastUpdated: Date.parse(h.created.replace('+0000', 'Z')),
  };
}

/** Queue one event to every enabled hook that listens for it and whose JQL (if any) matches. */
export function emitEvent(ctx: TwinContext, event: string, payload: Record<string, unknown>, matchesJql: (jql: string) => boolean): void {
  for (const hook of ctx.store.list<Webhook>('webhook')) {
    if (!hook.enabled || !hook.events.includes(event)) continue;
    if (hook.jql && !matchesJql(hook.jql)) continue;
    ctx.deliveries.send({
      event,
      source_id: `${event}:${ctx.ids.sequence('webhook-event')}`,
      endpoint_id: hook.id,
      url: hook.url,
      payload: JSON.stringify({ timestamp: ctx.clock.nowMs(), webhookEvent: event, ...payload }),
      headers: { 'user-agent': 'Atlassian Webhook HTTP Client', 'x-atlassian-webhook-identifier': String(ctx.ids.sequence('webhook-identifier')) },
      signing_secret: hook.secret,
    });
  }
}

export function hubSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function signDelivery(delivery: DeliveryRecord, payload: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (delivery.signing_secret) headers['x-hub-signature'] = hubSignature(delivery.signing_secret, payload);
  if (delivery.attempts.length > 0) headers['x-atlassian-webhook-retry'] = String(delivery.attempts.length);
  return headers;
}
