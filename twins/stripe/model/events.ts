// Events: every state change stores an `event` record (the object as it is after the change, plus
// `previous_attributes` for updates) and queues a signed delivery to every enabled webhook endpoint
// listening for its type. The runtime sends deliveries after the response and retries them. An
// endpoint pinned to an older API version gets the event rendered in it by wire/versions.ts, which
// the twin's definition (index.ts) hands over with renderEventsWith: the renderer reads the models
// (an old charge embeds its refunds), so this module must not import it.

import { createHmac } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { DeliveryRecord } from '../../../twin-runtime/deliveries.js';
import { currentRequest } from '../wire/request-context.js';
import { accountOf, platformContext } from '../wire/connect-scope.js';
import { STRIPE_API_VERSION } from '../wire/api-version.js';
import { newId, save, type StripeObject } from './objects.js';

type EventRenderer = (ctx: TwinContext, event: StripeEvent, version: string) => StripeEvent;

let renderEvent: EventRenderer | undefined;

/** How an event is rendered for an endpoint pinned to another API version (wire/versions.ts renderInVersion). */
export function renderEventsWith(render: EventRenderer): void {
  renderEvent = render;
}

export interface StripeEvent extends StripeObject {
  object: 'event';
  api_version: string;
  created: number;
  data: { object: StripeObject; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
  /** The connected account the event happened on (Connect events only). */
  account?: string;
}

interface EndpointLike extends StripeObject {
  url: string;
  status: string;
  enabled_events: string[];
  secret: string;
  connect?: boolean;
  api_version?: string | null;
}

function listens(endpoint: EndpointLike, type: string): boolean {
  return endpoint.status === 'enabled' && (endpoint.enabled_events.includes('*') || endpoint.enabled_events.includes(type));
}

/**
 * Record `type` for `object` and deliver it to every endpoint listening. The event is written at
 * once, so it keeps `object` as it is now; each endpoint's payload is a copy rendered in its version.
 */
export function emitEvent(ctx: TwinContext, type: string, object: StripeObject, previousAttributes?: Record<string, unknown>): void {
  // A connected account's event goes to its own endpoints and to the platform's Connect endpoints;
  // the platform's own events to its endpoints that are not Connect endpoints.
  const account = accountOf(ctx);
  const own = ctx.store.list<EndpointLike>('webhook_endpoint').filter((e) => !e.connect);
  const connect = account
    ? platformContext(ctx)
        .store.list<EndpointLike>('webhook_endpoint')
        .filter((e) => e.connect)
    : [];
  const endpoints = [...own, ...connect].filter((e) => listens(e, type));
  const req = currentRequest();
  const event: StripeEvent = {
    id: newId(ctx, 'event'),
    object: 'event',
    ...(account ? { account } : {}),
    api_version: STRIPE_API_VERSION,
    created: ctx.clock.nowSeconds(),
    data: previousAttributes ? { object, previous_attributes: previousAttributes } : { object },
    livemode: false,
    pending_webhooks: endpoints.length,
    request: { id: req?.id ?? null, idempotency_key: req?.idempotencyKey ?? null },
    type,
  };
  save(ctx, 'event', event);
  if (endpoints.length === 0) return;
  // Each endpoint gets the event in its own `api_version` when it was made with one (as Stripe
  // renders it), else in the default; one rendering per version.
  const payloads = new Map<string, string>();
  const payloadIn = (version: string) => {
    let payload = payloads.get(version);
    if (payload === undefined) {
      // Even the default version is rendered: it leaves out fields kept only in storage.
      if (!renderEvent) throw new Error('No event renderer: the Stripe twin is used without its definition (twins/stripe/index.ts).');
      payload = JSON.stringify(renderEvent(ctx, structuredClone(event), version), null, 2);
      payloads.set(version, payload);
    }
    return payload;
  };
  for (const endpoint of endpoints) {
    const payload = payloadIn(typeof endpoint.api_version === 'string' && endpoint.api_version ? endpoint.api_version : STRIPE_API_VERSION);
    ctx.deliveries.send({
      event: type,
      source_id: event.id,
      endpoint_id: endpoint.id,
      url: endpoint.url,
      payload,
      headers: { 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'cache-control': 'no-cache' },
      signing_secret: endpoint.secret,
    });
  }
}

/** `Stripe-Signature: t=<seconds>,v1=<hex HMAC-SHA256 of "t.payload">`, what `constructEvent` checks. */
export function signStripeDelivery(delivery: DeliveryRecord, payload: string, wallNow: Date): Record<string, string> {
  if (!delivery.signing_secret) return {};
  const t = Math.floor(wallNow.getTime() / 1000);
  const v1 = createHmac('sha256', delivery.signing_secret).update(`${t}.${payload}`).digest('hex');
  return { 'stripe-signature': `t=${t},v1=${v1}` };
}
