// Coupons, promotion codes and discounts through the official SDK: a repeating coupon that stops
// after its months, promotion codes found by `code` with their restrictions, customer and invoice
// discounts, removing a subscription's discount; every webhook verified with constructEvent.

import t from 'tap';
import type Stripe from 'stripe';
import { DAY, customerWithCard, monthlyPrice, startBillingTwin, type BillingTwin } from './billing-helpers.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

let bt: BillingTwin;
let stripe: Stripe;
let hooks: WebhookReceiver;

t.before(async () => {
  bt = await startBillingTwin();
  stripe = bt.stripe;
  hooks = await startWebhookReceiver(stripe);
});
t.teardown(async () => {
  await hooks.close();
  await bt.close();
});

t.test('a 20% coupon for 3 months: three discounted invoices, the 4th at full price', async (t) => {
  const coupon = await stripe.coupons.create({ percent_off: 20, duration: 'repeating', duration_in_months: 3, name: 'Launch' });
  t.equal(coupon.object, 'coupon');
  t.equal(coupon.percent_off, 20);
  t.equal(coupon.valid, true);
  const { customer } = await customerWithCard(stripe);
  const price = await monthlyPrice(stripe, 5000, 'Team');
  const sub = await stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: price.id }],
    discounts: [{ coupon: coupon.id }],
    expand: ['latest_invoice', 'discounts'],
  });
  t.equal(sub.discounts.length, 1);
  const discount = sub.discounts[0] as Stripe.Discount;
  t.match(discount.id, /^di_/);
  t.equal(discount.source.coupon, coupon.id);
  t.equal(discount.subscription, sub.id);
  t.ok(discount.end! > discount.start, 'a repeating discount has an end');
  const first = sub.latest_invoice as Stripe.Invoice;
  t.equal(first.subtotal, 5000);
  t.equal(first.total, 4000);
  t.equal(first.amount_paid, 4000);
  t.same(first.total_discount_amounts, [{ amount: 1000, discount: discount.id }]);
  t.same(first.discounts, [discount.id]);
  t.same(first.lines.data[0]!.discount_amounts, [{ amount: 1000, discount: discount.id }]);

  let periodEnd = sub.items.data[0]!.current_period_end;
  const totals: number[] = [first.total];
  for (let i = 0; i < 3; i++) {
    await bt.twin.advance(new Date((periodEnd + 2 * 3600) * 1000));
    const renewed = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] });
    const inv = renewed.latest_invoice as Stripe.Invoice;
    t.equal(inv.billing_reason, 'subscription_cycle');
    t.equal(inv.status, 'paid');
    totals.push(inv.total);
    periodEnd = renewed.items.data[0]!.current_period_end;
  }
  t.same(totals, [4000, 4000, 4000, 5000], 'the 4th invoice is full price');
  const after = await stripe.subscriptions.retrieve(sub.id);
  t.same(after.discounts, [], 'the ended discount is gone from the subscription');
  const deleted = await hooks.waitFor('customer.discount.deleted', (d) => d.id === discount.id);
  t.equal((deleted.data.object as Stripe.Discount).subscription, sub.id);
  await hooks.waitFor('customer.discount.created', (d) => d.id === discount.id);
  const used = await stripe.coupons.retrieve(coupon.id);
  t.equal(used.times_redeemed, 1);
});

t.test('promotion codes: lookup by code, restrictions, redemption limits', async (t) => {
  const coupon = await stripe.coupons.create({ amount_off: 500, currency: 'usd', duration: 'once' });
  const promo = await stripe.promotionCodes.create({
    promotion: { type: 'coupon', coupon: coupon.id },
    code: 'WELCOME5',
    max_redemptions: 1,
    restrictions: { minimum_amount: 1000, minimum_amount_currency: 'usd' },
  });
  t.match(promo.id, /^promo_/);
  t.equal(promo.promotion.coupon, coupon.id);
  const found = await stripe.promotionCodes.list({ code: 'welcome5' });
  t.equal(found.data.length, 1);
  t.equal(found.data[0]!.id, promo.id);
  const dup = await stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon: coupon.id }, code: 'WELCOME5' }).catch((e) => e);
  t.equal(dup.statusCode, 400);

  const { customer } = await customerWithCard(stripe);
  const price = await monthlyPrice(stripe, 2000, 'Solo');
  const sub = await stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: price.id }],
    discounts: [{ promotion_code: promo.id }],
    expand: ['latest_invoice'],
  });
  const inv = sub.latest_invoice as Stripe.Invoice;
  t.equal(inv.total, 1500);
  t.equal((await stripe.promotionCodes.retrieve(promo.id)).times_redeemed, 1);
  // A `once` discount is used up by the first invoice.
  t.same((await stripe.subscriptions.retrieve(sub.id)).discounts, []);

  const other = await customerWithCard(stripe);
  const spent = await stripe.subscriptions
    .create({ customer: other.customer.id, items: [{ price: price.id }], discounts: [{ promotion_code: promo.id }] })
    .catch((e) => e);
  t.equal(spent.statusCode, 400);
  t.equal(spent.param, 'discounts[0][promotion_code]');

  const inactive = await stripe.promotionCodes.update(promo.id, { active: false });
  t.equal(inactive.active, false);
  t.equal((await stripe.promotionCodes.list({ active: true, code: 'WELCOME5' })).data.length, 0);
});

