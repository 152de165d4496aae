// /v1/tax_rates: create, retrieve, update, list.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, decimal, emptyableStr, oneOf, readMetadata, readParams, requiredStr, str, type Params } from '../wire/params.js';
import { missingParam } from '../wire/errors.js';
import { TAX_TYPES, createTaxRate, getTaxRate, listTaxRates, updateTaxRate, type TaxRateFields } from '../model/tax-rates.js';

function readFields(p: Params): TaxRateFields {
  return {
    active: bool(p, 'active'),
    country: emptyableStr(p, 'country'),
    description: emptyableStr(p, 'description'),
    displayName: str(p, 'display_name'),
    jurisdiction: emptyableStr(p, 'jurisdiction'),
    state: emptyableStr(p, 'state'),
    taxType: oneOf(p, 'tax_type', TAX_TYPES),
    metadata: readMetadata(p),
  };
}

export const taxRateRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/tax_rates',
    handler: (req, ctx) => {
      const p = readParams(req);
      const percentage = decimal(p, 'percentage');
      if (percentage === undefined) throw missingParam('percentage');
      const inclusive = bool(p, 'inclusive');
      if (inclusive === undefined) throw missingParam('inclusive');
      return ok(createTaxRate(ctx, { ...readFields(p), displayName: requiredStr(p, 'display_name'), percentage: Number(percentage), inclusive }));
    },
  },
  {
    method: 'GET',
    path: '/v1/tax_rates',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listTaxRates(ctx, { active: bool(p, 'active'), inclusive: bool(p, 'inclusive') }, readListWindow(p)), '/v1/tax_rates'));
    },
  },
  { method: 'GET', path: '/v1/tax_rates/{tax_rate}', handler: (req, ctx) => (readParams(req), ok(getTaxRate(ctx, req.params.tax_rate!, 'id'))) },
  {
    method: 'POST',
    path: '/v1/tax_rates/{tax_rate}',
    handler: (req, ctx) => ok(updateTaxRate(ctx, req.params.tax_rate!, readFields(readParams(req)))),
  },
];
