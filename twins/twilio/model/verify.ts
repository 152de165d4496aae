// Verify v2: services, verifications (send a code by sms / call / email / whatsapp), checks that
// approve or leave the verification pending, cancel/approve by update, expiry after ten minutes
// on `advance`. The code sent is kept on the `verification` record (twin-only `code` field), so a
// test reads it through the records API as a user reads their phone.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { badParam, notFound, TwilioError } from '../wire/errors.js';
import { E164 } from '../wire/params.js';
import { account } from './account.js';
import { schedule, unschedule } from './lifecycle.js';
import { iso, sid, type Verification, type VerificationStatus, type VerifyService } from './records.js';

const CHANNELS = ['sms', 'call', 'email', 'whatsapp', 'sna', 'auto'];
const EXPIRY_MS = 10 * 60 * 1000;
const MAX_CHECKS = 5;
const MAX_SENDS = 5;

export function createService(
  ctx: TwinContext,
  input: {
    friendly_name?: string;
    code_length?: number;
    lookup_enabled?: boolean;
    skip_sms_to_landlines?: boolean;
    dtmf_input_required?: boolean;
    do_not_share_warning_enabled?: boolean;
    custom_code_enabled?: boolean;
  },
): VerifyService {
  if (!input.friendly_name) throw badParam(20001, 'Missing required parameter FriendlyName in the post body');
  const codeLength = input.code_length ?? 6;
  if (!Number.isInteger(codeLength) || codeLength < 4 || codeLength > 10) throw badParam(60200, 'Invalid parameter: CodeLength');
  const now = ctx.clock.nowMs();
  const s: VerifyService = {
    sid: sid(ctx, 'VA'),
    friendly_name: input.friendly_name,
    code_length: codeLength,
    lookup_enabled: input.lookup_enabled ?? false,
    skip_sms_to_landlines: input.skip_sms_to_landlines ?? false,
    dtmf_input_required: input.dtmf_input_required ?? true,
    do_not_share_warning_enabled: input.do_not_share_warning_enabled ?? false,
    custom_code_enabled: input.custom_code_enabled ?? false,
    created: now,
    updated: now,
  };
  ctx.store.put('verify_service', s.sid, s);
  return s;
}

export function getService(ctx: TwinContext, serviceSid: string, path: string): VerifyService {
  const s = ctx.store.get<VerifyService>('verify_service', serviceSid);
  if (!s) throw notFound(path);
  return s;
}

export function updateService(ctx: TwinContext, s: VerifyService, input: { friendly_name?: string; code_length?: number }): VerifyService {
  const next = { ...s, updated: ctx.clock.nowMs() };
  if (input.friendly_name !== undefined) next.friendly_name = input.friendly_name;
  if (input.code_length !== undefined) {
    if (input.code_length < 4 || input.code_length > 10) throw badParam(60200, 'Invalid parameter: CodeLength');
    next.code_length = input.code_length;
  }
  ctx.store.put('verify_service', s.sid, next);
  return next;
}

export function deleteService(ctx: TwinContext, s: VerifyService): void {
  ctx.store.delete('verify_service', s.sid);
  for (const v of ctx.store.list<Verification>('verification')) if (v.service_sid === s.sid) ctx.store.delete('verification', v.sid);
}

function code(ctx: TwinContext, length: number): string {
  return [...ctx.ids.bytes(length)].map((b) => String(b % 10)).join('');
}

function pendingFor(ctx: TwinContext, serviceSid: string, to: string): Verification | undefined {
  return ctx.store.list<Verification>('verification').find((v) => v.service_sid === serviceSid && v.to === to && v.status === 'pending');
}

export function startVerification(ctx: TwinContext, s: VerifyService, input: { to?: string; channel?: string; custom_code?: string }): Verification {
  if (!input.to) throw badParam(20001, 'Missing required parameter To in the post body');
  if (!input.channel) throw badParam(20001, 'Missing required parameter Channel in the post body');
  if (!CHANNELS.includes(input.channel)) throw badParam(60200, `Invalid parameter \`Channel\`: ${input.channel}`);
  const email = input.channel === 'email';
  if (email ? !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(input.to) : !E164.test(input.to)) throw badParam(60200, `Invalid parameter \`To\`: ${input.to}`);
  if (input.to === '+15005550001') throw badParam(60200, `Invalid parameter \`To\`: ${input.to}`);
  if (input.to === '+15005550009' && input.channel === 'sms') throw badParam(60205, 'SMS is not supported by landline phone number');
  if (input.custom_code !== undefined && !s.custom_code_enabled) throw new TwilioError(403, 60208, 'Custom code not allowed for this service');
  const now = ctx.clock.nowMs();
  const attempt = { attempt_sid: sid(ctx, 'VL'), channel: input.channel, time: iso(now) };
  const existing = pendingFor(ctx, s.sid, input.to);
  if (existing) {
    if (existing.send_code_attempts.length >= MAX_SENDS) throw new TwilioError(429, 60203, 'Max send attempts reached');
    const next: Verification = { ...existing, channel: input.channel, send_code_attempts: [...existing.send_code_attempts, attempt], updated: now };
    ctx.store.put('verification', next.sid, next);
    return next;
  }
  const v: Verification = {
    sid: sid(ctx, 'VE'),
    service_sid: s.sid,
    to: input.to,
    channel: input.channel,
    status: 'pending',
    code: input.custom_code ?? code(ctx, s.code_length),
    check_attempts: 0,
    send_code_attempts: [attempt],
    created: now,
    updated: now,
    expires: now + EXPIRY_MS,
  };
  ctx.store.put('verification', v.sid, v);
  schedule(ctx, { at: v.expires, kind: 'verification', sid: v.sid, status: 'expired' });
  return v;
}

