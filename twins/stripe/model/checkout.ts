// Checkout sessions in `payment`, `setup` and `subscription` modes: create (with a `url` on the
// twin), retrieve, list, update metadata, expire (by request or when `expires_at` passes), line
// items, and completion as a customer would pay (the twin-only test helper): creating the customer,
// the payment method, and the PaymentIntent / SetupIntent / Subscription Stripe would create.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { StripeApiError, invalidRequest, missingParam, underParam } from '../wire/errors.js';
import { checkConnectFunds } from './payment-intents.js';
import { applyMetadata, clone, find, load, newId, previousAttributes, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { emitEvent } from './events.js';
import { createCustomer } from './customers.js';
import { attachPaymentMethod, resolvePaymentMethod } from './payment-methods.js';
import { createSubscription, type SubscriptionCreate } from './subscriptions.js';
import { isMetered } from './subscription-items.js';
import { chargeOnce, confirmSetup } from './invoice-payments.js';
import { checkPromotionCode, couponShares, getCoupon, getPromotionCode, listPromotionCodes, redeem, type DiscountRef } from './discounts.js';
import { resolvePrice, type PriceRef } from './prices.js';

const SESSION_LIFETIME = 24 * 3600;

export const MODES = ['payment', 'setup', 'subscription'] as const;
export const UI_MODES = ['custom', 'embedded', 'hosted'] as const;

/** What completion does with the subscription a `subscription`-mode session creates. */
export interface SessionSubscriptionData {
  trialPeriodDays?: number;
  trialEnd?: number | 'now';
  metadata?: MetadataPatch;
  description?: string;
}

/** The PaymentIntent / SetupIntent completion creates. */
export interface SessionIntentData {
  description?: string;
  metadata?: MetadataPatch;
  /** Connect (`payment_intent_data` only): a destination charge, its application fee, the merchant. */
  transferData?: { destination: string; amount?: number };
  applicationFeeAmount?: number;
  onBehalfOf?: string;
  transferGroup?: string;
}

export interface SessionCreate {
  mode?: (typeof MODES)[number];
  uiMode?: (typeof UI_MODES)[number];
  /** `ownPrice`: the caller's own line (a payment link's), taken even if its price is archived. */
  lineItems: (PriceRef & { quantity?: number; ownPrice?: boolean })[];
  customer?: string;
  customerEmail?: string;
  expiresAt?: number;
  successUrl?: string;
  returnUrl?: string;
  cancelUrl?: string;
  currency?: string;
  paymentMethodTypes?: string[];
  allowPromotionCodes?: boolean;
  /** A coupon or a promotion code applied up front (not with `allowPromotionCodes`). */
  discounts?: DiscountRef[];
  billingAddressCollection?: 'auto' | 'required';
  clientReferenceId?: string;
  customerCreation?: 'always' | 'if_required';
  locale?: string;
  metadata?: MetadataPatch;
  paymentMethodCollection?: 'always' | 'if_required';
  submitType?: 'auto' | 'book' | 'donate' | 'pay' | 'subscribe';
  subscriptionData?: SessionSubscriptionData;
  paymentIntentData?: SessionIntentData;
  setupIntentData?: SessionIntentData;
  /** The payment link whose visit made the session. */
  paymentLink?: string;
}

export interface SessionFilter {
  customer?: string;
  paymentIntent?: string;
  subscription?: string;
  paymentLink?: string;
  status?: 'complete' | 'expired' | 'open';
  email?: string;
}

/** What the customer does on the hosted page (the twin-only completion helper). */
export interface SessionCompletion {
  paymentMethod?: string;
  email?: string;
  name?: string;
}

/** Creation options completion needs, kept beside the session (not part of the Stripe object). */
interface SessionOptions {
  subscription: SessionSubscriptionData | null;
  paymentIntent: SessionIntentData | null;
  setupIntent: SessionIntentData | null;
}

function productName(ctx: TwinContext, price: StripeObject): string {
  return find(ctx, 'product', price.product)?.name ?? String(price.product);
}

/** A Checkout, quote or payment link line (`object: 'item'`) of `quantity` × the price. */
export function lineItem(ctx: TwinContext, price: StripeObject, quantity: number): StripeObject {
  const amount = (price.unit_amount ?? 0) * quantity;
  return {
    id: ctx.ids.next('li_', 24),
    object: 'item',
    adjustable_quantity: null,
    amount_discount: 0,
    amount_subtotal: amount,
    amount_tax: 0,
    amount_total: amount,
    currency: price.currency,
    description: productName(ctx, price),
    metadata: {},
    price: clone(price),
    quantity,
  };
}

export function createSession(ctx: TwinContext, input: SessionCreate): StripeObject {
  const mode = input.mode;
  if (!mode) throw missingParam('mode');
  const uiMode = input.uiMode ?? 'hosted';
  const now = ctx.clock.nowSeconds();
  const items: StripeObject[] = [];
  const raw = input.lineItems;
  if (mode !== 'setup' && raw.length === 0) throw missingParam('line_items');
  if (mode === 'setup' && raw.length > 0) {
    throw invalidRequest('You cannot pass `line_items` in `setup` mode.', 'line_items');
  }
  raw.forEach((li, i) => {
    const prefix = `line_items[${i}]`;
    const price = load(ctx, 'price', resolvePrice(ctx, li, prefix), `${prefix}[price]`);
    // An archived price is refused; one made inline (archived from birth) is this session's own.
    if (price.active === false && li.priceData === undefined && !li.ownPrice) {
      throw invalidRequest('The price specified is inactive. This field only accepts active prices.', `${prefix}[price]`);
    }
    const metered = isMetered(price);
    const quantity = li.quantity;
    if (quantity === undefined && !metered) throw missingParam(`${prefix}[quantity]`);
    if (price.type === 'recurring' && mode === 'payment') {
      throw invalidRequest(
        'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
        `${prefix}[price]`,
      );
    }
    items.push(lineItem(ctx, price, quantity ?? 0));
  });
  if (mode === 'subscription' && !items.some((li) => li.price.type === 'recurring')) {
    throw invalidRequest('You must provide at least one recurring price in `subscription` mode when using prices.', 'line_items');
  }
  const currencies = new Set(items.map((li) => li.currency));
  if (currencies.size > 1) throw invalidRequest('All line items must have the same currency.', 'line_items');
  const customerId = input.customer || null;
  const customer = customerId ? load(ctx, 'customer', customerId, 'customer') : null;
  const customerEmail = input.customerEmail || null;
  if (customer && customerEmail) {
    throw invalidRequest('You may only specify one of these parameters: customer, customer_email.', 'customer_email');
  }
  const expiresAt = input.expiresAt ?? now + SESSION_LIFETIME;
  if (expiresAt < now + 1800 || expiresAt > now + SESSION_LIFETIME) {
    throw invalidRequest('The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.', 'expires_at');
  }
  const successUrl = input.successUrl ?? null;
  const returnUrl = input.returnUrl;
  if (uiMode === 'hosted' && returnUrl) throw invalidRequest('`return_url` can only be used with `ui_mode=embedded` or `ui_mode=custom`.', 'return_url');
  if (uiMode !== 'hosted' && successUrl) throw invalidRequest('`success_url` can only be used with `ui_mode=hosted`.', 'success_url');
  const subtotal = items.reduce((s, li) => s + li.amount_subtotal, 0);
  const currency = items[0]?.currency ?? (input.currency?.toLowerCase() || null);
  const pmTypes = input.paymentMethodTypes ?? ['card'];
  const id = newId(ctx, 'checkout_session');
  const session: StripeObject = {
    id,
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: input.allowPromotionCodes ?? null,
    allowed_payment_method_types: null,
    amount_subtotal: mode === 'setup' ? null : subtotal,
    amount_total: mode === 'setup' ? null : subtotal,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: input.billingAddressCollection ?? null,
    cancel_url: input.cancelUrl ?? null,
    client_reference_id: input.clientReferenceId ?? null,
    client_secret: uiMode === 'hosted' ? null : `${id}_secret_${ctx.ids.token(24)}`,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: now,
    currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: customerId,
    customer_account: null,
    customer_creation: customer ? null : (input.customerCreation ?? (mode === 'payment' ? 'if_required' : 'always')),
    customer_details: customer
      ? {
          address: customer.address ?? null,
          email: customer.email ?? null,
          name: customer.name ?? null,
          phone: customer.phone ?? null,
          tax_exempt: customer.tax_exempt ?? 'none',
          tax_ids: [],
        }
      : null,
    customer_email: customerEmail,
    discounts: [],
    expires_at: expiresAt,
    integration_identifier: null,
    invoice: null,
    invoice_creation:
      mode === 'payment'
        ? {
            enabled: false,
            invoice_data: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: null, metadata: {}, rendering_options: null },
          }
        : null,
    livemode: false,
    locale: input.locale ?? null,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    mode,
    origin_context: null,
    payment_intent: null,
    payment_link: input.paymentLink ?? null,
    payment_method_collection: mode === 'payment' ? null : (input.paymentMethodCollection ?? 'always'),
    payment_method_configuration_details: null,
    payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    payment_method_types: pmTypes,
    payment_status: mode === 'setup' ? 'no_payment_required' : 'unpaid',
    permissions: null,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: input.submitType ?? null,
    subscription: null,
    success_url: successUrl,
    total_details: mode === 'setup' ? null : { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: uiMode,
    url: uiMode === 'hosted' ? `${ctx.baseUrl}/c/pay/${id}` : null,
    wallet_options: null,
    // Expandable only: the API answers it under `expand[]=line_items` (see presentSession).
    line_items: { object: 'list', data: items, has_more: false, url: `/v1/checkout/sessions/${id}/line_items` },
  };
  if (returnUrl) session.return_url = returnUrl;
  if (input.discounts?.length) {
    if (input.allowPromotionCodes) throw invalidRequest('You may only specify one of these parameters: allow_promotion_codes, discounts.', 'discounts');
    if (mode === 'setup') throw invalidRequest('`discounts` cannot be used in `setup` mode.', 'discounts');
    if (input.discounts.length > 1) throw invalidRequest('You may only apply one discount to a Checkout Session.', 'discounts');
    const ref = input.discounts[0]!;
    if (ref.discount) throw invalidRequest('A Checkout Session takes a `coupon` or a `promotion_code`.', 'discounts[0][discount]');
    const coupon = ref.promotionCode ? undefined : getCoupon(ctx, ref.coupon ?? '', 'discounts[0][coupon]');
    if (coupon && !coupon.valid) throw invalidRequest(`Coupon expired: ${coupon.id}`, 'discounts[0][coupon]', 'coupon_expired');
    const promo = ref.promotionCode ? getPromotionCode(ctx, ref.promotionCode, 'discounts[0][promotion_code]') : undefined;
    if (promo) checkPromotionCode(ctx, promo, { customer: customerId }, 'discounts[0][promotion_code]', { value: subtotal, currency: currency ?? '' });
    setSessionDiscount(ctx, session, promo ? promo.promotion.coupon : coupon!.id, promo?.id ?? null);
  }
  const pid = input.paymentIntentData;
  if (mode === 'payment' && pid) {
    underParam('payment_intent_data', () =>
      checkConnectFunds(ctx, {
        amount: session.amount_total,
        transferData: pid.transferData,
        applicationFeeAmount: pid.applicationFeeAmount,
        onBehalfOf: pid.onBehalfOf,
      }),
    );
  }
  // Remember the creation options completion needs (not part of the Stripe object).
  const options: SessionOptions = {
    subscription: input.subscriptionData ?? null,
    paymentIntent: input.paymentIntentData ?? null,
    setupIntent: input.setupIntentData ?? null,
  };
  ctx.store.setMeta(`stripe:checkout_options:${id}`, JSON.stringify(options));
  ctx.store.put('checkout_session', id, session);
  return presentSession(session, []);
}

/**
 * Put one coupon (from a promotion code or not) on an open session: each line's `amount_discount`,
 * the session's `amount_total` and `total_details.amount_discount` follow.
 */
function setSessionDiscount(ctx: TwinContext, session: StripeObject, couponId: string, promotionCode: string | null): void {
  const coupon = getCoupon(ctx, couponId, 'discounts[0][coupon]');
  const items = session.line_items.data as StripeObject[];
  const shares = couponShares(
    coupon,
    items.map((li) => ({ left: li.amount_subtotal, product: li.price.product ?? null, discountable: true })),
    session.currency,
  );
  items.forEach((li, i) => {
    li.amount_discount = shares[i]!;
    li.amount_total = li.amount_subtotal - li.amount_discount + li.amount_tax;
  });
  const off = shares.reduce((a, b) => a + b, 0);
  session.discounts = [{ coupon: coupon.id, promotion_code: promotionCode }];
  session.total_details.amount_discount = off;
  session.amount_total = session.amount_subtotal - off + session.total_details.amount_tax;
}

/**
 * A promotion code the customer typed on the hosted page of a session created with
 * `allow_promotion_codes` (looked up by `code`, case-insensitively, among active codes).
 */
export function applyPromotionCode(ctx: TwinContext, id: string, code: string): StripeObject {
  const session = clone(loadSession(ctx, id));
  if (!session.allow_promotion_codes) throw invalidRequest('This Checkout Session does not accept promotion codes.', 'promotion_code');
  const promo = listPromotionCodes(ctx, { code, active: true }, { limit: 1 }).data[0];
  if (!promo) throw invalidRequest(`This code is invalid: ${code}.`, 'promotion_code');
  checkPromotionCode(ctx, promo, { customer: session.customer }, 'promotion_code', { value: session.amount_subtotal, currency: session.currency });
  setSessionDiscount(ctx, session, promo.promotion.coupon, promo.id);
  ctx.store.put('checkout_session', id, session);
  return session;
}

/** The session as the API answers it: `line_items` only when expanded. */
export function presentSession(session: StripeObject, expand: string[]): StripeObject {
  if (expand.includes('line_items')) return session;
  const { line_items: _omit, ...rest } = session;
  return rest as StripeObject;
}

export function loadSession(ctx: TwinContext, id: string): StripeObject {
  return load(ctx, 'checkout_session', id, 'session');
}

export function updateSession(ctx: TwinContext, id: string, patch: MetadataPatch | undefined): StripeObject {
  const before = loadSession(ctx, id);
  const session = clone(before);
  if (patch !== undefined) session.metadata = applyMetadata(session.metadata ?? {}, patch);
  ctx.store.put('checkout_session', id, session);
  return session;
}

export function expireSession(ctx: TwinContext, id: string): StripeObject {
  const before = loadSession(ctx, id);
  if (before.status !== 'open') {
    throw invalidRequest(
      `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${before.status}".`,
      'session',
    );
  }
  const session = clone(before);
  session.status = 'expired';
  session.url = null;
  ctx.store.put('checkout_session', id, session);
  emitEvent(ctx, 'checkout.session.expired', presentSession(session, []), previousAttributes(presentSession(before, []), presentSession(session, [])));
  return session;
}

/** `GET /v1/checkout/sessions`: one page through the store's index (`customer_details[email]` looks inside). */
export function listSessions(ctx: TwinContext, f: SessionFilter, window: ListWindow): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  if (f.customer) equals.customer = f.customer;
  if (f.paymentIntent) equals.payment_intent = f.paymentIntent;
  if (f.subscription) equals.subscription = f.subscription;
  if (f.paymentLink) equals.payment_link = f.paymentLink;
  if (f.status) equals.status = f.status;
  const { email } = f;
  const page = readPage<StripeObject>(ctx, 'checkout_session', equals, window, email ? { keep: (s) => s.customer_details?.email === email } : {});
  return { ...page, data: page.data.map((s) => presentSession(s, [])) };
}

