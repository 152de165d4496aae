// Connect: /v1/transfers (create, retrieve, update, list), their reversals, and the platform's
// application fees (/v1/application_fees).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { emptyableStr, int, readMetadata, readParams, requiredCurrency, requiredInt, requiredStr, str } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { resourceMissing } from '../wire/errors.js';
import { pageOf } from '../model/pages.js';
import {
  createTransfer,
  getApplicationFee,
  getTransfer,
  listApplicationFees,
  listTransfers,
  refundApplicationFee,
  reverseTransfer,
  updateTransfer,
} from '../model/transfers.js';
import type { StripeObject } from '../model/objects.js';

/** One entry of a list an object carries (a transfer's reversals, a fee's refunds). */
function entryOf(list: StripeObject[], noun: string, id: string): StripeObject {
  const found = list.find((r) => r.id === id);
  if (!found) throw resourceMissing(noun, id, 'id');
  return found;
}

export const transferRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/transfers',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        createTransfer(ctx, {
          amount: requiredInt(p, 'amount'),
          currency: requiredCurrency(p),
          destination: requiredStr(p, 'destination'),
          description: str(p, 'description'),
          metadata: readMetadata(p),
          sourceTransaction: str(p, 'source_transaction'),
          transferGroup: str(p, 'transfer_group'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/transfers',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        listEnvelope(listTransfers(ctx, { destination: str(p, 'destination'), transferGroup: str(p, 'transfer_group') }, readListWindow(p)), '/v1/transfers'),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/transfers/{transfer}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getTransfer(ctx, req.params.transfer!));
    },
  },
  {
    method: 'POST',
    path: '/v1/transfers/{transfer}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(updateTransfer(ctx, req.params.transfer!, { description: emptyableStr(p, 'description'), metadata: readMetadata(p) }));
    },
  },
  {
    method: 'POST',
    path: '/v1/transfers/{id}/reversals',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(reverseTransfer(ctx, req.params.id!, { amount: int(p, 'amount'), description: str(p, 'description'), metadata: readMetadata(p) }));
    },
  },
  {
    method: 'GET',
    path: '/v1/transfers/{id}/reversals',
    handler: (req, ctx) => {
      const p = readParams(req);
      const transfer = getTransfer(ctx, req.params.id!);
      return ok(listEnvelope(pageOf([...transfer.reversals.data].reverse(), readListWindow(p)), `/v1/transfers/${transfer.id}/reversals`));
    },
  },
  {
    method: 'GET',
    path: '/v1/transfers/{transfer}/reversals/{id}',
    handler: (req, ctx) => {
      readParams(req);
      const transfer = getTransfer(ctx, req.params.transfer!);
      return ok(entryOf(transfer.reversals.data, 'transfer reversal', req.params.id!));
    },
  },
  {
    method: 'GET',
    path: '/v1/application_fees',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listApplicationFees(ctx, { charge: str(p, 'charge') }, readListWindow(p)), '/v1/application_fees'));
    },
  },
  {
    method: 'GET',
    path: '/v1/application_fees/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getApplicationFee(ctx, req.params.id!));
    },
  },
  {
    method: 'POST',
    path: '/v1/application_fees/{id}/refunds',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(refundApplicationFee(ctx, req.params.id!, { amount: int(p, 'amount'), metadata: readMetadata(p) }));
    },
  },
  {
    method: 'GET',
    path: '/v1/application_fees/{id}/refunds',
    handler: (req, ctx) => {
      const p = readParams(req);
      const fee = getApplicationFee(ctx, req.params.id!);
      return ok(listEnvelope(pageOf([...fee.refunds.data].reverse(), readListWindow(p)), `/v1/application_fees/${fee.id}/refunds`));
    },
  },
  {
    method: 'GET',
    path: '/v1/application_fees/{fee}/refunds/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(entryOf(getApplicationFee(ctx, req.params.fee!).refunds.data, 'fee refund', req.params.id!));
    },
  },
];
