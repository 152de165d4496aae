// /v2/billing: meter events, adjustments, the meter event session and stream (model/v2-billing.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { obj, readParams, requiredStr, str, type Params } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { invalidRequest } from '../wire/errors.js';
import { createV2MeterEvent, createV2MeterEventAdjustment, openMeterEventSession, streamMeterEvents, type V2MeterEventInput } from '../model/v2-billing.js';

function readEvent(p: Params, prefix?: string): V2MeterEventInput {
  return {
    eventName: requiredStr(p, 'event_name', prefix),
    payload: obj(p, 'payload', prefix),
    identifier: str(p, 'identifier', prefix),
    timestamp: str(p, 'timestamp', prefix),
  };
}

export const v2BillingRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v2/billing/meter_events', handler: (req, ctx) => ok(createV2MeterEvent(ctx, readEvent(readParams(req)))) },
  {
    method: 'POST',
    path: '/v2/billing/meter_event_adjustments',
    handler: (req, ctx) => {
      const p = readParams(req);
      const cancel = obj(p, 'cancel');
      return ok(
        createV2MeterEventAdjustment(ctx, {
          eventName: requiredStr(p, 'event_name'),
          type: requiredStr(p, 'type'),
          identifier: cancel && str(cancel, 'identifier', 'cancel'),
        }),
      );
    },
  },
  { method: 'POST', path: '/v2/billing/meter_event_session', handler: (req, ctx) => (readParams(req), ok(openMeterEventSession(ctx))) },
  {
    // Authenticated by a session's token (wire/auth.ts), not the secret key.
    method: 'POST',
    path: '/v2/billing/meter_event_stream',
    handler: (req, ctx) => {
      const p = readParams(req);
      const events = p.events;
      if (!Array.isArray(events)) throw invalidRequest('events must be an array of meter events.', 'events');
      streamMeterEvents(
        ctx,
        events.map((e, i) => readEvent(e as Params, `events[${i}]`)),
      );
      return { status: 202, body: {} };
    },
  },
];
