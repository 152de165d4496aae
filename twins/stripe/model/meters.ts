// Billing meters and meter events: a meter names an event and how its values add up (sum, count,
// last); a metered price points at a meter; a subscription item on that price bills the usage its
// customer's events carry within the period (preview shows it, the period's invoice bills it).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { clone, find, load, newId, previousAttributes, type StripeObject } from './objects.js';
import { firstMatching, readPage, type ListPage, type ListWindow } from './pages.js';
import { emitEvent } from './events.js';

export const FORMULAS = ['count', 'last', 'sum'] as const;

export interface MeterCreate {
  displayName: string;
  eventName: string;
  /** `default_aggregation` (required). */
  aggregation?: { formula?: (typeof FORMULAS)[number] };
  customerPayloadKey?: string;
  customerMappingType?: 'by_id';
  valuePayloadKey?: string;
  eventTimeWindow?: 'day' | 'hour';
}

export interface MeterEventCreate {
  eventName: string;
  /** The payload as sent (values are stored as strings). */
  payload: Record<string, unknown> | undefined;
  timestamp?: number;
  identifier?: string;
}

export function createMeter(ctx: TwinContext, input: MeterCreate): StripeObject {
  const { displayName, eventName } = input;
  if (!input.aggregation) throw missingParam('default_aggregation');
  const formula = input.aggregation.formula;
  if (!formula) throw missingParam('default_aggregation[formula]');
  const active = activeMeter(ctx, eventName);
  if (active) {
    throw invalidRequest(`An active meter with event_name \`${eventName}\` already exists (${active.id}).`, 'event_name');
  }
  const now = ctx.clock.nowSeconds();
  const meter: StripeObject = {
    id: newId(ctx, 'billing_meter'),
    object: 'billing.meter',
    created: now,
    customer_mapping: {
      event_payload_key: input.customerPayloadKey || 'stripe_customer_id',
      type: input.customerMappingType || 'by_id',
    },
    default_aggregation: { formula },
    display_name: displayName,
    event_name: eventName,
    event_time_window: input.eventTimeWindow ?? null,
    livemode: false,
    status: 'active',
    status_transitions: { deactivated_at: null },
    updated: now,
    value_settings: { event_payload_key: input.valuePayloadKey || 'value' },
  };
  ctx.store.put('billing_meter', meter.id, meter);
  emitEvent(ctx, 'billing.meter.created', meter);
  return meter;
}

/** The active meter of an event name (at most one: creation refuses a second). */
function activeMeter(ctx: TwinContext, eventName: string | undefined): StripeObject | undefined {
  return eventName === undefined ? undefined : firstMatching<StripeObject>(ctx, 'billing_meter', { event_name: eventName, status: 'active' });
}

/** `GET /v1/billing/meters`: one page, optionally of one status. */
export function listMeters(ctx: TwinContext, status: string | undefined, window: ListWindow): ListPage<StripeObject> {
  return readPage<StripeObject>(ctx, 'billing_meter', status ? { status } : {}, window);
}

export function loadMeter(ctx: TwinContext, id: string): StripeObject {
  return load(ctx, 'billing_meter', id, 'id');
}

export function updateMeter(ctx: TwinContext, id: string, displayName: string | undefined): StripeObject {
  const before = loadMeter(ctx, id);
  const meter = clone(before);
  if (displayName !== undefined) meter.display_name = displayName;
  meter.updated = ctx.clock.nowSeconds();
  ctx.store.put('billing_meter', id, meter);
  emitEvent(ctx, 'billing.meter.updated', meter, previousAttributes(before, meter));
  return meter;
}

export function setMeterActive(ctx: TwinContext, id: string, active: boolean): StripeObject {
  const before = loadMeter(ctx, id);
  const meter = clone(before);
  const now = ctx.clock.nowSeconds();
  meter.status = active ? 'active' : 'inactive';
  meter.status_transitions = { deactivated_at: active ? null : now };
  meter.updated = now;
  ctx.store.put('billing_meter', id, meter);
  emitEvent(ctx, active ? 'billing.meter.reactivated' : 'billing.meter.deactivated', meter, previousAttributes(before, meter));
  return meter;
}

/** Where meter events are kept: record `meter_event`, keyed by identifier. */
const METER_EVENT = 'meter_event';

export function createMeterEvent(ctx: TwinContext, input: MeterEventCreate): StripeObject {
  const { eventName, payload } = input;
  if (!payload) throw missingParam('payload');
  const now = ctx.clock.nowSeconds();
  const timestamp = input.timestamp ?? now;
  if (timestamp < now - 35 * 86_400) {
    throw invalidRequest('Timestamp must be within the past 35 calendar days.', 'timestamp');
  }
  if (timestamp > now + 300) throw invalidRequest('Timestamp must not be more than 5 minutes in the future.', 'timestamp');
  const meter = activeMeter(ctx, eventName);
  if (meter) {
    const customerKey = meter.customer_mapping.event_payload_key as string;
    const valueKey = meter.value_settings.event_payload_key as string;
    if (payload[customerKey] === undefined)
      throw invalidRequest(`Missing required param: payload[${customerKey}].`, `payload[${customerKey}]`, 'parameter_missing');
    if (meter.default_aggregation.formula !== 'count') {
      const v = payload[valueKey];
      if (v === undefined) throw invalidRequest(`Missing required param: payload[${valueKey}].`, `payload[${valueKey}]`, 'parameter_missing');
      if (typeof v !== 'string' || !/^-?\d+(\.\d+)?$/.test(v)) {
        throw invalidRequest(`Invalid value for payload[${valueKey}]: must be a number.`, `payload[${valueKey}]`);
      }
    }
  }
  const identifier = input.identifier || ctx.ids.next('mev_', 24);
  const existing = ctx.store.get<StripeObject>(METER_EVENT, identifier);
  if (existing && existing.created > now - 86_400) {
    throw invalidRequest(`An event already exists with identifier ${identifier}.`, 'identifier', 'duplicate_meter_event');
  }
  const stringPayload: Record<string, string> = {};
  for (const [k, v] of Object.entries(payload)) stringPayload[k] = String(v);
  const event = {
    object: 'billing.meter_event',
    created: now,
    event_name: eventName,
    identifier,
    livemode: false,
    payload: stringPayload,
    timestamp,
  };
  ctx.store.put(METER_EVENT, identifier, event);
  return event as unknown as StripeObject;
}

