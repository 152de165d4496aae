// Webhook endpoints: CRUD. The signing secret (`whsec_…`) is shown on create only, as Stripe does;
// the stored record keeps it because deliveries are signed with it (model/events.ts).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam, resourceMissing } from '../wire/errors.js';
import { bool, emptyableStr, metadata, str, strArray, type Params, type ParamSpec } from '../wire/params.js';
import { clone, find, newId, save, type StripeObject } from './objects.js';

export type WebhookEndpoint = StripeObject & { object: 'webhook_endpoint'; secret: string };

export const WEBHOOK_CREATE_SPEC: ParamSpec = { url: true, enabled_events: true, description: true, metadata: true, api_version: true, connect: true };
export const WEBHOOK_UPDATE_SPEC: ParamSpec = { url: true, enabled_events: true, description: true, metadata: true, disabled: true };

const EVENT_TYPE = /^[a-z_]+(\.[a-z_]+)+$|^\*$/;

function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidRequest(`Invalid URL: ${url}`, 'url', 'url_invalid');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw invalidRequest(`Invalid URL: ${url}`, 'url', 'url_invalid');
  return url;
}

function checkEvents(events: string[]): string[] {
  if (events.length === 0) throw missingParam('enabled_events');
  for (const [i, e] of events.entries()) {
    if (!EVENT_TYPE.test(e)) throw invalidRequest(`Invalid enabled_events[${i}]: ${e} is not a valid event type.`, `enabled_events[${i}]`);
  }
  return events;
}

/** The endpoint as the API shows it after creation (no secret). */
export function publicEndpoint(e: WebhookEndpoint): StripeObject {
  const { secret: _secret, ...rest } = e;
  return rest as StripeObject;
}

export function getWebhookEndpoint(ctx: TwinContext, id: string): WebhookEndpoint {
  const e = find<WebhookEndpoint>(ctx, 'webhook_endpoint', id);
  if (!e) throw resourceMissing('webhook endpoint', id, 'id');
  return e;
}

export function createWebhookEndpoint(ctx: TwinContext, p: Params): WebhookEndpoint {
  const url = str(p, 'url');
  if (!url) throw missingParam('url');
  const events = strArray(p, 'enabled_events');
  if (!events) throw missingParam('enabled_events');
  const endpoint: WebhookEndpoint = {
    id: newId(ctx, 'webhook_endpoint'),
    object: 'webhook_endpoint',
    api_version: str(p, 'api_version') ?? null,
    application: null,
    created: ctx.clock.nowSeconds(),
    description: str(p, 'description') || null,
    enabled_events: checkEvents(events),
    livemode: false,
    metadata: metadata(p) ?? {},
    secret: `whsec_${ctx.ids.token(32)}`,
    status: 'enabled',
    url: checkUrl(url),
  };
  return save(ctx, 'webhook_endpoint', endpoint);
}

export function updateWebhookEndpoint(ctx: TwinContext, id: string, p: Params): WebhookEndpoint {
  const e = clone(getWebhookEndpoint(ctx, id));
  const url = str(p, 'url');
  if (url !== undefined) e.url = checkUrl(url);
  const events = strArray(p, 'enabled_events');
  if (events !== undefined) e.enabled_events = checkEvents(events);
  const description = emptyableStr(p, 'description');
  if (description !== undefined) e.description = description;
  const disabled = bool(p, 'disabled');
  if (disabled !== undefined) e.status = disabled ? 'disabled' : 'enabled';
  const md = metadata(p, e.metadata);
  if (md !== undefined) e.metadata = md;
  return save(ctx, 'webhook_endpoint', e);
}

export function deleteWebhookEndpoint(ctx: TwinContext, id: string): StripeObject {
  getWebhookEndpoint(ctx, id);
  ctx.store.delete('webhook_endpoint', id);
  return { id, object: 'webhook_endpoint', deleted: true };
}
