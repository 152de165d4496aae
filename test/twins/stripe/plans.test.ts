// Plans through the official SDK: a plan is a recurring price under its older name — one record,
// one id — so `prices.retrieve(plan.id)` and `plans.retrieve(price.id)` both answer, a subscription
// takes `items[][plan]`, a plan may name its own id, and defaults and validation are Stripe's.

import t from 'tap';
import type Stripe from 'stripe';
import { startBillingTwin, type BillingTwin } from './billing-helpers.js';

let bt: BillingTwin;
let stripe: Stripe;
t.before(async () => {
  bt = await startBillingTwin();
  stripe = bt.stripe;
});
t.teardown(() => bt.close());

t.test('a plan is a price: retrieved either way, with Stripe’s defaults', async (t) => {
  const product = await stripe.products.create({ name: 'Gold' });
  const plan = await stripe.plans.create({ amount: 2_000, currency: 'usd', interval: 'month', product: product.id, nickname: 'Gold monthly' });
  t.equal(plan.object, 'plan');
  t.match(plan.id, /^price_/);
  t.equal(plan.interval_count, 1, 'interval_count defaults to 1');
  t.equal(plan.product, product.id, 'the product is an id, not expanded');
  t.equal(plan.amount, 2_000);
  t.equal(plan.usage_type, 'licensed');
  t.equal(plan.active, true);

  const asPrice = await stripe.prices.retrieve(plan.id);
  t.equal(asPrice.object, 'price');
  t.equal(asPrice.unit_amount, 2_000);
  t.equal(asPrice.recurring?.interval, 'month');
  t.equal(asPrice.nickname, 'Gold monthly');

  const price = await stripe.prices.create({ unit_amount: 500, currency: 'eur', recurring: { interval: 'year' }, product: product.id });
  const asPlan = await stripe.plans.retrieve(price.id);
  t.equal(asPlan.object, 'plan');
  t.equal(asPlan.interval, 'year');
  t.equal(asPlan.amount, 500);
  const oneTime = await stripe.prices.create({ unit_amount: 500, currency: 'usd', product: product.id });
  const notAPlan = await stripe.plans.retrieve(oneTime.id).catch((e) => e);
  t.equal(notAPlan.statusCode, 404, 'a one-time price is no plan');

  const listed = await stripe.plans.list({ product: product.id });
  t.ok(listed.data.length > 0);
  t.same(listed.data.map((p) => p.id).sort(), [plan.id, price.id].sort());
});

t.test('a plan names its own id, and its product inline; validation as Stripe', async (t) => {
  const plan = await stripe.plans.create({ id: 'gold-annual', amount: 20_000, currency: 'usd', interval: 'year', product: { name: 'Gold (annual)' } });
  t.equal(plan.id, 'gold-annual');
  t.match(plan.product, /^prod_/);
  t.equal((await stripe.prices.retrieve('gold-annual')).unit_amount, 20_000);
  const again = await stripe.plans.create({ id: 'gold-annual', amount: 1, currency: 'usd', interval: 'year', product: plan.product as string }).catch((e) => e);
  t.equal(again.statusCode, 400);
  t.equal(again.code, 'resource_already_exists');

  const badCurrency = await stripe.plans.create({ amount: 100, currency: 'zzz', interval: 'month', product: plan.product as string }).catch((e) => e);
  t.equal(badCurrency.statusCode, 400);
  t.equal(badCurrency.param, 'currency');
  const noAmount = await stripe.plans.create({ currency: 'usd', interval: 'month', product: plan.product as string }).catch((e) => e);
  t.equal(noAmount.param, 'amount');
  const tooMany = await stripe.plans
    .create({ amount: 100, currency: 'usd', interval: 'year', interval_count: 4, product: plan.product as string })
    .catch((e) => e);
  t.equal(tooMany.param, 'interval_count');
  const noProduct = await stripe.plans.create({ amount: 100, currency: 'usd', interval: 'month' }).catch((e) => e);
  t.equal(noProduct.param, 'product');
});

t.test('subscriptions on items[][plan]; a deleted plan takes no new subscribers, existing ones go on', async (t) => {
  const customer = await stripe.customers.create({ email: 'plan@example.com', payment_method: 'pm_card_visa', invoice_settings: {} });
  await stripe.customers.update(customer.id, {
    invoice_settings: { default_payment_method: (await stripe.customers.listPaymentMethods(customer.id)).data[0]!.id },
  });
  const plan = await stripe.plans.create({ amount: 1_000, currency: 'usd', interval: 'month', product: { name: 'Basic' } });
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ plan: plan.id }] });
  t.equal(sub.status, 'active');
  t.equal(sub.items.data[0]!.plan.id, plan.id);
  t.equal(sub.items.data[0]!.price.id, plan.id);
  const both = await stripe.subscriptions.create({ customer: customer.id, items: [{ plan: plan.id, price: plan.id }] }).catch((e) => e);
  t.equal(both.statusCode, 400);

  const updated = await stripe.plans.update(plan.id, { nickname: 'Basic monthly', metadata: { tier: 'basic' } });
  t.equal(updated.nickname, 'Basic monthly');
  t.same(updated.metadata, { tier: 'basic' });
  const deleted = await stripe.plans.del(plan.id);
  t.same(deleted, { id: plan.id, object: 'plan', deleted: true });
  t.equal((await stripe.plans.retrieve(plan.id).catch((e) => e)).statusCode, 404);
  t.equal((await stripe.subscriptions.retrieve(sub.id)).status, 'active', 'the existing subscription goes on');
  const types = (await stripe.events.list({ types: ['plan.created', 'plan.updated', 'plan.deleted'] })).data.map((e) => e.type);
  t.ok(types.includes('plan.deleted') && types.includes('plan.updated') && types.includes('plan.created'));
});
