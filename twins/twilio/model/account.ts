// The account the auth token belongs to (AccountSid `AC` + 32 hex), its starting number and
// messaging service, and API keys (`SK…` SID and a secret, usable as basic-auth username and
// password). Created once per twin file; idempotent.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, rfc2822, sid, type Account, type ApiKey, type IncomingPhoneNumber, type MessagingService } from './records.js';
import { createNumber } from './numbers.js';

const ACCOUNT_KEY = 'self';

export function ensureAccount(ctx: TwinContext): Account {
  const existing = ctx.store.get<Account>('account', ACCOUNT_KEY);
  if (existing) return existing;
  const account: Account = { sid: sid(ctx, 'AC'), friendly_name: 'My first Twilio account', created: ctx.clock.nowMs() };
  ctx.store.put('account', ACCOUNT_KEY, account);
  const number = createNumber(ctx, { phone_number: '+15017122661', friendly_name: '(501) 712-2661' });
  const service: MessagingService = {
    sid: sid(ctx, 'MG'),
    friendly_name: 'Default messaging service',
    senders: [number.phone_number],
    status_callback: null,
    created: ctx.clock.nowMs(),
  };
  ctx.store.put('messaging_service', service.sid, service);
  return account;
}

export function account(ctx: TwinContext): Account {
  return ensureAccount(ctx);
}

export function accountView(ctx: TwinContext, a: Account): Record<string, unknown> {
  const base = `${API}/Accounts/${a.sid}`;
  return {
    auth_token: ctx.apiKey,
    date_created: rfc2822(a.created),
    date_updated: rfc2822(a.created),
    friendly_name: a.friendly_name,
    owner_account_sid: a.sid,
    sid: a.sid,
    status: 'active',
    subresource_uris: Object.fromEntries(
      [
        'addresses',
        'conferences',
        'signing_keys',
        'transcriptions',
        'connect_apps',
        'sip',
        'authorized_connect_apps',
        'usage',
        'keys',
        'applications',
        'recordings',
        'short_codes',
        'calls',
        'notifications',
        'incoming_phone_numbers',
        'queues',
        'messages',
        'outgoing_caller_ids',
        'available_phone_numbers',
        'balance',
      ].map((r) => [
        r,
        `${base}/${r === 'incoming_phone_numbers' ? 'IncomingPhoneNumbers' : r === 'available_phone_numbers' ? 'AvailablePhoneNumbers' : r.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase())}.json`,
      ]),
    ),
    type: 'Full',
    uri: `${base}.json`,
  };
}

export function createKey(ctx: TwinContext, friendlyName: string): ApiKey {
  const now = ctx.clock.nowMs();
  const key: ApiKey = { sid: sid(ctx, 'SK'), friendly_name: friendlyName, secret: ctx.ids.token(32), created: now, updated: now };
  ctx.store.put('api_key', key.sid, key);
  return key;
}

export function keyView(k: ApiKey, withSecret: boolean): Record<string, unknown> {
  const v: Record<string, unknown> = { sid: k.sid, friendly_name: k.friendly_name, date_created: rfc2822(k.created), date_updated: rfc2822(k.updated) };
  if (withSecret) v.secret = k.secret;
  return v;
}

export type { IncomingPhoneNumber };
