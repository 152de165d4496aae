// Checkout sessions in payment, setup and subscription modes through the official SDK, completed
// with the twin-only helper (and once through the hosted page the session's url points at);
// expiry by request and by the clock; line items; list filters; test clocks.

import t from 'tap';
import type Stripe from 'stripe';
import { DAY, START, monthlyPrice, startBillingTwin } from './billing-helpers.js';

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe } = bt;
const now = Math.floor(START.getTime() / 1000);

/** The twin-only completion helper (documented in routes/checkout.ts). */
async function complete(id: string, body = ''): Promise<{ status: number; json: any }> {
  const res = await fetch(`${bt.twin.url}/v1/test_helpers/checkout/sessions/${id}/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bt.twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: res.status, json: await res.json() };
}

t.test('payment mode: create, line items, complete with a card, payment intent succeeded', async (t) => {
  const product = await stripe.products.create({ name: 'T-shirt' });
  const price = await stripe.prices.create({ product: product.id, unit_amount: 2500, currency: 'usd' });
  const session = await stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: price.id, quantity: 2 }],
    success_url: 'https://example.com/success?session_id={CHECKOUT_SESSION_ID}',
    customer_email: 'buyer@example.com',
    client_reference_id: 'order-7',
  });
  t.match(session.id, /^cs_test_/);
  t.equal(session.status, 'open');
  t.equal(session.payment_status, 'unpaid');
  t.equal(session.amount_total, 5000);
  t.equal(session.expires_at, now + DAY);
  t.equal(session.url, `${bt.twin.url}/c/pay/${session.id}`);
  t.equal(session.line_items, undefined, 'line_items only when expanded');
  const items = await stripe.checkout.sessions.listLineItems(session.id);
  t.equal(items.data.length, 1);
  t.equal(items.data[0]!.amount_total, 5000);
  t.equal(items.data[0]!.description, 'T-shirt');
  const expanded = await stripe.checkout.sessions.retrieve(session.id, { expand: ['line_items'] });
  t.equal(expanded.line_items?.data[0]?.quantity, 2);

  const declined = await complete(session.id, 'payment_method=pm_card_chargeCustomerFail');
  t.equal(declined.status, 402);
  t.equal(declined.json.error.type, 'card_error');
  t.equal((await stripe.checkout.sessions.retrieve(session.id)).status, 'open', 'a decline leaves the session open');

  const done = await complete(session.id, 'payment_method=pm_card_visa');
  t.equal(done.status, 200);
  t.equal(done.json.status, 'complete');
  t.equal(done.json.payment_status, 'paid');
  t.equal(done.json.customer_details.email, 'buyer@example.com');
  const pi = await stripe.paymentIntents.retrieve(done.json.payment_intent);
  t.equal(pi.status, 'succeeded');
  t.equal(pi.amount, 5000);
  const completed = await stripe.events.list({ type: 'checkout.session.completed' });
  t.equal((completed.data[0]!.data.object as Stripe.Checkout.Session).id, session.id);
  const again = await complete(session.id);
  t.equal(again.status, 400);
  const byPi = await stripe.checkout.sessions.list({ payment_intent: pi.id });
  t.same(
    byPi.data.map((s) => s.id),
    [session.id],
  );
});

t.test('subscription mode creates the customer, the subscription and its paid invoice', async (t) => {
  const price = await monthlyPrice(stripe, 1200, 'Starter');
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    line_items: [{ price: price.id, quantity: 1 }],
    success_url: 'https://example.com/ok',
    subscription_data: { metadata: { plan: 'starter' } },
  });
  const done = await complete(session.id, 'email=new%40example.com&name=New%20Customer');
  t.equal(done.status, 200);
  const s = await stripe.checkout.sessions.retrieve(session.id, { expand: ['subscription', 'customer'] });
  t.equal(s.status, 'complete');
  t.equal(s.payment_status, 'paid');
  const sub = s.subscription as Stripe.Subscription;
  t.equal(sub.status, 'active');
  t.same(sub.metadata, { plan: 'starter' });
  t.equal((s.customer as Stripe.Customer).email, 'new@example.com');
  const inv = await stripe.invoices.retrieve(s.invoice as string);
  t.equal(inv.status, 'paid');
  t.equal(inv.amount_paid, 1200);
  const bySub = await stripe.checkout.sessions.list({ subscription: sub.id });
  t.same(
    bySub.data.map((x) => x.id),
    [session.id],
  );

  const bad = await stripe.checkout.sessions
    .create({ mode: 'payment', line_items: [{ price: price.id, quantity: 1 }], success_url: 'https://example.com' })
    .catch((e) => e);
  t.equal(bad.statusCode, 400);
  t.match(bad.message, /recurring price/);
  const none = await stripe.checkout.sessions.create({ mode: 'subscription', success_url: 'https://example.com' }).catch((e) => e);
  t.equal(none.statusCode, 400);
  t.equal(none.param, 'line_items');
});

t.test('setup mode saves the card on a new customer through a setup intent', async (t) => {
  const customer = await stripe.customers.create({ email: 'saver@example.com' });
  const session = await stripe.checkout.sessions.create({ mode: 'setup', currency: 'usd', customer: customer.id, success_url: 'https://example.com/ok' });
  t.equal(session.payment_status, 'no_payment_required');
  const done = await complete(session.id, 'payment_method=pm_card_mastercard');
  t.equal(done.status, 200);
  const si = await stripe.setupIntents.retrieve(done.json.setup_intent);
  t.equal(si.status, 'succeeded');
  t.equal(si.customer, customer.id);
  const pms = await stripe.customers.listPaymentMethods(customer.id);
  t.equal(pms.data.length, 1);
  t.equal(pms.data[0]!.card?.brand, 'mastercard');
});

t.test('the hosted page completes a session and redirects to success_url', async (t) => {
  const product = await stripe.products.create({ name: 'Mug' });
  const price = await stripe.prices.create({ product: product.id, unit_amount: 900, currency: 'usd' });
  const session = await stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: price.id, quantity: 1 }],
    success_url: 'https://example.com/thanks?id={CHECKOUT_SESSION_ID}',
  });
  const page = await fetch(session.url!);
  t.equal(page.status, 200);
  t.match(await page.text(), /Mug/);
  const paid = await fetch(session.url!, { method: 'POST', redirect: 'manual' });
  t.equal(paid.status, 303);
  t.equal(paid.headers.get('location'), `https://example.com/thanks?id=${session.id}`);
  t.equal((await stripe.checkout.sessions.retrieve(session.id)).payment_status, 'paid');
});

