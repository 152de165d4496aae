// Webhook endpoints: CRUD. The signing secret (`whsec_…`) is shown on create only, as Stripe does;
// the stored record keeps it because deliveries are signed with it (model/events.ts).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam, resourceMissing } from '../wire/errors.js';
import { applyMetadata, clone, find, newId, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type ListPage, type ListWindow } from './pages.js';

export type WebhookEndpoint = StripeObject & { object: 'webhook_endpoint'; secret: string };

export interface WebhookEndpointCreate {
  url?: string;
  enabledEvents?: string[];
  apiVersion?: string;
  description?: string;
  metadata?: MetadataPatch;
  /** Receive the events of connected accounts (not part of the object Stripe shows). */
  connect?: boolean;
}

export interface WebhookEndpointUpdate {
  url?: string;
  enabledEvents?: string[];
  description?: string | null;
  disabled?: boolean;
  metadata?: MetadataPatch;
}

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
  const { secret: _secret, connect: _connect, ...rest } = e;
  return rest as StripeObject;
}

export function getWebhookEndpoint(ctx: TwinContext, id: string): WebhookEndpoint {
  const e = find<WebhookEndpoint>(ctx, 'webhook_endpoint', id);
  if (!e) throw resourceMissing('webhook endpoint', id, 'id');
  return e;
}

export function createWebhookEndpoint(ctx: TwinContext, input: WebhookEndpointCreate): WebhookEndpoint {
  const url = input.url;
  if (!url) throw missingParam('url');
  const events = input.enabledEvents;
  if (!events) throw missingParam('enabled_events');
  const endpoint: WebhookEndpoint = {
    id: newId(ctx, 'webhook_endpoint'),
    object: 'webhook_endpoint',
    api_version: input.apiVersion ?? null,
    application: null,
    created: ctx.clock.nowSeconds(),
    description: input.description || null,
    enabled_events: checkEvents(events),
    livemode: false,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    secret: `whsec_${ctx.ids.token(32)}`,
    status: 'enabled',
    url: checkUrl(url),
  };
  save(ctx, 'webhook_endpoint', input.connect ? { ...endpoint, connect: true } : endpoint);
  return endpoint;
}

export function updateWebhookEndpoint(ctx: TwinContext, id: string, input: WebhookEndpointUpdate): WebhookEndpoint {
  const e = clone(getWebhookEndpoint(ctx, id));
  if (input.url !== undefined) e.url = checkUrl(input.url);
  if (input.enabledEvents !== undefined) e.enabled_events = checkEvents(input.enabledEvents);
  if (input.description !== undefined) e.description = input.description;
  if (input.disabled !== undefined) e.status = input.disabled ? 'disabled' : 'enabled';
  if (input.metadata !== undefined) e.metadata = applyMetadata(e.metadata, input.metadata);
  return save(ctx, 'webhook_endpoint', e);
}

/** `GET /v1/webhook_endpoints`: one page, as the public object (no secret). */
export function listWebhookEndpoints(ctx: TwinContext, window: ListWindow): ListPage<StripeObject> {
  const page = readPage<WebhookEndpoint>(ctx, 'webhook_endpoint', {}, window);
  return { ...page, data: page.data.map(publicEndpoint) };
}

export function deleteWebhookEndpoint(ctx: TwinContext, id: string): StripeObject {
  getWebhookEndpoint(ctx, id);
  ctx.store.delete('webhook_endpoint', id);
  return { id, object: 'webhook_endpoint', deleted: true };
}
