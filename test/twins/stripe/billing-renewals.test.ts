// A year of monthly renewals driven by the environment clock (the control plane's advance), with
// the card switched to declining half way through a record PUT: six renewals paid, then the
// seventh fails → past_due, retried 3, 5, 7 days later, then canceled; events in time order, and
// webhooks signed so the SDK's constructEvent accepts them.

import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Stripe from 'stripe';
import { DAY, START, customerWithCard, monthlyPrice, startBillingTwin } from './billing-helpers.js';

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe } = bt;
const start = Math.floor(START.getTime() / 1000);

// A webhook receiver on loopback that verifies every delivery with the SDK.
const received: Stripe.Event[] = [];
let secret = '';
const badSignatures: string[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      received.push(stripe.webhooks.constructEvent(Buffer.concat(chunks), String(req.headers['stripe-signature']), secret));
      res.writeHead(200).end('{}');
    } catch (e) {
      badSignatures.push((e as Error).message);
      res.writeHead(400).end();
    }
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise<void>((r) => receiver.close(() => r())));

/** The unix time `n` months after the start (same day of month, 12:00 UTC). */
function monthsLater(n: number): number {
  const d = new Date(START);
  d.setUTCMonth(d.getUTCMonth() + n);
  return Math.floor(d.getTime() / 1000);
}

t.test('a year of renewals with a card that starts declining after six months', async (t) => {
  const endpoint = await stripe.webhookEndpoints.create({
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    enabled_events: ['invoice.paid', 'invoice.payment_failed', 'customer.subscription.updated', 'customer.subscription.deleted'],
  });
  secret = endpoint.secret!;
  const price = await monthlyPrice(stripe, 1500, 'Monthly');
  const { customer, pm } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  t.equal(sub.status, 'active');

  // Six monthly renewals, each an hour's finalization delay after the period end.
  for (let m = 1; m <= 6; m++) {
    await bt.twin.advance(new Date((monthsLater(m) + 2 * 3600) * 1000));
    const s = await stripe.subscriptions.retrieve(sub.id);
    t.equal(s.status, 'active', `month ${m}: active`);
    t.equal(s.items.data[0]!.current_period_start, monthsLater(m));
    t.equal(s.items.data[0]!.current_period_end, monthsLater(m + 1));
  }
  const paidInvoices = await stripe.invoices.list({ subscription: sub.id, status: 'paid', limit: 100 });
  t.equal(paidInvoices.data.length, 7, 'the first invoice and six renewals are paid');
  t.same(
    paidInvoices.data.map((i) => i.period_end).sort(),
    [start, ...[1, 2, 3, 4, 5, 6].map(monthsLater)].sort(),
    'each renewal invoice covers the period that just ended',
  );
  t.ok(paidInvoices.data.every((i) => i.amount_paid === 1500));

  // The card starts declining: the twin's record of it now carries the 0341 test number's last4.
  const record = await bt.getRecord('payment_method', pm.id);
  await bt.putRecord('payment_method', pm.id, { ...record, card: { ...record.card, last4: '0341' } });

  await bt.twin.advance(new Date((monthsLater(7) + 2 * 3600) * 1000));
  const pastDue = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] });
  t.equal(pastDue.status, 'past_due');
  const failing = pastDue.latest_invoice as Stripe.Invoice;
  t.equal(failing.status, 'open');
  t.equal(failing.attempt_count, 1);
  t.equal(failing.amount_remaining, 1500);
  t.equal(failing.next_payment_attempt, monthsLater(7) + 3600 + 3 * DAY, 'first retry three days later');

  // Retries at +3, +5, +7 days (after each previous attempt), then the subscription is canceled.
  await bt.twin.advance(new Date((monthsLater(7) + 3600 + 3 * DAY + 60) * 1000));
  let inv = await stripe.invoices.retrieve(failing.id!);
  t.equal(inv.attempt_count, 2);
  t.equal(inv.next_payment_attempt, monthsLater(7) + 3600 + 8 * DAY);
  await bt.twin.advance(new Date((monthsLater(7) + 3600 + 15 * DAY + 60) * 1000));
  inv = await stripe.invoices.retrieve(failing.id!);
  t.equal(inv.attempt_count, 4);
  t.equal(inv.next_payment_attempt, null);
  const canceled = await stripe.subscriptions.retrieve(sub.id);
  t.equal(canceled.status, 'canceled');
  t.equal(canceled.cancellation_details?.reason, 'payment_failed');
  t.equal(canceled.ended_at, monthsLater(7) + 3600 + 15 * DAY);

  // Advancing to the end of the year bills nothing more.
  await bt.twin.advance(new Date(monthsLater(12) * 1000));
  t.equal((await stripe.invoices.list({ subscription: sub.id, limit: 100 })).data.length, 8);

  // Events, oldest first, are in time order; the failures come after six successful renewals.
  const events: Stripe.Event[] = [];
  for await (const e of stripe.events.list({ limit: 100 })) events.push(e);
  const mine = events
    .reverse()
    .filter((e) => ['invoice.paid', 'invoice.payment_failed', 'customer.subscription.deleted'].includes(e.type))
    .filter((e) => {
      const o = e.data.object as any;
      return o.id === sub.id || o.parent?.subscription_details?.subscription === sub.id;
    });
  const created = mine.map((e) => e.created);
  t.same(
    created,
    [...created].sort((a, b) => a - b),
    'events in time order',
  );
  t.same(
    mine.map((e) => e.type),
    [...Array(7).fill('invoice.paid'), ...Array(4).fill('invoice.payment_failed'), 'customer.subscription.deleted'],
  );
  const toPastDue = events.find(
    (e) =>
      e.type === 'customer.subscription.updated' && (e.data.object as any).status === 'past_due' && (e.data as any).previous_attributes?.status === 'active',
  );
  t.ok(toPastDue, 'customer.subscription.updated active → past_due');
  t.equal(toPastDue!.created, monthsLater(7) + 3600);

  // Every webhook delivery verified with constructEvent.
  await bt.twin.server.deliveries.idle();
  for (let i = 0; i < 50 && received.length < 12; i++) await new Promise((r) => setTimeout(r, 20));
  t.same(badSignatures, []);
  t.ok(received.filter((e) => e.type === 'invoice.paid').length >= 7, 'invoice.paid webhooks verified');
  t.ok(received.some((e) => e.type === 'customer.subscription.deleted'));
});

