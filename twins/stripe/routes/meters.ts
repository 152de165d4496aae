// /v1/billing/meters (create, retrieve, update, list, deactivate, reactivate, event summaries) and
// /v1/billing/meter_events.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listEnvelope, readListWindow } from '../wire/list.js';
import { int, obj, oneOf, readParams, requiredStr, str } from '../wire/params.js';
import {
  FORMULAS,
  createMeter,
  adjustMeterEvent,
  createMeterEvent,
  eventSummaries,
  listMeters,
  loadMeter,
  setMeterActive,
  updateMeter,
} from '../model/meters.js';

export const meterRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/billing/meters',
    handler: (req, ctx) => {
      const p = readParams(req);
      const displayName = requiredStr(p, 'display_name');
      const eventName = requiredStr(p, 'event_name');
      const agg = obj(p, 'default_aggregation');
      const mapping = obj(p, 'customer_mapping');
      const values = obj(p, 'value_settings');
      return ok(
        createMeter(ctx, {
          displayName,
          eventName,
          aggregation: agg && { formula: oneOf(agg, 'formula', FORMULAS, 'default_aggregation') },
          customerPayloadKey: mapping && str(mapping, 'event_payload_key', 'customer_mapping'),
          customerMappingType: mapping && oneOf(mapping, 'type', ['by_id'] as const, 'customer_mapping'),
          valuePayloadKey: values && str(values, 'event_payload_key', 'value_settings'),
          eventTimeWindow: oneOf(p, 'event_time_window', ['day', 'hour'] as const),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/billing/meters',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listMeters(ctx, str(p, 'status'), readListWindow(p)), '/v1/billing/meters'));
    },
  },
  { method: 'GET', path: '/v1/billing/meters/{id}', handler: (req, ctx) => (readParams(req), ok(loadMeter(ctx, req.params.id!))) },
  {
    method: 'POST',
    path: '/v1/billing/meters/{id}',
    handler: (req, ctx) => ok(updateMeter(ctx, req.params.id!, str(readParams(req), 'display_name'))),
  },
  { method: 'POST', path: '/v1/billing/meters/{id}/deactivate', handler: (req, ctx) => (readParams(req), ok(setMeterActive(ctx, req.params.id!, false))) },
  { method: 'POST', path: '/v1/billing/meters/{id}/reactivate', handler: (req, ctx) => (readParams(req), ok(setMeterActive(ctx, req.params.id!, true))) },
  {
    method: 'GET',
    path: '/v1/billing/meters/{id}/event_summaries',
    handler: (req, ctx) => {
      const p = readParams(req);
      const query = {
        customer: requiredStr(p, 'customer'),
        start: int(p, 'start_time'),
        end: int(p, 'end_time'),
        window: oneOf(p, 'value_grouping_window', ['day', 'hour'] as const),
      };
      return ok(listBody(p, eventSummaries(ctx, req.params.id!, query).reverse(), `/v1/billing/meters/${req.params.id}/event_summaries`));
    },
  },
  {
    method: 'POST',
    path: '/v1/billing/meter_events',
    handler: (req, ctx) => {
      const p = readParams(req);
      const eventName = requiredStr(p, 'event_name');
      return ok(createMeterEvent(ctx, { eventName, payload: obj(p, 'payload'), timestamp: int(p, 'timestamp'), identifier: str(p, 'identifier') }));
    },
  },
  {
    method: 'POST',
    path: '/v1/billing/meter_event_adjustments',
    handler: (req, ctx) => {
      const p = readParams(req);
      const cancel = obj(p, 'cancel');
      return ok(
        adjustMeterEvent(ctx, {
          eventName: requiredStr(p, 'event_name'),
          type: str(p, 'type') ?? 'cancel',
          identifier: cancel && str(cancel, 'identifier', 'cancel'),
        }),
      );
    },
  },
];
