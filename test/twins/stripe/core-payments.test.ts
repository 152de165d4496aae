// Catalog and payments through the official `stripe` package: products and prices (filters,
// recurring, metered), payment methods (test ids, raw numbers, attach/detach), payment intents
// (success, decline as 402 card_error with last_payment_error, manual capture, cancel), setup
// intents, charges and refunds (full, partial, over-refund), and a card switched to declining
// through the runtime's records endpoint.

import t from 'tap';
import Stripe from 'stripe';
import { startTwin, type RunningTwin } from '../../helpers/twin.js';

let twin: RunningTwin;
let stripe: Stripe;

t.before(async () => {
  twin = await startTwin('stripe', { clockStart: new Date('2026-03-01T12:00:00Z') });
  const port = Number(new URL(twin.url).port);
  stripe = new Stripe(twin.apiKey, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });
});
t.teardown(() => twin.close());

t.test('products and prices', async (t) => {
  const prod = await stripe.products.create({ name: 'Pro plan', default_price_data: { currency: 'usd', unit_amount: 2000, recurring: { interval: 'month' } } });
  t.match(prod.id, /^prod_/);
  t.match(prod.default_price as string, /^price_/);
  const monthly = await stripe.prices.retrieve(prod.default_price as string);
  t.equal(monthly.type, 'recurring');
  t.equal(monthly.recurring?.interval, 'month');
  t.equal(monthly.recurring?.interval_count, 1);
  t.equal(monthly.recurring?.usage_type, 'licensed');
  t.equal(monthly.unit_amount, 2000);
  t.equal(String(monthly.unit_amount_decimal), '2000', 'the SDK parses unit_amount_decimal as a Decimal');
  const once = await stripe.prices.create({ product: prod.id, currency: 'USD', unit_amount: 500, lookup_key: 'setup_fee' });
  t.equal(once.type, 'one_time');
  t.equal(once.currency, 'usd');
  t.equal(once.recurring, null);
  const other = await stripe.products.create({ name: 'Other', active: false });
  await stripe.prices.create({ product: other.id, currency: 'eur', unit_amount: 100 });

  const ofProduct = await stripe.prices.list({ product: prod.id });
  t.same(ofProduct.data.map((p) => p.id).sort(), [monthly.id, once.id].sort());
  const recurring = await stripe.prices.list({ type: 'recurring' });
  t.ok(recurring.data.every((p) => p.type === 'recurring'));
  const byKey = await stripe.prices.list({ lookup_keys: ['setup_fee'] });
  t.same(
    byKey.data.map((p) => p.id),
    [once.id],
  );
  const activeProducts = await stripe.products.list({ active: true });
  t.ok(activeProducts.data.some((p) => p.id === prod.id));
  t.notOk(activeProducts.data.some((p) => p.id === other.id));
  const inactive = await stripe.products.list({ active: false });
  t.same(
    inactive.data.map((p) => p.id),
    [other.id],
  );

  const deactivated = await stripe.prices.update(once.id, { active: false });
  t.equal(deactivated.active, false);
  t.equal((await stripe.prices.list({ product: prod.id, active: true })).data.length, 1);

  const blocked = await stripe.products.del(prod.id).catch((e) => e);
  t.equal(blocked.statusCode, 400, 'a product with prices cannot be deleted');
  const lonely = await stripe.products.create({ name: 'Lonely' });
  t.same(await stripe.products.del(lonely.id), { id: lonely.id, object: 'product', deleted: true });

  const noAmount = await stripe.prices.create({ product: prod.id, currency: 'usd' }).catch((e) => e);
  t.equal(noAmount.code, 'parameter_missing');
  const badInterval = await stripe.prices
    .create({ product: prod.id, currency: 'usd', unit_amount: 1, recurring: { interval: 'fortnight' as any } })
    .catch((e) => e);
  t.equal(badInterval.param, 'recurring[interval]');
  const meteredNoMeter = await stripe.prices
    .create({ product: prod.id, currency: 'usd', unit_amount: 1, recurring: { interval: 'month', usage_type: 'metered' } })
    .catch((e) => e);
  t.equal(meteredNoMeter.statusCode, 400, 'metered prices need a meter');
  const missingMeter = await stripe.prices
    .create({ product: prod.id, currency: 'usd', unit_amount: 1, recurring: { interval: 'month', usage_type: 'metered', meter: 'mtr_test_nope' } })
    .catch((e) => e);
  t.equal(missingMeter.code, 'resource_missing');
  const tiered = await stripe.prices.create({
    product: prod.id,
    currency: 'usd',
    billing_scheme: 'tiered',
    tiers_mode: 'graduated',
    tiers: [
      { up_to: 10, unit_amount: 100 },
      { up_to: 'inf', unit_amount: 50 },
    ],
    recurring: { interval: 'month' },
  });
  t.equal(tiered.billing_scheme, 'tiered');
  t.equal(tiered.unit_amount, null);
});

