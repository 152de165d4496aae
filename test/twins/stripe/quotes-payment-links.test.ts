// Quotes and payment links, driven through the official `stripe` SDK: a quote's lifecycle to a
// subscription and to an invoice, its state errors and refused parameters; a payment link completed
// through the twin's hosted Checkout page, producing a paid session that names the link.

import t from 'tap';
import Stripe from 'stripe';
import { customerWithCard, monthlyPrice, startBillingTwin } from './billing-helpers.js';

const bt = await startBillingTwin();
t.teardown(() => bt.close());
const { stripe } = bt;

async function oneTimePrice(unitAmount: number, name = 'Setup fee') {
  const product = await stripe.products.create({ name });
  return stripe.prices.create({ product: product.id, unit_amount: unitAmount, currency: 'usd' });
}

async function refusal(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the twin to refuse');
}

async function eventTypesFor(id: string): Promise<string[]> {
  const events = await stripe.events.list({ limit: 100 });
  return events.data.filter((e) => (e.data.object as { id?: string }).id === id).map((e) => e.type);
}

t.test('a quote with a recurring and a one-time price: draft → open → accepted, creating the subscription', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const monthly = await monthlyPrice(stripe, 2000);
  const fee = await oneTimePrice(5000);
  const quote = await stripe.quotes.create({
    customer: customer.id,
    line_items: [
      { price: monthly.id, quantity: 2 },
      { price: fee.id, quantity: 1 },
    ],
    description: 'Annual deal',
  });
  t.equal(quote.status, 'draft');
  t.equal(quote.number, null);
  t.equal(quote.amount_subtotal, 9000, 'upfront: 2 × 2000 + 5000');
  t.equal(quote.amount_total, 9000);
  t.equal(quote.currency, 'usd');
  t.match(quote.computed, {
    upfront: { amount_subtotal: 9000, amount_total: 9000, total_details: { amount_discount: 0, amount_tax: 0 } },
    recurring: { amount_subtotal: 4000, amount_total: 4000, interval: 'month', interval_count: 1 },
  });
  t.notOk('line_items' in quote, 'line items only when expanded');
  t.equal(quote.expires_at - quote.created, 30 * 86_400, 'valid 30 days by default');

  const expanded = await stripe.quotes.retrieve(quote.id, { expand: ['line_items'] });
  t.equal(expanded.line_items!.data.length, 2);
  const lines = await stripe.quotes.listLineItems(quote.id);
  t.same(
    lines.data.map((li) => [li.price!.id, li.quantity, li.amount_total]),
    [
      [monthly.id, 2, 4000],
      [fee.id, 1, 5000],
    ],
  );
  const upfront = await stripe.quotes.listComputedUpfrontLineItems(quote.id);
  t.equal(upfront.data.length, 2);

  const accepting = await refusal(stripe.quotes.accept(quote.id));
  t.type(accepting, Stripe.errors.StripeInvalidRequestError);
  t.match(accepting.message, /status of `draft`/);

  const open = await stripe.quotes.finalizeQuote(quote.id);
  t.equal(open.status, 'open');
  t.match(open.number, /^QT-[A-Z0-9]+-0001-1$/);
  t.type(open.status_transitions.finalized_at, 'number');
  const edit = await refusal(stripe.quotes.update(quote.id, { description: 'changed' }));
  t.match(edit.message, /draft/);

  const accepted = await stripe.quotes.accept(quote.id);
  t.equal(accepted.status, 'accepted');
  t.type(accepted.subscription, 'string');
  t.equal(accepted.invoice, null);
  const sub = await stripe.subscriptions.retrieve(accepted.subscription as string, { expand: ['latest_invoice'] });
  t.equal(sub.customer, customer.id);
  t.equal(sub.items.data[0]!.price.id, monthly.id);
  t.equal(sub.items.data[0]!.quantity, 2);
  const first = sub.latest_invoice as Stripe.Invoice;
  t.equal(first.amount_due, 9000, 'the first invoice bills the period and the one-time fee');
  t.equal(first.status, 'paid');
  t.same(await eventTypesFor(quote.id), ['quote.accepted', 'quote.finalized', 'quote.created']);

  const again = await refusal(stripe.quotes.cancel(quote.id));
  t.match(again.message, /status of `accepted`/);
});

