// Inline `price_data` (and `product_data` inside it) through the official SDK: Checkout line items,
// subscription items and `add_invoice_items` on create and update, subscription items, invoice
// items. Each makes a real price Stripe would make — archived (`active: false`), retrievable,
// announced by `price.created` — that the object then bills.

import t from 'tap';
import type Stripe from 'stripe';
import { customerWithCard } from './billing-helpers.js';
import { hookedBillingTwin } from './hooked-twin.js';
import { checkSchema } from './spec-schema.js';

const twin = hookedBillingTwin(t);

/** The twin-only completion helper (routes/checkout.ts). */
async function complete(id: string, body: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${twin.bt.twin.url}/v1/test_helpers/checkout/sessions/${id}/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.bt.twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: res.status, json: await res.json() };
}

t.test('checkout: price_data with product_data makes an archived price and its product', async (t) => {
  const session = await twin.stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price_data: { currency: 'usd', unit_amount: 1250, product_data: { name: 'Sticker pack', description: 'Five stickers' } }, quantity: 3 }],
    success_url: 'https://example.com/ok',
  });
  t.equal(session.amount_total, 3750);
  const lines = await twin.stripe.checkout.sessions.listLineItems(session.id);
  t.equal(lines.data.length, 1);
  const line = lines.data[0]!;
  t.equal(line.description, 'Sticker pack');
  const price = await twin.stripe.prices.retrieve(line.price!.id);
  t.equal(price.active, false, 'an inline price is archived at once');
  t.equal(price.unit_amount, 1250);
  t.equal(price.type, 'one_time');
  checkSchema(t, 'price', await twin.raw(`/v1/prices/${price.id}`));
  const product = await twin.stripe.products.retrieve(price.product as string);
  t.equal(product.name, 'Sticker pack');
  t.equal(product.description, 'Five stickers');
  await twin.hooks.waitFor('price.created', (p) => p.id === price.id);

  const done = await complete(session.id, 'payment_method=pm_card_visa');
  t.equal(done.status, 200);
  t.equal(done.json.status, 'complete');

  const both = await twin.stripe.checkout.sessions
    .create({
      mode: 'payment',
      line_items: [{ price: price.id, price_data: { currency: 'usd', unit_amount: 1, product: product.id }, quantity: 1 }],
      success_url: 'https://example.com/ok',
    })
    .catch((e) => e);
  t.equal(both.statusCode, 400);
  t.match(both.message, /only specify one of these parameters: price, price_data/);
  const archived = await twin.stripe.checkout.sessions
    .create({ mode: 'payment', line_items: [{ price: price.id, quantity: 1 }], success_url: 'https://example.com/ok' })
    .catch((e) => e);
  t.equal(archived.statusCode, 400, 'an archived price named by id is refused');
  t.equal(archived.param, 'line_items[0][price]');
  const neither = await twin.stripe.checkout.sessions
    .create({ mode: 'payment', line_items: [{ quantity: 1 }], success_url: 'https://example.com/ok' })
    .catch((e) => e);
  t.equal(neither.statusCode, 400);
  t.equal(neither.param, 'line_items[0][price]');
});

t.test('checkout in subscription mode: the inline recurring price becomes the subscription item', async (t) => {
  const session = await twin.stripe.checkout.sessions.create({
    mode: 'subscription',
    line_items: [{ price_data: { currency: 'usd', unit_amount: 900, recurring: { interval: 'month' }, product_data: { name: 'Inline plan' } }, quantity: 1 }],
    success_url: 'https://example.com/ok',
  });
  const done = await complete(session.id, 'payment_method=pm_card_visa');
  t.equal(done.status, 200);
  const sub = await twin.stripe.subscriptions.retrieve(done.json.subscription);
  t.equal(sub.status, 'active');
  t.equal(sub.items.data[0]!.price.unit_amount, 900);
  t.equal(sub.items.data[0]!.price.active, false);
  t.same(sub.items.data[0]!.price.recurring?.interval, 'month');
});

