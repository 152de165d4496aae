// /v1/subscription_schedules: create (customer + phases, or from_subscription), retrieve, update,
// list, release, cancel. Phases advance with the clock (model/subscription-schedules.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, int, obj, objArray, oneOf, readMetadata, readParams, str, type Params } from '../wire/params.js';
import { invalidRequest } from '../wire/errors.js';
import { PRORATION_BEHAVIORS } from '../model/subscriptions.js';
import { readPriceRef } from './prices.js';
import {
  END_BEHAVIORS,
  cancelSchedule,
  createSchedule,
  getSchedule,
  listSchedules,
  releaseSchedule,
  updateSchedule,
  type PhaseInput,
} from '../model/subscription-schedules.js';

const INTERVALS = ['day', 'month', 'week', 'year'] as const;

function readPhases(p: Params): PhaseInput[] | undefined {
  return objArray(p, 'phases')?.map((ph, i) => {
    const at = `phases[${i}]`;
    const duration = obj(ph, 'duration', at);
    const interval = duration && oneOf(duration, 'interval', INTERVALS, `${at}[duration]`);
    const end = ph.end_date === 'now' ? undefined : int(ph, 'end_date', at);
    return {
      items: (objArray(ph, 'items', at) ?? []).map((it, j) => ({
        ...readPriceRef(it, `${at}[items][${j}]`),
        quantity: int(it, 'quantity', `${at}[items][${j}]`),
      })),
      endDate: end,
      iterations: int(ph, 'iterations', at),
      duration: interval ? { interval, intervalCount: int(duration!, 'interval_count', `${at}[duration]`) } : undefined,
      prorationBehavior: oneOf(ph, 'proration_behavior', PRORATION_BEHAVIORS, at),
      metadata: readMetadata(ph),
      description: str(ph, 'description', at),
    };
  });
}

function readStart(p: Params): number | 'now' | undefined {
  if (p.start_date === 'now') return 'now';
  return int(p, 'start_date');
}

export const subscriptionScheduleRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/subscription_schedules',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        createSchedule(ctx, {
          customer: str(p, 'customer'),
          fromSubscription: str(p, 'from_subscription'),
          startDate: readStart(p),
          endBehavior: oneOf(p, 'end_behavior', END_BEHAVIORS),
          phases: readPhases(p),
          metadata: readMetadata(p),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/subscription_schedules',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        listEnvelope(listSchedules(ctx, { customer: str(p, 'customer'), scheduled: bool(p, 'scheduled') }, readListWindow(p)), '/v1/subscription_schedules'),
      );
    },
  },
  { method: 'GET', path: '/v1/subscription_schedules/{schedule}', handler: (req, ctx) => (readParams(req), ok(getSchedule(ctx, req.params.schedule!))) },
  {
    method: 'POST',
    path: '/v1/subscription_schedules/{schedule}',
    handler: (req, ctx) => {
      const p = readParams(req);
      const phases = readPhases(p);
      if (phases?.some((ph) => ph.items.length === 0)) throw invalidRequest('Each phase needs at least one item.', 'phases');
      return ok(
        updateSchedule(ctx, req.params.schedule!, {
          phases,
          endBehavior: oneOf(p, 'end_behavior', END_BEHAVIORS),
          metadata: readMetadata(p),
          prorationBehavior: oneOf(p, 'proration_behavior', PRORATION_BEHAVIORS),
        }),
      );
    },
  },
  {
    method: 'POST',
    path: '/v1/subscription_schedules/{schedule}/release',
    handler: (req, ctx) => (readParams(req), ok(releaseSchedule(ctx, req.params.schedule!))),
  },
  {
    method: 'POST',
    path: '/v1/subscription_schedules/{schedule}/cancel',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(cancelSchedule(ctx, req.params.schedule!, { invoiceNow: bool(p, 'invoice_now') }));
    },
  },
];
