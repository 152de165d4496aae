// /v1/customers/{customer}/balance_transactions: a customer's balance ledger (create adjusts the
// balance; invoices add their own entries when they apply it).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { emptyableStr, readMetadata, readParams, requiredCurrency, requiredInt, str } from '../wire/params.js';
import { createBalanceTransaction, getBalanceTransaction, listBalanceTransactions, updateBalanceTransaction } from '../model/customer-balance.js';

const BASE = '/v1/customers/{customer}/balance_transactions';

export const customerBalanceRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: BASE,
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        createBalanceTransaction(ctx, req.params.customer!, {
          amount: requiredInt(p, 'amount'),
          currency: requiredCurrency(p),
          description: str(p, 'description'),
          metadata: readMetadata(p),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: BASE,
    handler: (req, ctx) => {
      const p = readParams(req);
      const id = req.params.customer!;
      return ok(listEnvelope(listBalanceTransactions(ctx, id, { invoice: str(p, 'invoice') }, readListWindow(p)), `/v1/customers/${id}/balance_transactions`));
    },
  },
  {
    method: 'GET',
    path: `${BASE}/{transaction}`,
    handler: (req, ctx) => (readParams(req), ok(getBalanceTransaction(ctx, req.params.customer!, req.params.transaction!))),
  },
  {
    method: 'POST',
    path: `${BASE}/{transaction}`,
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        updateBalanceTransaction(ctx, req.params.customer!, req.params.transaction!, {
          description: emptyableStr(p, 'description'),
          metadata: readMetadata(p),
        }),
      );
    },
  },
];
