// The customer portal: configurations (`bpc_`: which features a customer may use) and sessions
// (`bps_`: a short-lived link for one customer). What a person does on the portal page
// (routes/hosted-portal.ts) goes through `portalCancel`, `portalSwitchPrice` and
// `portalUpdateCard` here, which change the subscription or customer exactly as Stripe's portal
// does, with the same events.
//
// Stripe takes the default configuration from the Dashboard's saved portal settings; a twin has
// no Dashboard, so a session created before any configuration exists creates the default one
// (the Dashboard's defaults: cancel at period end, card updates, invoice history).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, previousAttributes, type MetadataPatch, type StripeJson, type StripeObject } from './objects.js';
import { getCustomer, patchCustomer } from './customers.js';
import { FEEDBACK, type PRORATION_BEHAVIORS, cancelSubscriptionNow, loadSubscription, updateSubscription } from './subscriptions.js';
import { subscriptionItems } from './subscription-items.js';
import { attachPaymentMethod, resolvePaymentMethod } from './payment-methods.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';

export const CANCEL_MODES = ['at_period_end', 'immediately'] as const;
export const ALLOWED_SUBSCRIPTION_UPDATES = ['price', 'promotion_code', 'quantity'] as const;
export const ALLOWED_CUSTOMER_UPDATES = ['address', 'email', 'name', 'phone', 'shipping', 'tax_id'] as const;
export const FLOW_TYPES = ['payment_method_update', 'subscription_cancel', 'subscription_update', 'subscription_update_confirm'] as const;
type Proration = (typeof PRORATION_BEHAVIORS)[number];

export interface PortalFeaturesInput {
  customerUpdate?: { enabled: boolean; allowedUpdates?: string[] };
  invoiceHistory?: { enabled: boolean };
  paymentMethodUpdate?: { enabled: boolean };
  subscriptionCancel?: {
    enabled: boolean;
    mode?: (typeof CANCEL_MODES)[number];
    prorationBehavior?: Proration;
    cancellationReason?: { enabled: boolean; options: string[] };
  };
  subscriptionPause?: { enabled?: boolean };
  subscriptionUpdate?: {
    enabled: boolean;
    defaultAllowedUpdates?: string[];
    products?: { product: string; prices: string[] }[] | null;
    prorationBehavior?: Proration;
  };
}

export interface PortalConfigurationFields {
  features?: PortalFeaturesInput;
  businessProfile?: { headline?: string | null; privacyPolicyUrl?: string; termsOfServiceUrl?: string };
  defaultReturnUrl?: string | null;
  loginPage?: { enabled: boolean };
  metadata?: MetadataPatch;
  name?: string | null;
  active?: boolean;
}

function defaultFeatures(): StripeJson {
  return {
    customer_update: { allowed_updates: [], enabled: false },
    invoice_history: { enabled: false },
    payment_method_update: { enabled: false, payment_method_configuration: null },
    subscription_cancel: {
      cancellation_reason: { enabled: false, feedback_options: null, options: [] },
      enabled: false,
      mode: 'at_period_end',
      proration_behavior: 'none',
    },
    subscription_pause: { duration: { interval_options: [], type: 'indefinite' }, enabled: false },
    subscription_update: {
      billing_cycle_anchor: null,
      default_allowed_updates: [],
      enabled: false,
      products: [],
      proration_behavior: 'none',
      schedule_at_period_end: { conditions: [] },
      trial_update_behavior: 'end_trial',
    },
  };
}

