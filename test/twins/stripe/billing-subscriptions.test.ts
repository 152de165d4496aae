// Subscriptions through the official SDK: create (paid at once, incomplete on a decline, 402 with
// error_if_incomplete, 400 without a payment method), trials, updates without prorations,
// cancel at period end and now, list filters, invoices finalize/pay/void.

import t from 'tap';
import Stripe from 'stripe';
import { DAY, START, customerWithCard, monthlyPrice, startBillingTwin } from './billing-helpers.js';

/**
 * The invoice's PaymentIntent on the default API version: since 2025-03-31.basil an invoice no
 * longer names it (`payment_intent` is a pre-basil field); its `confirmation_secret` is the intent's
 * client secret, `pi_…_secret_…`.
 */
function intentOf(inv: Stripe.Invoice): string {
  const secret = inv.confirmation_secret?.client_secret ?? '';
  return secret.slice(0, secret.indexOf('_secret_'));
}

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe } = bt;
const now = Math.floor(START.getTime() / 1000);

const price = await monthlyPrice(stripe, 2000);

t.test('create with a working card: active, first invoice paid by its payment intent', async (t) => {
  const { customer, pm } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: price.id, quantity: 2 }],
    expand: ['latest_invoice'],
  });
  t.match(sub.id, /^sub_/);
  t.equal(sub.status, 'active');
  t.equal(sub.items.data.length, 1);
  const item = sub.items.data[0]!;
  t.equal(item.quantity, 2);
  t.equal(item.price.id, price.id);
  t.equal(item.current_period_start, now);
  t.equal(item.current_period_end, Math.floor(Date.parse('2026-02-15T12:00:00Z') / 1000));
  const inv = sub.latest_invoice as Stripe.Invoice;
  t.equal(inv.status, 'paid');
  t.equal(inv.amount_due, 4000);
  t.equal(inv.amount_paid, 4000);
  t.equal(inv.amount_remaining, 0);
  t.equal(inv.billing_reason, 'subscription_create');
  t.equal(inv.attempt_count, 1);
  t.equal(inv.parent?.subscription_details?.subscription, sub.id);
  t.equal(inv.lines.data[0]!.amount, 4000);
  t.equal(inv.lines.data[0]!.description, '2 × Pro plan (at $20.00 / month)');
  t.match(inv.number, /^[A-Z0-9]+-0001$/);
  t.equal(inv.status_transitions.paid_at, now);
  const pi = await stripe.paymentIntents.retrieve(intentOf(inv));
  t.equal(pi.status, 'succeeded');
  t.equal(pi.amount, 4000);
  t.equal(pi.payment_method, pm.id);
  const charge = await stripe.charges.retrieve(pi.latest_charge as string);
  t.notOk('invoice' in charge, 'basil removed charge.invoice');
  const pinned = await stripe.charges.retrieve(charge.id, {}, { apiVersion: '2024-06-20' });
  t.equal((pinned as any).invoice, inv.id, 'a version before basil names the invoice');
  const types: string[] = (await stripe.events.list({ limit: 20 })).data.map((e) => e.type);
  for (const ty of [
    'customer.subscription.created',
    'invoice.created',
    'invoice.finalized',
    'invoice.paid',
    'invoice.payment_succeeded',
    'payment_intent.succeeded',
    'charge.succeeded',
  ]) {
    t.ok(types.includes(ty), `event ${ty}`);
  }
});