t.test('subscriptions: items and add_invoice_items inline, on create and update', async (t) => {
  const { customer } = await customerWithCard(twin.stripe);
  const product = await twin.stripe.products.create({ name: 'Team seats' });
  const sub = await twin.stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price_data: { currency: 'usd', product: product.id, unit_amount: 1500, recurring: { interval: 'month' } }, quantity: 2 }],
    add_invoice_items: [{ price_data: { currency: 'usd', product: product.id, unit_amount: 4000 }, quantity: 1 }],
    expand: ['latest_invoice'],
  });
  t.equal(sub.status, 'active');
  const item = sub.items.data[0]!;
  t.equal(item.price.active, false);
  t.equal(item.price.product, product.id);
  const price = await twin.stripe.prices.retrieve(item.price.id);
  t.equal(price.recurring?.interval, 'month');
  const invoice = sub.latest_invoice as Stripe.Invoice;
  t.equal(invoice.total, 2 * 1500 + 4000, 'the one-off item rides on the first invoice');
  t.equal(invoice.lines.data.length, 2);
  const setupFee = (await twin.stripe.invoiceItems.list({ customer: customer.id })).data;
  t.equal(setupFee.length, 1);
  t.equal(setupFee[0]!.invoice, invoice.id);
  t.equal(setupFee[0]!.pricing?.price_details?.product, product.id);

  const updated = await twin.stripe.subscriptions.update(sub.id, {
    items: [{ id: item.id, price_data: { currency: 'usd', product: product.id, unit_amount: 2500, recurring: { interval: 'month' } } }],
    add_invoice_items: [{ price_data: { currency: 'usd', product: product.id, unit_amount: 300 } }],
    proration_behavior: 'none',
  });
  t.equal(updated.items.data[0]!.price.unit_amount, 2500);
  t.equal(updated.items.data[0]!.price.active, false);
  const pending = await twin.stripe.invoiceItems.list({ customer: customer.id, pending: true });
  t.equal(pending.data.length, 1, 'the update adds a pending item for the next invoice');
  t.equal(pending.data[0]!.amount, 300);
  t.equal(pending.data[0]!.parent?.subscription_details?.subscription, sub.id);

  const added = await twin.stripe.subscriptionItems.create({
    subscription: sub.id,
    price_data: { currency: 'usd', product: product.id, unit_amount: 100, recurring: { interval: 'month' } },
    quantity: 5,
    proration_behavior: 'none',
  });
  t.equal(added.price.unit_amount, 100);
  t.equal(added.quantity, 5);

  const recurringOneOff = await twin.stripe.subscriptions.update(sub.id, { add_invoice_items: [{ price: updated.items.data[0]!.price.id }] }).catch((e) => e);
  t.equal(recurringOneOff.statusCode, 400);
  t.equal(recurringOneOff.param, 'add_invoice_items[0][price]');
  const noProduct = await twin.stripe.subscriptions
    .create({ customer: customer.id, items: [{ price_data: { currency: 'usd', product: 'prod_missing', unit_amount: 1, recurring: { interval: 'month' } } }] })
    .catch((e) => e);
  t.equal(noProduct.code, 'resource_missing');
  t.equal(noProduct.param, 'items[0][price_data][product]');
});

t.test('invoice items: price_data on create and update', async (t) => {
  const { customer } = await customerWithCard(twin.stripe);
  const product = await twin.stripe.products.create({ name: 'Consulting hour' });
  const ii = await twin.stripe.invoiceItems.create({
    customer: customer.id,
    price_data: { currency: 'usd', product: product.id, unit_amount: 12000 },
    quantity: 2,
  });
  t.equal(ii.amount, 24000);
  t.equal(ii.currency, 'usd');
  const priceId = ii.pricing?.price_details?.price as string;
  t.match(priceId, /^price_/);
  const price = await twin.stripe.prices.retrieve(priceId);
  t.equal(price.active, false);
  t.equal(price.unit_amount, 12000);
  checkSchema(t, 'invoiceitem', await twin.raw(`/v1/invoiceitems/${ii.id}`));

  const changed = await twin.stripe.invoiceItems.update(ii.id, { price_data: { currency: 'usd', product: product.id, unit_amount: 15000 } });
  t.equal(changed.amount, 30000);
  t.not(changed.pricing?.price_details?.price, priceId, 'a new inline price replaces the old');

  const missing = await twin.stripe.invoiceItems
    .create({ customer: customer.id, price_data: { currency: 'usd', product: 'prod_nope', unit_amount: 1 } })
    .catch((e) => e);
  t.equal(missing.code, 'resource_missing');
  t.equal(missing.param, 'price_data[product]');
});

