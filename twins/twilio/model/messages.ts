// Messages (2010-04-01): create with To and From or MessagingServiceSid, Body and MediaUrl; the
// status lifecycle accepted → queued → sending → sent → delivered | undelivered | failed on
// `advance`; refusals by the test numbers Twilio documents; status callbacks on every move;
// redaction (update Body to "") and delete; inbound messages posted to the number's SmsUrl.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { badParam, TwilioError } from '../wire/errors.js';
import { E164 } from '../wire/params.js';
import { account } from './account.js';
import { postToUrl } from './callbacks.js';
import { schedule, unschedule } from './lifecycle.js';
import { findNumber } from './numbers.js';
import { API, rfc2822, sid, type Message, type MessageStatus, type MessagingService } from './records.js';

/** Test numbers Twilio documents for `From`: the error each one gives (+15005550006 is valid). */
const MAGIC_FROM: Record<string, [number, (n: string) => string]> = {
  '+15005550001': [21212, (n) => `The 'From' number ${n} is not a valid phone number, shortcode, or alphanumeric sender ID.`],
  '+15005550007': [21606, (n) => `The From phone number ${n} is not a valid, SMS-capable inbound phone number or short code for your account.`],
  '+15005550008': [21611, (n) => `This 'From' number ${n} has exceeded the maximum number of queued messages`],
};
export const MAGIC_VALID_FROM = '+15005550006';

/** Test numbers Twilio documents for `To`, refused at create. */
const MAGIC_TO: Record<string, [number, (to: string, from: string) => string]> = {
  '+15005550001': [21211, (n) => `The 'To' number ${n} is not a valid phone number.`],
  '+15005550002': [21612, (n, f) => `The 'To' phone number: ${n}, is not currently reachable using the 'From' phone number: ${f} via SMS.`],
  '+15005550003': [21408, (n) => `Permission to send an SMS has not been enabled for the region indicated by the 'To' number: ${n}.`],
  '+15005550004': [21610, () => 'Attempt to send to unsubscribed recipient'],
  '+15005550009': [21614, (n) => `'To' number ${n} is not a valid mobile number`],
};

/** Twin numbers for outcomes after sending (Twilio has no test number for these). */
export const OUTCOME_TO: Record<string, { status: 'undelivered' | 'failed'; code: number; message: string }> = {
  '+15005550010': { status: 'undelivered', code: 30003, message: 'Unreachable destination handset' },
  '+15005550011': { status: 'failed', code: 30008, message: 'Unknown error' },
  '+15005550012': { status: 'undelivered', code: 30005, message: 'Unknown destination handset' },
};

/** Seconds after create at which each move happens. */
const STEPS = { queued: 0.5, sending: 1, sent: 2, final: 5 };

export interface MessageInput {
  to?: string;
  from?: string;
  messaging_service_sid?: string;
  body?: string;
  media_url: string[];
  status_callback?: string;
}

function segments(body: string): number {
  if (body === '') return 1;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: LF and CR are in the GSM-7 alphabet
  const gsm = /^[\x0A\x0D\x20-\x7E£¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà]*$/.test(body);
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  const len = [...body].length;
  return len <= single ? 1 : Math.ceil(len / multi);
}