t.test('retry settings: leave past_due after the last retry; a fixed card recovers on retry', async (t) => {
  const res = await fetch(`${bt.twin.url}/v1/test_helpers/billing_settings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bt.twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'retry_days[]=2&subscription_after_final_failure=past_due',
  });
  t.equal(res.status, 200);
  t.same(((await res.json()) as any).retry_days, [2]);

  const price = await monthlyPrice(stripe, 900, 'Basic');
  const { customer, pm } = await customerWithCard(stripe);
  const clock = Math.floor(Date.parse(((await (await fetch(`${bt.twin.url}/_twin/health`)).json()) as any).clock) / 1000);
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  const periodEnd = sub.items.data[0]!.current_period_end;
  const record = await bt.getRecord('payment_method', pm.id);
  await bt.putRecord('payment_method', pm.id, { ...record, card: { ...record.card, last4: '0341' } });
  await bt.twin.advance(new Date((periodEnd + 3600 + 2 * DAY + 60) * 1000));
  const s = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] });
  t.equal(s.status, 'past_due', 'left past_due after the only retry failed');
  t.equal((s.latest_invoice as Stripe.Invoice).attempt_count, 2);
  t.ok(clock < periodEnd);

  // The customer fixes the card and pays: the subscription is active again.
  await bt.putRecord('payment_method', pm.id, record);
  const paid = await stripe.invoices.pay((s.latest_invoice as Stripe.Invoice).id!);
  t.equal(paid.status, 'paid');
  t.equal((await stripe.subscriptions.retrieve(sub.id)).status, 'active');
});
