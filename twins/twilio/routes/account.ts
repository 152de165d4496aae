// The account, its API keys, and its incoming phone numbers (2010-04-01).

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { ownAccount } from '../wire/auth.js';
import { envelope2010, pageOf } from '../wire/pagination.js';
import { callbackUrl, str } from '../wire/params.js';
import { badParam } from '../wire/errors.js';
import { account, accountView, createKey, keyView } from '../model/account.js';
import { firstInArea, numberType, type NumberType } from '../model/available.js';
import { createNumber, numberView, updateNumber, type NumberInput } from '../model/numbers.js';
import { API, type ApiKey, type IncomingPhoneNumber } from '../model/records.js';
import { json, named } from './messages.js';

const NUMBERS = `${API}/Accounts/{AccountSid}/IncomingPhoneNumbers.json`;
const NUMBER = `${API}/Accounts/{AccountSid}/IncomingPhoneNumbers/{Sid}.json`;
const KEYS = `${API}/Accounts/{AccountSid}/Keys.json`;
const KEY = `${API}/Accounts/{AccountSid}/Keys/{Sid}.json`;

function numberInput(req: TwinRequest): NumberInput {
  return {
    phone_number: str(req, 'PhoneNumber'),
    area_code: str(req, 'AreaCode'),
    friendly_name: str(req, 'FriendlyName'),
    sms_url: callbackUrl(req, 'SmsUrl', 21502),
    sms_method: str(req, 'SmsMethod'),
    sms_fallback_url: callbackUrl(req, 'SmsFallbackUrl', 21502),
    voice_url: callbackUrl(req, 'VoiceUrl', 21502),
    voice_method: str(req, 'VoiceMethod'),
    voice_fallback_url: callbackUrl(req, 'VoiceFallbackUrl', 21502),
    status_callback: callbackUrl(req, 'StatusCallback', 21502),
  };
}

/** Buy a number: the one named, or by area code the first of that area the inventory offers (else one made up in it). */
function buy(req: TwinRequest, ctx: TwinContext, type?: NumberType): TwinResponse {
  const acct = ownAccount(req, ctx);
  const input = numberInput(req);
  if (input.phone_number === undefined && input.area_code !== undefined && /^\d{3}$/.test(input.area_code)) {
    input.phone_number = firstInArea(ctx, input.area_code);
  }
  if (type && input.phone_number !== undefined && numberType(input.phone_number) !== type)
    throw badParam(21421, `PhoneNumber ${input.phone_number} is not a ${type} number`);
  if (type && type !== 'Local' && input.phone_number === undefined) throw badParam(21452, 'No phone numbers found');
  return json(201, numberView(acct, createNumber(ctx, input)));
}

export const accountRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: `${API}/Accounts.json`,
    handler(req, ctx) {
      const a = account(ctx);
      return json(
        200,
        envelope2010(`${API}/Accounts.json`, 'accounts', {}, pageOf(req, [a]), (x) => accountView(ctx, x)),
      );
    },
  },
  { method: 'GET', path: `${API}/Accounts/{AccountSid}.json`, handler: (req, ctx) => (ownAccount(req, ctx), json(200, accountView(ctx, account(ctx)))) },
  {
    method: 'POST',
    path: `${API}/Accounts/{AccountSid}.json`,
    handler(req, ctx) {
      ownAccount(req, ctx);
      const a = account(ctx);
      const name = str(req, 'FriendlyName');
      if (name !== undefined) ctx.store.put('account', 'self', { ...a, friendly_name: name });
      return json(200, accountView(ctx, account(ctx)));
    },
  },
  { method: 'POST', path: KEYS, handler: (req, ctx) => (ownAccount(req, ctx), json(201, keyView(createKey(ctx, str(req, 'FriendlyName') ?? ''), true))) },
  {
    method: 'GET',
    path: KEYS,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      return json(
        200,
        envelope2010(`${API}/Accounts/${acct}/Keys.json`, 'keys', {}, pageOf(req, ctx.store.list<ApiKey>('api_key')), (k) => keyView(k, false)),
      );
    },
  },
  { method: 'GET', path: KEY, handler: (req, ctx) => (ownAccount(req, ctx), json(200, keyView(named<ApiKey>(req, ctx, 'api_key'), false))) },
  {
    method: 'POST',
    path: KEY,
    handler(req, ctx) {
      ownAccount(req, ctx);
      const k = named<ApiKey>(req, ctx, 'api_key');
      const next = { ...k, friendly_name: str(req, 'FriendlyName') ?? k.friendly_name, updated: ctx.clock.nowMs() };
      ctx.store.put('api_key', k.sid, next);
      return json(200, keyView(next, false));
    },
  },
  {
    method: 'DELETE',
    path: KEY,
    handler: (req, ctx) => (ownAccount(req, ctx), ctx.store.delete('api_key', named<ApiKey>(req, ctx, 'api_key').sid), { status: 204 }),
  },
  { method: 'POST', path: NUMBERS, handler: (req, ctx) => buy(req, ctx) },
  // The same list and purchase, one type of number at a time (`IncomingPhoneNumbers/Local.json`…).
  ...(['Local', 'Mobile', 'TollFree'] as const).flatMap((type): TwinRoute[] => [
    { method: 'POST', path: `${API}/Accounts/{AccountSid}/IncomingPhoneNumbers/${type}.json`, handler: (req, ctx) => buy(req, ctx, type) },
    {
      method: 'GET',
      path: `${API}/Accounts/{AccountSid}/IncomingPhoneNumbers/${type}.json`,
      handler(req, ctx) {
        const acct = ownAccount(req, ctx);
        const items = ctx.store.list<IncomingPhoneNumber>('incoming_phone_number').filter((n) => numberType(n.phone_number) === type);
        return json(
          200,
          envelope2010(`${API}/Accounts/${acct}/IncomingPhoneNumbers/${type}.json`, 'incoming_phone_numbers', {}, pageOf(req, items), (n) =>
            numberView(acct, n),
          ),
        );
      },
    },
  ]),
  {
    method: 'GET',
    path: NUMBERS,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      const filters = { PhoneNumber: str(req, 'PhoneNumber'), FriendlyName: str(req, 'FriendlyName') };
      const items = ctx.store
        .list<IncomingPhoneNumber>('incoming_phone_number')
        .filter(
          (n) =>
            (filters.PhoneNumber === undefined || n.phone_number.includes(filters.PhoneNumber.replace(/\*/g, ''))) &&
            (filters.FriendlyName === undefined || n.friendly_name === filters.FriendlyName),
        );
      return json(
        200,
        envelope2010(`${API}/Accounts/${acct}/IncomingPhoneNumbers.json`, 'incoming_phone_numbers', filters, pageOf(req, items), (n) => numberView(acct, n)),
      );
    },
  },
  {
    method: 'GET',
    path: NUMBER,
    handler: (req, ctx) => json(200, numberView(ownAccount(req, ctx), named<IncomingPhoneNumber>(req, ctx, 'incoming_phone_number'))),
  },
  {
    method: 'POST',
    path: NUMBER,
    handler(req, ctx) {
      const acct = ownAccount(req, ctx);
      return json(200, numberView(acct, updateNumber(ctx, named<IncomingPhoneNumber>(req, ctx, 'incoming_phone_number'), numberInput(req))));
    },
  },
  {
    method: 'DELETE',
    path: NUMBER,
    handler: (req, ctx) => (
      ownAccount(req, ctx), ctx.store.delete('incoming_phone_number', named<IncomingPhoneNumber>(req, ctx, 'incoming_phone_number').sid), { status: 204 }
    ),
  },
];