export function createMessage(ctx: TwinContext, input: MessageInput): Message {
  const to = input.to;
  if (to === undefined || to === '') throw badParam(21604, "A 'To' phone number is required.");
  let service: MessagingService | undefined;
  if (input.messaging_service_sid !== undefined) {
    service = ctx.store.get<MessagingService>('messaging_service', input.messaging_service_sid);
    if (!service) throw badParam(21701, `The Messaging Service Sid ${input.messaging_service_sid} is invalid.`);
  }
  const from = input.from;
  if ((from === undefined || from === '') && !service) throw badParam(21603, "A 'From' phone number is required.");
  if ((input.body === undefined || input.body === '') && input.media_url.length === 0) throw badParam(21602, 'Message body is required.');
  if ((input.body ?? '').length > 1600) throw badParam(21617, 'The concatenated message body exceeds the 1600 character limit.');
  if (input.media_url.length > 10) throw badParam(21623, 'Number of media files exceeds allowed limit.');
  for (const m of input.media_url) if (!/^https?:\/\//.test(m)) throw badParam(21620, `Invalid media URL(s): ${m}`);
  if (from !== undefined && from !== '') {
    const magic = MAGIC_FROM[from];
    if (magic) throw badParam(magic[0], magic[1](from));
    const alphanumericSender = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/.test(from);
    if (!alphanumericSender && !E164.test(from))
      throw badParam(21212, `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.`);
    if (E164.test(from) && from !== MAGIC_VALID_FROM && !findNumber(ctx, from))
      throw badParam(21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`);
  }
  const toMagic = MAGIC_TO[to];
  if (toMagic) throw badParam(toMagic[0], toMagic[1](to, from ?? ''));
  if (!E164.test(to)) throw badParam(21211, `Invalid 'To' Phone Number: ${to}`);
  const now = ctx.clock.nowMs();
  const usesService = service !== undefined && (from === undefined || from === '');
  const msg: Message = {
    sid: sid(ctx, input.media_url.length ? 'MM' : 'SM'),
    direction: 'outbound-api',
    from: usesService ? null : from!,
    to,
    body: input.body ?? '',
    media: input.media_url,
    status: usesService ? 'accepted' : 'queued',
    messaging_service_sid: service?.sid ?? null,
    status_callback: input.status_callback ?? service?.status_callback ?? null,
    error_code: null,
    error_message: null,
    price: null,
    created: now,
    updated: now,
    sent: null,
  };
  ctx.store.put('message', msg.sid, msg);
  const at = (s: number) => now + s * 1000;
  if (usesService) schedule(ctx, { at: at(STEPS.queued), kind: 'message', sid: msg.sid, status: 'queued' });
  schedule(ctx, { at: at(STEPS.sending), kind: 'message', sid: msg.sid, status: 'sending' });
  const outcome = OUTCOME_TO[to];
  if (outcome?.status === 'failed') schedule(ctx, { at: at(STEPS.sent), kind: 'message', sid: msg.sid, status: 'failed', error_code: outcome.code });
  else {
    schedule(ctx, { at: at(STEPS.sent), kind: 'message', sid: msg.sid, status: 'sent' });
    schedule(ctx, { at: at(STEPS.final), kind: 'message', sid: msg.sid, status: outcome?.status ?? 'delivered', error_code: outcome?.code });
  }
  return msg;
}

const ERROR_MESSAGES: Record<number, string> = Object.fromEntries(Object.values(OUTCOME_TO).map((o) => [o.code, o.message]));

/** One lifecycle move of a message, with its status callback. */
export function moveMessage(ctx: TwinContext, messageSid: string, status: MessageStatus, errorCode?: number): void {
  const msg = ctx.store.get<Message>('message', messageSid);
  if (!msg || ['delivered', 'undelivered', 'failed', 'canceled', 'received'].includes(msg.status)) return;
  const now = ctx.clock.nowMs();
  const next: Message = { ...msg, status, updated: now };
  if (status === 'queued' && next.from === null && next.messaging_service_sid) {
    const service = ctx.store.get<MessagingService>('messaging_service', next.messaging_service_sid);
    next.from = service?.senders[0] ?? null;
  }
  if (status === 'sent' || status === 'delivered' || status === 'undelivered') {
    next.sent ??= now;
    next.price ??= (-0.0079 * segments(next.body)).toFixed(5);
  }
  if (errorCode !== undefined) {
    next.error_code = errorCode;
    next.error_message = ERROR_MESSAGES[errorCode] ?? null;
  }
  ctx.store.put('message', msg.sid, next);
  if (next.status_callback) {
    const params: Record<string, string> = {
      AccountSid: account(ctx).sid,
      ApiVersion: '2010-04-01',
      From: next.from ?? '',
      MessageSid: next.sid,
      MessageStatus: status,
      SmsSid: next.sid,
      SmsStatus: status,
      To: next.to,
    };
    if (next.messaging_service_sid) params.MessagingServiceSid = next.messaging_service_sid;
    if (next.error_code !== null) params.ErrorCode = String(next.error_code);
    postToUrl(ctx, `message.${status}`, `${next.sid}:${status}`, next.status_callback, params);
  }
}

/** Update: `Body=""` redacts a message that is no longer in flight; `Status=canceled` cancels a scheduled one. */
export function updateMessage(ctx: TwinContext, m: Message, input: { body?: string; status?: string }): Message {
  const next: Message = { ...m, updated: ctx.clock.nowMs() };
  if (input.body !== undefined) {
    if (input.body !== '') throw badParam(21602, 'Message body can only be redacted (set to an empty string).');
    if (['accepted', 'queued', 'sending', 'scheduled'].includes(m.status)) throw badParam(20009, 'Cannot redact a message that is in progress.');
    next.body = '';
  }
  if (input.status !== undefined) {
    if (input.status !== 'canceled') throw badParam(21220, `Invalid Status: ${input.status}`);
    if (m.status !== 'scheduled' && m.status !== 'accepted') throw badParam(30409, 'Message cannot be canceled: it is not scheduled.');
    next.status = 'canceled';
    unschedule(ctx, 'message', m.sid);
  }
  ctx.store.put('message', m.sid, next);
  return next;
}

export function deleteMessage(ctx: TwinContext, m: Message): void {
  if (['accepted', 'queued', 'sending', 'scheduled'].includes(m.status))
    throw new TwilioError(409, 20009, 'Cannot delete message because delivery has not been completed.');
  unschedule(ctx, 'message', m.sid);
  ctx.store.delete('message', m.sid);
}

/** An SMS to one of the account's numbers (twin-only helper): stored as received, posted to SmsUrl. */
export function receiveMessage(ctx: TwinContext, input: { from: string; to: string; body: string; media_url: string[] }): Message {
  const number = findNumber(ctx, input.to);
  if (!number) throw badParam(21606, `The To phone number ${input.to} is not one of the account's incoming phone numbers.`);
  if (!E164.test(input.from)) throw badParam(21212, `The 'From' number ${input.from} is not a valid phone number.`);
  const now = ctx.clock.nowMs();
  const msg: Message = {
    sid: sid(ctx, input.media_url.length ? 'MM' : 'SM'),
    direction: 'inbound',
    from: input.from,
    to: input.to,
    body: input.body,
    media: input.media_url,
    status: 'received',
    messaging_service_sid: null,
    status_callback: null,
    error_code: null,
    error_message: null,
    price: (-0.0079).toFixed(5),
    created: now,
    updated: now,
    sent: now,
  };
  ctx.store.put('message', msg.sid, msg);
  if (number.sms_url) {
    const params: Record<string, string> = {
      ToCountry: 'US',
      ToState: '',
      SmsMessageSid: msg.sid,
      NumMedia: String(msg.media.length),
      ToCity: '',
      FromZip: '',
      SmsSid: msg.sid,
      FromState: '',
      SmsStatus: 'received',
      FromCity: '',
      Body: msg.body,
      FromCountry: 'US',
      To: msg.to,
      ToZip: '',
      NumSegments: String(segments(msg.body)),
      MessageSid: msg.sid,
      AccountSid: account(ctx).sid,
      From: msg.from!,
      ApiVersion: '2010-04-01',
    };
    msg.media.forEach((u, i) => {
      params[`MediaUrl${i}`] = u;
      params[`MediaContentType${i}`] = 'image/jpeg';
    });
    postToUrl(ctx, 'message.received', msg.sid, number.sms_url, params);
  }
  return msg;
}

export function messageView(accountSid: string, m: Message): Record<string, unknown> {
  const uri = `${API}/Accounts/${accountSid}/Messages/${m.sid}.json`;
  return {
    account_sid: accountSid,
    api_version: '2010-04-01',
    body: m.body,
    date_created: rfc2822(m.created),
    date_sent: m.sent === null ? null : rfc2822(m.sent),
    date_updated: rfc2822(m.updated),
    direction: m.direction,
    error_code: m.error_code,
    error_message: m.error_message,
    from: m.from,
    messaging_service_sid: m.messaging_service_sid,
    num_media: String(m.media.length),
    num_segments: String(segments(m.body)),
    price: m.price,
    price_unit: 'USD',
    sid: m.sid,
    status: m.status,
    subresource_uris: { media: uri.replace(/\.json$/, '/Media.json'), feedback: uri.replace(/\.json$/, '/Feedback.json') },
    to: m.to,
    uri,
  };
}