t.test('payment links and quotes take price_data too', async (t) => {
  const link = await twin.stripe.paymentLinks.create({
    line_items: [{ price_data: { currency: 'usd', unit_amount: 2200, product_data: { name: 'Workshop seat' } }, quantity: 2 }],
  });
  const linkLines = await twin.stripe.paymentLinks.listLineItems(link.id);
  t.equal(linkLines.data.length, 1);
  t.equal(linkLines.data[0]!.amount_total, 4400);
  t.equal(linkLines.data[0]!.description, 'Workshop seat');
  t.equal(linkLines.data[0]!.price!.active, false);
  const visit = await fetch(link.url, { redirect: 'manual' });
  t.equal(visit.status, 303, "a visit opens a session on the link's inline price");
  const sessions = await twin.stripe.checkout.sessions.list({ payment_link: link.id });
  t.equal(sessions.data.length, 1);
  t.equal(sessions.data[0]!.amount_total, 4400);

  const { customer } = await customerWithCard(twin.stripe);
  const product = await twin.stripe.products.create({ name: 'Support plan' });
  const quote = await twin.stripe.quotes.create({
    customer: customer.id,
    line_items: [{ price_data: { currency: 'usd', product: product.id, unit_amount: 5000, recurring: { interval: 'month' } }, quantity: 1 }],
  });
  t.equal(quote.amount_total, 5000);
  await twin.stripe.quotes.finalizeQuote(quote.id);
  const accepted = await twin.stripe.quotes.accept(quote.id);
  t.equal(accepted.status, 'accepted');
  const sub = await twin.stripe.subscriptions.retrieve(accepted.subscription as string);
  t.equal(sub.items.data[0]!.price.unit_amount, 5000);
  t.equal(sub.items.data[0]!.price.active, false, "the quote's inline price, archived, bills the subscription");
});

t.test('subscription schedules: inline prices in phases, and a schedule from a subscription on an inline price', async (t) => {
  const { customer } = await customerWithCard(twin.stripe);
  const product = await twin.stripe.products.create({ name: 'Ramp plan' });
  const monthly = (unit_amount: number) => ({ currency: 'usd', product: product.id, unit_amount, recurring: { interval: 'month' as const } });
  const fromSub = await twin.stripe.subscriptions.create({ customer: customer.id, items: [{ price_data: monthly(700) }] });
  const adopted = await twin.stripe.subscriptionSchedules.create({ from_subscription: fromSub.id });
  t.equal(adopted.phases[0]!.items[0]!.price, fromSub.items.data[0]!.price.id, "the subscription's archived inline price is the phase's");

  const schedule = await twin.stripe.subscriptionSchedules.create({
    customer: customer.id,
    start_date: 'now',
    end_behavior: 'release',
    phases: [{ items: [{ price_data: monthly(1000) }], duration: { interval: 'month' } }, { items: [{ price_data: monthly(2000), quantity: 2 }] }],
  });
  t.equal(schedule.status, 'active');
  const first = await twin.stripe.subscriptions.retrieve(schedule.subscription as string);
  t.equal(first.items.data[0]!.price.unit_amount, 1000);
  t.equal(first.items.data[0]!.price.active, false);
  await twin.bt.twin.advance(new Date(first.items.data[0]!.current_period_end * 1000 + 3_600_000));
  const second = await twin.stripe.subscriptions.retrieve(schedule.subscription as string);
  t.equal(second.items.data.length, 1);
  t.equal(second.items.data[0]!.price.unit_amount, 2000, 'the next phase moves the subscription to its inline price');
  t.equal(second.items.data[0]!.quantity, 2);
});
