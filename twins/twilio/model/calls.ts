// Calls (2010-04-01): create with To, From and Url / Twiml / ApplicationSid; the lifecycle queued →
// ringing → in-progress → completed on `advance` (busy / no-answer / failed by twin test numbers);
// status callbacks for the StatusCallbackEvent list (default `completed`); update to cancel or
// end; delete. The TwiML is kept, not fetched or executed.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { badParam, TwilioError } from '../wire/errors.js';
import { E164 } from '../wire/params.js';
import { account } from './account.js';
import { postToUrl } from './callbacks.js';
import { schedule, unschedule } from './lifecycle.js';
import { findNumber, formatted } from './numbers.js';
import { API, rfc2822, sid, type Call, type CallStatus } from './records.js';
import { MAGIC_VALID_FROM } from './messages.js';

const MAGIC_FROM: Record<string, [number, string]> = {
  '+15005550001': [21212, 'Invalid From Number (caller ID)'],
  '+15005550007': [21210, 'Phone number is not a verified caller ID or not associated with this account'],
};
const MAGIC_TO: Record<string, [number, string]> = {
  '+15005550001': [21217, 'Phone number does not appear to be valid'],
  '+15005550002': [21214, "'To' phone number cannot be reached"],
  '+15005550003': [21215, 'Account not authorized to call this number'],
};
/** Twin numbers for how a call ends (Twilio has none). */
export const CALL_OUTCOME_TO: Record<string, CallStatus> = { '+15005550010': 'busy', '+15005550011': 'no-answer', '+15005550012': 'failed' };

const EVENTS = ['initiated', 'ringing', 'answered', 'completed'];
const TALK_SECONDS = 30;

export interface CallInput {
  to?: string;
  from?: string;
  url?: string;
  twiml?: string;
  application_sid?: string;
  status_callback?: string;
  status_callback_method?: string;
  status_callback_event: string[];
}

export function createCall(ctx: TwinContext, input: CallInput): Call {
  if (!input.to) throw badParam(21201, "No 'To' number is specified");
  if (!input.from) throw badParam(21213, "No 'From' number is specified");
  if (!input.url && !input.twiml && !input.application_sid) throw badParam(21205, 'Url parameter is required.');
  const fromMagic = MAGIC_FROM[input.from];
  if (fromMagic) throw badParam(fromMagic[0], fromMagic[1]);
  if (!E164.test(input.from)) throw badParam(21212, 'Invalid From Number (caller ID)');
  const owned = findNumber(ctx, input.from);
  if (!owned && input.from !== MAGIC_VALID_FROM) throw badParam(21210, 'Phone number is not a verified caller ID or not associated with this account');
  const toMagic = MAGIC_TO[input.to];
  if (toMagic) throw badParam(toMagic[0], toMagic[1]);
  if (!E164.test(input.to) && !/^(sip:|client:)/.test(input.to)) throw badParam(21217, 'Phone number does not appear to be valid');
  for (const e of input.status_callback_event) if (!EVENTS.includes(e)) throw badParam(21626, `Invalid StatusCallbackEvent ${e}`);
  const now = ctx.clock.nowMs();
  const call: Call = {
    sid: sid(ctx, 'CA'),
    direction: 'outbound-api',
    from: input.from,
    to: input.to,
    url: input.url ?? null,
    twiml: input.twiml ?? null,
    status: 'queued',
    status_callback: input.status_callback ?? null,
    status_callback_method: (input.status_callback_method ?? 'POST').toUpperCase(),
    status_callback_events: input.status_callback_event.length ? input.status_callback_event : ['completed'],
    phone_number_sid: owned?.sid ?? null,
    callback_sequence: 0,
    created: now,
    updated: now,
    start: null,
    end: null,
    duration: null,
    price: null,
  };
  ctx.store.put('call', call.sid, call);
  if (call.status_callback_events.includes('initiated')) callback(ctx, call, 'initiated');
  const at = (s: number) => now + s * 1000;
  schedule(ctx, { at: at(1), kind: 'call', sid: call.sid, status: 'ringing' });
  const outcome = CALL_OUTCOME_TO[call.to];
  if (outcome) schedule(ctx, { at: at(outcome === 'no-answer' ? 30 : 5), kind: 'call', sid: call.sid, status: outcome });
  else {
    schedule(ctx, { at: at(5), kind: 'call', sid: call.sid, status: 'in-progress' });
    schedule(ctx, { at: at(5 + TALK_SECONDS), kind: 'call', sid: call.sid, status: 'completed' });
  }
  return call;
}

const FINAL: CallStatus[] = ['completed', 'busy', 'failed', 'no-answer', 'canceled'];

/** The callback event a status belongs to (`in-progress` is `answered`; every end is `completed`). */
function eventOf(status: CallStatus | 'initiated'): string {
  if (status === 'in-progress') return 'answered';
  if (FINAL.includes(status as CallStatus)) return 'completed';
  return status;
}

