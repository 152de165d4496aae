// /v1/payment_methods: create, retrieve (test shortcuts such as pm_card_visa resolve to a fresh
// payment method), update, list by customer, attach, detach.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { missingParam } from '../wire/errors.js';
import { listResponse } from '../wire/list.js';
import { LIST_PARAMS, readParams, str } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { getCustomer } from '../model/customers.js';
import {
  PAYMENT_METHOD_CREATE_SPEC,
  PAYMENT_METHOD_UPDATE_SPEC,
  attachPaymentMethod,
  createPaymentMethod,
  detachPaymentMethod,
  listPaymentMethods,
  resolvePaymentMethod,
  updatePaymentMethod,
} from '../model/payment-methods.js';

export const paymentMethodRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/payment_methods',
    handler: (req, ctx) => ok(createPaymentMethod(ctx, readParams(req, PAYMENT_METHOD_CREATE_SPEC))),
  },
  {
    method: 'GET',
    path: '/v1/payment_methods',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, customer: true, type: true, allow_redisplay: true });
      const customer = str(p, 'customer');
      if (customer) getCustomer(ctx, customer);
      return listResponse(req, ctx, listPaymentMethods(ctx, customer, str(p, 'type')), '/v1/payment_methods');
    },
  },
  {
    method: 'GET',
    path: '/v1/payment_methods/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(resolvePaymentMethod(ctx, req.params.id!, 'payment_method'));
    },
  },
  {
    method: 'POST',
    path: '/v1/payment_methods/{id}',
    handler: (req, ctx) => ok(updatePaymentMethod(ctx, req.params.id!, readParams(req, PAYMENT_METHOD_UPDATE_SPEC))),
  },
  {
    method: 'POST',
    path: '/v1/payment_methods/{id}/attach',
    handler: (req, ctx) => {
      const p = readParams(req, { customer: true });
      const customerId = str(p, 'customer');
      if (!customerId) throw missingParam('customer');
      const customer = getCustomer(ctx, customerId);
      const pm = resolvePaymentMethod(ctx, req.params.id!, 'payment_method');
      return ok(attachPaymentMethod(ctx, pm, customer.id));
    },
  },
  {
    method: 'POST',
    path: '/v1/payment_methods/{id}/detach',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(detachPaymentMethod(ctx, req.params.id!));
    },
  },
];
