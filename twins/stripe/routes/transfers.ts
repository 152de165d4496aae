// Connect: /v1/transfers (create, retrieve, update, list), their reversals, and the platform's
// application fees (/v1/application_fees).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { LIST_PARAMS, emptyableStr, int, readMetadata, readParams, requiredCurrency, requiredInt, requiredStr, str } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { resourceMissing } from '../wire/errors.js';
import { pageOf } from '../model/pages.js';
import { createTransfer, getApplicationFee, getTransfer, listApplicationFees, listTransfers, reverseTransfer, updateTransfer } from '../model/transfers.js';
import type { StripeObject } from '../model/objects.js';

function reversalOf(transferId: string, reversals: StripeObject[], id: string): StripeObject {
  const found = reversals.find((r) => r.id === id);
  if (!found) throw resourceMissing('transfer reversal', id, 'id');
  return found;
}

export const transferRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/transfers',
    handler: (req, ctx) => {
      const p = readParams(req, { amount: true, currency: true, destination: true, description: true, metadata: true, source_transaction: true, source_type: true, transfer_group: true });
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
      const p = readParams(req, { ...LIST_PARAMS, destination: true, transfer_group: true });
      return ok(listEnvelope(listTransfers(ctx, { destination: str(p, 'destination'), transferGroup: str(p, 'transfer_group') }, readListWindow(p)), '/v1/transfers'));
    },
  },
  {
    method: 'GET',
    path: '/v1/transfers/{transfer}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(getTransfer(ctx, req.params.transfer!));
    },
  },
  {
    method: 'POST',
    path: '/v1/transfers/{transfer}',
    handler: (req, ctx) => {
      const p = readParams(req, { description: true, metadata: true });
      return ok(updateTransfer(ctx, req.params.transfer!, { description: emptyableStr(p, 'description'), metadata: readMetadata(p) }));
    },
  },
  {
    method: 'POST',
    path: '/v1/transfers/{id}/reversals',
    handler: (req, ctx) => {
      const p = readParams(req, { amount: true, description: true, metadata: true, refund_application_fee: true });
      return ok(reverseTransfer(ctx, req.params.id!, { amount: int(p, 'amount'), description: str(p, 'description'), metadata: readMetadata(p) }));
    },
  },
  {
    method: 'GET',
    path: '/v1/transfers/{id}/reversals',
    handler: (req, ctx) => {
      const p = readParams(req, LIST_PARAMS);
      const transfer = getTransfer(ctx, req.params.id!);
      return ok(listEnvelope(pageOf([...transfer.reversals.data].reverse(), readListWindow(p)), `/v1/transfers/${transfer.id}/reversals`));
    },
  },
  {
    method: 'GET',
    path: '/v1/transfers/{transfer}/reversals/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      const transfer = getTransfer(ctx, req.params.transfer!);
      return ok(reversalOf(transfer.id, transfer.reversals.data, req.params.id!));
    },
  },
  {
    method: 'GET',
    path: '/v1/application_fees',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, charge: true });
      return ok(listEnvelope(listApplicationFees(ctx, { charge: str(p, 'charge') }, readListWindow(p)), '/v1/application_fees'));
    },
  },
  {
    method: 'GET',
    path: '/v1/application_fees/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(getApplicationFee(ctx, req.params.id!));
    },
  },
];
