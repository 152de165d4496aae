// Billing meters and meter events: usage recorded for a customer shows up in the preview invoice
// and is billed in arrears on the period's renewal invoice; event summaries; meter errors.

import t from 'tap';
import type Stripe from 'stripe';
import { START, customerWithCard, startBillingTwin } from './billing-helpers.js';

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe } = bt;
const now = Math.floor(START.getTime() / 1000);

t.test('metered usage: preview, event summaries, rolled into the renewal invoice', async (t) => {
  const meter = await stripe.billing.meters.create({
    display_name: 'API requests',
    event_name: 'api_requests',
    default_aggregation: { formula: 'sum' },
  });
  t.match(meter.id, /^mtr_/);
  t.equal(meter.status, 'active');
  t.equal(meter.customer_mapping.event_payload_key, 'stripe_customer_id');
  t.equal(meter.value_settings.event_payload_key, 'value');

  const dup = await stripe.billing.meters
    .create({ display_name: 'again', event_name: 'api_requests', default_aggregation: { formula: 'sum' } })
    .catch((e) => e);
  t.equal(dup.statusCode, 400);

  const product = await stripe.products.create({ name: 'API' });
  const base = await stripe.prices.create({ product: product.id, currency: 'usd', unit_amount: 1000, recurring: { interval: 'month' } });
  const perCall = await stripe.prices.create({
    product: product.id,
    currency: 'usd',
    unit_amount: 5,
    recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
  });
  const { customer } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: base.id }, { price: perCall.id }], expand: ['latest_invoice'] });
  t.equal(sub.status, 'active');
  t.equal((sub.latest_invoice as Stripe.Invoice).amount_due, 1000, 'the first invoice bills only the licensed item');
  const meteredItem = sub.items.data.find((i) => i.price.id === perCall.id)!;
  t.equal(meteredItem.quantity, undefined, 'metered items carry no quantity');

  const ev = await stripe.billing.meterEvents.create({
    event_name: 'api_requests',
    payload: { stripe_customer_id: customer.id, value: '120' },
    identifier: 'req-1',
  });
  t.equal(ev.object, 'billing.meter_event');
  t.equal(ev.identifier, 'req-1');
  t.equal(ev.timestamp, now);
  await stripe.billing.meterEvents.create({ event_name: 'api_requests', payload: { stripe_customer_id: customer.id, value: '80' } });
  const again = await stripe.billing.meterEvents
    .create({ event_name: 'api_requests', payload: { stripe_customer_id: customer.id, value: '1' }, identifier: 'req-1' })
    .catch((e) => e);
  t.equal(again.statusCode, 400, 'a duplicate identifier is refused');
  const noValue = await stripe.billing.meterEvents.create({ event_name: 'api_requests', payload: { stripe_customer_id: customer.id } }).catch((e) => e);
  t.equal(noValue.statusCode, 400);
  t.equal(noValue.param, 'payload[value]');
  const old = await stripe.billing.meterEvents
    .create({ event_name: 'api_requests', payload: { stripe_customer_id: customer.id, value: '1' }, timestamp: now - 40 * 86_400 })
    .catch((e) => e);
  t.equal(old.statusCode, 400);

  const preview = await stripe.invoices.createPreview({ customer: customer.id, subscription: sub.id });
  const usageLine = preview.lines.data.find((l) => l.pricing?.price_details?.price === perCall.id)!;
  t.equal(usageLine.quantity, 200);
  t.equal(usageLine.amount, 1000, '200 calls × $0.05');
  t.equal(preview.amount_due, 2000, 'next month licensed + this month usage');
  t.equal(preview.period_start, now);
  t.equal((await stripe.invoices.list({ subscription: sub.id })).data.length, 1, 'the preview is not stored');

  const summaries = await stripe.billing.meters.listEventSummaries(meter.id, { customer: customer.id, start_time: now - 3600, end_time: now + 3600 });
  t.equal(summaries.data.length, 1);
  t.equal(summaries.data[0]!.aggregated_value, 200);

  // More usage later in the period, then the renewal bills all of it.
  const periodEnd = sub.items.data[0]!.current_period_end;
  await bt.twin.advance(new Date((periodEnd - 86_400) * 1000));
  await stripe.billing.meterEvents.create({ event_name: 'api_requests', payload: { stripe_customer_id: customer.id, value: '100' } });
  await bt.twin.advance(new Date((periodEnd + 2 * 3600) * 1000));
  const renewed = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] });
  const inv = renewed.latest_invoice as Stripe.Invoice;
  t.equal(inv.billing_reason, 'subscription_cycle');
  t.equal(inv.status, 'paid');
  t.equal(inv.amount_paid, 1000 + 300 * 5);
  const line = inv.lines.data.find((l) => l.pricing?.price_details?.price === perCall.id)!;
  t.equal(line.quantity, 300);
  t.same(line.period, { start: now, end: periodEnd }, 'usage billed for the period that ended');

  // The next period starts from zero usage.
  const next = await stripe.invoices.createPreview({ customer: customer.id, subscription: sub.id });
  t.equal(next.lines.data.find((l) => l.pricing?.price_details?.price === perCall.id)!.quantity, 0);

  const deactivated = await stripe.billing.meters.deactivate(meter.id);
  t.equal(deactivated.status, 'inactive');
  t.ok(deactivated.status_transitions.deactivated_at);
  const listed = await stripe.billing.meters.list({ status: 'inactive' });
  t.same(
    listed.data.map((m) => m.id),
    [meter.id],
  );
});