t.test('payment methods: test ids, raw numbers, attach, detach, list by customer', async (t) => {
  const cus = await stripe.customers.create({ email: 'pm@example.com' });
  const visa = await stripe.paymentMethods.attach('pm_card_visa', { customer: cus.id });
  t.match(visa.id, /^pm_/);
  t.not(visa.id, 'pm_card_visa', 'a test id becomes a fresh payment method');
  t.equal(visa.customer, cus.id);
  t.equal(visa.card?.brand, 'visa');
  t.equal(visa.card?.last4, '4242');
  const mc = await stripe.paymentMethods.create({ type: 'card', card: { number: '5555 5555 5555 4444', exp_month: 4, exp_year: 2030, cvc: '123' } });
  t.equal(mc.card?.brand, 'mastercard');
  t.equal(mc.card?.exp_year, 2030);
  t.equal(mc.customer, null);
  await stripe.paymentMethods.attach(mc.id, { customer: cus.id });
  const listed = await stripe.paymentMethods.list({ customer: cus.id, type: 'card' });
  t.same(listed.data.map((p) => p.id).sort(), [visa.id, mc.id].sort());
  const viaCustomer = await stripe.customers.listPaymentMethods(cus.id);
  t.equal(viaCustomer.data.length, 2);

  const detached = await stripe.paymentMethods.detach(mc.id);
  t.equal(detached.customer, null);
  t.equal((await stripe.paymentMethods.list({ customer: cus.id })).data.length, 1);
  const again = await stripe.paymentMethods.detach(mc.id).catch((e) => e);
  t.equal(again.statusCode, 400);

  const bad = await stripe.paymentMethods.create({ type: 'card', card: { number: '4242424242424241', exp_month: 1, exp_year: 2030 } }).catch((e) => e);
  t.equal(bad.type, 'StripeCardError');
  t.equal(bad.code, 'incorrect_number');
  t.equal(bad.statusCode, 402);

  const declinedAttach = await stripe.paymentMethods.attach('pm_card_chargeDeclined', { customer: cus.id }).catch((e) => e);
  t.equal(declinedAttach.type, 'StripeCardError', 'a declining card is refused on attach');
  t.equal(declinedAttach.decline_code, 'generic_decline');
  const failsLater = await stripe.paymentMethods.create({ type: 'card', card: { number: '4000000000000341', exp_month: 1, exp_year: 2031 } });
  const attached = await stripe.paymentMethods.attach(failsLater.id, { customer: cus.id });
  t.equal(attached.customer, cus.id, '4000 0000 0000 0341 attaches');

  const missing = await stripe.paymentMethods.retrieve('pm_missing').catch((e) => e);
  t.equal(missing.code, 'resource_missing');
  t.equal(missing.message, "No such PaymentMethod: 'pm_missing'");
});

