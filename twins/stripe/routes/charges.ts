// /v1/charges: legacy create, retrieve, update, capture, list, search.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { listResponse, searchResponse } from '../wire/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, int, readParams } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import {
  CHARGE_CREATE_SPEC,
  CHARGE_SEARCH_FIELDS,
  CHARGE_UPDATE_SPEC,
  captureCharge,
  createLegacyCharge,
  getCharge,
  listCharges,
  updateCharge,
} from '../model/charges.js';

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
      return listResponse(req, ctx, listCharges(ctx, p), '/v1/charges');
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
];