t.test('preview for a subscription that does not exist yet', async (t) => {
  const product = await stripe.products.create({ name: 'Seats' });
  const seat = await stripe.prices.create({ product: product.id, currency: 'usd', unit_amount: 700, recurring: { interval: 'month' } });
  const { customer } = await customerWithCard(stripe);
  const preview = await stripe.invoices.createPreview({ customer: customer.id, subscription_details: { items: [{ price: seat.id, quantity: 3 }] } });
  t.equal(preview.amount_due, 2100);
  t.equal(preview.lines.data[0]!.quantity, 3);
  const bad = await stripe.invoices.createPreview({ customer: customer.id }).catch((e) => e);
  t.equal(bad.statusCode, 400);
});

t.test("a preview's lines beyond the embedded first ten are listed by the preview's id", async (t) => {
  const { customer } = await customerWithCard(stripe);
  const prices: Stripe.Price[] = [];
  for (let i = 0; i < 12; i++) {
    const meter = await stripe.billing.meters.create({ display_name: `usage ${i}`, event_name: `usage_${i}`, default_aggregation: { formula: 'sum' } });
    prices.push(
      await stripe.prices.create({
        currency: 'usd',
        unit_amount: 10 + i,
        product_data: { name: `Usage ${i}` },
        recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
      }),
    );
    await stripe.billing.meterEvents.create({ event_name: `usage_${i}`, payload: { stripe_customer_id: customer.id, value: '2' } });
  }
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: prices.map((p) => ({ price: p.id })) });
  const preview = await stripe.invoices.createPreview({ customer: customer.id, subscription: sub.id });
  t.match(preview.id, /^upcoming_in_/);
  t.equal(preview.lines.data.length, 10, 'the answer embeds the first ten lines');
  t.equal(preview.lines.has_more, true);
  const lines: Stripe.InvoiceLineItem[] = [];
  for await (const line of stripe.invoices.listLineItems(preview.id!, { limit: 5 })) lines.push(line);
  t.equal(lines.length, 12, 'every line is listed, five at a time');
  t.same(
    lines.map((l) => l.amount),
    prices.map((p) => 2 * p.unit_amount!),
    'in invoice order, each line billing its usage',
  );
  t.equal(
    preview.total,
    lines.reduce((s, l) => s + l.amount, 0),
    'the lines add up to the preview total',
  );
  const missing = await stripe.invoices.listLineItems('upcoming_in_nosuchpreview').catch((e) => e);
  t.equal(missing.statusCode, 404);
});
