// The Event Webhook (Settings → Mail Settings → Event Webhook): one URL, the event types it takes,
// and optional signing. With signing on, every POST carries
// `X-Twilio-Email-Event-Webhook-Signature` (base64 DER ECDSA P-256 / SHA-256 over timestamp +
// payload) and `X-Twilio-Email-Event-Webhook-Timestamp`, verifiable with the public key SendGrid
// shows (base64 DER SubjectPublicKeyInfo). Events go out as one JSON array per batch.

import { generateKeyPairSync, sign } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { DeliveryRecord } from '../../../twin-runtime/deliveries.js';
import { SendGridError } from '../wire/errors.js';
import { own, type Json } from '../wire/params.js';
import type { MessageRecord } from './records.js';

export const EVENT_TYPES = [
  'bounce',
  'click',
  'deferred',
  'delivered',
  'dropped',
  'group_resubscribe',
  'group_unsubscribe',
  'open',
  'processed',
  'spam_report',
  'unsubscribe',
] as const;

export interface EventWebhookSettings {
  enabled: boolean;
  url: string;
  flags: Record<string, boolean>;
  oauth_client_id: string;
  oauth_token_url: string;
  signed: boolean;
  public_key: string;
  /** PEM of the signing key (the twin's own; handed to the delivery signer). */
  private_key: string;
}

const KEY = '@';

export function webhookSettings(ctx: TwinContext): EventWebhookSettings {
  return (
    ctx.store.get<EventWebhookSettings>('event_webhook', KEY) ?? {
      enabled: false,
      url: '',
      flags: Object.fromEntries(EVENT_TYPES.map((e) => [e, false])),
      oauth_client_id: '',
      oauth_token_url: '',
      signed: false,
      public_key: '',
      private_key: '',
    }
  );
}

export function settingsView(s: EventWebhookSettings): Json {
  return { enabled: s.enabled, url: s.url, ...s.flags, oauth_client_id: s.oauth_client_id, oauth_token_url: s.oauth_token_url };
}