export function getVerification(ctx: TwinContext, s: VerifyService, key: string, path: string): Verification {
  const v =
    ctx.store.get<Verification>('verification', key) ??
    ctx.store.list<Verification>('verification').find((x) => x.service_sid === s.sid && x.to === key && x.status === 'pending');
  if (!v || v.service_sid !== s.sid) throw notFound(path);
  return v;
}

export function setVerificationStatus(ctx: TwinContext, v: Verification, status: VerificationStatus): Verification {
  const next = { ...v, status, updated: ctx.clock.nowMs() };
  ctx.store.put('verification', v.sid, next);
  if (status !== 'pending') unschedule(ctx, 'verification', v.sid);
  return next;
}

export function updateVerification(ctx: TwinContext, v: Verification, status: string | undefined): Verification {
  if (status !== 'canceled' && status !== 'approved') throw badParam(60200, `Invalid parameter \`Status\`: ${status ?? ''}`);
  if (v.status !== 'pending') throw new TwilioError(404, 20404, `The requested resource /Services/${v.service_sid}/Verifications/${v.sid} was not found`);
  return setVerificationStatus(ctx, v, status);
}

/** A check: approved on the right code; pending (valid false) on a wrong one; 429 after five. */
export function checkVerification(
  ctx: TwinContext,
  s: VerifyService,
  input: { to?: string; verification_sid?: string; code?: string },
  path: string,
): Verification {
  if (!input.code) throw badParam(20001, 'Missing required parameter Code in the post body');
  if (!input.to && !input.verification_sid) throw badParam(60200, 'Either a `To` or `VerificationSid` must be specified');
  const v = input.verification_sid ? ctx.store.get<Verification>('verification', input.verification_sid) : pendingFor(ctx, s.sid, input.to!);
  if (!v || v.service_sid !== s.sid || v.status !== 'pending') throw notFound(path);
  if (v.check_attempts >= MAX_CHECKS) {
    setVerificationStatus(ctx, v, 'max_attempts_reached');
    throw new TwilioError(429, 60202, 'Max check attempts reached');
  }
  const attempts = v.check_attempts + 1;
  if (input.code === v.code) return setVerificationStatus(ctx, { ...v, check_attempts: attempts }, 'approved');
  const next = { ...v, check_attempts: attempts, updated: ctx.clock.nowMs() };
  ctx.store.put('verification', v.sid, next);
  return next;
}

export function serviceView(ctx: TwinContext, baseUrl: string, s: VerifyService): Record<string, unknown> {
  const url = `${baseUrl}/v2/Services/${s.sid}`;
  return {
    sid: s.sid,
    account_sid: account(ctx).sid,
    friendly_name: s.friendly_name,
    code_length: s.code_length,
    lookup_enabled: s.lookup_enabled,
    psd2_enabled: false,
    skip_sms_to_landlines: s.skip_sms_to_landlines,
    dtmf_input_required: s.dtmf_input_required,
    tts_name: null,
    do_not_share_warning_enabled: s.do_not_share_warning_enabled,
    custom_code_enabled: s.custom_code_enabled,
    push: { include_date: false, apn_credential_sid: null, fcm_credential_sid: null },
    totp: { issuer: null, time_step: 30, code_length: 6, skew: 1 },
    default_template_sid: null,
    whatsapp: { msg_service_sid: null, from: null },
    passkeys: null,
    verify_event_subscription_enabled: false,
    date_created: iso(s.created),
    date_updated: iso(s.updated),
    url,
    links: Object.fromEntries(
      ['verification_checks', 'verifications', 'rate_limits', 'messaging_configurations', 'entities', 'webhooks', 'access_tokens'].map((l) => [
        l,
        `${url}/${l === 'verification_checks' ? 'VerificationCheck' : l.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase())}`,
      ]),
    ),
  };
}

export function verificationView(ctx: TwinContext, baseUrl: string, v: Verification): Record<string, unknown> {
  return {
    sid: v.sid,
    service_sid: v.service_sid,
    account_sid: account(ctx).sid,
    to: v.to,
    channel: v.channel,
    status: v.status,
    valid: v.status === 'approved',
    lookup: { carrier: null },
    amount: null,
    payee: null,
    send_code_attempts: v.send_code_attempts,
    date_created: iso(v.created),
    date_updated: iso(v.updated),
    sna: null,
    url: `${baseUrl}/v2/Services/${v.service_sid}/Verifications/${v.sid}`,
  };
}

/** A check's answer: the verification's fields without its lookup, attempts and URL. */
export function checkView(ctx: TwinContext, v: Verification): Record<string, unknown> {
  const { lookup: _lookup, send_code_attempts: _attempts, sna: _sna, url: _url, ...fields } = verificationView(ctx, '', v);
  return { ...fields, sna_attempts_error_codes: [] };
}