function checkProducts(ctx: TwinContext, products: { product: string; prices: string[] }[]): void {
  products.forEach((p, i) => {
    const prefix = `features[subscription_update][products][${i}]`;
    if (!find(ctx, 'product', p.product)) throw resourceMissing('product', p.product, `${prefix}[product]`);
    if (p.prices.length === 0) throw invalidRequest('Missing required param: prices.', `${prefix}[prices]`, 'parameter_missing');
    p.prices.forEach((priceId, j) => {
      const price = find(ctx, 'price', priceId);
      if (!price) throw resourceMissing('price', priceId, `${prefix}[prices][${j}]`);
      if (price.product !== p.product) throw invalidRequest(`The price ${priceId} does not belong to product ${p.product}.`, `${prefix}[prices][${j}]`);
      if (!price.recurring) throw invalidRequest(`The price ${priceId} is not a recurring price.`, `${prefix}[prices][${j}]`);
    });
  });
}

function applyFeatures(ctx: TwinContext, f: StripeJson, input: PortalFeaturesInput): void {
  if (input.customerUpdate) {
    f.customer_update.enabled = input.customerUpdate.enabled;
    if (input.customerUpdate.allowedUpdates) f.customer_update.allowed_updates = input.customerUpdate.allowedUpdates;
  }
  if (input.invoiceHistory) f.invoice_history.enabled = input.invoiceHistory.enabled;
  if (input.paymentMethodUpdate) f.payment_method_update.enabled = input.paymentMethodUpdate.enabled;
  const cancel = input.subscriptionCancel;
  if (cancel) {
    f.subscription_cancel.enabled = cancel.enabled;
    if (cancel.mode) f.subscription_cancel.mode = cancel.mode;
    if (cancel.prorationBehavior) f.subscription_cancel.proration_behavior = cancel.prorationBehavior;
    if (cancel.cancellationReason) {
      f.subscription_cancel.cancellation_reason = {
        enabled: cancel.cancellationReason.enabled,
        feedback_options: null,
        options: cancel.cancellationReason.options,
      };
    }
  }
  if (input.subscriptionPause?.enabled !== undefined) f.subscription_pause.enabled = input.subscriptionPause.enabled;
  const update = input.subscriptionUpdate;
  if (update) {
    if (update.products) checkProducts(ctx, update.products);
    f.subscription_update.enabled = update.enabled;
    if (update.defaultAllowedUpdates) f.subscription_update.default_allowed_updates = update.defaultAllowedUpdates;
    if (update.products !== undefined) {
      f.subscription_update.products = (update.products ?? []).map((p) => ({
        adjustable_quantity: { enabled: false, maximum: null, minimum: 1 },
        prices: p.prices,
        product: p.product,
      }));
    }
    if (update.prorationBehavior) f.subscription_update.proration_behavior = update.prorationBehavior;
  }
  const su = f.subscription_update;
  if (su.enabled && su.default_allowed_updates.length === 0) {
    throw invalidRequest(
      'You must specify at least one value in `default_allowed_updates` to enable subscription updates.',
      'features[subscription_update][default_allowed_updates]',
    );
  }
  if (su.enabled && su.default_allowed_updates.includes('price') && su.products.length === 0) {
    throw invalidRequest('You must specify `products` when `default_allowed_updates` includes `price`.', 'features[subscription_update][products]');
  }
}

function applyFields(ctx: TwinContext, c: StripeObject, input: PortalConfigurationFields): void {
  if (input.features) applyFeatures(ctx, c.features, input.features);
  const bp = input.businessProfile;
  if (bp) {
    if (bp.headline !== undefined) c.business_profile.headline = bp.headline;
    if (bp.privacyPolicyUrl !== undefined) c.business_profile.privacy_policy_url = bp.privacyPolicyUrl;
    if (bp.termsOfServiceUrl !== undefined) c.business_profile.terms_of_service_url = bp.termsOfServiceUrl;
  }
  if (input.defaultReturnUrl !== undefined) c.default_return_url = input.defaultReturnUrl;
  if (input.loginPage) {
    c.login_page = input.loginPage.enabled
      ? { enabled: true, url: c.login_page.url ?? `${ctx.baseUrl}/p/login/${ctx.ids.token(24)}` }
      : { enabled: false, url: null };
  }
  if (input.metadata !== undefined) c.metadata = applyMetadata(c.metadata ?? {}, input.metadata);
  if (input.name !== undefined) c.name = input.name;
  if (input.active !== undefined) {
    if (!input.active && c.is_default) throw invalidRequest('You cannot deactivate the default configuration.', 'active');
    c.active = input.active;
  }
}

