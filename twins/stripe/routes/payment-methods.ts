// /v1/payment_methods: create, retrieve (test shortcuts such as pm_card_visa resolve to a fresh
// payment method), update, list by customer, attach, detach.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { missingParam, underParam } from '../wire/errors.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { emptyableStr, int, obj, oneOf, readMetadata, readParams, str, type Params } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { getCustomer } from '../model/customers.js';
import {
  ADDRESS_FIELDS,
  attachPaymentMethod,
  type AddressInput,
  type AllowRedisplay,
  type BillingDetailsInput,
  type PaymentMethodCreate,
  type PaymentMethodUpdate,
  createPaymentMethod,
  detachPaymentMethod,
  listPaymentMethods,
  resolvePaymentMethod,
  updatePaymentMethod,
} from '../model/payment-methods.js';

const REDISPLAY = ['always', 'limited', 'unspecified'] as const;

/** An address under `prefix` (`address`, `billing_details[address]`): empty values clear a field. */
export function readAddress(p: Params, prefix: string): AddressInput {
  const out: AddressInput = {};
  for (const k of ADDRESS_FIELDS) {
    const v = emptyableStr(p, k, prefix);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** `billing_details` (absent or empty: no change). */
export function readBillingDetails(p: Params | undefined): BillingDetailsInput | undefined {
  if (!p) return undefined;
  const out: BillingDetailsInput = {};
  for (const k of ['email', 'name', 'phone', 'tax_id'] as const) {
    const v = emptyableStr(p, k, 'billing_details');
    if (v !== undefined) out[k] = v;
  }
  const addr = obj(p, 'address', 'billing_details');
  if (addr) out.address = readAddress(addr, 'billing_details[address]');
  return out;
}

export function readPaymentMethodCreate(p: Params): PaymentMethodCreate {
  const card = obj(p, 'card');
  return {
    type: str(p, 'type'),
    cloneOf: str(p, 'payment_method'),
    card: card && {
      token: str(card, 'token', 'card'),
      number: str(card, 'number', 'card'),
      expMonth: int(card, 'exp_month', 'card'),
      expYear: int(card, 'exp_year', 'card'),
      cvcGiven: str(card, 'cvc', 'card') !== undefined,
    },
    billing: readBillingDetails(obj(p, 'billing_details')),
    metadata: readMetadata(p),
    allowRedisplay: oneOf(p, 'allow_redisplay', REDISPLAY) as AllowRedisplay | undefined,
  };
}

/** `payment_method_data` (intents): a payment method created inline, parameters named under it. */
export function readPaymentMethodData(data: Params): PaymentMethodCreate {
  return underParam('payment_method_data', () => {
    return readPaymentMethodCreate(data);
  });
}

function readPaymentMethodUpdate(p: Params): PaymentMethodUpdate {
  const card = obj(p, 'card');
  return {
    metadata: readMetadata(p),
    billing: p.billing_details === undefined ? undefined : (readBillingDetails(obj(p, 'billing_details')) ?? {}),
    card: card && { expMonth: int(card, 'exp_month', 'card'), expYear: int(card, 'exp_year', 'card') },
    allowRedisplay: oneOf(p, 'allow_redisplay', REDISPLAY) as AllowRedisplay | undefined,
  };
}

export const paymentMethodRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/payment_methods',
    handler: (req, ctx) => ok(createPaymentMethod(ctx, readPaymentMethodCreate(readParams(req)))),
  },
  {
    method: 'GET',
    path: '/v1/payment_methods',
    handler: (req, ctx) => {
      const p = readParams(req);
      const customer = str(p, 'customer');
      if (customer) getCustomer(ctx, customer);
      return ok(listEnvelope(listPaymentMethods(ctx, customer, str(p, 'type'), readListWindow(p)), '/v1/payment_methods'));
    },
  },
  {
    method: 'GET',
    path: '/v1/payment_methods/{id}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(resolvePaymentMethod(ctx, req.params.id!, 'payment_method'));
    },
  },
  {
    method: 'POST',
    path: '/v1/payment_methods/{id}',
    handler: (req, ctx) => ok(updatePaymentMethod(ctx, req.params.id!, readPaymentMethodUpdate(readParams(req)))),
  },
  {
    method: 'POST',
    path: '/v1/payment_methods/{id}/attach',
    handler: (req, ctx) => {
      const p = readParams(req);
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
      readParams(req);
      return ok(detachPaymentMethod(ctx, req.params.id!));
    },
  },
];
