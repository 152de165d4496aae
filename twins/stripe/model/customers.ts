// Customers: create / update / delete with Stripe's field rules, the `customer.*` events, and the
// lookups other parts of the model use (`getCustomer`, `defaultPaymentMethod`). A deleted customer
// stays as Stripe's `{id, object, deleted: true}` stub, which retrieve still answers.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../http/errors.js';
import {
  bool,
  emptyableStr,
  int,
  metadata,
  obj,
  oneOf,
  str,
  strArray,
  type Params,
  type ParamSpec,
} from '../http/params.js';
import { emitEvent } from './events.js';
import { ADDRESS_SPEC, clone, find, newId, previousAttributes, save, type StripeObject } from './objects.js';
import { attachPaymentMethod, resolvePaymentMethod } from './payment-methods.js';


const CUSTOMER_SPEC: ParamSpec = {
  address: ADDRESS_SPEC,
  balance: true,
  description: true,
  email: true,
  invoice_prefix: true,
  invoice_settings: { custom_fields: true, default_payment_method: true, footer: true, rendering_options: true },
  metadata: true,
  name: true,
  next_invoice_sequence: true,
  phone: true,
  preferred_locales: true,
  shipping: { address: ADDRESS_SPEC, name: true, phone: true },
  tax_exempt: true,
};

export const CUSTOMER_CREATE_SPEC: ParamSpec = { ...CUSTOMER_SPEC, payment_method: true, test_clock: true, tax: { ip_address: true, validate_location: true }, validate: true };
export const CUSTOMER_UPDATE_SPEC: ParamSpec = { ...CUSTOMER_SPEC, tax: { ip_address: true, validate_location: true }, validate: true };

export type Customer = StripeObject & { object: 'customer'; deleted?: true };

export function addressFrom(p: Params | undefined, prefix: string): Record<string, string | null> | null {
  if (!p) return null;
  const out: Record<string, string | null> = {};
  for (const k of ['city', 'country', 'line1', 'line2', 'postal_code', 'state']) out[k] = emptyableStr(p, k, prefix) ?? null;
  return out;
}