function callback(ctx: TwinContext, call: Call, status: CallStatus | 'initiated'): void {
  if (!call.status_callback || !call.status_callback_events.includes(eventOf(status))) return;
  call.callback_sequence += 1;
  ctx.store.put('call', call.sid, call);
  const params: Record<string, string> = {
    AccountSid: account(ctx).sid,
    ApiVersion: '2010-04-01',
    CallSid: call.sid,
    CallStatus: status,
    Called: call.to,
    Caller: call.from,
    CallbackSource: 'call-progress-events',
    Direction: call.direction,
    From: call.from,
    SequenceNumber: String(call.callback_sequence - 1),
    Timestamp: rfc2822(ctx.clock.nowMs()),
    To: call.to,
  };
  if (call.duration !== null) {
    params.CallDuration = String(call.duration);
    params.Duration = String(Math.ceil(call.duration / 60));
  }
  postToUrl(ctx, `call.${status}`, `${call.sid}:${status}`, call.status_callback, params);
}

export function moveCall(ctx: TwinContext, callSid: string, status: CallStatus): void {
  const call = ctx.store.get<Call>('call', callSid);
  if (!call || FINAL.includes(call.status)) return;
  const now = ctx.clock.nowMs();
  const next: Call = { ...call, status, updated: now };
  if (status === 'in-progress') next.start = now;
  if (FINAL.includes(status)) {
    next.end = now;
    next.duration = next.start === null ? 0 : Math.round((now - next.start) / 1000);
    if (next.duration > 0) next.price = (-0.014 * Math.ceil(next.duration / 60)).toFixed(5);
    unschedule(ctx, 'call', call.sid);
  }
  ctx.store.put('call', call.sid, next);
  callback(ctx, next, status);
}

/** Update: `Status=canceled` (queued or ringing) or `completed` (in progress); new Url/Twiml. */
export function updateCall(ctx: TwinContext, call: Call, input: { status?: string; url?: string; twiml?: string }): Call {
  if (input.status !== undefined) {
    if (input.status !== 'canceled' && input.status !== 'completed') throw badParam(21220, `Invalid Status: ${input.status}`);
    if (FINAL.includes(call.status)) throw badParam(21220, 'Call is not in-progress. Cannot redirect.');
    if (input.status === 'canceled' && call.status === 'in-progress') {
      // Twilio leaves an answered call alone on `canceled`.
    } else moveCall(ctx, call.sid, input.status === 'canceled' ? 'canceled' : 'completed');
  }
  const current = ctx.store.get<Call>('call', call.sid)!;
  if (input.url !== undefined || input.twiml !== undefined) {
    if (FINAL.includes(current.status)) throw badParam(21220, 'Call is not in-progress. Cannot redirect.');
    const next = { ...current, url: input.url ?? current.url, twiml: input.twiml ?? current.twiml, updated: ctx.clock.nowMs() };
    ctx.store.put('call', call.sid, next);
    return next;
  }
  return current;
}

export function deleteCall(ctx: TwinContext, call: Call): void {
  if (!FINAL.includes(call.status)) throw new TwilioError(409, 20009, 'Cannot delete a call that is in progress.');
  ctx.store.delete('call', call.sid);
}

export function callView(accountSid: string, c: Call): Record<string, unknown> {
  const uri = `${API}/Accounts/${accountSid}/Calls/${c.sid}.json`;
  const sub = (r: string) => uri.replace(/\.json$/, `/${r}.json`);
  return {
    account_sid: accountSid,
    annotation: null,
    answered_by: null,
    api_version: '2010-04-01',
    caller_name: null,
    date_created: rfc2822(c.created),
    date_updated: rfc2822(c.updated),
    direction: c.direction,
    duration: c.duration === null ? null : String(c.duration),
    end_time: c.end === null ? null : rfc2822(c.end),
    forwarded_from: null,
    from: c.from,
    from_formatted: formatted(c.from),
    group_sid: null,
    parent_call_sid: null,
    phone_number_sid: c.phone_number_sid,
    price: c.price,
    price_unit: 'USD',
    queue_time: '0',
    sid: c.sid,
    start_time: c.start === null ? null : rfc2822(c.start),
    status: c.status,
    subresource_uris: {
      feedback: sub('Feedback'),
      notifications: sub('Notifications'),
      recordings: sub('Recordings'),
      streams: sub('Streams'),
      payments: sub('Payments'),
      user_defined_message_subscriptions: sub('UserDefinedMessageSubscriptions'),
      siprec: sub('Siprec'),
      events: sub('Events'),
      feedback_summaries: `${API}/Accounts/${accountSid}/Calls/FeedbackSummary.json`,
      user_defined_messages: sub('UserDefinedMessages'),
      transcriptions: sub('Transcriptions'),
    },
    to: c.to,
    to_formatted: formatted(c.to),
    trunk_sid: null,
    uri,
  };
}
