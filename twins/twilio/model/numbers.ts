// IncomingPhoneNumbers: the account's own numbers, with the SmsUrl / VoiceUrl webhooks an inbound
// message or call is posted to. Buying by PhoneNumber or AreaCode (a deterministic number in it).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { badParam, TwilioError } from '../wire/errors.js';
import { E164 } from '../wire/params.js';
import { API, rfc2822, sid, type IncomingPhoneNumber } from './records.js';

export interface NumberInput {
  phone_number?: string;
  area_code?: string;
  friendly_name?: string;
  sms_url?: string;
  sms_method?: string;
  sms_fallback_url?: string;
  voice_url?: string;
  voice_method?: string;
  voice_fallback_url?: string;
  status_callback?: string;
}

/** `+15017122661` → `(501) 712-2661` as Twilio names a US number by default. */
export function formatted(e164: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : e164;
}

export function findNumber(ctx: TwinContext, e164: string): IncomingPhoneNumber | undefined {
  return ctx.store.list<IncomingPhoneNumber>('incoming_phone_number').find((n) => n.phone_number === e164);
}

export function createNumber(ctx: TwinContext, input: NumberInput): IncomingPhoneNumber {
  let phone = input.phone_number;
  if (phone === undefined) {
    if (input.area_code === undefined) throw badParam(21452, 'No phone numbers found');
    if (!/^\d{3}$/.test(input.area_code)) throw badParam(21451, `Invalid area code ${input.area_code}`);
    do phone = `+1${input.area_code}${String(5550100 + (ctx.ids.sequence('number') % 9900)).padStart(7, '0')}`;
    while (findNumber(ctx, phone));
  }
  if (!E164.test(phone)) throw badParam(21421, `PhoneNumber is invalid`);
  if (findNumber(ctx, phone)) throw new TwilioError(400, 21422, `PhoneNumber ${phone} is not available`);
  const now = ctx.clock.nowMs();
  const n: IncomingPhoneNumber = {
    sid: sid(ctx, 'PN'),
    phone_number: phone,
    friendly_name: input.friendly_name ?? formatted(phone),
    sms_url: input.sms_url ?? '',
    sms_method: (input.sms_method ?? 'POST').toUpperCase(),
    sms_fallback_url: input.sms_fallback_url ?? '',
    voice_url: input.voice_url ?? '',
    voice_method: (input.voice_method ?? 'POST').toUpperCase(),
    voice_fallback_url: input.voice_fallback_url ?? '',
    status_callback: input.status_callback ?? '',
    created: now,
    updated: now,
  };
  ctx.store.put('incoming_phone_number', n.sid, n);
  return n;
}

export function updateNumber(ctx: TwinContext, n: IncomingPhoneNumber, input: NumberInput): IncomingPhoneNumber {
  const next: IncomingPhoneNumber = { ...n, updated: ctx.clock.nowMs() };
  if (input.friendly_name !== undefined) next.friendly_name = input.friendly_name;
  if (input.sms_url !== undefined) next.sms_url = input.sms_url;
  if (input.sms_method !== undefined) next.sms_method = input.sms_method.toUpperCase();
  if (input.sms_fallback_url !== undefined) next.sms_fallback_url = input.sms_fallback_url;
  if (input.voice_url !== undefined) next.voice_url = input.voice_url;
  if (input.voice_method !== undefined) next.voice_method = input.voice_method.toUpperCase();
  if (input.voice_fallback_url !== undefined) next.voice_fallback_url = input.voice_fallback_url;
  if (input.status_callback !== undefined) next.status_callback = input.status_callback;
  ctx.store.put('incoming_phone_number', n.sid, next);
  return next;
}

export function numberView(accountSid: string, n: IncomingPhoneNumber): Record<string, unknown> {
  const uri = `${API}/Accounts/${accountSid}/IncomingPhoneNumbers/${n.sid}.json`;
  return {
    account_sid: accountSid,
    address_requirements: 'none',
    address_sid: null,
    api_version: '2010-04-01',
    beta: false,
    capabilities: { fax: false, mms: true, sms: true, voice: true },
    date_created: rfc2822(n.created),
    date_updated: rfc2822(n.updated),
    emergency_address_sid: null,
    emergency_address_status: 'unregistered',
    emergency_status: 'Inactive',
    friendly_name: n.friendly_name,
    identity_sid: null,
    origin: 'twilio',
    phone_number: n.phone_number,
    sid: n.sid,
    sms_application_sid: '',
    sms_fallback_method: 'POST',
    sms_fallback_url: n.sms_fallback_url,
    sms_method: n.sms_method,
    sms_url: n.sms_url,
    status_callback: n.status_callback,
    status_callback_method: 'POST',
    trunk_sid: null,
    uri,
    voice_application_sid: '',
    voice_caller_id_lookup: false,
    voice_fallback_method: 'POST',
    voice_fallback_url: n.voice_fallback_url,
    voice_method: n.voice_method,
    voice_url: n.voice_url,
    voice_receive_mode: 'voice',
    status: 'in-use',
    bundle_sid: null,
    subresource_uris: { assigned_add_ons: uri.replace(/\.json$/, '/AssignedAddOns.json') },
  };
}