/**
 * Twin-only: complete an open session as the customer would on the hosted page, paying with
 * `payment_method` (default `pm_card_visa`). A declined card answers 402 and leaves it open.
 */
export function completeSession(ctx: TwinContext, id: string, input: SessionCompletion): StripeObject {
  const before = loadSession(ctx, id);
  if (before.status !== 'open') {
    throw invalidRequest(`This Checkout Session is no longer active (status \`${before.status}\`).`, 'session', 'checkout_session_inactive' as string);
  }
  const session = clone(before);
  const options = JSON.parse(ctx.store.getMeta(`stripe:checkout_options:${id}`) ?? '{}') as Partial<SessionOptions>;
  const email = input.email || session.customer_email || null;
  const name = input.name || null;
  const pm = resolvePaymentMethod(ctx, input.paymentMethod || 'pm_card_visa', 'payment_method');
  if (name) pm.billing_details = { ...(pm.billing_details ?? {}), name, email };

  let customerId: string | null = session.customer;
  if (!customerId && session.customer_creation === 'always') {
    customerId = createCustomer(ctx, { email: email || undefined, name: name || undefined }).id;
  }
  if (customerId) attachPaymentMethod(ctx, pm, customerId);
  const customer = customerId ? find(ctx, 'customer', customerId) : undefined;
  session.customer = customerId;
  session.customer_details = {
    address: customer?.address ?? null,
    email: email ?? customer?.email ?? null,
    name: name ?? customer?.name ?? null,
    phone: customer?.phone ?? null,
    tax_exempt: customer?.tax_exempt ?? 'none',
    tax_ids: [],
  };

  const discountRefs: DiscountRef[] = ((session.discounts ?? []) as { coupon: string; promotion_code: string | null }[]).map((d) =>
    d.promotion_code ? { promotionCode: d.promotion_code } : { coupon: d.coupon },
  );
  if (session.mode === 'payment') {
    // The discount is redeemed when the customer pays (the coupon's and code's `times_redeemed`).
    for (const ref of discountRefs) redeem(ctx, ref, { customer: customerId, checkoutSession: id }, 'discounts[0]');
    const pid = options.paymentIntent ?? {};
    const result = chargeOnce(ctx, {
      amount: session.amount_total,
      currency: session.currency,
      customer: customerId,
      paymentMethod: pm.id,
      description: pid.description || null,
      metadata: pid.metadata ? applyMetadata({}, pid.metadata) : {},
      connect: { transferData: pid.transferData, applicationFeeAmount: pid.applicationFeeAmount, onBehalfOf: pid.onBehalfOf, transferGroup: pid.transferGroup },
    });
    if (result.failure) {
      throw new StripeApiError(402, {
        type: 'card_error',
        code: result.failure.code,
        decline_code: result.failure.decline_code ?? undefined,
        message: result.failure.message,
        extra: { payment_intent: result.paymentIntent },
      });
    }
    session.payment_intent = result.paymentIntent;
    session.payment_status = 'paid';
  } else if (session.mode === 'setup') {
    const sid = options.setupIntent ?? {};
    session.setup_intent = confirmSetup(ctx, {
      customer: customerId,
      paymentMethod: pm.id,
      description: sid.description || null,
      metadata: sid.metadata ? applyMetadata({}, sid.metadata) : {},
    });
  } else {
    const sd = options.subscription ?? {};
    const create: SubscriptionCreate = {
      customer: customerId!,
      // Every archived price on a session came inline (archived ones are refused at creation).
      items: (session.line_items.data as StripeObject[])
        .filter((li) => li.price.type === 'recurring')
        .map((li) => ({ price: li.price.id, ownPrice: li.price.active === false, ...(isMetered(li.price) ? {} : { quantity: li.quantity }) })),
      defaultPaymentMethod: pm.id,
      paymentBehavior: 'error_if_incomplete',
      trialEnd: sd.trialEnd,
      // `trial_end` wins over `trial_period_days`, as on a subscription create.
      trialPeriodDays: sd.trialEnd === undefined ? sd.trialPeriodDays : undefined,
      metadata: sd.metadata,
      description: sd.description,
      discounts: discountRefs,
    };
    const sub = createSubscription(ctx, create);
    session.subscription = sub.id;
    session.invoice = sub.latest_invoice;
    const inv = sub.latest_invoice ? find(ctx, 'invoice', sub.latest_invoice) : undefined;
    session.payment_status = inv && inv.amount_due === 0 ? 'no_payment_required' : 'paid';
  }
  session.status = 'complete';
  session.url = null;
  ctx.store.put('checkout_session', id, session);
  emitEvent(ctx, 'checkout.session.completed', presentSession(session, []));
  return session;
}