function shippingFrom(p: Params | undefined): Record<string, unknown> | null {
  if (!p) return null;
  const name = str(p, 'name', 'shipping');
  if (!name) throw invalidRequest('Missing required param: shipping[name].', 'shipping[name]', 'parameter_missing');
  return { address: addressFrom(obj(p, 'address', 'shipping'), 'shipping[address]'), name, phone: emptyableStr(p, 'phone', 'shipping') ?? null };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function email(p: Params): string | null | undefined {
  const e = emptyableStr(p, 'email');
  if (e && (!EMAIL.test(e) || e.length > 512)) throw invalidRequest(`Invalid email address: ${e}`, 'email', 'email_invalid');
  return e;
}

/** A live customer, or 404 `resource_missing` (also for a deleted one). */
export function getCustomer(ctx: TwinContext, id: string, param = 'customer'): Customer {
  const c = find<Customer>(ctx, 'customer', id);
  if (!c || c.deleted) throw resourceMissing('customer', id, param);
  return c;
}

/** The payment method invoices and subscriptions charge: invoice_settings default, else none. */
export function defaultPaymentMethod(ctx: TwinContext, customer: Customer): StripeObject | undefined {
  const pmId = customer.invoice_settings?.default_payment_method as string | null | undefined;
  if (!pmId) return undefined;
  return find(ctx, 'payment_method', pmId);
}

function invoicePrefix(ctx: TwinContext): string {
  return ctx.ids.token(8).toUpperCase().replace(/[^A-Z0-9]/g, 'X');
}

/** Apply create/update parameters shared by both onto `c`. */
function applyFields(ctx: TwinContext, c: Customer, p: Params): void {
  const e = email(p);
  if (e !== undefined) c.email = e;
  for (const k of ['name', 'phone', 'description'] as const) {
    const v = emptyableStr(p, k);
    if (v !== undefined) c[k] = v;
  }
  const balance = int(p, 'balance');
  if (balance !== undefined) c.balance = balance;
  if (p.address !== undefined) c.address = addressFrom(obj(p, 'address'), 'address');
  if (p.shipping !== undefined) c.shipping = shippingFrom(obj(p, 'shipping'));
  const prefix = str(p, 'invoice_prefix');
  if (prefix !== undefined) {
    if (!/^[A-Z0-9]{3,12}$/.test(prefix)) {
      throw invalidRequest('Invoice prefix must be 3-12 uppercase letters or numbers.', 'invoice_prefix');
    }
    c.invoice_prefix = prefix;
  }
  const seq = int(p, 'next_invoice_sequence');
  if (seq !== undefined) c.next_invoice_sequence = seq;
  const locales = strArray(p, 'preferred_locales');
  if (locales !== undefined) c.preferred_locales = locales;
  const taxExempt = oneOf(p, 'tax_exempt', ['exempt', 'none', 'reverse'] as const);
  if (taxExempt !== undefined) c.tax_exempt = taxExempt;
  const md = metadata(p, c.metadata);
  if (md !== undefined) c.metadata = md;
  bool(p, 'validate');
  const settings = obj(p, 'invoice_settings');
  if (settings) {
    const is = { ...(c.invoice_settings as Record<string, unknown>) };
    const dpm = emptyableStr(settings, 'default_payment_method', 'invoice_settings');
    if (dpm) {
      const pm = find(ctx, 'payment_method', dpm);
      if (!pm) throw resourceMissing('PaymentMethod', dpm, 'invoice_settings[default_payment_method]');
      if (pm.customer !== c.id) {
        throw invalidRequest(
          `The customer does not have a payment method with the ID ${dpm}. The payment method must be attached to the customer.`,
          'invoice_settings[default_payment_method]',
        );
      }
    }
    if (dpm !== undefined) is.default_payment_method = dpm;
    const footer = emptyableStr(settings, 'footer', 'invoice_settings');
    if (footer !== undefined) is.footer = footer;
    if (settings.custom_fields !== undefined) {
      is.custom_fields = settings.custom_fields === '' ? null : Object.values(settings.custom_fields as object);
    }
    c.invoice_settings = is;
  }
}

export function createCustomer(ctx: TwinContext, p: Params): Customer {
  const c: Customer = {
    id: newId(ctx, 'customer'),
    object: 'customer',
    address: null,
    balance: 0,
    created: ctx.clock.nowSeconds(),
    currency: null,
    default_source: null,
    delinquent: false,
    description: null,
    discount: null,
    email: null,
    invoice_prefix: invoicePrefix(ctx),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: {},
    name: null,
    next_invoice_sequence: 1,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
  const clock = str(p, 'test_clock');
  if (clock) {
    if (!find(ctx, 'test_clock', clock)) throw resourceMissing('test clock', clock, 'test_clock');
    c.test_clock = clock;
  }
  // `payment_method` attaches before invoice_settings may name it as the default.
  const pmParam = str(p, 'payment_method');
  if (pmParam) {
    const pm = resolvePaymentMethod(ctx, pmParam, 'payment_method');
    attachPaymentMethod(ctx, pm, c.id);
  }
  applyFields(ctx, c, p);
  save(ctx, 'customer', c);
  emitEvent(ctx, 'customer.created', c);
  return c;
}

export function updateCustomer(ctx: TwinContext, id: string, p: Params): Customer {
  const before = getCustomer(ctx, id, 'id');
  const c = clone(before);
  applyFields(ctx, c, p);
  save(ctx, 'customer', c);
  const prev = previousAttributes(before, c);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'customer.updated', c, prev);
  return c;
}

/** Change fields the model itself manages (balance, delinquent…), with the `customer.updated` event. */
export function patchCustomer(ctx: TwinContext, id: string, patch: Partial<Customer>): Customer {
  const before = getCustomer(ctx, id);
  const c = { ...clone(before), ...patch } as Customer;
  save(ctx, 'customer', c);
  const prev = previousAttributes(before, c);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'customer.updated', c, prev);
  return c;
}

export function deleteCustomer(ctx: TwinContext, id: string): StripeObject {
  const c = getCustomer(ctx, id, 'id');
  const stub = { id: c.id, object: 'customer', deleted: true as const };
  save(ctx, 'customer', stub);
  emitEvent(ctx, 'customer.deleted', c);
  return stub;
}

export const CUSTOMER_SEARCH_FIELDS = {
  created: (c: StripeObject) => c.created,
  email: (c: StripeObject) => c.email,
  name: (c: StripeObject) => c.name,
  phone: (c: StripeObject) => c.phone,
};