t.test('payment intent: confirm succeeds, charge and events', async (t) => {
  const cus = await stripe.customers.create({ email: 'pay@example.com' });
  const pi = await stripe.paymentIntents.create({ amount: 1999, currency: 'usd', customer: cus.id });
  t.equal(pi.status, 'requires_payment_method');
  t.match(pi.client_secret!, new RegExp(`^${pi.id}_secret_`));
  const withPm = await stripe.paymentIntents.update(pi.id, { payment_method: 'pm_card_visa' });
  t.equal(withPm.status, 'requires_confirmation');
  const done = await stripe.paymentIntents.confirm(pi.id);
  t.equal(done.status, 'succeeded');
  t.equal(done.amount_received, 1999);
  t.match(done.latest_charge as string, /^ch_/);
  const charge = await stripe.charges.retrieve(done.latest_charge as string);
  t.equal(charge.amount, 1999);
  t.equal(charge.status, 'succeeded');
  t.equal(charge.paid, true);
  t.equal(charge.captured, true);
  t.equal(charge.payment_intent, pi.id);
  t.equal(charge.customer, cus.id);
  t.equal(charge.payment_method_details?.card?.last4, '4242');
  const expanded = await stripe.paymentIntents.retrieve(pi.id, { expand: ['latest_charge.customer'] });
  t.equal(((expanded.latest_charge as Stripe.Charge).customer as Stripe.Customer).email, 'pay@example.com', 'two-level expand');
  const events = await stripe.events.list({ type: 'payment_intent.*', limit: 100 });
  const mine = events.data.filter((e) => (e.data.object as any).id === pi.id).map((e) => e.type);
  t.same(mine, ['payment_intent.succeeded', 'payment_intent.created'], 'events newest first');
  const chargeEvents = await stripe.events.list({ type: 'charge.succeeded' });
  t.equal((chargeEvents.data[0]!.data.object as Stripe.Charge).id, charge.id);
  const ev = await stripe.events.retrieve(chargeEvents.data[0]!.id);
  t.equal(ev.type, 'charge.succeeded');

  const again = await stripe.paymentIntents.confirm(pi.id).catch((e) => e);
  t.equal(again.code, 'payment_intent_unexpected_state');
  const tiny = await stripe.paymentIntents.create({ amount: 10, currency: 'usd' }).catch((e) => e);
  t.equal(tiny.code, 'amount_too_small');
  t.equal(tiny.message, 'Amount must be at least $0.50 usd');
});

t.test('payment intent: decline is a 402 card_error and the failed attempt stays', async (t) => {
  const pi = await stripe.paymentIntents.create({ amount: 5000, currency: 'usd' });
  const err = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_chargeDeclinedInsufficientFunds' }).catch((e) => e);
  t.equal(err.type, 'StripeCardError');
  t.equal(err.statusCode, 402);
  t.equal(err.code, 'card_declined');
  t.equal(err.decline_code, 'insufficient_funds');
  t.equal(err.message, 'Your card has insufficient funds.');
  t.equal(err.payment_intent.id, pi.id);
  t.equal(err.payment_intent.status, 'requires_payment_method');
  t.match(err.raw.charge, /^ch_/);
  const after = await stripe.paymentIntents.retrieve(pi.id);
  t.equal(after.status, 'requires_payment_method');
  t.equal(after.last_payment_error?.code, 'card_declined');
  t.equal(after.last_payment_error?.decline_code, 'insufficient_funds');
  t.equal(after.last_payment_error?.type, 'card_error');
  t.equal(after.payment_method, null);
  const failedCharge = await stripe.charges.retrieve(after.latest_charge as string);
  t.equal(failedCharge.status, 'failed');
  t.equal(failedCharge.failure_code, 'card_declined');
  t.equal(failedCharge.outcome?.reason, 'insufficient_funds');
  const retry = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_mastercard' });
  t.equal(retry.status, 'succeeded', 'a second attempt with another card succeeds');
  t.equal(retry.last_payment_error, null);
  const charges = await stripe.charges.list({ payment_intent: pi.id });
  t.same(
    charges.data.map((c) => c.status),
    ['succeeded', 'failed'],
    'a charge per attempt',
  );
  const failedEvents = await stripe.events.list({ type: 'payment_intent.payment_failed' });
  t.equal((failedEvents.data[0]!.data.object as Stripe.PaymentIntent).id, pi.id);
});

