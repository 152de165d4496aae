// Checkout discounts through the official SDK: a coupon in `discounts` lowering `amount_total`
// and `total_details.amount_discount` and the amount charged; a promotion code typed on the hosted
// page of a session created with `allow_promotion_codes`; a subscription-mode session whose
// subscription and first invoice carry the discount; the refusals. Webhooks verified with
// constructEvent; the session checked against the spec schema.

import t from 'tap';
import type Stripe from 'stripe';
import { monthlyPrice } from './billing-helpers.js';
import { hookedBillingTwin } from './hooked-twin.js';
import { checkSchema } from './spec-schema.js';

const twin = hookedBillingTwin(t);

const CARD = { card_number: '4242 4242 4242 4242', card_expiry: '12 / 34', card_cvc: '123', email: 'buyer@example.com' };

function submit(url: string, form: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
}

async function oneTimePrice(amount: number): Promise<Stripe.Price> {
  const product = await twin.stripe.products.create({ name: 'Widget' });
  return twin.stripe.prices.create({ product: product.id, unit_amount: amount, currency: 'usd' });
}

t.test('a coupon in discounts lowers the total and the amount charged', async (t) => {
  const price = await oneTimePrice(2500);
  const coupon = await twin.stripe.coupons.create({ percent_off: 20, duration: 'once' });
  const session = await twin.stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: price.id, quantity: 2 }],
    discounts: [{ coupon: coupon.id }],
    success_url: 'https://example.com/ok',
  });
  t.equal(session.amount_subtotal, 5000);
  t.equal(session.amount_total, 4000);
  t.equal(session.total_details?.amount_discount, 1000);
  t.same(session.discounts, [{ coupon: coupon.id, promotion_code: null }]);
  const items = await twin.stripe.checkout.sessions.listLineItems(session.id);
  t.equal(items.data[0]!.amount_discount, 1000);
  t.equal(items.data[0]!.amount_total, 4000);
  checkSchema(t, 'checkout.session', await twin.raw(`/v1/checkout/sessions/${session.id}`));

  const paid = await submit(session.url!, CARD);
  t.equal(paid.status, 303);
  const done = await twin.stripe.checkout.sessions.retrieve(session.id);
  t.equal(done.status, 'complete');
  const pi = await twin.stripe.paymentIntents.retrieve(done.payment_intent as string);
  t.equal(pi.amount, 4000);
  t.equal((await twin.stripe.coupons.retrieve(coupon.id)).times_redeemed, 1);
  const hook = await twin.hooks.waitFor('checkout.session.completed', (s) => s.id === session.id);
  t.equal((hook.data.object as Stripe.Checkout.Session).amount_total, 4000);

  const both = await twin.stripe.checkout.sessions
    .create({
      mode: 'payment',
      line_items: [{ price: price.id, quantity: 1 }],
      discounts: [{ coupon: coupon.id }],
      allow_promotion_codes: true,
      success_url: 'https://example.com',
    })
    .catch((e) => e);
  t.equal(both.statusCode, 400);
  t.equal(both.param, 'discounts');
  const missing = await twin.stripe.checkout.sessions
    .create({ mode: 'payment', line_items: [{ price: price.id, quantity: 1 }], discounts: [{ coupon: 'NOPE' }], success_url: 'https://example.com' })
    .catch((e) => e);
  t.equal(missing.statusCode, 404);
});

t.test('a promotion code typed on the hosted page of an allow_promotion_codes session', async (t) => {
  const price = await oneTimePrice(3000);
  const coupon = await twin.stripe.coupons.create({ amount_off: 500, currency: 'usd', duration: 'once' });
  const promo = await twin.stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon: coupon.id }, code: 'SPRING5' } as any);
  const session = await twin.stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: price.id, quantity: 1 }],
    allow_promotion_codes: true,
    success_url: 'https://example.com/ok',
  });
  t.equal(session.allow_promotion_codes, true);
  t.equal(session.amount_total, 3000);
  const page = await (await fetch(session.url!)).text();
  t.match(page, /name="promotion_code"/);

  const bad = await submit(session.url!, { ...CARD, promotion_code: 'WINTER' });
  t.equal(bad.status, 402);
  t.match(await bad.text(), /This code is invalid/);
  t.equal((await twin.stripe.checkout.sessions.retrieve(session.id)).status, 'open');

  const ok = await submit(session.url!, { ...CARD, promotion_code: 'spring5' });
  t.equal(ok.status, 303);
  const done = await twin.stripe.checkout.sessions.retrieve(session.id);
  t.equal(done.amount_total, 2500);
  t.equal(done.total_details?.amount_discount, 500);
  t.same(done.discounts, [{ coupon: coupon.id, promotion_code: promo.id }]);
  t.equal((await twin.stripe.paymentIntents.retrieve(done.payment_intent as string)).amount, 2500);
  t.equal((await twin.stripe.promotionCodes.retrieve(promo.id)).times_redeemed, 1);
});

t.test('a subscription-mode session carries its discount to the subscription and first invoice', async (t) => {
  const price = await monthlyPrice(twin.stripe, 5000);
  const coupon = await twin.stripe.coupons.create({ percent_off: 20, duration: 'repeating', duration_in_months: 3 });
  const session = await twin.stripe.checkout.sessions.create({
    mode: 'subscription',
    line_items: [{ price: price.id, quantity: 1 }],
    discounts: [{ coupon: coupon.id }],
    success_url: 'https://example.com/ok',
  });
  t.equal(session.amount_total, 4000);
  t.equal((await submit(session.url!, CARD)).status, 303);
  const done = await twin.stripe.checkout.sessions.retrieve(session.id);
  const sub = await twin.stripe.subscriptions.retrieve(done.subscription as string);
  t.equal(sub.discounts.length, 1);
  const inv = await twin.stripe.invoices.retrieve(done.invoice as string);
  t.equal(inv.total, 4000);
  t.equal(inv.amount_paid, 4000);
  t.same(twin.hooks.rejected, []);
});