t.test('a declining card: incomplete by default, 402 with error_if_incomplete, 400 without a card', async (t) => {
  const { customer } = await customerWithCard(stripe, 'pm_card_chargeCustomerFail');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], expand: ['latest_invoice'] });
  t.equal(sub.status, 'incomplete');
  const inv = sub.latest_invoice as Stripe.Invoice;
  t.equal(inv.status, 'open');
  t.equal(inv.attempt_count, 1);
  t.equal(inv.next_payment_attempt, null, 'the first invoice of an incomplete subscription is not retried');

  const err = await stripe.subscriptions
    .create({ customer: customer.id, items: [{ price: price.id }], payment_behavior: 'error_if_incomplete' })
    .catch((e) => e);
  t.type(err, Stripe.errors.StripeCardError);
  t.equal(err.statusCode, 402);
  t.equal(err.code, 'card_declined');
  t.equal(err.decline_code, 'generic_decline');

  const bare = await stripe.customers.create({ email: 'nocard@example.com' });
  const e2 = await stripe.subscriptions.create({ customer: bare.id, items: [{ price: price.id }] }).catch((e) => e);
  t.equal(e2.statusCode, 400);
  t.equal(e2.type, 'StripeInvalidRequestError');
  t.match(e2.message, /no attached payment source or default payment method/);

  // Paying the open invoice with a good card activates the subscription.
  const good = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
  const paid = await stripe.invoices.pay(inv.id!, { payment_method: good.id });
  t.equal(paid.status, 'paid');
  t.equal(paid.attempt_count, 2);
  t.equal((await stripe.subscriptions.retrieve(sub.id)).status, 'active');
});

t.test('bad input answers Stripe errors', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const missing = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: 'price_nope' }] }).catch((e) => e);
  t.equal(missing.statusCode, 404);
  t.equal(missing.code, 'resource_missing');
  t.equal(missing.param, 'items[0][price]');
  const unknown = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], bogus: 1 } as any).catch((e) => e);
  t.equal(unknown.statusCode, 400);
  t.equal(unknown.param, 'bogus');
  const oneTime = await stripe.prices.create({ product: price.product as string, unit_amount: 500, currency: 'usd' });
  const e3 = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: oneTime.id }] }).catch((e) => e);
  t.equal(e3.statusCode, 400);
  t.match(e3.message, /type=recurring/);
  const e4 = await stripe.subscriptions.retrieve('sub_missing').catch((e) => e);
  t.equal(e4.statusCode, 404);
  t.equal(e4.message, "No such subscription: 'sub_missing'");
});

t.test('trial: trialing with a zero invoice, trial_will_end three days ahead, then billed', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], trial_period_days: 14, expand: ['latest_invoice'] });
  t.equal(sub.status, 'trialing');
  t.equal(sub.trial_start, now);
  t.equal(sub.trial_end, now + 14 * DAY);
  const first = sub.latest_invoice as Stripe.Invoice;
  t.equal(first.amount_due, 0);
  t.equal(first.status, 'paid');
  t.equal(first.lines.data[0]!.description, 'Trial period for Pro plan');

  await bt.twin.advance(new Date((now + 12 * DAY) * 1000));
  const notices = await stripe.events.list({ type: 'customer.subscription.trial_will_end' });
  t.equal(notices.data.length, 1);
  t.equal(notices.data[0]!.created, now + 11 * DAY);
  t.equal((await stripe.subscriptions.retrieve(sub.id)).status, 'trialing');

  await bt.twin.advance(new Date((now + 14 * DAY + 2 * 3600) * 1000));
  const after = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] });
  t.equal(after.status, 'active');
  t.equal(after.items.data[0]!.current_period_start, now + 14 * DAY);
  const inv = after.latest_invoice as Stripe.Invoice;
  t.equal(inv.billing_reason, 'subscription_cycle');
  t.equal(inv.status, 'paid');
  t.equal(inv.amount_paid, 2000);
  t.equal(inv.created, now + 14 * DAY);
  t.equal(inv.status_transitions.finalized_at, now + 14 * DAY + 3600, 'finalized an hour after creation');
});

