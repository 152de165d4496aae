// /v1/refunds: create, retrieve, update, list.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, int, oneOf, readMetadata, readParams, str } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { REFUND_REASONS, createRefund, getRefund, listRefunds, updateRefund } from '../model/refunds.js';

export const refundRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/refunds',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(
        createRefund(ctx, {
          charge: str(p, 'charge'),
          paymentIntent: str(p, 'payment_intent'),
          amount: int(p, 'amount'),
          reason: oneOf(p, 'reason', REFUND_REASONS),
          metadata: readMetadata(p),
          reverseTransfer: bool(p, 'reverse_transfer'),
          refundApplicationFee: bool(p, 'refund_application_fee'),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/refunds',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listRefunds(ctx, { charge: str(p, 'charge'), paymentIntent: str(p, 'payment_intent') }, readListWindow(p)), '/v1/refunds'));
    },
  },
  {
    method: 'GET',
    path: '/v1/refunds/{refund}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getRefund(ctx, req.params.refund!));
    },
  },
  {
    method: 'POST',
    path: '/v1/refunds/{refund}',
    handler: (req, ctx) => ok(updateRefund(ctx, req.params.refund!, readMetadata(readParams(req)))),
  },
];