t.test('manual capture and cancel', async (t) => {
  const pi = await stripe.paymentIntents.create({ amount: 3000, currency: 'usd', capture_method: 'manual', payment_method: 'pm_card_visa', confirm: true });
  t.equal(pi.status, 'requires_capture');
  t.equal(pi.amount_capturable, 3000);
  const uncaptured = await stripe.charges.retrieve(pi.latest_charge as string);
  t.equal(uncaptured.captured, false);
  t.equal(uncaptured.amount_captured, 0);
  const captured = await stripe.paymentIntents.capture(pi.id, { amount_to_capture: 2500 });
  t.equal(captured.status, 'succeeded');
  t.equal(captured.amount_received, 2500);
  t.equal(captured.amount_capturable, 0);
  const ch = await stripe.charges.retrieve(pi.latest_charge as string);
  t.equal(ch.captured, true);
  t.equal(ch.amount_captured, 2500);

  const toCancel = await stripe.paymentIntents.create({
    amount: 1000,
    currency: 'usd',
    capture_method: 'manual',
    payment_method: 'pm_card_visa',
    confirm: true,
  });
  const canceled = await stripe.paymentIntents.cancel(toCancel.id, { cancellation_reason: 'requested_by_customer' });
  t.equal(canceled.status, 'canceled');
  t.equal(canceled.cancellation_reason, 'requested_by_customer');
  t.type(canceled.canceled_at, 'number');
  const released = await stripe.charges.retrieve(toCancel.latest_charge as string);
  t.equal(released.refunded, true);
  const twice = await stripe.paymentIntents.cancel(toCancel.id).catch((e) => e);
  t.equal(twice.code, 'payment_intent_unexpected_state');
  const notCapturable = await stripe.paymentIntents.capture(captured.id).catch((e) => e);
  t.equal(notCapturable.code, 'payment_intent_unexpected_state');
});

t.test('setup intents', async (t) => {
  const cus = await stripe.customers.create({ email: 'setup@example.com' });
  const si = await stripe.setupIntents.create({ customer: cus.id, payment_method: 'pm_card_visa' });
  t.equal(si.status, 'requires_confirmation');
  t.equal(si.usage, 'off_session');
  const ok = await stripe.setupIntents.confirm(si.id);
  t.equal(ok.status, 'succeeded');
  const pm = await stripe.paymentMethods.retrieve(ok.payment_method as string);
  t.equal(pm.customer, cus.id, 'the card is attached to the customer');
  const bad = await stripe.setupIntents.create({ customer: cus.id, payment_method: 'pm_card_chargeDeclined', confirm: true }).catch((e) => e);
  t.equal(bad.type, 'StripeCardError');
  t.equal(bad.raw.setup_intent.status, 'requires_payment_method');
  t.equal(bad.raw.setup_intent.last_setup_error.code, 'card_declined');
  const open = await stripe.setupIntents.create({ customer: cus.id });
  const canceled = await stripe.setupIntents.cancel(open.id);
  t.equal(canceled.status, 'canceled');
  const listed = await stripe.setupIntents.list({ customer: cus.id });
  t.equal(listed.data.length, 3);
});