t.test('update quantity and price without prorations, cancel at period end, cancel now, list filters', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const bigger = await monthlyPrice(stripe, 5000, 'Team plan');
  const clockNow = Math.floor(Date.parse((await (await fetch(`${bt.twin.url}/_twin/health`)).json()).clock) / 1000);
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  const itemId = sub.items.data[0]!.id;
  const up = await stripe.subscriptions.update(sub.id, { items: [{ id: itemId, quantity: 3 }], proration_behavior: 'none' });
  t.equal(up.items.data[0]!.quantity, 3);
  const swapped = await stripe.subscriptions.update(sub.id, { items: [{ id: itemId, price: bigger.id }], proration_behavior: 'none' });
  t.equal(swapped.items.data[0]!.price.id, bigger.id);
  t.equal(swapped.items.data[0]!.quantity, 3);
  const invoices = await stripe.invoices.list({ subscription: sub.id });
  t.equal(invoices.data.length, 1, 'no proration invoice');

  const preview = await stripe.invoices.createPreview({ customer: customer.id, subscription: sub.id });
  t.equal(preview.amount_due, 15000, 'next invoice bills 3 × $50');

  const ending = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });
  t.equal(ending.cancel_at_period_end, true);
  t.equal(ending.cancel_at, ending.items.data[0]!.current_period_end);
  const updates = await stripe.events.list({ type: 'customer.subscription.updated', limit: 1 });
  t.same((updates.data[0]!.data as any).previous_attributes.cancel_at_period_end, false);

  const other = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  const canceled = await stripe.subscriptions.cancel(other.id);
  t.equal(canceled.status, 'canceled');
  t.equal(canceled.ended_at, clockNow);
  t.equal(canceled.cancellation_details?.reason, 'cancellation_requested');
  const again = await stripe.subscriptions.update(other.id, { items: [{ id: other.items.data[0]!.id, quantity: 2 }] }).catch((e) => e);
  t.equal(again.statusCode, 400);

  const listed = await stripe.subscriptions.list({ customer: customer.id });
  t.same(
    listed.data.map((s) => s.id),
    [sub.id],
    'canceled ones are left out by default',
  );
  const all = await stripe.subscriptions.list({ customer: customer.id, status: 'all' });
  t.equal(all.data.length, 2);
  const byPrice = await stripe.subscriptions.list({ price: bigger.id });
  t.same(
    byPrice.data.map((s) => s.id),
    [sub.id],
  );
  const byStatus = await stripe.subscriptions.list({ customer: customer.id, status: 'canceled' });
  t.same(
    byStatus.data.map((s) => s.id),
    [other.id],
  );

  // At period end the subscription ends instead of renewing.
  await bt.twin.advance(new Date((ending.items.data[0]!.current_period_end + 60) * 1000));
  const ended = await stripe.subscriptions.retrieve(sub.id);
  t.equal(ended.status, 'canceled');
  t.equal(ended.ended_at, ending.items.data[0]!.current_period_end);
  t.equal((await stripe.invoices.list({ subscription: sub.id })).data.length, 1, 'no renewal invoice');
  const deleted = await stripe.events.list({ type: 'customer.subscription.deleted' });
  t.ok(deleted.data.some((e) => (e.data.object as Stripe.Subscription).id === sub.id));
});

t.test('one-off invoice: create, add lines, finalize, pay, void another', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const oneTime = await stripe.prices.create({ product: price.product as string, unit_amount: 1500, currency: 'usd' });
  const draft = await stripe.invoices.create({ customer: customer.id, auto_advance: false });
  t.equal(draft.status, 'draft');
  t.equal(draft.number, null);
  const withLines = await stripe.invoices.addLines(draft.id!, { lines: [{ pricing: { price: oneTime.id }, quantity: 2 }] });
  t.equal(withLines.amount_due, 3000);
  const open = await stripe.invoices.finalizeInvoice(draft.id!);
  t.equal(open.status, 'open');
  t.ok(open.number);
  const paid = await stripe.invoices.pay(open.id!);
  t.equal(paid.status, 'paid');
  t.equal(paid.amount_paid, 3000);
  const again = await stripe.invoices.pay(open.id!).catch((e) => e);
  t.equal(again.statusCode, 400);

  const other = await stripe.invoices.create({ customer: customer.id, auto_advance: false });
  await stripe.invoices.addLines(other.id!, { lines: [{ pricing: { price: oneTime.id }, quantity: 1 }] });
  await stripe.invoices.finalizeInvoice(other.id!);
  const voided = await stripe.invoices.voidInvoice(other.id!);
  t.equal(voided.status, 'void');
  const lines = await stripe.invoices.listLineItems(other.id!);
  t.equal(lines.data.length, 1);
  t.equal(lines.data[0]!.amount, 1500);
  const list = await stripe.invoices.list({ customer: customer.id, status: 'void' });
  t.same(
    list.data.map((i) => i.id),
    [other.id],
  );
});