t.test('a one-time quote accepted makes a draft invoice for the customer, linked both ways', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const fee = await oneTimePrice(1250, 'Consulting hour');
  const quote = await stripe.quotes.create({ line_items: [{ price: fee.id, quantity: 4 }] });
  t.equal(quote.computed.recurring, null);
  t.equal(quote.amount_total, 5000);
  const noCustomer = await refusal(stripe.quotes.finalizeQuote(quote.id));
  t.match(noCustomer.message, /customer/);
  const [line] = (await stripe.quotes.listLineItems(quote.id)).data;
  const unknownLine = await refusal(stripe.quotes.update(quote.id, { line_items: [{ id: 'li_nope', quantity: 3 }] }));
  t.equal(unknownLine.param, 'line_items[0][id]');
  const edited = await stripe.quotes.update(quote.id, { customer: customer.id, line_items: [{ id: line!.id, quantity: 3 }], expand: ['line_items'] });
  t.same(
    edited.line_items!.data.map((li) => [li.id, li.quantity, li.amount_total]),
    [[line!.id, 3, 3750]],
    'the kept line, its quantity changed',
  );
  const open = await stripe.quotes.finalizeQuote(quote.id);
  t.equal(open.amount_total, 3750);
  const accepted = await stripe.quotes.accept(quote.id);
  t.equal(accepted.subscription, null);
  const invoice = await stripe.invoices.retrieve(accepted.invoice as string);
  t.equal(invoice.status, 'draft');
  t.equal(invoice.customer, customer.id);
  t.equal(invoice.amount_due, 3750);
  t.match(invoice.parent, { type: 'quote_details', quote_details: { quote: quote.id } });
  const listed = await stripe.quotes.list({ customer: customer.id, status: 'accepted' });
  t.same(
    listed.data.map((q) => q.id),
    [quote.id],
  );
});

t.test('cancel, references, and parameters the twin does not model', async (t) => {
  const fee = await oneTimePrice(700);
  const missing = await refusal(stripe.quotes.create({ line_items: [{ price: 'price_missing', quantity: 1 }] }));
  t.equal(missing.statusCode, 404);
  t.equal(missing.message, "No such price: 'price_missing'");
  t.equal(missing.param, 'line_items[0][price]');
  const discounted = await refusal(stripe.quotes.create({ line_items: [{ price: fee.id, quantity: 1 }], discounts: [{ coupon: 'X' }] }));
  t.equal(discounted.statusCode, 501);
  t.match(discounted.message, /discounts/);
  const taxed = await refusal(stripe.quotes.create({ line_items: [{ price: fee.id, quantity: 1, tax_rates: ['txr_1'] }] }));
  t.match(taxed.message, /line_items\[0\]\[tax_rates\]/);
  t.equal((await stripe.quotes.list({ limit: 100 })).data.filter((q) => q.amount_total === 700).length, 0, 'refusals keep nothing');

  const quote = await stripe.quotes.create({ line_items: [{ price: fee.id, quantity: 1 }] });
  const canceled = await stripe.quotes.cancel(quote.id);
  t.equal(canceled.status, 'canceled');
  t.type(canceled.status_transitions.canceled_at, 'number');
  t.match((await refusal(stripe.quotes.finalizeQuote(quote.id))).message, /status of `canceled`/);
  t.same(await eventTypesFor(quote.id), ['quote.canceled', 'quote.created']);
  const pdf = await fetch(`${bt.twin.url}/v1/quotes/${quote.id}/pdf`, { headers: { authorization: `Bearer ${bt.twin.apiKey}` } });
  t.equal(pdf.headers.get('twin-fidelity'), 'unsupported');
  t.not(pdf.status, 200);
});