t.test('refunds: full, partial, over-refund', async (t) => {
  const pi = await stripe.paymentIntents.create({ amount: 10000, currency: 'usd', payment_method: 'pm_card_visa', confirm: true });
  const partial = await stripe.refunds.create({ payment_intent: pi.id, amount: 2500, reason: 'requested_by_customer' });
  t.match(partial.id, /^re_/);
  t.equal(partial.amount, 2500);
  t.equal(partial.status, 'succeeded');
  t.equal(partial.charge, pi.latest_charge);
  let ch = await stripe.charges.retrieve(pi.latest_charge as string);
  t.equal(ch.amount_refunded, 2500);
  t.equal(ch.refunded, false);
  const over = await stripe.refunds.create({ charge: ch.id, amount: 8000 }).catch((e) => e);
  t.equal(over.statusCode, 400);
  t.equal(over.type, 'StripeInvalidRequestError');
  t.equal(over.message, 'Refund amount ($80.00) is greater than unrefunded amount on charge ($75.00)');
  const rest = await stripe.refunds.create({ charge: ch.id });
  t.equal(rest.amount, 7500, 'without amount the remainder is refunded');
  ch = await stripe.charges.retrieve(ch.id);
  t.equal(ch.amount_refunded, 10000);
  t.equal(ch.refunded, true);
  const done = await stripe.refunds.create({ charge: ch.id }).catch((e) => e);
  t.equal(done.code, 'charge_already_refunded');
  const listed = await stripe.refunds.list({ charge: ch.id });
  t.same(
    listed.data.map((r) => r.amount),
    [7500, 2500],
  );
  const types = (await stripe.events.list({ limit: 5 })).data.map((e) => e.type);
  t.same(types.slice(0, 2), ['charge.refunded', 'refund.created']);
});