function defaultConfiguration(ctx: TwinContext): StripeObject | undefined {
  return ctx.store.list<StripeObject>('billing_portal_configuration').find((c) => c.is_default);
}

export function createPortalConfiguration(
  ctx: TwinContext,
  input: PortalConfigurationFields & { features: PortalFeaturesInput },
  opts: { isDefault?: boolean } = {},
): StripeObject {
  const now = ctx.clock.nowSeconds();
  const config: StripeObject = {
    id: newId(ctx, 'billing_portal_configuration'),
    object: 'billing_portal.configuration',
    active: true,
    application: null,
    business_profile: { headline: null, privacy_policy_url: null, terms_of_service_url: null },
    created: now,
    default_return_url: null,
    features: defaultFeatures(),
    is_default: opts.isDefault ?? false,
    livemode: false,
    login_page: { enabled: false, url: null },
    metadata: {},
    name: null,
    updated: now,
  };
  applyFields(ctx, config, input);
  ctx.store.put('billing_portal_configuration', config.id, config);
  emitEvent(ctx, 'billing_portal.configuration.created', config);
  return config;
}

export function getPortalConfiguration(ctx: TwinContext, id: string, param = 'configuration'): StripeObject {
  const c = ctx.store.get<StripeObject>('billing_portal_configuration', id);
  if (!c) throw resourceMissing('configuration', id, param);
  return c;
}

export function updatePortalConfiguration(ctx: TwinContext, id: string, input: PortalConfigurationFields): StripeObject {
  const before = getPortalConfiguration(ctx, id, 'configuration');
  const c = clone(before);
  applyFields(ctx, c, input);
  const prev = previousAttributes(before, c);
  if (Object.keys(prev).length === 0) return c;
  c.updated = ctx.clock.nowSeconds();
  ctx.store.put('billing_portal_configuration', c.id, c);
  emitEvent(ctx, 'billing_portal.configuration.updated', c, prev);
  return c;
}

export function listPortalConfigurations(ctx: TwinContext, f: { active?: boolean; isDefault?: boolean }, window: ListWindow): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  if (f.active !== undefined) equals.active = f.active;
  if (f.isDefault !== undefined) equals.is_default = f.isDefault;
  return readPage<StripeObject>(ctx, 'billing_portal_configuration', equals, window);
}

// ---------------------------------------------------------------------------------------------
// Sessions

export interface PortalFlowInput {
  type: (typeof FLOW_TYPES)[number];
  subscription?: string;
  afterCompletion?: { type: 'hosted_confirmation' | 'portal_homepage' | 'redirect'; redirectReturnUrl?: string; customMessage?: string };
}

export interface PortalSessionCreate {
  customer: string;
  returnUrl?: string;
  configuration?: string;
  locale?: string;
  flow?: PortalFlowInput;
}

