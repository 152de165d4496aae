// /v1/payouts: create (manual), retrieve, update, list, cancel; /v1/balance_settings: the payout
// schedule automatic payouts follow.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { obj, oneOf, readMetadata, readParams, requiredCurrency, requiredInt, str, strArray } from '../wire/params.js';
import { invalidRequest } from '../wire/errors.js';
import { ok } from '../wire/pipeline.js';
import {
  PAYOUT_INTERVALS,
  PAYOUT_METHODS,
  WEEKDAYS,
  cancelPayout,
  createPayout,
  getBalanceSettings,
  getPayout,
  listPayouts,
  updateBalanceSettings,
  updatePayout,
} from '../model/payouts.js';

const SCHEDULE = 'payments[payouts][schedule]';

export const payoutRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/balance_settings',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getBalanceSettings(ctx));
    },
  },
  {
    method: 'POST',
    path: '/v1/balance_settings',
    handler: (req, ctx) => {
      const p = readParams(req);
      const payouts = obj(obj(p, 'payments') ?? {}, 'payouts', 'payments') ?? {};
      const schedule = obj(payouts, 'schedule', 'payments[payouts]') ?? {};
      const weekly = strArray(schedule, 'weekly_payout_days', SCHEDULE);
      for (const d of weekly ?? []) {
        if (!(WEEKDAYS as readonly string[]).includes(d))
          throw invalidRequest(`Invalid ${SCHEDULE}[weekly_payout_days]: ${d}`, `${SCHEDULE}[weekly_payout_days]`);
      }
      const monthly = strArray(schedule, 'monthly_payout_days', SCHEDULE)?.map(Number);
      return ok(
        updateBalanceSettings(ctx, {
          interval: oneOf(schedule, 'interval', PAYOUT_INTERVALS, SCHEDULE),
          weekly_payout_days: weekly,
          monthly_payout_days: monthly,
          statement_descriptor: str(payouts, 'statement_descriptor', 'payments[payouts]'),
        }),
      );
    },
  },
  {
    method: 'POST',
    path: '/v1/payouts',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        createPayout(ctx, {
          amount: requiredInt(p, 'amount'),
          currency: requiredCurrency(p),
          description: str(p, 'description'),
          metadata: readMetadata(p),
          method: oneOf(p, 'method', PAYOUT_METHODS),
          statementDescriptor: str(p, 'statement_descriptor'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/payouts',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listPayouts(ctx, { status: str(p, 'status'), destination: str(p, 'destination') }, readListWindow(p)), '/v1/payouts'));
    },
  },
  {
    method: 'GET',
    path: '/v1/payouts/{payout}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getPayout(ctx, req.params.payout!));
    },
  },
  {
    method: 'POST',
    path: '/v1/payouts/{payout}',
    handler: (req, ctx) => ok(updatePayout(ctx, req.params.payout!, readMetadata(readParams(req)))),
  },
  {
    method: 'POST',
    path: '/v1/payouts/{payout}/cancel',
    handler: (req, ctx) => {
      readParams(req);
      return ok(cancelPayout(ctx, req.params.payout!));
    },
  },
];