t.test('ending a trial now bills at once; search; the hosted invoice page', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], trial_period_days: 30, metadata: { tier: 'gold' } });
  t.equal(sub.status, 'trialing');
  const ended = await stripe.subscriptions.update(sub.id, { trial_end: 'now', expand: ['latest_invoice'] });
  t.equal(ended.status, 'active');
  const inv = ended.latest_invoice as Stripe.Invoice;
  t.equal(inv.status, 'paid');
  t.equal(inv.amount_paid, 2000);
  t.not(inv.id, sub.latest_invoice);

  const found = await stripe.subscriptions.search({ query: "metadata['tier']:'gold'" });
  t.same(
    found.data.map((s) => s.id),
    [sub.id],
  );
  const invs = await stripe.invoices.search({ query: `subscription:'${sub.id}' AND total>0` });
  t.same(
    invs.data.map((i) => i.id),
    [inv.id],
  );

  const page = await fetch(inv.hosted_invoice_url!);
  t.equal(page.status, 200);
  t.match(await page.text(), new RegExp(inv.number!));
});

t.test('default_incomplete: the first invoice waits for the client with a confirmation secret', async (t) => {
  const { customer, pm } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: price.id }],
    payment_behavior: 'default_incomplete',
    expand: ['latest_invoice.confirmation_secret'],
  });
  t.equal(sub.status, 'incomplete');
  const inv = sub.latest_invoice as Stripe.Invoice;
  t.equal(inv.status, 'open');
  t.equal(inv.attempt_count, 0, 'not attempted');
  t.match(inv.confirmation_secret?.client_secret, /^pi_.+_secret_/);
  const pi = await stripe.paymentIntents.retrieve(intentOf(inv));
  t.equal(pi.status, 'requires_payment_method');
  t.equal(pi.amount, 2000);
  const paid = await stripe.invoices.pay(inv.id!, { payment_method: pm.id });
  t.equal(paid.status, 'paid');
  t.equal((await stripe.subscriptions.retrieve(sub.id)).status, 'active');
  t.equal((await stripe.paymentIntents.retrieve(pi.id)).status, 'succeeded', 'the same payment intent was charged');

  // Unpaid for 23 hours, an incomplete subscription expires and its invoice is voided.
  const { customer: c2 } = await customerWithCard(stripe, 'pm_card_chargeCustomerFail');
  const failing = await stripe.subscriptions.create({ customer: c2.id, items: [{ price: price.id }] });
  t.equal(failing.status, 'incomplete');
  const clock = Math.floor(Date.parse(((await (await fetch(`${bt.twin.url}/_twin/health`)).json()) as any).clock) / 1000);
  await bt.twin.advance(new Date((clock + 23 * 3600 + 1) * 1000));
  const expired = await stripe.subscriptions.retrieve(failing.id);
  t.equal(expired.status, 'incomplete_expired');
  t.equal((await stripe.invoices.retrieve(failing.latest_invoice as string)).status, 'void');
});

t.test('default_incomplete: the client confirming the invoice payment intent pays the invoice', async (t) => {
  const { customer, pm } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: price.id }],
    payment_behavior: 'default_incomplete',
  });
  t.equal(sub.status, 'incomplete');
  const inv = await stripe.invoices.retrieve(sub.latest_invoice as string);
  const confirmed = await stripe.paymentIntents.confirm(intentOf(inv), { payment_method: pm.id });
  t.equal(confirmed.status, 'succeeded');
  t.equal((await stripe.invoices.retrieve(inv.id!)).status, 'paid', 'the invoice learns of the payment');
  t.equal((await stripe.subscriptions.retrieve(sub.id)).status, 'active', 'and the subscription starts');
});