/** How long after Stripe received an event an adjustment may cancel it. */
const CANCEL_WINDOW_SECONDS = 86_400;

export interface MeterEventAdjustment {
  eventName: string;
  type: string;
  /** The identifier of the event to cancel (`cancel[identifier]`). */
  identifier?: string | undefined;
}

/**
 * A meter event adjustment: `cancel` takes an event received within the last 24 hours out of
 * every aggregation (it is kept, marked). Answers the adjustment as v1 renders it.
 */
export function adjustMeterEvent(ctx: TwinContext, input: MeterEventAdjustment): StripeObject {
  if (input.type !== 'cancel') throw invalidRequest(`Invalid type: must be cancel`, 'type');
  if (!input.identifier) throw missingParam('cancel[identifier]');
  const event = ctx.store.get<StripeObject & { canceled?: boolean }>(METER_EVENT, input.identifier);
  if (!event || event.event_name !== input.eventName) {
    throw invalidRequest(`No meter event with identifier ${input.identifier} was found for event_name ${input.eventName}.`, 'cancel[identifier]');
  }
  if (event.created < ctx.clock.nowSeconds() - CANCEL_WINDOW_SECONDS) {
    throw invalidRequest('Meter events can only be canceled within 24 hours of being received.', 'cancel[identifier]');
  }
  ctx.store.put(METER_EVENT, input.identifier, { ...event, canceled: true });
  return {
    id: ctx.ids.next('mtr_adj_', 24),
    object: 'billing.meter_event_adjustment',
    cancel: { identifier: input.identifier },
    event_name: input.eventName,
    livemode: false,
    // As Stripe answers at once (it applies the adjustment moments later; the twin already has).
    status: 'pending',
    type: 'cancel',
  } as StripeObject;
}

/** Aggregate the meter's events for one customer over [start, end). */
export function aggregate(ctx: TwinContext, meter: StripeObject, customer: string, start: number, end: number): number {
  const customerKey = meter.customer_mapping.event_payload_key as string;
  const valueKey = meter.value_settings.event_payload_key as string;
  // Narrowed in SQL (name and time window), then by customer: usage tables grow large.
  const rows = ctx.store.db
    .prepare(
      `SELECT body FROM records WHERE resource = ? AND json_extract(body, '$.event_name') = ?
         AND json_extract(body, '$.timestamp') >= ? AND json_extract(body, '$.timestamp') < ? ORDER BY seq`,
    )
    .all(METER_EVENT, meter.event_name, start, end) as { body: string }[];
  const events = rows
    .map((r) => JSON.parse(r.body) as { event_name: string; payload: Record<string, string>; timestamp: number; canceled?: boolean })
    .filter((e) => e.payload[customerKey] === customer && !e.canceled);
  switch (meter.default_aggregation.formula) {
    case 'count':
      return events.length;
    case 'last': {
      const last = [...events].sort((a, b) => a.timestamp - b.timestamp).pop();
      return last ? Number(last.payload[valueKey] ?? 0) : 0;
    }
    default:
      return events.reduce((s, e) => s + Number(e.payload[valueKey] ?? 0), 0);
  }
}

/** Usage of a metered price for a customer over a period (0 when the price names no meter). */
export function meteredUsage(ctx: TwinContext, price: StripeObject, customer: string, start: number, end: number): number {
  const meterId = price.recurring?.meter as string | undefined;
  if (!meterId) return 0;
  const meter = find(ctx, 'billing_meter', meterId);
  if (!meter) return 0;
  return aggregate(ctx, meter, customer, start, end);
}

/** `GET /v1/billing/meters/{id}/event_summaries`: one summary for the window, or one per day/hour. */
export function eventSummaries(ctx: TwinContext, id: string, q: { customer: string; start?: number; end?: number; window?: 'day' | 'hour' }): StripeObject[] {
  const meter = loadMeter(ctx, id);
  const { customer, start, end, window } = q;
  if (start === undefined) throw missingParam('start_time');
  if (end === undefined) throw missingParam('end_time');
  if (end <= start) throw invalidRequest('end_time must be after start_time.', 'end_time');
  const step = window === 'hour' ? 3600 : window === 'day' ? 86_400 : end - start;
  const out: StripeObject[] = [];
  for (let t = start; t < end; t += step) {
    const until = Math.min(end, t + step);
    out.push({
      id: `mtrusg_${ctx.ids.token(24)}`,
      object: 'billing.meter_event_summary',
      aggregated_value: aggregate(ctx, meter, customer, t, until),
      end_time: until,
      livemode: false,
      meter: meter.id,
      start_time: t,
      created: t,
    });
  }
  return out;
}