t.test('a record PUT switches a saved card to declining', async (t) => {
  const cus = await stripe.customers.create({ email: 'switch@example.com' });
  const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: cus.id });
  const first = await stripe.paymentIntents.create({
    amount: 1000,
    currency: 'usd',
    customer: cus.id,
    payment_method: pm.id,
    confirm: true,
    off_session: true,
  });
  t.equal(first.status, 'succeeded');
  const rec = await (await fetch(`${twin.url}/_twin/records/payment_method/${pm.id}`)).json();
  rec.body.card.last4 = '0341';
  const put = await fetch(`${twin.url}/_twin/records/payment_method/${pm.id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields: rec.body }),
  });
  t.equal(put.status, 200);
  const err = await stripe.paymentIntents
    .create({ amount: 1000, currency: 'usd', customer: cus.id, payment_method: pm.id, confirm: true, off_session: true })
    .catch((e) => e);
  t.equal(err.type, 'StripeCardError');
  t.equal(err.decline_code, 'generic_decline');
});

t.test('payment_method_data, and a replayed decline under the same Idempotency-Key', async (t) => {
  const pi = await stripe.paymentIntents.create({
    amount: 2100,
    currency: 'usd',
    confirm: true,
    payment_method_data: { type: 'card', card: { token: 'tok_mastercard' } } as any,
  });
  t.equal(pi.status, 'succeeded');
  const pm = await stripe.paymentMethods.retrieve(pi.payment_method as string);
  t.equal(pm.card?.brand, 'mastercard');
  const badData = await stripe.paymentIntents
    .create({ amount: 2100, currency: 'usd', payment_method_data: { type: 'card', card: { token: 'tok_visa', colour: 'x' } } as any })
    .catch((e) => e);
  t.equal(badData.param, 'payment_method_data[card][colour]');

  const params = { amount: 4200, currency: 'usd', payment_method: 'pm_card_chargeDeclined', confirm: true };
  const first = await stripe.paymentIntents.create(params, { idempotencyKey: 'decline-1' }).catch((e) => e);
  const second = await stripe.paymentIntents.create(params, { idempotencyKey: 'decline-1' }).catch((e) => e);
  t.equal(first.statusCode, 402);
  t.equal(second.statusCode, 402);
  t.equal(second.payment_intent.id, first.payment_intent.id, 'the replay names the same intent');
  t.equal(second.headers['idempotent-replayed'], 'true');
  const attempts = await stripe.charges.list({ payment_intent: first.payment_intent.id });
  t.equal(attempts.data.length, 1, 'the replay did not charge again');
});

t.test('legacy charges API', async (t) => {
  const ch = await stripe.charges.create({ amount: 1500, currency: 'usd', source: 'tok_visa', description: 'legacy' });
  t.match(ch.id, /^ch_/);
  t.equal(ch.status, 'succeeded');
  t.equal(ch.paid, true);
  t.equal(ch.payment_method_details?.card?.brand, 'visa');
  const declined = await stripe.charges.create({ amount: 1500, currency: 'usd', source: 'tok_chargeDeclined' }).catch((e) => e);
  t.equal(declined.type, 'StripeCardError');
  t.equal(declined.code, 'card_declined');
  const failed = await stripe.charges.retrieve(declined.raw.charge);
  t.equal(failed.status, 'failed', 'the failed charge is kept');
  const auth = await stripe.charges.create({ amount: 900, currency: 'usd', source: 'tok_visa', capture: false });
  t.equal(auth.captured, false);
  const cap = await stripe.charges.capture(auth.id);
  t.equal(cap.captured, true);
  t.equal(cap.amount_captured, 900);
  const nobody = await stripe.customers.create({});
  const noCard = await stripe.charges.create({ amount: 900, currency: 'usd', customer: nobody.id }).catch((e) => e);
  t.equal(noCard.statusCode, 400);
});

t.test('3D Secure cards: requires_action, the authentication page, off-session failure', async (t) => {
  const pi = await stripe.paymentIntents.create({ amount: 4000, currency: 'usd', payment_method: 'pm_card_threeDSecure2Required', confirm: true });
  t.equal(pi.status, 'requires_action');
  t.equal(pi.next_action?.type, 'use_stripe_sdk');
  const url = (pi.next_action as any).use_stripe_sdk.stripe_js as string;
  t.ok(url.startsWith(twin.url), 'the challenge page is served by the twin');
  const done = await (await fetch(url, { method: 'POST' })).json();
  t.equal(done.status, 'succeeded', 'passing the challenge completes the payment');
  t.match(done.latest_charge, /^ch_/);

  const withReturn = await stripe.paymentIntents.create({
    amount: 4000,
    currency: 'usd',
    payment_method: 'pm_card_authenticationRequired',
    confirm: true,
    return_url: 'https://shop.example/back',
  });
  t.equal(withReturn.next_action?.type, 'redirect_to_url');
  const page = await fetch(`${withReturn.next_action!.redirect_to_url!.url}?outcome=fail`, { redirect: 'manual' });
  t.equal(page.status, 302);
  t.match(page.headers.get('location'), /^https:\/\/shop\.example\/back\?payment_intent=pi_.*redirect_status=failed/);
  const failed = await stripe.paymentIntents.retrieve(withReturn.id);
  t.equal(failed.status, 'requires_payment_method');
  t.equal(failed.last_payment_error?.code, 'payment_intent_authentication_failure');

  const cus = await stripe.customers.create({});
  const pm = await stripe.paymentMethods.attach('pm_card_authenticationRequired', { customer: cus.id });
  const off = await stripe.paymentIntents
    .create({ amount: 4000, currency: 'usd', customer: cus.id, payment_method: pm.id, confirm: true, off_session: true })
    .catch((e) => e);
  t.equal(off.statusCode, 402);
  t.equal(off.code, 'authentication_required');
  const saved = await stripe.paymentMethods.attach('pm_card_authenticationRequiredOnSetup', { customer: cus.id });
  const offOk = await stripe.paymentIntents.create({
    amount: 4000,
    currency: 'usd',
    customer: cus.id,
    payment_method: saved.id,
    confirm: true,
    off_session: true,
  });
  t.equal(offOk.status, 'succeeded', 'a card set up for off-session use needs no new authentication');
});