t.test('a payment link: its url opens a Checkout Session that the hosted page completes', async (t) => {
  const fee = await oneTimePrice(2500, 'T-shirt');
  const missing = await refusal(stripe.paymentLinks.create({ line_items: [{ price: 'price_nope', quantity: 1 }] }));
  t.equal(missing.message, "No such price: 'price_nope'");

  const link = await stripe.paymentLinks.create({
    line_items: [{ price: fee.id, quantity: 2 }],
    after_completion: { type: 'redirect', redirect: { url: 'https://example.com/thanks' } },
  });
  t.match(link.id, /^plink_/);
  t.equal(link.active, true);
  t.equal(link.currency, 'usd');
  t.ok(link.url.startsWith(bt.twin.url), 'the url is a page of the twin');
  const items = await stripe.paymentLinks.listLineItems(link.id);
  t.same(
    items.data.map((li) => [li.price!.id, li.quantity, li.amount_total]),
    [[fee.id, 2, 5000]],
  );

  const visit = await fetch(link.url, { redirect: 'manual' });
  t.equal(visit.status, 303);
  const pageUrl = visit.headers.get('location')!;
  t.match(pageUrl, /\/c\/pay\/cs_test_/);
  const sessionId = pageUrl.split('/').pop()!;
  const submitted = await fetch(pageUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: '4242 4242 4242 4242', card_expiry: '12 / 34', card_cvc: '123', email: 'ada@example.com' }).toString(),
    redirect: 'manual',
  });
  t.equal(submitted.status, 303);
  t.equal(submitted.headers.get('location'), 'https://example.com/thanks');
  const session = await stripe.checkout.sessions.retrieve(sessionId);
  t.equal(session.payment_link, link.id);
  t.equal(session.mode, 'payment');
  t.equal(session.status, 'complete');
  t.equal(session.payment_status, 'paid');
  t.equal(session.amount_total, 5000);
  const byLink = await stripe.checkout.sessions.list({ payment_link: link.id });
  t.same(
    byLink.data.map((s) => s.id),
    [sessionId],
  );

  const off = await stripe.paymentLinks.update(link.id, { active: false });
  t.equal(off.active, false);
  t.equal((await fetch(link.url, { redirect: 'manual' })).status, 410, 'an inactive link opens no session');
  t.equal((await stripe.paymentLinks.list({ active: false })).data[0]!.id, link.id);
});

t.test('a payment link on a recurring price subscribes through the same page', async (t) => {
  const monthly = await monthlyPrice(stripe, 1500, 'Club');
  const link = await stripe.paymentLinks.create({ line_items: [{ price: monthly.id, quantity: 1 }] });
  t.equal(link.customer_creation, 'always');
  t.ok(link.subscription_data);
  const visit = await fetch(link.url, { redirect: 'manual' });
  const pageUrl = visit.headers.get('location')!;
  const done = await fetch(pageUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: '4242424242424242', card_expiry: '12/34', card_cvc: '123', email: 'sub@example.com' }).toString(),
    redirect: 'manual',
  });
  t.equal(done.status, 200, 'hosted confirmation: no redirect');
  const session = await stripe.checkout.sessions.retrieve(pageUrl.split('/').pop()!);
  t.equal(session.mode, 'subscription');
  t.equal(session.payment_link, link.id);
  t.equal(session.status, 'complete');
  const sub = await stripe.subscriptions.retrieve(session.subscription as string);
  t.equal(sub.status, 'active');
  t.equal(sub.items.data[0]!.price.id, monthly.id);
});

// Last: it moves the environment clock.
t.test('draft and open quotes cancel themselves when expires_at passes', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const fee = await oneTimePrice(900);
  const created = await stripe.quotes.create({ customer: customer.id, line_items: [{ price: fee.id, quantity: 1 }] });
  const draft = await stripe.quotes.update(created.id, { expires_at: created.created + 7200 });
  const open = await stripe.quotes.finalizeQuote((await stripe.quotes.create({ customer: customer.id, line_items: [{ price: fee.id, quantity: 1 }] })).id, {
    expires_at: draft.created + 3600,
  });
  const later = await stripe.quotes.create({ customer: customer.id, line_items: [{ price: fee.id, quantity: 1 }] });
  const past = await refusal(stripe.quotes.finalizeQuote(later.id, { expires_at: later.created - 1 }));
  t.match(past.message, /expires_at/);
  await bt.twin.advance(new Date((draft.expires_at + 1) * 1000));
  for (const q of [draft, open]) {
    const now = await stripe.quotes.retrieve(q.id);
    t.equal(now.status, 'canceled', `${q.status} → canceled`);
    t.equal(now.status_transitions.canceled_at, q.expires_at);
  }
  t.equal((await stripe.quotes.retrieve(later.id)).status, 'draft', 'a quote valid 30 days is still a draft');
  t.ok((await eventTypesFor(open.id)).includes('quote.canceled'));
});