function checkUrl(value: unknown): string {
  if (typeof value !== 'string') throw new SendGridError(400, [{ field: 'url', message: 'url must be a string', help: null }]);
  if (value === '') return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SendGridError(400, [{ field: 'url', message: 'invalid url', help: null }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SendGridError(400, [{ field: 'url', message: 'invalid url', help: null }]);
  return url.toString();
}

export function updateSettings(ctx: TwinContext, body: Json): EventWebhookSettings {
  const s = webhookSettings(ctx);
  const problems: { field: string; message: string; help: null }[] = [];
  for (const name of [...EVENT_TYPES, 'enabled']) {
    const v = own(body, name);
    if (v === undefined) continue;
    if (typeof v !== 'boolean') problems.push({ field: name, message: `${name} must be a boolean`, help: null });
    else if (name === 'enabled') s.enabled = v;
    else s.flags[name] = v;
  }
  if (problems.length) throw new SendGridError(400, problems);
  if (own(body, 'url') !== undefined) s.url = checkUrl(own(body, 'url'));
  for (const f of ['oauth_client_id', 'oauth_token_url'] as const) if (typeof own(body, f) === 'string') s[f] = own(body, f) as string;
  if (s.enabled && s.url === '') throw new SendGridError(400, [{ field: 'url', message: 'url is required when the event webhook is enabled', help: null }]);
  ctx.store.put('event_webhook', KEY, s);
  return s;
}

/** Turn signing on or off; a key pair is made the first time, as SendGrid does. */
export function setSigning(ctx: TwinContext, enabled: unknown): EventWebhookSettings {
  if (typeof enabled !== 'boolean') throw new SendGridError(400, [{ field: 'enabled', message: 'enabled must be a boolean', help: null }]);
  const s = webhookSettings(ctx);
  s.signed = enabled;
  if (enabled && !s.private_key) {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    s.public_key = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    s.private_key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  }
  ctx.store.put('event_webhook', KEY, s);
  return s;
}

export interface WebhookEvent {
  event: string;
  email: string;
  extra?: Json;
}

/** The JSON object of one event as SendGrid posts it (custom args at the top level). */
function eventObject(ctx: TwinContext, m: MessageRecord, e: WebhookEvent, timestamp: number): Json {
  const sgEventId = ctx.ids.nextIn('sg_event_id', '', 22);
  m.events.push({ event: e.event, email: e.email, timestamp, sg_event_id: sgEventId });
  const out: Json = {};
  // Custom args first, so SendGrid's own fields win over a custom arg of the same name.
  for (const [k, v] of Object.entries(m.custom_args)) out[k] = v;
  Object.assign(out, {
    email: e.email,
    timestamp,
    'smtp-id': `<${m.x_message_id}@geopod-ismtpd-twin>`,
    event: e.event,
    sg_event_id: sgEventId,
    sg_message_id: m.sg_message_id,
  });
  if (m.categories.length) out.category = m.categories;
  if (m.template_id) out.template_id = m.template_id;
  if (e.extra) for (const [k, v] of Object.entries(e.extra)) out[k] = v;
  return out;
}

/** Fields SendGrid adds per event type. */
export function eventExtra(event: string, opts: { url?: string } = {}): Json | undefined {
  switch (event) {
    case 'delivered':
      return { response: '250 OK', ip: '149.72.0.1', tls: 1 };
    case 'bounce':
      return {
        type: 'bounce',
        status: '5.1.1',
        reason: '550 5.1.1 The email account that you tried to reach does not exist.',
        bounce_classification: 'Invalid Address',
        ip: '149.72.0.1',
        tls: 1,
      };
    case 'open':
      return { useragent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)', ip: '203.0.113.7', sg_machine_open: false };
    case 'click':
      return {
        url: opts.url ?? 'https://example.com/',
        url_offset: { index: 0, type: 'html' },
        useragent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)',
        ip: '203.0.113.7',
      };
    default:
      return undefined;
  }
}

/**
 * Record events on their messages and post the ones the webhook takes as one batch. Each message's
 * `events` list keeps every event, whether the webhook was on or not.
 */
export function emitEvents(ctx: TwinContext, items: { message: MessageRecord; event: WebhookEvent }[]): void {
  if (items.length === 0) return;
  const s = webhookSettings(ctx);
  const timestamp = ctx.clock.nowSeconds();
  const batch: Json[] = [];
  for (const { message, event } of items) {
    const obj = eventObject(ctx, message, event, timestamp);
    if (s.enabled && s.url && s.flags[event.event]) batch.push(obj);
  }
  for (const m of new Set(items.map((i) => i.message))) ctx.store.put('message', m.sg_message_id, m);
  if (batch.length === 0) return;
  ctx.deliveries.send({
    event: 'event_webhook',
    source_id: `events:${ctx.ids.sequence('event-batch')}`,
    endpoint_id: 'event_webhook',
    url: s.url,
    payload: JSON.stringify(batch),
    headers: { 'user-agent': 'SendGrid Event API' },
    signing_secret: s.signed ? s.private_key : null,
  });
}

/** A test POST to a URL (`POST /v3/user/webhooks/event/test`), signed when signing is on. */
export function sendTestEvent(ctx: TwinContext, url: unknown): void {
  const target = checkUrl(url ?? webhookSettings(ctx).url);
  if (!target) throw new SendGridError(400, [{ field: 'url', message: 'url is required', help: null }]);
  const s = webhookSettings(ctx);
  const payload = [
    {
      email: 'example@test.com',
      timestamp: ctx.clock.nowSeconds(),
      'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>',
      event: 'processed',
      category: 'cat facts',
      sg_event_id: ctx.ids.nextIn('sg_event_id', '', 22),
      sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0',
    },
  ];
  ctx.deliveries.send({
    event: 'event_webhook.test',
    source_id: `test:${ctx.ids.sequence('event-batch')}`,
    endpoint_id: 'event_webhook',
    url: target,
    payload: JSON.stringify(payload),
    headers: { 'user-agent': 'SendGrid Event API' },
    signing_secret: s.signed ? s.private_key : null,
  });
}

/** Headers of one attempt: the ECDSA signature over timestamp + payload, when signing is on. */
export function signDelivery(delivery: DeliveryRecord, payload: string, wallNow: Date): Record<string, string> {
  if (!delivery.signing_secret) return {};
  const timestamp = String(Math.floor(wallNow.getTime() / 1000));
  const signature = sign('sha256', Buffer.from(timestamp + payload), { key: delivery.signing_secret, dsaEncoding: 'der' }).toString('base64');
  return { 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': timestamp };
}
