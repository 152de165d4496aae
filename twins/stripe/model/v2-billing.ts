// Stripe API v2 billing (`stripe.v2.billing.*`): meter events one at a time, adjustments that
// cancel them, and the high-throughput stream — a session (`meter_event_session`) hands out an
// authentication token that, for 15 minutes, is the key of `meter_event_stream` calls. Events reach
// the same v1 meters (model/meters.ts), so they are summed by `listEventSummaries` and billed on
// invoices. v2 writes times as RFC 3339 strings.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest } from '../wire/errors.js';
import { adjustMeterEvent, createMeterEvent } from './meters.js';

/** How long a meter event session's token authenticates stream calls. */
export const SESSION_SECONDS = 15 * 60;

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function seconds(value: string | undefined, param: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms)) throw invalidRequest(`Invalid ${param}: must be an RFC 3339 timestamp.`, param);
  return Math.floor(ms / 1000);
}

export interface V2MeterEventInput {
  eventName: string;
  payload: Record<string, unknown> | undefined;
  identifier?: string;
  timestamp?: string;
}

/** One event; `prefix` names it inside a stream request (`events[0]`). */
export function createV2MeterEvent(ctx: TwinContext, input: V2MeterEventInput, prefix?: string): Record<string, unknown> {
  const event = createMeterEvent(ctx, {
    eventName: input.eventName,
    payload: input.payload,
    identifier: input.identifier,
    timestamp: seconds(input.timestamp, prefix ? `${prefix}[timestamp]` : 'timestamp'),
  });
  return {
    object: 'v2.billing.meter_event',
    created: iso(event.created),
    event_name: event.event_name,
    identifier: event.identifier,
    livemode: false,
    payload: event.payload,
    timestamp: iso(event.timestamp),
  };
}

export function createV2MeterEventAdjustment(ctx: TwinContext, input: { eventName: string; type: string; identifier?: string }): Record<string, unknown> {
  const adjustment = adjustMeterEvent(ctx, input);
  return {
    id: adjustment.id,
    object: 'v2.billing.meter_event_adjustment',
    cancel: adjustment.cancel,
    created: iso(ctx.clock.nowSeconds()),
    event_name: adjustment.event_name,
    livemode: false,
    status: adjustment.status,
    type: adjustment.type,
  };
}

interface StoredSession {
  id: string;
  authentication_token: string;
  created: number;
  expires_at: number;
}

const SESSION = 'meter_event_session';

export function openMeterEventSession(ctx: TwinContext): Record<string, unknown> {
  const now = ctx.clock.nowSeconds();
  const session: StoredSession = {
    id: ctx.ids.next('mtres_', 24),
    authentication_token: `meter_session_${ctx.ids.token(48)}`,
    created: now,
    expires_at: now + SESSION_SECONDS,
  };
  ctx.store.put(SESSION, session.authentication_token, session);
  return {
    id: session.id,
    object: 'v2.billing.meter_event_session',
    authentication_token: session.authentication_token,
    created: iso(session.created),
    expires_at: iso(session.expires_at),
    livemode: false,
  };
}

/** Whether `token` is a meter event session token of this twin, and whether it still holds. */
export function sessionTokenState(ctx: TwinContext, token: string): 'valid' | 'expired' | undefined {
  if (!token.startsWith('meter_session_')) return undefined;
  const session = ctx.store.get<StoredSession>(SESSION, token);
  if (!session) return undefined;
  return session.expires_at > ctx.clock.nowSeconds() ? 'valid' : 'expired';
}

/** The stream: every event checked and recorded, or none (the request is one transaction). */
export function streamMeterEvents(ctx: TwinContext, events: V2MeterEventInput[]): void {
  if (events.length === 0) throw invalidRequest('events must contain at least one event.', 'events');
  if (events.length > 100) throw invalidRequest('A stream request takes at most 100 events.', 'events');
  for (const [i, e] of events.entries()) createV2MeterEvent(ctx, e, `events[${i}]`);
}
