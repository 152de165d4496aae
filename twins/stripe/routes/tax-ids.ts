// /v1/customers/{customer}/tax_ids: create, retrieve, delete, list (model/tax-ids.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { readParams, requiredStr } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { createTaxId, deleteTaxId, getTaxId, listTaxIds } from '../model/tax-ids.js';

export const taxIdRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/customers/{customer}/tax_ids',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(createTaxId(ctx, req.params.customer!, { type: requiredStr(p, 'type'), value: requiredStr(p, 'value') }));
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}/tax_ids',
    handler: (req, ctx) => {
      const p = readParams(req);
      const customer = req.params.customer!;
      return ok(listEnvelope(listTaxIds(ctx, customer, readListWindow(p)), `/v1/customers/${customer}/tax_ids`));
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}/tax_ids/{id}',
    handler: (req, ctx) => (readParams(req), ok(getTaxId(ctx, req.params.customer!, req.params.id!))),
  },
  {
    method: 'DELETE',
    path: '/v1/customers/{customer}/tax_ids/{id}',
    handler: (req, ctx) => (readParams(req), ok(deleteTaxId(ctx, req.params.customer!, req.params.id!))),
  },
];