function flowObject(ctx: TwinContext, customer: string, config: StripeObject, flow: PortalFlowInput): Record<string, unknown> {
  const needsSubscription = flow.type !== 'payment_method_update';
  if (needsSubscription) {
    const param = `flow_data[${flow.type}][subscription]`;
    if (!flow.subscription) throw invalidRequest(`Missing required param: ${param}.`, param, 'parameter_missing');
    const sub = loadSubscription(ctx, flow.subscription, param);
    if (sub.customer !== customer) throw invalidRequest(`The subscription ${sub.id} does not belong to customer ${customer}.`, param);
    if (sub.status === 'canceled') throw invalidRequest('You cannot create a portal session flow for a canceled subscription.', param);
  }
  const feature = {
    payment_method_update: 'payment_method_update',
    subscription_cancel: 'subscription_cancel',
    subscription_update: 'subscription_update',
    subscription_update_confirm: 'subscription_update',
  }[flow.type];
  if (flow.type !== 'subscription_update_confirm' && !config.features[feature].enabled) {
    throw invalidRequest(`The \`${flow.type}\` flow requires the \`${feature}\` feature to be enabled in the configuration.`, 'flow_data[type]');
  }
  const after = flow.afterCompletion ?? { type: 'portal_homepage' as const };
  if (after.type === 'redirect' && !after.redirectReturnUrl) {
    throw invalidRequest(
      'Missing required param: flow_data[after_completion][redirect][return_url].',
      'flow_data[after_completion][redirect][return_url]',
      'parameter_missing',
    );
  }
  return {
    after_completion: {
      hosted_confirmation: after.type === 'hosted_confirmation' ? { custom_message: after.customMessage ?? null } : null,
      redirect: after.type === 'redirect' ? { return_url: after.redirectReturnUrl } : null,
      type: after.type,
    },
    subscription_cancel: flow.type === 'subscription_cancel' ? { retention: null, subscription: flow.subscription } : null,
    subscription_update: flow.type === 'subscription_update' ? { subscription: flow.subscription } : null,
    subscription_update_confirm: flow.type === 'subscription_update_confirm' ? { discounts: null, items: [], subscription: flow.subscription } : null,
    type: flow.type,
  };
}

export function createPortalSession(ctx: TwinContext, input: PortalSessionCreate): StripeObject {
  const customer = getCustomer(ctx, input.customer);
  let config: StripeObject;
  if (input.configuration) {
    config = getPortalConfiguration(ctx, input.configuration);
    if (!config.active) throw invalidRequest(`The configuration ${config.id} is not active.`, 'configuration');
  } else {
    config =
      defaultConfiguration(ctx) ??
      createPortalConfiguration(
        ctx,
        {
          features: { subscriptionCancel: { enabled: true, mode: 'at_period_end' }, paymentMethodUpdate: { enabled: true }, invoiceHistory: { enabled: true } },
        },
        { isDefault: true },
      );
  }
  const returnUrl = input.returnUrl ?? config.default_return_url ?? null;
  if (!returnUrl && !input.flow) {
    throw invalidRequest('Missing required param: return_url. You can also set a default return URL on the configuration.', 'return_url', 'parameter_missing');
  }
  const id = newId(ctx, 'billing_portal_session');
  const session: StripeObject = {
    id,
    object: 'billing_portal.session',
    configuration: config.id,
    created: ctx.clock.nowSeconds(),
    customer: customer.id,
    customer_account: null,
    flow: input.flow ? flowObject(ctx, customer.id, config, input.flow) : null,
    livemode: false,
    locale: input.locale ?? null,
    on_behalf_of: null,
    return_url: returnUrl,
    url: `${ctx.baseUrl}/p/session/${ctx.ids.token(32)}`,
  };
  ctx.store.put('billing_portal_session', id, session);
  emitEvent(ctx, 'billing_portal.session.created', session);
  return session;
}

/** The session a portal page opens: the token at the end of its `url` is its key, as Stripe's link is. */
export function sessionByToken(ctx: TwinContext, token: string): { session: StripeObject; config: StripeObject } | undefined {
  const suffix = `/p/session/${token}`;
  const session = token ? ctx.store.list<StripeObject>('billing_portal_session').find((s) => String(s.url).endsWith(suffix)) : undefined;
  if (!session) return undefined;
  const config = ctx.store.get<StripeObject>('billing_portal_configuration', session.configuration);
  return config ? { session, config } : undefined;
}

// ---------------------------------------------------------------------------------------------
// What a person does on the portal page

