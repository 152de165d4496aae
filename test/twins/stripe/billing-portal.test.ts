// The customer portal through the official SDK: configurations (create, retrieve, update, list,
// the default one), sessions, and the page a session's `url` opens, driven by plain form posts as
// a person's browser sends them: cancel at period end (`customer.subscription.updated` with
// `cancel_at_period_end`), renew, switch price, update the card, cancel immediately, a
// `subscription_cancel` flow that redirects. Every webhook verified with constructEvent.

import t from 'tap';
import type Stripe from 'stripe';
import { customerWithCard, monthlyPrice } from './billing-helpers.js';
import { hookedBillingTwin } from './hooked-twin.js';
import { checkSchema } from './spec-schema.js';

const twin = hookedBillingTwin(t);

function post(url: string, form: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
}

t.test('a session without a configuration gets the default one; cancel on the page sets cancel_at_period_end', async (t) => {
  const price = await monthlyPrice(twin.stripe, 2000);
  const { customer } = await customerWithCard(twin.stripe);
  const sub = await twin.stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  t.equal(sub.status, 'active');

  const session = await twin.stripe.billingPortal.sessions.create({ customer: customer.id, return_url: 'https://example.com/account' });
  t.match(session.id, /^bps_/);
  t.equal(session.object, 'billing_portal.session');
  t.equal(session.return_url, 'https://example.com/account');
  t.match(session.configuration, /^bpc_/);
  const created = await twin.hooks.waitFor('billing_portal.session.created', (s) => s.id === session.id);
  t.equal((created.data.object as Stripe.BillingPortal.Session).customer, customer.id);
  const config = await twin.stripe.billingPortal.configurations.retrieve(session.configuration as string);
  t.equal(config.is_default, true);
  checkSchema(t, 'billing_portal.session', created.data.object);
  checkSchema(t, 'billing_portal.configuration', config);
  t.equal(config.features.subscription_cancel.enabled, true);
  t.equal(config.features.subscription_cancel.mode, 'at_period_end');

  const page = await fetch(session.url);
  t.equal(page.status, 200);
  const html = await page.text();
  t.match(html, /Pro plan/);
  t.match(html, /Cancel plan/);
  t.match(html, /visa •••• 4242/);
  t.match(html, /https:\/\/example.com\/account/);

  const canceled = await post(session.url, { action: 'cancel', subscription: sub.id });
  t.equal(canceled.status, 200);
  const after = await canceled.text();
  t.match(after, /Cancels on/);
  t.match(after, /Renew plan/);
  const fresh = await twin.stripe.subscriptions.retrieve(sub.id);
  t.equal(fresh.cancel_at_period_end, true);
  t.equal(fresh.status, 'active');
  t.equal(fresh.cancellation_details?.reason, 'cancellation_requested');
  const updated = await twin.hooks.waitFor('customer.subscription.updated', (s) => s.id === sub.id && s.cancel_at_period_end === true);
  t.same((updated.data.previous_attributes as Partial<Stripe.Subscription>)?.cancel_at_period_end, false);

  const renewed = await post(session.url, { action: 'renew', subscription: sub.id });
  t.equal(renewed.status, 200);
  t.equal((await twin.stripe.subscriptions.retrieve(sub.id)).cancel_at_period_end, false);
  await twin.hooks.waitFor('customer.subscription.updated', (s) => s.id === sub.id && s.cancel_at_period_end === false);

  const foreign = await twin.stripe.subscriptions.create({ customer: (await customerWithCard(twin.stripe)).customer.id, items: [{ price: price.id }] });
  const refused = await post(session.url, { action: 'cancel', subscription: foreign.id });
  t.equal(refused.status, 400);
  t.equal((await twin.stripe.subscriptions.retrieve(foreign.id)).cancel_at_period_end, false);

  t.equal((await fetch(session.url.replace(/[^/]+$/, 'nope'))).status, 404);
  for (const action of ['constructor', '__proto__', 'toString', '']) {
    t.equal((await post(session.url, { action, subscription: sub.id })).status, 400, `action=${action} refused`);
  }
  t.same(twin.hooks.rejected, []);
});

