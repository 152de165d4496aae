// /v1/events: list (filters `type` with `*` wildcards, `types[]`, `created`, `delivery_success`)
// and retrieve.

import type { TwinContext, TwinRoute } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { readPage, type FieldEquals, type MoreConditions } from '../model/pages.js';
import { bool, readParams, str, strArray } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { DELIVERY_RESOURCE, type DeliveryRecord } from '../../../twin-runtime/deliveries.js';
import { find } from '../model/objects.js';

function typeMatcher(pattern: string): (t: string) => boolean {
  if (!pattern.includes('*')) return (t) => t === pattern;
  const re = new RegExp(
    '^' +
      pattern
        .split('*')
        .map((s) => s.replace(/[.]/g, '\\.'))
        .join('[^.]*') +
      '$',
  );
  return (t) => re.test(t);
}

/** Per event id: whether every webhook delivery of it succeeded. */
function deliveryOutcomes(ctx: TwinContext): Map<string, boolean> {
  const delivered = new Map<string, boolean>();
  for (const d of ctx.store.list<DeliveryRecord>(DELIVERY_RESOURCE)) {
    delivered.set(d.source_id, (delivered.get(d.source_id) ?? true) && d.status === 'succeeded');
  }
  return delivered;
}

export const eventRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/events',
    handler: (req, ctx) => {
      const p = readParams(req);
      const type = str(p, 'type');
      const types = strArray(p, 'types');
      if (type && types) throw invalidRequest('You may only specify one of these parameters: type, types.', 'type');
      const deliverySuccess = bool(p, 'delivery_success');
      // Exact types are conditions of the index; a wildcard (`customer.*`) and `delivery_success`
      // are tests applied while the page fills.
      const patterns = types ?? (type ? [type] : []);
      const exact = patterns.every((t) => !t.includes('*'));
      const more: MoreConditions = exact && patterns.length > 1 ? { oneOf: { type: patterns } } : {};
      const matchers = exact ? [] : patterns.map(typeMatcher);
      // `delivery_success`: true → every webhook delivery of the event succeeded; false → at least
      // one is still failing (the runtime's `delivery` records say which).
      const delivered = deliverySuccess === undefined ? undefined : deliveryOutcomes(ctx);
      if (matchers.length || delivered) {
        more.keep = (e) =>
          (matchers.length === 0 || matchers.some((m) => m(String(e.type)))) &&
          (!delivered || (delivered.has(e.id) && delivered.get(e.id) === deliverySuccess));
      }
      const equals: FieldEquals = exact && patterns.length === 1 ? { type: patterns[0]! } : {};
      return ok(listEnvelope(readPage(ctx, 'event', equals, readListWindow(p), more), '/v1/events'));
    },
  },
  {
    method: 'GET',
    path: '/v1/events/{id}',
    handler: (req, ctx) => {
      readParams(req);
      const e = find(ctx, 'event', req.params.id!);
      if (!e) throw resourceMissing('event', req.params.id!, 'id');
      return ok(e);
    },
  },
];
