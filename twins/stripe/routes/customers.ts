// /v1/customers: create, retrieve, update, delete, list, search; a customer's payment methods.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { searchResponse } from '../wire/search.js';
import { bool, emptyableStr, int, obj, objArray, oneOf, readMetadata, readParams, requiredStr, str, strArray, type Params } from '../wire/params.js';
import { find } from '../model/objects.js';
import {
  CUSTOMER_SEARCH_FIELDS,
  TAX_EXEMPT,
  createCustomer,
  type Address,
  type CustomerFields,
  deleteCustomer,
  getCustomer,
  listCustomers,
  removeCustomerDiscount,
  updateCustomer,
} from '../model/customers.js';
import { listPaymentMethods, type PaymentMethod } from '../model/payment-methods.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';

/** A whole address (fields left out are null), or null for an empty `address=`. */
export function readFullAddress(p: Params | undefined, prefix: string): Address | null {
  if (!p) return null;
  const out = {} as Address;
  for (const k of ['city', 'country', 'line1', 'line2', 'postal_code', 'state'] as const) out[k] = emptyableStr(p, k, prefix) ?? null;
  return out;
}

function readShipping(p: Params | undefined): CustomerFields['shipping'] {
  if (!p) return null;
  const name = str(p, 'name', 'shipping');
  if (!name) throw invalidRequest('Missing required param: shipping[name].', 'shipping[name]', 'parameter_missing');
  return { address: readFullAddress(obj(p, 'address', 'shipping'), 'shipping[address]'), name, phone: emptyableStr(p, 'phone', 'shipping') ?? null };
}

/** The fields create and update share, with Stripe's wording for a bad value. */
function readCustomerFields(p: Params): CustomerFields {
  const out: CustomerFields = {
    email: emptyableStr(p, 'email'),
    name: emptyableStr(p, 'name'),
    phone: emptyableStr(p, 'phone'),
    description: emptyableStr(p, 'description'),
    balance: int(p, 'balance'),
  };
  if (p.address !== undefined) out.address = readFullAddress(obj(p, 'address'), 'address');
  if (p.shipping !== undefined) out.shipping = readShipping(obj(p, 'shipping'));
  const prefix = str(p, 'invoice_prefix');
  if (prefix !== undefined && !/^[A-Z0-9]{3,12}$/.test(prefix)) {
    throw invalidRequest('Invoice prefix must be 3-12 uppercase letters or numbers.', 'invoice_prefix');
  }
  out.invoicePrefix = prefix;
  out.nextInvoiceSequence = int(p, 'next_invoice_sequence');
  out.preferredLocales = strArray(p, 'preferred_locales');
  out.taxExempt = oneOf(p, 'tax_exempt', TAX_EXEMPT);
  out.metadata = readMetadata(p);
  const coupon = str(p, 'coupon');
  const promotionCode = str(p, 'promotion_code');
  if (coupon || promotionCode) out.discount = { coupon, promotionCode };
  bool(p, 'validate');
  const settings = obj(p, 'invoice_settings');
  if (settings) {
    out.invoiceSettings = {
      defaultPaymentMethod: emptyableStr(settings, 'default_payment_method', 'invoice_settings'),
      footer: emptyableStr(settings, 'footer', 'invoice_settings'),
      customFields: settings.custom_fields === undefined ? undefined : settings.custom_fields === '' ? null : Object.values(settings.custom_fields as object),
    };
  }
  return out;
}

export const customerRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/customers',
    handler: (req, ctx) => {
      const p = readParams(req);
      const taxIdData = objArray(p, 'tax_id_data')?.map((d, i) => ({
        type: requiredStr(d, 'type', `tax_id_data[${i}]`),
        value: requiredStr(d, 'value', `tax_id_data[${i}]`),
      }));
      return ok(
        createCustomer(ctx, {
          testClock: str(p, 'test_clock'),
          paymentMethod: str(p, 'payment_method'),
          source: str(p, 'source'),
          taxIdData,
          ...readCustomerFields(p),
        }),
      );
    },
  },
  {
    method: 'GET',
    path: '/v1/customers',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listCustomers(ctx, { email: str(p, 'email'), testClock: str(p, 'test_clock') }, readListWindow(p)), '/v1/customers'));
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/search',
    handler: (req, ctx) => {
      readParams(req);
      // Deleted customers stay as stubs (`deleted: true`) that retrieve answers; search skips them.
      return searchResponse(req, ctx, { resource: 'customer', equals: { deleted: null } }, '/v1/customers/search', CUSTOMER_SEARCH_FIELDS, 'customers');
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}',
    handler: (req, ctx) => {
      readParams(req);
      // Retrieve answers the deleted stub too, as Stripe does.
      const c = find(ctx, 'customer', req.params.customer!);
      if (!c) throw resourceMissing('customer', req.params.customer!, 'id');
      return ok(c);
    },
  },
  {
    method: 'POST',
    path: '/v1/customers/{customer}',
    handler: (req, ctx) => ok(updateCustomer(ctx, req.params.customer!, readCustomerFields(readParams(req)))),
  },
  {
    method: 'DELETE',
    path: '/v1/customers/{customer}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(deleteCustomer(ctx, req.params.customer!));
    },
  },
  {
    method: 'DELETE',
    path: '/v1/customers/{customer}/discount',
    handler: (req, ctx) => (readParams(req), ok(removeCustomerDiscount(ctx, req.params.customer!))),
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}/payment_methods',
    handler: (req, ctx) => {
      const p = readParams(req);
      const c = getCustomer(ctx, req.params.customer!, 'customer');
      return ok(listEnvelope(listPaymentMethods(ctx, c.id, str(p, 'type'), readListWindow(p)), `/v1/customers/${c.id}/payment_methods`));
    },
  },
  {
    method: 'GET',
    path: '/v1/customers/{customer}/payment_methods/{payment_method}',
    handler: (req, ctx) => {
      readParams(req);
      const c = getCustomer(ctx, req.params.customer!, 'customer');
      const pm = find<PaymentMethod>(ctx, 'payment_method', req.params.payment_method!);
      if (!pm || pm.customer !== c.id) throw resourceMissing('PaymentMethod', req.params.payment_method!, 'payment_method');
      return ok(pm);
    },
  },
];
