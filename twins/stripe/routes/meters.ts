// /v1/billing/meters (create, retrieve, update, list, deactivate, reactivate, event summaries) and
// /v1/billing/meter_events.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listResponse } from '../wire/list.js';
import { LIST_PARAMS, readParams, str } from '../wire/params.js';
import type { StripeObject } from '../model/objects.js';
import {
  METER_CREATE_PARAMS,
  METER_EVENT_PARAMS,
  SUMMARY_PARAMS,
  createMeter,
  createMeterEvent,
  eventSummaries,
  loadMeter,
  setMeterActive,
  updateMeter,
} from '../model/meters.js';

export const meterRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/billing/meters', handler: (req, ctx) => ok(createMeter(ctx, readParams(req, METER_CREATE_PARAMS))) },
  {
    method: 'GET',
    path: '/v1/billing/meters',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, status: true });
      const status = str(p, 'status');
      const meters = ctx.store.list<StripeObject>('billing_meter').filter((m) => !status || m.status === status);
      return listResponse(req, ctx, meters, '/v1/billing/meters');
    },
  },
  { method: 'GET', path: '/v1/billing/meters/{id}', handler: (req, ctx) => (readParams(req, {}), ok(loadMeter(ctx, req.params.id!))) },
  { method: 'POST', path: '/v1/billing/meters/{id}', handler: (req, ctx) => ok(updateMeter(ctx, req.params.id!, readParams(req, { display_name: true }))) },
  { method: 'POST', path: '/v1/billing/meters/{id}/deactivate', handler: (req, ctx) => (readParams(req, {}), ok(setMeterActive(ctx, req.params.id!, false))) },
  { method: 'POST', path: '/v1/billing/meters/{id}/reactivate', handler: (req, ctx) => (readParams(req, {}), ok(setMeterActive(ctx, req.params.id!, true))) },
  {
    method: 'GET',
    path: '/v1/billing/meters/{id}/event_summaries',
    handler: (req, ctx) => {
      const p = readParams(req, SUMMARY_PARAMS);
      return ok(listBody(p, eventSummaries(ctx, req.params.id!, p).reverse(), `/v1/billing/meters/${req.params.id}/event_summaries`));
    },
  },
  { method: 'POST', path: '/v1/billing/meter_events', handler: (req, ctx) => ok(createMeterEvent(ctx, readParams(req, METER_EVENT_PARAMS))) },
];