function ownSubscription(ctx: TwinContext, session: StripeObject, id: string): StripeObject {
  const sub = find(ctx, 'subscription', id);
  if (!sub || sub.customer !== session.customer) throw invalidRequest('This subscription cannot be managed from this portal session.', 'subscription');
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') throw invalidRequest('This subscription has already ended.', 'subscription');
  return sub;
}

/** Cancel as the configuration says: at period end (`customer.subscription.updated`) or now (`…deleted`). */
export function portalCancel(
  ctx: TwinContext,
  session: StripeObject,
  config: StripeObject,
  input: { subscription: string; feedback?: string; comment?: string },
): StripeObject {
  const cancel = config.features.subscription_cancel;
  if (!cancel.enabled) throw invalidRequest('Cancelling subscriptions is not enabled in this portal.', 'subscription');
  const sub = ownSubscription(ctx, session, input.subscription);
  const feedback = input.feedback && (FEEDBACK as readonly string[]).includes(input.feedback) ? (input.feedback as (typeof FEEDBACK)[number]) : undefined;
  if (cancel.mode === 'immediately') {
    return cancelSubscriptionNow(ctx, sub.id, { reason: 'cancellation_requested', comment: input.comment ?? null, feedback: feedback ?? null });
  }
  return updateSubscription(ctx, sub.id, {
    cancelAtPeriodEnd: true,
    cancellationDetails: { ...(feedback ? { feedback } : {}), ...(input.comment ? { comment: input.comment } : {}) },
  });
}

/** Undo a scheduled cancellation ("Renew plan" on Stripe's portal). */
export function portalRenew(ctx: TwinContext, session: StripeObject, input: { subscription: string }): StripeObject {
  const sub = ownSubscription(ctx, session, input.subscription);
  if (!sub.cancel_at_period_end && sub.cancel_at === null) throw invalidRequest('This subscription is not scheduled to cancel.', 'subscription');
  return updateSubscription(ctx, sub.id, { cancelAtPeriodEnd: false });
}

/** The prices a subscription may switch to under the configuration (none when updates are off). */
export function switchablePrices(config: StripeObject): string[] {
  const su = config.features.subscription_update;
  if (!su.enabled || !su.default_allowed_updates.includes('price')) return [];
  return (su.products as { prices: string[] }[]).flatMap((p) => p.prices);
}

/** Switch the subscription's (single) item to another allowed price, prorated as configured. */
export function portalSwitchPrice(ctx: TwinContext, session: StripeObject, config: StripeObject, input: { subscription: string; price: string }): StripeObject {
  const sub = ownSubscription(ctx, session, input.subscription);
  if (!switchablePrices(config).includes(input.price)) throw invalidRequest('This price is not available in this portal.', 'price');
  const item = subscriptionItems(sub)[0]!;
  if (item.price.id === input.price) return sub;
  return updateSubscription(ctx, sub.id, {
    items: [{ id: item.id, price: input.price }],
    prorationBehavior: config.features.subscription_update.proration_behavior,
  });
}

/**
 * A new card becomes the customer's default for invoices (`payment_method.attached`,
 * `customer.updated`); subscriptions with their own default payment method move to it too.
 */
export function portalUpdateCard(ctx: TwinContext, session: StripeObject, config: StripeObject, paymentMethodId: string): StripeObject {
  if (!config.features.payment_method_update.enabled) throw invalidRequest('Updating payment methods is not enabled in this portal.', 'payment_method');
  const pm = attachPaymentMethod(ctx, resolvePaymentMethod(ctx, paymentMethodId), session.customer);
  const customer = getCustomer(ctx, session.customer);
  const after = patchCustomer(ctx, customer.id, { invoice_settings: { ...customer.invoice_settings, default_payment_method: pm.id } });
  for (const sub of ctx.store.list<StripeObject>('subscription')) {
    if (sub.customer === customer.id && sub.default_payment_method && sub.status !== 'canceled') {
      updateSubscription(ctx, sub.id, { defaultPaymentMethod: pm.id });
    }
  }
  return after;
}
