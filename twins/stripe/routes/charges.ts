// /v1/charges (legacy create, retrieve, update, capture, list, search) and /v1/refunds (create, retrieve,
// update, list).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { fieldFilters, keysetListBody, searchResponse } from '../http/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, int, readParams } from '../http/params.js';
import { ok } from '../http/pipeline.js';
import {
  CHARGE_CREATE_SPEC,
  CHARGE_SEARCH_FIELDS,
  CHARGE_UPDATE_SPEC,
  captureCharge,
  createLegacyCharge,
  getCharge,
  updateCharge,
} from '../model/charges.js';
import { REFUND_CREATE_SPEC, createRefund, getRefund, updateRefund } from '../model/refunds.js';

export const chargeRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/charges',
    handler: (req, ctx) => createLegacyCharge(ctx, readParams(req, CHARGE_CREATE_SPEC)).response,
  },
  {
    method: 'GET',
    path: '/v1/charges',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, customer: true, payment_intent: true, transfer_group: true });
      return ok(keysetListBody(ctx, p, { resource: 'charge', equals: fieldFilters(p, ['customer', 'payment_intent', 'transfer_group']) }, '/v1/charges'));
    },
  },
  {
    method: 'GET',
    path: '/v1/charges/search',
    handler: (req, ctx) => {
      readParams(req, SEARCH_PARAMS);
      return searchResponse(req, ctx, ctx.store.list<any>('charge'), '/v1/charges/search', CHARGE_SEARCH_FIELDS, 'charges');
    },
  },
  {
    method: 'GET',
    path: '/v1/charges/{charge}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(getCharge(ctx, req.params.charge!));
    },
  },
  {
    method: 'POST',
    path: '/v1/charges/{charge}',
    handler: (req, ctx) => ok(updateCharge(ctx, req.params.charge!, readParams(req, CHARGE_UPDATE_SPEC))),
  },
  {
    method: 'POST',
    path: '/v1/charges/{charge}/capture',
    handler: (req, ctx) => {
      const p = readParams(req, { amount: true, receipt_email: true, statement_descriptor: true, statement_descriptor_suffix: true });
      return ok(captureCharge(ctx, req.params.charge!, int(p, 'amount')));
    },
  },
  { method: 'POST', path: '/v1/refunds', handler: (req, ctx) => ok(createRefund(ctx, readParams(req, REFUND_CREATE_SPEC))) },
  {
    method: 'GET',
    path: '/v1/refunds',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, charge: true, payment_intent: true });
      return ok(keysetListBody(ctx, p, { resource: 'refund', equals: fieldFilters(p, ['charge', 'payment_intent']) }, '/v1/refunds'));
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
