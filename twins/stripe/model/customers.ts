// Customers: create / update / delete with Stripe's field rules, the `customer.*` events, and the
// lookups other parts of the model use (`getCustomer`, `defaultPaymentMethod`). A deleted customer
// stays as Stripe's `{id, object, deleted: true}` stub, which retrieve still answers.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { attachPaymentMethod, resolvePaymentMethod } from './payment-methods.js';
import { endDiscount, loadDiscount, redeem, type DiscountRef } from './discounts.js';
import { createTaxId, type TaxIdInput } from './tax-ids.js';
import { saveSource } from './tokens.js';

export type Customer = StripeObject & { object: 'customer'; deleted?: true };

export type Address = Record<'city' | 'country' | 'line1' | 'line2' | 'postal_code' | 'state', string | null>;

export const TAX_EXEMPT = ['exempt', 'none', 'reverse'] as const;

/** What create and update may set (a `null` clears a field, as an empty value does on Stripe). */
export interface CustomerFields {
  email?: string | null;
  name?: string | null;
  phone?: string | null;
  description?: string | null;
  balance?: number;
  address?: Address | null;
  shipping?: { address: Address | null; name: string; phone: string | null } | null;
  invoicePrefix?: string;
  nextInvoiceSequence?: number;
  preferredLocales?: string[];
  taxExempt?: (typeof TAX_EXEMPT)[number];
  metadata?: MetadataPatch;
  invoiceSettings?: {
    defaultPaymentMethod?: string | null;
    footer?: string | null;
    /** `null`: cleared. */
    customFields?: unknown[] | null;
  };
  /** A coupon or promotion code to redeem as the customer's discount (`coupon`, `promotion_code`). */
  discount?: DiscountRef;
}

export interface CustomerCreate extends CustomerFields {
  /** `source`: a card token saved as the customer's first source and `default_source` (model/tokens.ts). */
  source?: string;
  /** `tax_id_data`: tax ids added with the customer (model/tax-ids.ts). */
  taxIdData?: TaxIdInput[];
  /** A payment method attached to the new customer (before `invoice_settings` may name it). */
  paymentMethod?: string;
  testClock?: string;
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
  return ctx.ids
    .token(8)
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, 'X');
}

/** Apply the fields create and update share onto `c`. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function applyFields(ctx: TwinContext, c: Customer, input: CustomerFields): void {
  const email = input.email;
  if (email && (!EMAIL.test(email) || email.length > 512)) throw invalidRequest(`Invalid email address: ${email}`, 'email', 'email_invalid');
  if (email !== undefined) c.email = email;
  for (const k of ['name', 'phone', 'description'] as const) {
    if (input[k] !== undefined) c[k] = input[k];
  }
  if (input.balance !== undefined) c.balance = input.balance;
  if (input.address !== undefined) c.address = input.address;
  if (input.shipping !== undefined) c.shipping = input.shipping;
  if (input.invoicePrefix !== undefined) c.invoice_prefix = input.invoicePrefix;
  if (input.nextInvoiceSequence !== undefined) c.next_invoice_sequence = input.nextInvoiceSequence;
  if (input.preferredLocales !== undefined) c.preferred_locales = input.preferredLocales;
  if (input.taxExempt !== undefined) c.tax_exempt = input.taxExempt;
  if (input.metadata !== undefined) c.metadata = applyMetadata(c.metadata, input.metadata);
  if (input.discount) {
    if (c.discount?.id && loadDiscount(ctx, c.discount.id)) endDiscount(ctx, c.discount.id);
    c.discount = redeem(ctx, input.discount, { customer: c.id }, 'discount');
  }
  const settings = input.invoiceSettings;
  if (settings) {
    const is = { ...(c.invoice_settings as Record<string, unknown>) };
    const dpm = settings.defaultPaymentMethod;
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
    if (settings.footer !== undefined) is.footer = settings.footer;
    if (settings.customFields !== undefined) is.custom_fields = settings.customFields;
    c.invoice_settings = is;
  }
}

export function createCustomer(ctx: TwinContext, input: CustomerCreate): Customer {
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
  const clock = input.testClock;
  if (clock) {
    const testClock = find(ctx, 'test_clock', clock);
    if (!testClock) throw resourceMissing('test clock', clock, 'test_clock');
    c.test_clock = clock;
    c.created = testClock.frozen_time;
  }
  // `payment_method` attaches before invoice_settings may name it as the default.
  if (input.paymentMethod) {
    const pm = resolvePaymentMethod(ctx, input.paymentMethod, 'payment_method');
    attachPaymentMethod(ctx, pm, c.id);
  }
  applyFields(ctx, c, input);
  save(ctx, 'customer', c);
  if (input.source) {
    c.default_source = saveSource(ctx, c.id, input.source).id;
    save(ctx, 'customer', c);
  }
  emitEvent(ctx, 'customer.created', c);
  for (const [i, data] of (input.taxIdData ?? []).entries()) createTaxId(ctx, c.id, data, `tax_id_data[${i}]`);
  return c;
}

export function updateCustomer(ctx: TwinContext, id: string, input: CustomerFields): Customer {
  const before = getCustomer(ctx, id, 'id');
  const c = clone(before);
  applyFields(ctx, c, input);
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

/** `DELETE /v1/customers/{id}/discount`: end the customer's discount; answers the deleted discount. */
export function removeCustomerDiscount(ctx: TwinContext, id: string): StripeObject {
  const current = getCustomer(ctx, id, 'customer').discount as StripeObject | null;
  if (!current || !loadDiscount(ctx, current.id)) throw invalidRequest(`The customer ${id} has no discount to remove.`, 'customer');
  const ended = endDiscount(ctx, current.id);
  patchCustomer(ctx, id, { discount: null });
  return ended;
}

export function deleteCustomer(ctx: TwinContext, id: string): StripeObject {
  const c = getCustomer(ctx, id, 'id');
  const stub = { id: c.id, object: 'customer', deleted: true as const };
  save(ctx, 'customer', stub);
  emitEvent(ctx, 'customer.deleted', c);
  return stub;
}

/** One page of live customers (a deleted one is a stub), of the given test clock or of none, newest first. */
export function listCustomers(ctx: TwinContext, filter: { email?: string; testClock?: string }, window: ListWindow): ListPage<Customer> {
  const equals: FieldEquals = { deleted: null, test_clock: filter.testClock ?? null };
  if (filter.email !== undefined) equals.email = filter.email;
  return readPage<Customer>(ctx, 'customer', equals, window);
}

export const CUSTOMER_SEARCH_FIELDS = {
  created: (c: StripeObject) => c.created,
  email: (c: StripeObject) => c.email,
  name: (c: StripeObject) => c.name,
  phone: (c: StripeObject) => c.phone,
};
