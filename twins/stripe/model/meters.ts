// Billing meters and meter events: a meter names an event and how its values add up (sum, count,
// last); a metered price points at a meter; a subscription item on that price bills the usage its
// customer's events carry within the period (preview shows it, the period's invoice bills it).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { int, obj, oneOf, requiredStr, str, type Params } from '../wire/params.js';
import { clone, find, load, newId, previousAttributes, type StripeObject } from './objects.js';
import { emitEvent } from './events.js';

export const METER_CREATE_PARAMS = {
  display_name: true,
  event_name: true,
  default_aggregation: { formula: true },
  customer_mapping: { event_payload_key: true, type: true },
  value_settings: { event_payload_key: true },
  event_time_window: true,
} as const;

export function createMeter(ctx: TwinContext, p: Params): StripeObject {
  const displayName = requiredStr(p, 'display_name');
  const eventName = requiredStr(p, 'event_name');
  const agg = obj(p, 'default_aggregation');
  if (!agg) throw missingParam('default_aggregation');
  const formula = oneOf(agg, 'formula', ['count', 'last', 'sum'] as const, 'default_aggregation');
  if (!formula) throw missingParam('default_aggregation[formula]');
  const active = ctx.store.list<StripeObject>('billing_meter').find((m) => m.event_name === eventName && m.status === 'active');
  if (active) {
    throw invalidRequest(`An active meter with event_name \`${eventName}\` already exists (${active.id}).`, 'event_name');
  }
  const mapping = obj(p, 'customer_mapping');
  const values = obj(p, 'value_settings');
  const now = ctx.clock.nowSeconds();
  const meter: StripeObject = {
    id: newId(ctx, 'billing_meter'),
    object: 'billing.meter',
    created: now,
    customer_mapping: {
      event_payload_key: (mapping && str(mapping, 'event_payload_key', 'customer_mapping')) || 'stripe_customer_id',
      type: (mapping && oneOf(mapping, 'type', ['by_id'] as const, 'customer_mapping')) || 'by_id',
    },
    default_aggregation: { formula },
    display_name: displayName,
    event_name: eventName,
    event_time_window: oneOf(p, 'event_time_window', ['day', 'hour'] as const) ?? null,
    livemode: false,
    status: 'active',
    status_transitions: { deactivated_at: null },
    updated: now,
    value_settings: { event_payload_key: (values && str(values, 'event_payload_key', 'value_settings')) || 'value' },
  };
  ctx.store.put('billing_meter', meter.id, meter);
  emitEvent(ctx, 'billing.meter.created', meter);
  return meter;
}

export function loadMeter(ctx: TwinContext, id: string): StripeObject {
  return load(ctx, 'billing_meter', id, 'id');
}

export function updateMeter(ctx: TwinContext, id: string, p: Params): StripeObject {
  const before = loadMeter(ctx, id);
  const meter = clone(before);
  const name = str(p, 'display_name');
  if (name !== undefined) meter.display_name = name;
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

export const METER_EVENT_PARAMS = { event_name: true, payload: true, identifier: true, timestamp: true } as const;

/** Where meter events are kept: record `meter_event`, keyed by identifier. */
const METER_EVENT = 'meter_event';

export function createMeterEvent(ctx: TwinContext, p: Params): StripeObject {
  const eventName = requiredStr(p, 'event_name');
  const payload = obj(p, 'payload');
  if (!payload) throw missingParam('payload');
  const now = ctx.clock.nowSeconds();
  const timestamp = int(p, 'timestamp') ?? now;
  if (timestamp < now - 35 * 86_400) {
    throw invalidRequest('Timestamp must be within the past 35 calendar days.', 'timestamp');
  }
  if (timestamp > now + 300) throw invalidRequest('Timestamp must not be more than 5 minutes in the future.', 'timestamp');
  const meter = ctx.store.list<StripeObject>('billing_meter').find((m) => m.event_name === eventName && m.status === 'active');
  if (meter) {
    const customerKey = meter.customer_mapping.event_payload_key as string;
    const valueKey = meter.value_settings.event_payload_key as string;
    if (payload[customerKey] === undefined) throw invalidRequest(`Missing required param: payload[${customerKey}].`, `payload[${customerKey}]`, 'parameter_missing');
    if (meter.default_aggregation.formula !== 'count') {
      const v = payload[valueKey];
      if (v === undefined) throw invalidRequest(`Missing required param: payload[${valueKey}].`, `payload[${valueKey}]`, 'parameter_missing');
      if (typeof v !== 'string' || !/^-?\d+(\.\d+)?$/.test(v)) {
        throw invalidRequest(`Invalid value for payload[${valueKey}]: must be a number.`, `payload[${valueKey}]`);
      }
    }
  }
  const identifier = str(p, 'identifier') || ctx.ids.next('mev_', 24);
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
    .map((r) => JSON.parse(r.body) as { event_name: string; payload: Record<string, string>; timestamp: number })
    .filter((e) => e.payload[customerKey] === customer);
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

export const SUMMARY_PARAMS = { customer: true, start_time: true, end_time: true, value_grouping_window: true, limit: true, starting_after: true, ending_before: true } as const;

/** `GET /v1/billing/meters/{id}/event_summaries`: one summary for the window, or one per day/hour. */
export function eventSummaries(ctx: TwinContext, id: string, p: Params): StripeObject[] {
  const meter = loadMeter(ctx, id);
  const customer = requiredStr(p, 'customer');
  const start = int(p, 'start_time');
  const end = int(p, 'end_time');
  if (start === undefined) throw missingParam('start_time');
  if (end === undefined) throw missingParam('end_time');
  if (end <= start) throw invalidRequest('end_time must be after start_time.', 'end_time');
  const window = oneOf(p, 'value_grouping_window', ['day', 'hour'] as const);
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
