// Stripe's test cards beyond declines, through the official SDK: Radar's risk levels (an elevated
// payment succeeds into the review queue, which approving or a full refund closes; the highest
// risk is blocked before the network), the bypass-pending cards whose funds are available at once,
// and the velocity-limit decline.

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

const pay = (payment_method: string, amount = 2_000) =>
  stripe.paymentIntents.create({
    amount,
    currency: 'usd',
    payment_method,
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });

t.test('an elevated-risk payment succeeds into the review queue; approving closes the review', async (t) => {
  const pi = await pay('pm_card_riskLevelElevated');
  t.equal(pi.status, 'succeeded');
  const charge = await stripe.charges.retrieve(pi.latest_charge as string);
  t.equal(charge.outcome?.risk_level, 'elevated');
  t.equal(charge.outcome?.type, 'manual_review');
  t.match(charge.outcome?.seller_message, /manual review queue/);
  t.match(charge.review, /^prv_/);
  t.equal(pi.review, charge.review, 'the payment intent names the same review');

  const review = await stripe.reviews.retrieve(charge.review as string);
  t.equal(review.open, true);
  t.equal(review.opened_reason, 'rule');
  t.equal(review.charge, charge.id);
  t.equal(review.payment_intent, pi.id);
  const open = await stripe.reviews.list();
  t.ok(open.data.length > 0);
  t.ok(open.data.some((r) => r.id === review.id));

  const approved = await stripe.reviews.approve(review.id);
  t.equal(approved.open, false);
  t.equal(approved.closed_reason, 'approved');
  t.notOk(
    (await stripe.reviews.list()).data.some((r) => r.id === review.id),
    'closed reviews leave the open list',
  );
  const again = await stripe.reviews.approve(review.id).catch((e) => e);
  t.equal(again.statusCode, 400);
  const events = await stripe.events.list({ types: ['review.opened', 'review.closed'] });
  t.same(events.data.map((e) => e.type).sort(), ['review.closed', 'review.opened']);
});

t.test('tok_riskLevelElevated as a charge source; a full refund closes its review', async (t) => {
  const charge = await stripe.charges.create({ amount: 1_500, currency: 'usd', source: 'tok_riskLevelElevated' });
  t.equal(charge.outcome?.risk_level, 'elevated');
  t.equal(charge.status, 'succeeded');
  t.match(charge.review, /^prv_/);
  await stripe.refunds.create({ charge: charge.id });
  const review = await stripe.reviews.retrieve(charge.review as string);
  t.equal(review.open, false);
  t.equal(review.closed_reason, 'refunded');
});

t.test('Radar blocks the highest risk before the network', async (t) => {
  for (const pm of ['pm_card_radarBlock', 'pm_card_riskLevelHighest']) {
    const err = await pay(pm).catch((e) => e);
    t.equal(err.type, 'StripeCardError', pm);
    t.equal(err.decline_code, 'fraudulent');
    const charge = await stripe.charges.retrieve(err.raw.charge as string);
    t.equal(charge.status, 'failed');
    t.equal(charge.outcome?.type, 'blocked');
    t.equal(charge.outcome?.network_status, 'not_sent_to_network');
    t.equal(charge.outcome?.risk_level, 'highest');
    t.equal(charge.review, null);
  }
  const velocity = await pay('pm_card_chargeDeclinedVelocityLimitExceeded').catch((e) => e);
  t.equal(velocity.decline_code, 'card_velocity_exceeded');
});

t.test('bypassPending: the funds are available at once, an ordinary card’s pending', async (t) => {
  const fast = await pay('pm_card_bypassPending', 5_000);
  t.equal(fast.status, 'succeeded');
  const fastCharge = await stripe.charges.retrieve(fast.latest_charge as string, { expand: ['balance_transaction'] });
  const fastTxn = fastCharge.balance_transaction as Stripe.BalanceTransaction;
  t.equal(fastTxn.status, 'available');
  t.equal(fastTxn.available_on, fastTxn.created);
  const slow = await pay('pm_card_visa', 5_000);
  const slowTxn = (await stripe.charges.retrieve(slow.latest_charge as string, { expand: ['balance_transaction'] }))
    .balance_transaction as Stripe.BalanceTransaction;
  t.equal(slowTxn.status, 'pending');
  t.ok(slowTxn.available_on > slowTxn.created);
  const international = await pay('pm_card_bypassPendingInternational', 1_000);
  const intlTxn = (await stripe.charges.retrieve(international.latest_charge as string, { expand: ['balance_transaction'] }))
    .balance_transaction as Stripe.BalanceTransaction;
  t.equal(intlTxn.status, 'available');
});

t.test("a charge's receipt_url is the twin's own receipt page", async (t) => {
  const pi = await pay('pm_card_visa', 4_200);
  const charge = await stripe.charges.retrieve(pi.latest_charge as string);
  t.ok(charge.receipt_url?.startsWith(bt.twin.url), 'never pay.stripe.com');
  const page = await fetch(charge.receipt_url!);
  t.equal(page.status, 200, 'no key needed, as at Stripe');
  const text = await page.text();
  t.match(text, /\$42\.00/);
  t.match(text, /visa ending in 4242/);
  const declined = await pay('pm_card_chargeDeclined').catch((e) => e);
  const failed = await stripe.charges.retrieve(declined.raw.charge as string);
  t.equal(failed.receipt_url, null, 'a failed charge has no receipt');
});