t.test('expire by request and by the clock', async (t) => {
  const product = await stripe.products.create({ name: 'Sticker' });
  const price = await stripe.prices.create({ product: product.id, unit_amount: 300, currency: 'usd' });
  const a = await stripe.checkout.sessions.create({ mode: 'payment', line_items: [{ price: price.id, quantity: 1 }], success_url: 'https://example.com' });
  const expired = await stripe.checkout.sessions.expire(a.id);
  t.equal(expired.status, 'expired');
  t.equal(expired.url, null);
  const twice = await stripe.checkout.sessions.expire(a.id).catch((e) => e);
  t.equal(twice.statusCode, 400);

  const b = await stripe.checkout.sessions.create({ mode: 'payment', line_items: [{ price: price.id, quantity: 1 }], success_url: 'https://example.com' });
  await bt.twin.advance(new Date((b.expires_at + 1) * 1000));
  t.equal((await stripe.checkout.sessions.retrieve(b.id)).status, 'expired');
  const evs = await stripe.events.list({ type: 'checkout.session.expired' });
  const ids = evs.data.map((e) => (e.data.object as Stripe.Checkout.Session).id);
  t.ok(ids.includes(a.id) && ids.includes(b.id));
  const open = await stripe.checkout.sessions.list({ status: 'open' });
  t.notOk(open.data.some((s) => s.id === b.id));
});

t.test('test clocks keep their own time and drive renewals of their customers', async (t) => {
  const health = async () => Math.floor(Date.parse(((await (await fetch(`${bt.twin.url}/_twin/health`)).json()) as any).clock) / 1000);
  const clockNow = await health();
  const early = await stripe.testHelpers.testClocks.create({ frozen_time: clockNow - 10 * DAY });
  t.equal(early.frozen_time, clockNow - 10 * DAY, 'a clock may start before the environment clock');
  await stripe.testHelpers.testClocks.del(early.id);
  const clock = await stripe.testHelpers.testClocks.create({ frozen_time: clockNow, name: 'renewals' });
  t.match(clock.id, /^clock_/);
  t.equal(clock.status, 'ready');
  t.equal(clock.frozen_time, clockNow);
  const customer = await stripe.customers.create({ email: 'clock@example.com', test_clock: clock.id });
  const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
  const price = await monthlyPrice(stripe, 800, 'Clocked');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_payment_method: pm.id });
  t.equal(sub.test_clock, clock.id);
  const end = sub.items.data[0]!.current_period_end;

  const advanced = await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: end + 2 * 3600 });
  t.equal(advanced.status, 'ready');
  t.equal(advanced.frozen_time, end + 2 * 3600);
  t.equal(await health(), clockNow, 'the environment clock did not move');
  const renewed = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] });
  t.equal((renewed.latest_invoice as Stripe.Invoice).billing_reason, 'subscription_cycle');
  t.equal((renewed.latest_invoice as Stripe.Invoice).status, 'paid');
  const back = await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: end }).catch((e) => e);
  t.equal(back.statusCode, 400);
  const types = (await stripe.events.list({ limit: 100 })).data.map((e) => e.type);
  t.ok(types.includes('test_helpers.test_clock.advancing'));
  t.ok(types.includes('test_helpers.test_clock.ready'));
  const list = await stripe.testHelpers.testClocks.list();
  t.same(
    list.data.map((c) => c.id),
    [clock.id],
  );
  const del = await stripe.testHelpers.testClocks.del(clock.id);
  t.equal(del.deleted, true);
  t.equal((await stripe.subscriptions.retrieve(sub.id)).status, 'canceled', "the clock's subscriptions end");
  t.equal(((await stripe.customers.retrieve(customer.id)) as Stripe.DeletedCustomer).deleted, true, "the clock's customers are deleted");
  const gone = await stripe.testHelpers.testClocks.retrieve(clock.id).catch((e) => e);
  t.equal(gone.statusCode, 404);
});
