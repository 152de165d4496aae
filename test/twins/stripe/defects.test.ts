// Defects measured with the official SDK against Stripe's behaviour: a refund after a partial
// capture, `off_session` without `confirm`, the customer's credit balance on invoices, and test
// clocks that keep their own time.

import t from 'tap';
import Stripe from 'stripe';
import { DAY, START, customerWithCard, monthlyPrice, startBillingTwin, type BillingTwin } from './billing-helpers.js';
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

t.test('a refund after a partial capture refunds what was captured', async (t) => {
  const pi = await stripe.paymentIntents.create({ amount: 1000, currency: 'usd', capture_method: 'manual', payment_method: 'pm_card_visa', confirm: true });
  const captured = await stripe.paymentIntents.capture(pi.id, { amount_to_capture: 800 });
  t.equal(captured.amount_received, 800);
  const before = await stripe.charges.retrieve(pi.latest_charge as string);
  t.equal(before.amount_captured, 800);
  t.equal(before.amount_refunded, 0, 'the released 200 is not a refund');
  t.equal(before.refunded, false);
  const refund = await stripe.refunds.create({ payment_intent: pi.id });
  t.equal(refund.amount, 800);
  const after = await stripe.charges.retrieve(pi.latest_charge as string);
  t.equal(after.amount_refunded, 800);
  t.equal(after.refunded, true);
  const again = await stripe.refunds.create({ payment_intent: pi.id, amount: 1 }).catch((e) => e);
  t.equal(again.statusCode, 400);
  const hook = await hooks.waitFor('charge.refunded', (c) => c.id === pi.latest_charge);
  t.equal((hook.data.object as Stripe.Charge).amount_refunded, 800);
});

t.test('off_session without confirm is refused', async (t) => {
  const err = await stripe.paymentIntents.create({ amount: 1000, currency: 'usd', off_session: true }).catch((e) => e);
  t.type(err, Stripe.errors.StripeInvalidRequestError);
  t.equal(err.statusCode, 400);
  t.equal(err.param, 'off_session');
  const explicitFalse = await stripe.paymentIntents.create({ amount: 1000, currency: 'usd', off_session: true, confirm: false }).catch((e) => e);
  t.equal(explicitFalse.statusCode, 400);
});

t.test("a customer's credit balance pays invoices and is recorded", async (t) => {
  const { customer } = await customerWithCard(stripe);
  const credit = await stripe.customers.createBalanceTransaction(customer.id, { amount: -1500, currency: 'usd', description: 'Goodwill' });
  t.match(credit.id, /^cbtxn_/);
  t.equal(credit.type, 'adjustment');
  t.equal(credit.ending_balance, -1500);
  t.equal(((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).balance, -1500);

  // 1000 of credit used up by a 1000 invoice: nothing to charge.
  const price = await monthlyPrice(stripe, 1000, 'Balance plan');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], expand: ['latest_invoice'] });
  const first = sub.latest_invoice as Stripe.Invoice;
  t.equal(first.status, 'paid');
  t.equal(first.total, 1000);
  t.equal(first.starting_balance, -1500);
  t.equal(first.ending_balance, -500);
  t.equal(first.amount_due, 0);
  t.equal(first.amount_paid, 0);

  // The next invoice uses the remaining 500 and charges the card for the rest.
  await bt.twin.advance(new Date(first.period_end * 1000 + 32 * DAY * 1000));
  const invoices = await stripe.invoices.list({ subscription: sub.id, limit: 10 });
  const second = invoices.data.find((i) => i.billing_reason === 'subscription_cycle')!;
  t.ok(second, 'a renewal invoice');
  t.equal(second.starting_balance, -500);
  t.equal(second.ending_balance, 0);
  t.equal(second.amount_due, 500);
  t.equal(second.amount_paid, 500);
  t.equal(second.status, 'paid');
  t.equal(((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).balance, 0);

  const ledger = await stripe.customers.listBalanceTransactions(customer.id);
  t.ok(ledger.data.length >= 3);
  t.same(
    ledger.data
      .map((x) => [x.type, x.amount])
      .reverse()
      .slice(0, 3),
    [
      ['adjustment', -1500],
      ['applied_to_invoice', 1000],
      ['applied_to_invoice', 500],
    ],
  );
  t.equal(ledger.data.find((x) => x.invoice === first.id)?.amount, 1000);
  const one = await stripe.customers.retrieveBalanceTransaction(customer.id, credit.id);
  t.equal(one.description, 'Goodwill');
  const renamed = await stripe.customers.updateBalanceTransaction(customer.id, credit.id, { description: 'Apology' });
  t.equal(renamed.description, 'Apology');
  const missing = await stripe.customers.retrieveBalanceTransaction(customer.id, 'cbtxn_nope').catch((e) => e);
  t.equal(missing.statusCode, 404);
  const hook = await hooks.waitFor('customer.updated', (c) => c.id === customer.id && c.balance === -1500);
  t.equal(hook.data.object.object, 'customer');
});