t.test('coupons: validation, max_redemptions, update and delete', async (t) => {
  const both = await stripe.coupons.create({ percent_off: 10, amount_off: 100, currency: 'usd' }).catch((e) => e);
  t.equal(both.statusCode, 400);
  const noMonths = await stripe.coupons.create({ percent_off: 10, duration: 'repeating' }).catch((e) => e);
  t.equal(noMonths.statusCode, 400);
  t.equal(noMonths.param, 'duration_in_months');
  const named = await stripe.coupons.create({ id: 'ONCE-ONLY', percent_off: 50, max_redemptions: 1 });
  t.equal(named.id, 'ONCE-ONLY');
  const again = await stripe.coupons.create({ id: 'ONCE-ONLY', percent_off: 50 }).catch((e) => e);
  t.equal(again.statusCode, 400);
  const a = await stripe.customers.create({ email: 'a@example.com', coupon: 'ONCE-ONLY' } as Stripe.CustomerCreateParams);
  t.equal(a.discount?.source.coupon, 'ONCE-ONLY');
  t.equal((await stripe.coupons.retrieve('ONCE-ONLY')).valid, false, 'no redemptions left');
  const b = await stripe.customers.create({ email: 'b@example.com', coupon: 'ONCE-ONLY' } as Stripe.CustomerCreateParams).catch((e) => e);
  t.equal(b.statusCode, 400);
  t.equal(b.code, 'coupon_expired');
  const renamed = await stripe.coupons.update('ONCE-ONLY', { name: 'Half off' });
  t.equal(renamed.name, 'Half off');
  const list = await stripe.coupons.list({ limit: 100 });
  t.ok(list.data.length > 0 && list.data.some((c) => c.id === 'ONCE-ONLY'));
  const del = await stripe.coupons.del('ONCE-ONLY');
  t.equal(del.deleted, true);
  t.equal(((await stripe.coupons.retrieve('ONCE-ONLY').catch((e) => e)) as any).statusCode, 404);
  await hooks.waitFor('coupon.deleted', (c) => c.id === 'ONCE-ONLY');
});

t.test("a customer's discount applies to its one-off invoices; removing discounts", async (t) => {
  const coupon = await stripe.coupons.create({ percent_off: 10, duration: 'forever' });
  const { customer } = await customerWithCard(stripe);
  await stripe.customers.update(customer.id, { coupon: coupon.id } as Stripe.CustomerUpdateParams);
  const draft = await stripe.invoices.create({ customer: customer.id });
  await stripe.invoices.addLines(draft.id, { lines: [{ amount: 3000, description: 'Setup' } as any] });
  const inv = await stripe.invoices.retrieve(draft.id);
  t.equal(inv.subtotal, 3000);
  t.equal(inv.total, 2700);
  t.equal(inv.total_discount_amounts![0]!.amount, 300);
  const paid = await stripe.invoices.pay(draft.id);
  t.equal(paid.amount_paid, 2700);

  // An invoice's own `discounts` replace the customer's.
  const fixed = await stripe.coupons.create({ amount_off: 700, currency: 'usd' });
  const own = await stripe.invoices.create({ customer: customer.id, discounts: [{ coupon: fixed.id }] });
  await stripe.invoices.addLines(own.id, { lines: [{ amount: 1000, description: 'Extra' } as any] });
  t.equal((await stripe.invoices.retrieve(own.id)).total, 300);

  const removed = await stripe.customers.deleteDiscount(customer.id);
  t.equal(removed.deleted, true);
  t.equal(((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).discount, null);

  const price = await monthlyPrice(stripe, 1000, 'Addon');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], discounts: [{ coupon: coupon.id }] });
  const gone = await stripe.subscriptions.deleteDiscount(sub.id);
  t.equal(gone.object, 'discount');
  t.equal(gone.deleted, true);
  t.same((await stripe.subscriptions.retrieve(sub.id)).discounts, []);
  const none = await stripe.subscriptions.deleteDiscount(sub.id).catch((e) => e);
  t.equal(none.statusCode, 400);
  await hooks.waitFor('customer.subscription.updated', (s) => s.id === sub.id && s.discounts.length === 0);
  await bt.twin.advance(new Date((sub.items.data[0]!.current_period_end + DAY) * 1000));
  const renewed = await stripe.invoices.list({ subscription: sub.id, limit: 1 });
  t.equal(renewed.data.length, 1);
  t.equal(renewed.data[0]!.total, 1000, 'no discount after removal');
  t.same(hooks.rejected, []);
});
