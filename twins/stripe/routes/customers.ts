// /v1/customers: create, retrieve, update, delete, list, search; a customer's payment methods.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../http/pipeline.js';
import { keysetListBody, listResponse, searchResponse } from '../http/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, readParams, str } from '../http/params.js';
import { find } from '../model/objects.js';
import {
  CUSTOMER_CREATE_SPEC,
  CUSTOMER_SEARCH_FIELDS,
  CUSTOMER_UPDATE_SPEC,
  createCustomer,
  deleteCustomer,
  getCustomer,
  updateCustomer,
} from '../model/customers.js';
import { listPaymentMethods, type PaymentMethod } from '../model/payment-methods.js';
import { resourceMissing } from '../http/errors.js';

export const customerRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/customers',
    handler: (req, ctx) => ok(createCustomer(ctx, readParams(req, CUSTOMER_CREATE_SPEC))),
  },
  {
    method: 'GET',
    path: '/v1/customers',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, email: true, test_clock: true });
      // Live customers (a deleted one is a stub with `deleted: true`), of the given test clock or none.
      const equals: Record<string, string | null> = { deleted: null, test_clock: str(p, 'test_clock') ?? null };
      const email = str(p, 'email');
      if (email !== undefined) equals.email = email;
      return ok(keysetListBody(ctx, p, { resource: 'customer', equals }, '/v1/customers'));
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/search',
    handler: (req, ctx) => {
      readParams(req, SEARCH_PARAMS);
      const all = ctx.store.list<any>('customer').filter((c) => !c.deleted);
      return searchResponse(req, ctx, all, '/v1/customers/search', CUSTOMER_SEARCH_FIELDS, 'customers');
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}',
    handler: (req, ctx) => {
      readParams(req, {});
      // Retrieve answers the deleted stub too, as Stripe does.
      const c = find(ctx, 'customer', req.params.customer!);
      if (!c) throw resourceMissing('customer', req.params.customer!, 'id');
      return ok(c);
    },
  },
  {
    method: 'POST',
    path: '/v1/customers/{customer}',
    handler: (req, ctx) => ok(updateCustomer(ctx, req.params.customer!, readParams(req, CUSTOMER_UPDATE_SPEC))),
  },
  {
    method: 'DELETE',
    path: '/v1/customers/{customer}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(deleteCustomer(ctx, req.params.customer!));
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}/payment_methods',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, type: true, allow_redisplay: true });
      const c = getCustomer(ctx, req.params.customer!, 'customer');
      const pms: PaymentMethod[] = listPaymentMethods(ctx, c.id, str(p, 'type'));
      return listResponse(req, ctx, pms, `/v1/customers/${c.id}/payment_methods`);
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}/payment_methods/{payment_method}',
    handler: (req, ctx) => {
      readParams(req, {});
      const c = getCustomer(ctx, req.params.customer!, 'customer');
      const pm = find<PaymentMethod>(ctx, 'payment_method', req.params.payment_method!);
      if (!pm || pm.customer !== c.id) throw resourceMissing('PaymentMethod', req.params.payment_method!, 'payment_method');
      return ok(pm);
    },
  },
];
