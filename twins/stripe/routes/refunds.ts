// /v1/refunds: create, retrieve, update, list.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listResponse } from '../wire/list.js';
import { LIST_PARAMS, readParams } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { REFUND_CREATE_SPEC, createRefund, getRefund, listRefunds, updateRefund } from '../model/refunds.js';

export const refundRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/refunds', handler: (req, ctx) => ok(createRefund(ctx, readParams(req, REFUND_CREATE_SPEC))) },
  {
    method: 'GET',
    path: '/v1/refunds',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, charge: true, payment_intent: true });
      return listResponse(req, ctx, listRefunds(ctx, p), '/v1/refunds');
    },
  },
  {
    method: 'GET',
    path: '/v1/refunds/{refund}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(getRefund(ctx, req.params.refund!));
    },
  },
  {
    method: 'POST',
    path: '/v1/refunds/{refund}',
    handler: (req, ctx) => ok(updateRefund(ctx, req.params.refund!, readParams(req, { metadata: true }))),
  },
];