t.test('subscription items: add, change, list, delete', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const addon = await monthlyPrice(stripe, 300, 'Add-on');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  const added = await stripe.subscriptionItems.create({ subscription: sub.id, price: addon.id, quantity: 4 });
  t.match(added.id, /^si_/);
  t.equal(added.quantity, 4);
  t.equal(added.subscription, sub.id);
  const changed = await stripe.subscriptionItems.update(added.id, { quantity: 5 });
  t.equal(changed.quantity, 5);
  const list = await stripe.subscriptionItems.list({ subscription: sub.id });
  t.equal(list.data.length, 2);
  t.same((await stripe.subscriptions.retrieve(sub.id)).items.data.map((i) => i.quantity).sort(), [1, 5]);
  const del = await stripe.subscriptionItems.del(added.id);
  t.equal(del.deleted, true);
  t.equal((await stripe.subscriptions.retrieve(sub.id)).items.data.length, 1);
  const gone = await stripe.subscriptionItems.retrieve(added.id).catch((e) => e);
  t.equal(gone.statusCode, 404);
  const last = await stripe.subscriptionItems.del(sub.items.data[0]!.id).catch((e) => e);
  t.equal(last.statusCode, 400, 'the last item cannot be removed');
});

t.test('a declined invoices.pay answers 402 and keeps the attempt', async (t) => {
  const { customer } = await customerWithCard(stripe, 'pm_card_chargeCustomerFail');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  const invId = sub.latest_invoice as string;
  const err = await stripe.invoices.pay(invId).catch((e) => e);
  t.equal(err.statusCode, 402);
  t.equal(err.code, 'card_declined');
  const inv = await stripe.invoices.retrieve(invId);
  t.equal(inv.attempt_count, 2, 'the declined attempt counts');
  const charges = await stripe.charges.list({ customer: customer.id });
  t.equal(charges.data.filter((c) => c.status === 'failed').length, 2);
});

t.test('prorations: pending on the next invoice by default, billed at once with always_invoice', async (t) => {
  const b2 = await startBillingTwin();
  t.teardown(() => b2.close());
  const s2 = b2.stripe;
  const p2 = await monthlyPrice(s2, 3100, 'Seat');
  const { customer } = await customerWithCard(s2);
  const sub = await s2.subscriptions.create({ customer: customer.id, items: [{ price: p2.id, quantity: 1 }] });
  const start = sub.items.data[0]!.current_period_start;
  const end = sub.items.data[0]!.current_period_end; // Jan 15 → Feb 15: 31 days
  await b2.twin.advance(new Date((start + 15.5 * DAY) * 1000)); // exactly half way
  const up = await s2.subscriptions.update(sub.id, { items: [{ id: sub.items.data[0]!.id, quantity: 3 }] });
  t.equal(up.items.data[0]!.quantity, 3);
  const preview = await s2.invoices.createPreview({ customer: customer.id, subscription: sub.id });
  const prorated = preview.lines.data.filter((l) => l.parent?.subscription_item_details?.proration);
  t.same(
    prorated.map((l) => l.amount),
    [-1550, 4650],
    'credit half of 1 seat, charge half of 3 seats',
  );
  t.match(prorated[0]!.description, /^Unused time on 1 × Seat after 31 Jan 2026$/);
  t.match(prorated[1]!.description, /^Remaining time on 3 × Seat after 31 Jan 2026$/);
  t.equal(preview.amount_due, -1550 + 4650 + 9300);
  t.equal((await s2.invoices.list({ subscription: sub.id })).data.length, 1, 'nothing billed yet');

  await b2.twin.advance(new Date((end + 2 * 3600) * 1000));
  const renewed = await s2.invoices.retrieve((await s2.subscriptions.retrieve(sub.id)).latest_invoice as string);
  t.equal(renewed.amount_paid, 12400, 'the renewal carries the prorations');
  t.equal(renewed.lines.data.length, 3);

  const now2 = end + 2 * 3600;
  const periodEnd2 = (await s2.subscriptions.retrieve(sub.id)).items.data[0]!.current_period_end;
  const down = await s2.subscriptions.update(sub.id, {
    items: [{ id: sub.items.data[0]!.id, quantity: 4 }],
    proration_behavior: 'always_invoice',
    expand: ['latest_invoice'],
  });
  const inv = down.latest_invoice as Stripe.Invoice;
  t.equal(inv.billing_reason, 'subscription_update');
  t.equal(inv.status, 'paid');
  const frac = (periodEnd2 - now2) / (periodEnd2 - end);
  t.equal(inv.amount_paid, Math.round(12400 * frac) - Math.round(9300 * frac));
});