t.test('configurations: create, retrieve, update, list; switching price and updating the card on the page', async (t) => {
  const basic = await monthlyPrice(twin.stripe, 1000, 'Basic');
  const premium = await twin.stripe.prices.create({ product: basic.product as string, unit_amount: 3000, currency: 'usd', recurring: { interval: 'month' } });
  const config = await twin.stripe.billingPortal.configurations.create({
    business_profile: { headline: 'Acme billing' },
    features: {
      subscription_cancel: { enabled: true, mode: 'immediately', cancellation_reason: { enabled: true, options: ['too_expensive', 'unused'] } },
      subscription_update: {
        enabled: true,
        default_allowed_updates: ['price'],
        products: [{ product: basic.product as string, prices: [basic.id, premium.id] }],
        proration_behavior: 'none',
      },
      payment_method_update: { enabled: true },
      invoice_history: { enabled: true },
    },
  });
  t.match(config.id, /^bpc_/);
  t.equal(config.is_default, false);
  t.equal(config.features.subscription_update.products?.[0]?.prices.length, 2);
  await twin.hooks.waitFor('billing_portal.configuration.created', (c) => c.id === config.id);
  const renamed = await twin.stripe.billingPortal.configurations.update(config.id, {
    metadata: { team: 'billing' },
    default_return_url: 'https://example.com/back',
  });
  t.equal(renamed.metadata?.team, 'billing');
  t.equal(renamed.default_return_url, 'https://example.com/back');
  await twin.hooks.waitFor('billing_portal.configuration.updated', (c) => c.id === config.id);
  const listed = await twin.stripe.billingPortal.configurations.list({ is_default: false });
  t.ok(listed.data.length > 0 && listed.data.some((c) => c.id === config.id));
  const bad = await twin.stripe.billingPortal.configurations
    .create({ features: { subscription_update: { enabled: true, default_allowed_updates: ['price'] } } })
    .catch((e) => e);
  t.equal(bad.statusCode, 400);
  t.equal(bad.param, 'features[subscription_update][products]');
  const missing = await twin.stripe.billingPortal.configurations.retrieve('bpc_missing').catch((e) => e);
  t.equal(missing.statusCode, 404);

  const { customer } = await customerWithCard(twin.stripe);
  const sub = await twin.stripe.subscriptions.create({ customer: customer.id, items: [{ price: basic.id }] });
  const session = await twin.stripe.billingPortal.sessions.create({ customer: customer.id, configuration: config.id });
  t.equal(session.return_url, 'https://example.com/back', 'the configuration’s default return URL');
  const html = await (await fetch(session.url)).text();
  t.match(html, /Update plan/);
  t.match(html, new RegExp(premium.id));
  t.match(html, /too expensive/);

  const offered = await post(session.url, { action: 'switch_price', subscription: sub.id, price: 'price_nope' });
  t.equal(offered.status, 400);
  const switched = await post(session.url, { action: 'switch_price', subscription: sub.id, price: premium.id });
  t.equal(switched.status, 200);
  const fresh = await twin.stripe.subscriptions.retrieve(sub.id);
  t.equal(fresh.items.data[0]!.price.id, premium.id);
  const hook = await twin.hooks.waitFor('customer.subscription.updated', (s) => s.id === sub.id && s.items.data[0].price.id === premium.id);
  t.ok((hook.data.previous_attributes as Partial<Stripe.Subscription>)?.items, 'previous items in the event');

  const declined = await post(session.url, { action: 'update_card', card_number: '4000 0000 0000 0002', card_expiry: '12 / 34', card_cvc: '123' });
  t.equal(declined.status, 402);
  const card = await post(session.url, {
    action: 'update_card',
    card_number: '5555 5555 5555 4444',
    card_expiry: '12 / 34',
    card_cvc: '123',
    name: 'Jenny Rosen',
  });
  t.equal(card.status, 200);
  t.match(await card.text(), /mastercard •••• 4444/);
  const cust = (await twin.stripe.customers.retrieve(customer.id)) as Stripe.Customer;
  const pm = await twin.stripe.paymentMethods.retrieve(cust.invoice_settings.default_payment_method as string);
  t.equal(pm.card?.last4, '4444');
  t.equal(pm.customer, customer.id);
  await twin.hooks.waitFor('payment_method.attached', (p) => p.id === pm.id);
  await twin.hooks.waitFor('customer.updated', (c) => c.id === customer.id && c.invoice_settings.default_payment_method === pm.id);

  const gone = await post(session.url, { action: 'cancel', subscription: sub.id, feedback: 'too_expensive', comment: 'pricey' });
  t.equal(gone.status, 200);
  const ended = await twin.stripe.subscriptions.retrieve(sub.id);
  t.equal(ended.status, 'canceled');
  t.equal(ended.cancellation_details?.feedback, 'too_expensive');
  t.equal(ended.cancellation_details?.comment, 'pricey');
  await twin.hooks.waitFor('customer.subscription.deleted', (s) => s.id === sub.id);
});

t.test('a subscription_cancel flow redirects after completion', async (t) => {
  const price = await monthlyPrice(twin.stripe, 1500);
  const { customer } = await customerWithCard(twin.stripe);
  const sub = await twin.stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  const session = await twin.stripe.billingPortal.sessions.create({
    customer: customer.id,
    return_url: 'https://example.com/account',
    flow_data: {
      type: 'subscription_cancel',
      subscription_cancel: { subscription: sub.id },
      after_completion: { type: 'redirect', redirect: { return_url: 'https://example.com/bye' } },
    },
  });
  t.equal(session.flow?.type, 'subscription_cancel');
  checkSchema(t, 'billing_portal.session', session);
  t.equal(session.flow?.subscription_cancel?.subscription, sub.id);
  const res = await post(session.url, { action: 'cancel', subscription: sub.id });
  t.equal(res.status, 303);
  t.equal(res.headers.get('location'), 'https://example.com/bye');
  t.equal((await twin.stripe.subscriptions.retrieve(sub.id)).cancel_at_period_end, true);
  const missingSub = await twin.stripe.billingPortal.sessions
    .create({ customer: customer.id, return_url: 'https://example.com', flow_data: { type: 'subscription_cancel' } as any })
    .catch((e) => e);
  t.equal(missingSub.statusCode, 400);
  const noCustomer = await twin.stripe.billingPortal.sessions.create({ customer: 'cus_missing', return_url: 'https://example.com' }).catch((e) => e);
  t.equal(noCustomer.statusCode, 404);
});
