// Payment links: line items on existing prices (`payment` mode, or `subscription` when one is
// recurring), a `url` the twin serves itself, `active` toggled by update. A visit to the url makes a
// Checkout Session (`payment_link` set on it) and sends the browser to the twin's hosted Checkout
// page, which completes it as any other session.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { createSession, lineItem } from './checkout.js';
import { applyMetadata, clone, find, load, newId, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { isMetered } from './subscription-items.js';
import { resolvePrice, type PriceRef } from './prices.js';

export interface AfterCompletion {
  type: 'hosted_confirmation' | 'redirect';
  redirectUrl?: string;
  customMessage?: string;
}

export interface PaymentLinkFields {
  active?: boolean;
  afterCompletion?: AfterCompletion;
  allowPromotionCodes?: boolean;
  billingAddressCollection?: 'auto' | 'required';
  customerCreation?: 'always' | 'if_required';
  metadata?: MetadataPatch;
  submitType?: 'auto' | 'book' | 'donate' | 'pay' | 'subscribe';
}

export interface PaymentLinkCreate extends PaymentLinkFields {
  lineItems: (PriceRef & { quantity?: number })[];
}

function afterCompletion(input: AfterCompletion): StripeObject {
  if (input.type === 'redirect') {
    if (!input.redirectUrl) throw missingParam('after_completion[redirect][url]');
    return { redirect: { url: input.redirectUrl }, type: 'redirect' } as unknown as StripeObject;
  }
  return { hosted_confirmation: { custom_message: input.customMessage ?? null }, type: 'hosted_confirmation' } as unknown as StripeObject;
}

function applyFields(link: StripeObject, input: PaymentLinkFields): void {
  if (input.active !== undefined) link.active = input.active;
  if (input.afterCompletion !== undefined) link.after_completion = afterCompletion(input.afterCompletion);
  if (input.allowPromotionCodes !== undefined) link.allow_promotion_codes = input.allowPromotionCodes;
  if (input.billingAddressCollection !== undefined) link.billing_address_collection = input.billingAddressCollection;
  if (input.customerCreation !== undefined) {
    if (link.subscription_data) throw invalidRequest('`customer_creation` can only be used with one-time prices.', 'customer_creation');
    link.customer_creation = input.customerCreation;
  }
  if (input.metadata !== undefined) link.metadata = applyMetadata(link.metadata ?? {}, input.metadata);
  if (input.submitType !== undefined) link.submit_type = input.submitType;
}

export function createPaymentLink(ctx: TwinContext, input: PaymentLinkCreate): StripeObject {
  if (input.lineItems.length === 0) throw missingParam('line_items');
  if (input.lineItems.length > 20) throw invalidRequest('A payment link can have at most 20 line items.', 'line_items');
  const items = input.lineItems.map((li, i) => {
    const prefix = `line_items[${i}]`;
    const price = load(ctx, 'price', resolvePrice(ctx, li, prefix), `${prefix}[price]`);
    if (!price.active && li.priceData === undefined) throw invalidRequest(`The price \`${price.id}\` is not active.`, `${prefix}[price]`);
    if (isMetered(price)) throw invalidRequest('Payment links do not support prices with `usage_type=metered`.', `${prefix}[price]`);
    if (li.quantity === undefined) throw missingParam(`${prefix}[quantity]`);
    if (li.quantity < 1) throw invalidRequest('This value must be greater than or equal to 1.', `${prefix}[quantity]`);
    return lineItem(ctx, price, li.quantity);
  });
  if (new Set(items.map((li) => li.currency)).size > 1) throw invalidRequest('All line items must have the same currency.', 'line_items');
  const recurring = items.some((li) => li.price.type === 'recurring');
  const id = newId(ctx, 'payment_link');
  const link: StripeObject = {
    id,
    object: 'payment_link',
    active: true,
    after_completion: afterCompletion({ type: 'hosted_confirmation' }),
    allow_promotion_codes: false,
    application_fee_amount: null,
    application_fee_percent: null,
    automatic_tax: { enabled: false, liability: null },
    billing_address_collection: 'auto',
    consent_collection: null,
    currency: items[0]!.currency,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer_creation: recurring ? 'always' : 'if_required',
    inactive_message: null,
    invoice_creation: recurring
      ? null
      : {
          enabled: false,
          invoice_data: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: null, metadata: {}, rendering_options: null },
        },
    livemode: false,
    metadata: {},
    on_behalf_of: null,
    payment_intent_data: null,
    payment_method_collection: 'always',
    payment_method_types: null,
    phone_number_collection: { enabled: false },
    restrictions: null,
    shipping_address_collection: null,
    shipping_options: [],
    submit_type: 'auto',
    subscription_data: recurring ? { description: null, invoice_settings: { issuer: { type: 'self' } }, metadata: {}, trial_period_days: null } : null,
    tax_id_collection: { enabled: false, required: 'never' },
    transfer_data: null,
    url: `${ctx.baseUrl}/b/${id}`,
    // Expandable only (see presentPaymentLink).
    line_items: { object: 'list', data: items, has_more: false, url: `/v1/payment_links/${id}/line_items` },
  };
  applyFields(link, input);
  ctx.store.put('payment_link', id, link);
  return link;
}

/** The link as the API answers it: `line_items` only when expanded. */
export function presentPaymentLink(link: StripeObject, expand: string[]): StripeObject {
  if (expand.includes('line_items')) return link;
  const { line_items: _omit, ...rest } = link;
  return rest as StripeObject;
}

export function loadPaymentLink(ctx: TwinContext, id: string, param = 'payment_link'): StripeObject {
  return load(ctx, 'payment_link', id, param);
}

export function updatePaymentLink(ctx: TwinContext, id: string, input: PaymentLinkFields): StripeObject {
  const link = clone(loadPaymentLink(ctx, id));
  applyFields(link, input);
  ctx.store.put('payment_link', id, link);
  return link;
}

export function listPaymentLinks(ctx: TwinContext, f: { active?: boolean }, window: ListWindow): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  if (f.active !== undefined) equals.active = f.active;
  const page = readPage<StripeObject>(ctx, 'payment_link', equals, window);
  return { ...page, data: page.data.map((l) => presentPaymentLink(l, [])) };
}

/**
 * A customer opened the link: a new Checkout Session on its line items (`payment_link` set), whose
 * hosted page completes the purchase. Undefined when the link is unknown; an inactive link makes none.
 */
export function visitPaymentLink(ctx: TwinContext, id: string): { link?: StripeObject; session?: StripeObject } {
  const link = find(ctx, 'payment_link', id);
  if (!link) return {};
  if (!link.active) return { link };
  const items = link.line_items.data as StripeObject[];
  const redirect = link.after_completion.type === 'redirect' ? (link.after_completion.redirect.url as string) : undefined;
  const session = createSession(ctx, {
    mode: link.subscription_data ? 'subscription' : 'payment',
    lineItems: items.map((li) => ({ price: li.price.id, quantity: li.quantity, ownPrice: true })),
    successUrl: redirect,
    allowPromotionCodes: link.allow_promotion_codes || undefined,
    billingAddressCollection: link.billing_address_collection,
    customerCreation: link.subscription_data ? undefined : link.customer_creation,
    submitType: link.subscription_data ? undefined : link.submit_type,
    paymentLink: link.id,
  });
  return { link, session };
}
