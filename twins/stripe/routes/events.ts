// /v1/events: list (filters `type` with `*` wildcards, `types[]`, `created`, `delivery_success`)
// and retrieve.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { listEnvelope, listResponse, readListWindow } from '../wire/list.js';
import { readPage } from '../model/pages.js';
import { LIST_PARAMS, bool, readParams, str, strArray } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import type { StripeEvent } from '../model/events.js';
import { DELIVERY_RESOURCE, type DeliveryRecord } from '../../../twin-runtime/deliveries.js';
import { find } from '../model/objects.js';

function typeMatcher(pattern: string): (t: string) => boolean {
  if (!pattern.includes('*')) return (t) => t === pattern;
  const re = new RegExp('^' + pattern.split('*').map((s) => s.replace(/[.]/g, '\\.')).join('[^.]*') + '$');
  return (t) => re.test(t);
}

export const eventRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/events',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, type: true, types: true, delivery_success: true });
      const type = str(p, 'type');
      const types = strArray(p, 'types');
      if (type && types) throw invalidRequest('You may only specify one of these parameters: type, types.', 'type');
      const deliverySuccess = bool(p, 'delivery_success');
      // One exact type (or none): a page read through the record store's index.
      if (!types && deliverySuccess === undefined && !type?.includes('*')) {
        return ok(listEnvelope(readPage(ctx, 'event', type ? { type } : {}, readListWindow(p)), '/v1/events'));
      }
      const matchers = (types ?? (type ? [type] : [])).map(typeMatcher);
      // `delivery_success`: true → every webhook delivery of the event succeeded; false → at least
      // one is still failing (the runtime's `delivery` records say which).
      const delivered = new Map<string, boolean>();
      if (deliverySuccess !== undefined) {
        for (const d of ctx.store.list<DeliveryRecord>(DELIVERY_RESOURCE)) {
          delivered.set(d.source_id, (delivered.get(d.source_id) ?? true) && d.status === 'succeeded');
        }
      }
      const events = ctx.store
        .list<StripeEvent>('event')
        .filter((e) => matchers.length === 0 || matchers.some((m) => m(e.type)))
        .filter((e) => deliverySuccess === undefined || (delivered.has(e.id) && delivered.get(e.id) === deliverySuccess));
      return listResponse(req, ctx, events, '/v1/events');
    },
  },
  {
    method: 'GET',
    path: '/v1/events/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      const e = find(ctx, 'event', req.params.id!);
      if (!e) throw resourceMissing('event', req.params.id!, 'id');
      return ok(e);
    },
  },
];
