// /v1/refunds (create, retrieve, update, list, cancel) and the charge-scoped refund routes
// (/v1/charges/{charge}/refunds, and the legacy /v1/charges/{charge}/refund that answers the charge).

import type { TwinContext, TwinRoute } from '../../../twin-runtime/contract.js';
import { resourceMissing } from '../wire/errors.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { bool, int, oneOf, readMetadata, readParams, str, type Params } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { getCharge } from '../model/charges.js';
import { REFUND_REASONS, cancelRefund, createRefund, getRefund, listRefunds, updateRefund, type Refund, type RefundCreate } from '../model/refunds.js';

/** What every refund create takes besides the charge it names. */
function readRefundFields(p: Params): Omit<RefundCreate, 'charge'> {
  return {
    paymentIntent: str(p, 'payment_intent'),
    amount: int(p, 'amount'),
    reason: oneOf(p, 'reason', REFUND_REASONS),
    metadata: readMetadata(p),
    reverseTransfer: bool(p, 'reverse_transfer'),
    refundApplicationFee: bool(p, 'refund_application_fee'),
  };
}

/** A refund of the charge in the path (Stripe answers `No such refund` for another charge's). */
function chargeRefund(chargeId: string, refundId: string, ctx: TwinContext): Refund {
  const refund = getRefund(ctx, refundId);
  if (refund.charge !== chargeId) throw resourceMissing('refund', refundId, 'refund');
  return refund;
}

export const refundRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/refunds',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(createRefund(ctx, { charge: str(p, 'charge'), ...readRefundFields(p) }));
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
  {
    method: 'POST',
    path: '/v1/refunds/{refund}/cancel',
    handler: (req, ctx) => {
      readParams(req);
      return cancelRefund(ctx, req.params.refund!);
    },
  },
  {
    method: 'POST',
    path: '/v1/charges/{charge}/refunds',
    handler: (req, ctx) => ok(createRefund(ctx, { charge: req.params.charge!, ...readRefundFields(readParams(req)) })),
  },
  {
    method: 'POST',
    path: '/v1/charges/{charge}/refund',
    handler: (req, ctx) => {
      createRefund(ctx, { charge: req.params.charge!, ...readRefundFields(readParams(req)) });
      return ok(getCharge(ctx, req.params.charge!));
    },
  },
  {
    method: 'GET',
    path: '/v1/charges/{charge}/refunds',
    handler: (req, ctx) => {
      const p = readParams(req);
      const charge = getCharge(ctx, req.params.charge!, 'charge');
      return ok(listEnvelope(listRefunds(ctx, { charge: charge.id }, readListWindow(p)), `/v1/charges/${charge.id}/refunds`));
    },
  },
  {
    method: 'GET',
    path: '/v1/charges/{charge}/refunds/{refund}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(chargeRefund(req.params.charge!, req.params.refund!, ctx));
    },
  },
  {
    method: 'POST',
    path: '/v1/charges/{charge}/refunds/{refund}',
    handler: (req, ctx) => {
      const metadata = readMetadata(readParams(req));
      return ok(updateRefund(ctx, chargeRefund(req.params.charge!, req.params.refund!, ctx).id, metadata));
    },
  },
];
