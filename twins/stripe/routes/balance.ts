// /v1/balance and /v1/balance_transactions (and their legacy /v1/balance/history aliases).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { currency, readParams, str } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { getBalance, getBalanceTransaction, listBalanceTransactions } from '../model/balance.js';

function listRoute(path: string): TwinRoute {
  return {
    method: 'GET',
    path,
    handler: (req, ctx) => {
      const p = readParams(req);
      const filter = { type: str(p, 'type'), source: str(p, 'source'), currency: currency(p), payout: str(p, 'payout') };
      return ok(listEnvelope(listBalanceTransactions(ctx, filter, readListWindow(p)), path));
    },
  };
}

function retrieveRoute(path: string): TwinRoute {
  return {
    method: 'GET',
    path,
    handler: (req, ctx) => {
      readParams(req);
      return ok(getBalanceTransaction(ctx, req.params.id!));
    },
  };
}

export const balanceRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/balance',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getBalance(ctx));
    },
  },
  listRoute('/v1/balance_transactions'),
  retrieveRoute('/v1/balance_transactions/{id}'),
  listRoute('/v1/balance/history'),
  retrieveRoute('/v1/balance/history/{id}'),
];