t.test('test clocks accept any frozen_time and keep their own time', async (t) => {
  const envNow = Math.floor(START.getTime() / 1000);
  const past = envNow - 400 * DAY;
  const clock = await stripe.testHelpers.testClocks.create({ frozen_time: past, name: 'past' });
  t.equal(clock.frozen_time, past);
  const customer = await stripe.customers.create({
    email: 'past@example.com',
    test_clock: clock.id,
    payment_method: 'pm_card_visa',
    invoice_settings: { default_payment_method: undefined },
  });
  const pm = (await stripe.customers.listPaymentMethods(customer.id)).data[0]!;
  t.ok(pm, 'payment_method attached at create');
  const price = await monthlyPrice(stripe, 700, 'Clock plan');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_payment_method: pm.id });
  t.equal(sub.start_date, past, "the subscription starts at the clock's time");
  t.equal(sub.items.data[0]!.current_period_start, past);

  // Another clock and the environment do not move this one's objects.
  const other = await stripe.testHelpers.testClocks.create({ frozen_time: envNow });
  await stripe.testHelpers.testClocks.advance(other.id, { frozen_time: envNow + 60 * DAY });
  await bt.twin.advance(new Date((envNow + 90 * DAY) * 1000));
  t.equal((await stripe.testHelpers.testClocks.retrieve(clock.id)).frozen_time, past, 'unchanged by other clocks and the environment');
  const still = await stripe.subscriptions.retrieve(sub.id);
  t.equal(still.items.data[0]!.current_period_start, past, 'not renewed by the environment advance');
  t.equal((await stripe.invoices.list({ subscription: sub.id })).data.length, 1);

  // Its own advance renews it, at the clock's instants.
  const end = sub.items.data[0]!.current_period_end;
  const ready = await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: end + 2 * 3600 });
  t.equal(ready.frozen_time, end + 2 * 3600);
  const renewed = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] });
  t.equal(renewed.items.data[0]!.current_period_start, end);
  const inv = renewed.latest_invoice as Stripe.Invoice;
  t.equal(inv.billing_reason, 'subscription_cycle');
  t.equal(inv.status, 'paid');
  t.equal(inv.created, end, "the renewal invoice carries the clock's time");
  t.equal(inv.test_clock, clock.id);
  const back = await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: end }).catch((e) => e);
  t.equal(back.statusCode, 400);
  const hook = await hooks.waitFor('test_helpers.test_clock.ready', (c) => c.id === clock.id);
  t.equal((hook.data.object as Stripe.TestHelpers.TestClock).frozen_time, end + 2 * 3600);
});

t.test('wire: pretty-printed JSON and Stripe-Version checked', async (t) => {
  const get = (version?: string) =>
    fetch(`${bt.twin.url}/v1/customers?limit=1`, { headers: { authorization: `Bearer ${bt.twin.apiKey}`, ...(version ? { 'stripe-version': version } : {}) } });
  const res = await get();
  const text = await res.text();
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.ok(text.startsWith('{\n  "object": "list",\n  "data": ['), 'two-space indent, "key": value');
  t.equal(text, JSON.stringify(JSON.parse(text), null, 2));
  const old = await get('2020-08-27');
  t.equal(old.status, 200);
  t.equal(old.headers.get('stripe-version'), '2020-08-27');
  const named = await get('2024-09-30.acacia');
  t.equal(named.status, 200);
  for (const bad of ['2099-01-01', 'banana', '2024-02-30', '2024-09-30.zucchini']) {
    const refused = await get(bad);
    t.equal(refused.status, 400, bad);
    const body = (await refused.json()) as any;
    t.equal(body.error.type, 'invalid_request_error');
    t.equal(body.error.message, `Invalid Stripe API version: ${bad}`);
  }
});
