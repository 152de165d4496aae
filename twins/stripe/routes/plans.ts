// /v1/plans: create, retrieve, update, delete, list — recurring prices under their older name
// (model/plans.ts).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, decimal, int, obj, oneOf, readMetadata, readParams, requiredCurrency, str, type Params } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { INTERVALS, USAGE_TYPES } from '../model/prices.js';
import { createPlan, deletePlan, getPlan, listPlans, updatePlan, type PlanCreate } from '../model/plans.js';
import { readProductData, readTiers } from './prices.js';
import { missingParam } from '../wire/errors.js';

function readPlanCreate(p: Params): PlanCreate {
  const interval = oneOf(p, 'interval', INTERVALS);
  if (interval === undefined) throw missingParam('interval');
  const billingScheme = oneOf(p, 'billing_scheme', ['per_unit', 'tiered'] as const);
  const transform = obj(p, 'transform_usage');
  const product = typeof p.product === 'object' && p.product !== null ? readProductData(p.product as Params, 'product') : undefined;
  return {
    id: str(p, 'id'),
    currency: requiredCurrency(p),
    interval,
    intervalCount: int(p, 'interval_count'),
    usageType: oneOf(p, 'usage_type', USAGE_TYPES),
    meter: str(p, 'meter'),
    trialPeriodDays: int(p, 'trial_period_days'),
    amount: int(p, 'amount'),
    amountDecimal: decimal(p, 'amount_decimal'),
    billingScheme,
    tiersMode: billingScheme === 'tiered' ? oneOf(p, 'tiers_mode', ['graduated', 'volume'] as const) : undefined,
    tiers: billingScheme === 'tiered' ? readTiers(p) : undefined,
    transformUsage: transform && { divideBy: int(transform, 'divide_by', 'transform_usage'), round: oneOf(transform, 'round', ['up', 'down'] as const) },
    product: product ? undefined : str(p, 'product'),
    productData: product,
    active: bool(p, 'active'),
    nickname: str(p, 'nickname'),
    metadata: readMetadata(p),
  };
}

export const planRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/plans', handler: (req, ctx) => ok(createPlan(ctx, readPlanCreate(readParams(req)))) },
  {
    method: 'GET',
    path: '/v1/plans',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listPlans(ctx, { active: bool(p, 'active'), product: str(p, 'product') }, readListWindow(p)), '/v1/plans'));
    },
  },
  { method: 'GET', path: '/v1/plans/{plan}', handler: (req, ctx) => (readParams(req), ok(getPlan(ctx, req.params.plan!))) },
  {
    method: 'POST',
    path: '/v1/plans/{plan}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        updatePlan(ctx, req.params.plan!, {
          active: bool(p, 'active'),
          nickname: p.nickname === '' ? null : str(p, 'nickname'),
          metadata: readMetadata(p),
          product: str(p, 'product'),
          trialPeriodDays: int(p, 'trial_period_days'),
        }),
      );
    },
  },
  { method: 'DELETE', path: '/v1/plans/{plan}', handler: (req, ctx) => (readParams(req), ok(deletePlan(ctx, req.params.plan!))) },
];
