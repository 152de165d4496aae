// Entitlements through the official SDK: features, the features a product grants, and a customer's
// active entitlements following their subscription — granted when it starts, changed when it moves
// to another product, gone when it is canceled — each change sent as
// `entitlements.active_entitlement_summary.updated` with the old list.

import t from 'tap';
import type Stripe from 'stripe';
import { customerWithCard, startBillingTwin, type BillingTwin } from './billing-helpers.js';

let bt: BillingTwin;
let stripe: Stripe;
t.before(async () => {
  bt = await startBillingTwin();
  stripe = bt.stripe;
});
t.teardown(() => bt.close());

const summaries = async (customer: string) =>
  (await stripe.events.list({ type: 'entitlements.active_entitlement_summary.updated', limit: 100 })).data
    .map((e) => e.data.object as unknown as Stripe.Entitlements.ActiveEntitlementSummary)
    .filter((s) => s.customer === customer);
const lookupKeys = async (customer: string) => (await stripe.entitlements.activeEntitlements.list({ customer })).data.map((e) => e.lookup_key).sort();

t.test('features and product features', async (t) => {
  const feature = await stripe.entitlements.features.create({ name: 'Export to CSV', lookup_key: 'export-csv', metadata: { tier: 'pro' } });
  t.match(feature.id, /^feat_/);
  t.equal(feature.object, 'entitlements.feature');
  t.equal(feature.active, true);
  const dup = await stripe.entitlements.features.create({ name: 'Again', lookup_key: 'export-csv' }).catch((e) => e);
  t.equal(dup.statusCode, 400);
  const product = await stripe.products.create({ name: 'Pro' });
  const pf = await stripe.products.createFeature(product.id, { entitlement_feature: feature.id });
  t.match(pf.id, /^prodft_/);
  t.equal(pf.entitlement_feature.id, feature.id);
  t.equal((pf as unknown as Record<string, unknown>).product, undefined, 'no twin-only keys on the wire');
  const listed = await stripe.products.listFeatures(product.id);
  t.same(
    listed.data.map((x) => x.id),
    [pf.id],
  );
  const twice = await stripe.products.createFeature(product.id, { entitlement_feature: feature.id }).catch((e) => e);
  t.equal(twice.statusCode, 400);
  const missing = await stripe.products.createFeature(product.id, { entitlement_feature: 'feat_missing' }).catch((e) => e);
  t.equal(missing.statusCode, 404);
  const archived = await stripe.entitlements.features.update(feature.id, { active: false });
  t.equal(archived.active, false);
  t.same(
    (await stripe.entitlements.features.list({ archived: true })).data.map((f) => f.id),
    [feature.id],
  );
  await stripe.entitlements.features.update(feature.id, { active: true });
  await stripe.products.deleteFeature(product.id, pf.id);
  t.same((await stripe.products.listFeatures(product.id)).data, []);
});

t.test("a subscribed customer's active entitlements follow the subscription", async (t) => {
  const seats = await stripe.entitlements.features.create({ name: 'Seats', lookup_key: 'seats' });
  const sso = await stripe.entitlements.features.create({ name: 'SSO', lookup_key: 'sso' });
  const basic = await stripe.products.create({ name: 'Basic' });
  const enterprise = await stripe.products.create({ name: 'Enterprise' });
  await stripe.products.createFeature(basic.id, { entitlement_feature: seats.id });
  await stripe.products.createFeature(enterprise.id, { entitlement_feature: seats.id });
  await stripe.products.createFeature(enterprise.id, { entitlement_feature: sso.id });
  const basicPrice = await stripe.prices.create({ product: basic.id, unit_amount: 1_000, currency: 'usd', recurring: { interval: 'month' } });
  const entPrice = await stripe.prices.create({ product: enterprise.id, unit_amount: 9_000, currency: 'usd', recurring: { interval: 'month' } });

  const { customer, pm } = await customerWithCard(stripe);
  t.same(await lookupKeys(customer.id), [], 'nothing before a subscription');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: basicPrice.id }], default_payment_method: pm.id });
  t.equal(sub.status, 'active');
  t.same(await lookupKeys(customer.id), ['seats']);
  const first = (await stripe.entitlements.activeEntitlements.list({ customer: customer.id })).data[0]!;
  t.match(first.id, /^ent_/);
  t.equal(first.feature, seats.id);
  const expanded = await stripe.entitlements.activeEntitlements.retrieve(first.id, { expand: ['feature'] });
  t.equal((expanded.feature as Stripe.Entitlements.Feature).name, 'Seats');

  await stripe.subscriptions.update(sub.id, { items: [{ id: sub.items.data[0]!.id, price: entPrice.id }], proration_behavior: 'none' });
  t.same(await lookupKeys(customer.id), ['seats', 'sso']);
  const kept = (await stripe.entitlements.activeEntitlements.list({ customer: customer.id })).data.find((e) => e.lookup_key === 'seats')!;
  t.equal(kept.id, first.id, 'an entitlement kept across the change keeps its id');

  await stripe.subscriptions.cancel(sub.id);
  t.same(await lookupKeys(customer.id), [], 'a canceled subscription grants nothing');

  const events = await summaries(customer.id);
  t.equal(events.length, 3, 'one summary per change: granted, upgraded, revoked');
  const newestFirst = events.map((s) => s.entitlements.data.map((e) => e.lookup_key).sort());
  t.same(newestFirst, [[], ['seats', 'sso'], ['seats']]);
  const other = await stripe.entitlements.activeEntitlements.list({ customer: 'cus_missing' }).catch((e) => e);
  t.equal(other.statusCode, 404);
});
