// Stripe lists read one keyset page through the record store's index: subscriptions (with Stripe's
// default of leaving canceled ones out, `status=ended|all`, period ranges, and the `price` filter),
// invoices, webhook endpoints, test clocks, meters, promotion codes, events by wildcard type, products
// and prices — filters, order and cursors as Stripe has them.

import t from 'tap';
import type Stripe from 'stripe';
import { DAY, START, customerWithCard, monthlyPrice, startBillingTwin, type BillingTwin } from './billing-helpers.js';

let bt: BillingTwin;
let stripe: Stripe;

t.before(async () => {
  bt = await startBillingTwin();
  stripe = bt.stripe;
});
t.teardown(() => bt.close());

const ids = (list: { data: { id: string }[] }) => list.data.map((o) => o.id);

t.test('subscriptions: canceled ones are left out unless asked for; filters narrow the page', async (t) => {
  const price = await monthlyPrice(stripe, 1500, 'Lists plan');
  const other = await monthlyPrice(stripe, 900, 'Other plan');
  const { customer } = await customerWithCard(stripe);
  const a = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  const b = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: other.id }] });
  const c = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], collection_method: 'send_invoice', days_until_due: 7 });
  await stripe.subscriptions.cancel(b.id);

  const live = await stripe.subscriptions.list({ customer: customer.id });
  t.same(ids(live), [c.id, a.id], 'newest first, the canceled one left out');
  t.same(ids(await stripe.subscriptions.list({ customer: customer.id, status: 'canceled' })), [b.id]);
  t.same(ids(await stripe.subscriptions.list({ customer: customer.id, status: 'ended' })), [b.id]);
  t.same(ids(await stripe.subscriptions.list({ customer: customer.id, status: 'all' })), [c.id, b.id, a.id]);
  t.same(ids(await stripe.subscriptions.list({ customer: customer.id, collection_method: 'send_invoice' })), [c.id]);
  t.same(ids(await stripe.subscriptions.list({ customer: customer.id, price: price.id })), [c.id, a.id], 'price looks inside the items');
  t.same(ids(await stripe.subscriptions.list({ customer: customer.id, price: other.id })), [], 'the canceled one stays out for price too');

  const end = a.items.data[0]!.current_period_end ?? (a as unknown as { current_period_end: number }).current_period_end;
  t.ok(end > Math.floor(START.getTime() / 1000));
  const later = await stripe.subscriptions.list({ customer: customer.id, current_period_end: { gt: end + 40 * DAY } } as Stripe.SubscriptionListParams);
  t.same(ids(later), [], 'no period ends that late');

  const first = await stripe.subscriptions.list({ customer: customer.id, status: 'all', limit: 1 });
  t.equal(first.has_more, true);
  const second = await stripe.subscriptions.list({ customer: customer.id, status: 'all', limit: 1, starting_after: first.data[0]!.id });
  t.same(ids(second), [b.id]);
  const back = await stripe.subscriptions.list({ customer: customer.id, status: 'all', limit: 5, ending_before: a.id });
  t.same(ids(back), [c.id, b.id], 'ending_before pages towards the newest');

  const err = await stripe.subscriptions.list({ starting_after: 'sub_missing' }).catch((e: Stripe.errors.StripeError) => e);
  t.equal((err as Stripe.errors.StripeError).code, 'resource_missing', 'an unknown cursor is refused as Stripe does');
});

t.test('invoices: every filter the SDK sends, cursors, and auto-pagination', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const made: string[] = [];
  for (let i = 0; i < 5; i++) {
    made.push((await stripe.invoices.create({ customer: customer.id })).id);
  }
  // Nothing is due on these, so finalizing one pays it at once, as on Stripe.
  const finalized = await stripe.invoices.finalizeInvoice(made[1]!, { auto_advance: false });
  t.equal(finalized.status, 'paid');
  const listed = await stripe.invoices.list({ customer: customer.id, limit: 2 });
  t.same(ids(listed), [made[4], made[3]]);
  t.equal(listed.has_more, true);
  const all: string[] = [];
  for await (const inv of stripe.invoices.list({ customer: customer.id, limit: 2 })) all.push(inv.id);
  t.same(all, [...made].reverse(), 'auto-pagination walks every page once');
  t.same(ids(await stripe.invoices.list({ customer: customer.id, status: 'paid' })), [made[1]]);
  t.same(ids(await stripe.invoices.list({ customer: customer.id, status: 'open' })), []);
  t.same(ids(await stripe.invoices.list({ customer: customer.id, status: 'draft' })).length, 4);
  t.same(ids(await stripe.invoices.list({ customer: customer.id, collection_method: 'send_invoice' })), []);
  t.equal((await stripe.invoices.list({ customer: customer.id, limit: 1 })).data[0]!.object, 'invoice', 'presented as the invoice object');
});

t.test('coupons leave deleted ones out; tax rates and payment methods filter by their fields', async (t) => {
  const kept = await stripe.coupons.create({ percent_off: 10, duration: 'once' });
  const gone = await stripe.coupons.create({ percent_off: 20, duration: 'once' });
  const newest = await stripe.coupons.create({ amount_off: 500, currency: 'usd', duration: 'once' });
  await stripe.coupons.del(gone.id);
  t.same(
    ids(await stripe.coupons.list({ limit: 10 })).filter((id) => [kept.id, gone.id, newest.id].includes(id)),
    [newest.id, kept.id],
  );
  t.same(ids(await stripe.coupons.list({ limit: 1, starting_after: newest.id })), [kept.id]);

  const vat = await stripe.taxRates.create({ display_name: 'VAT', percentage: 20, inclusive: true });
  const sales = await stripe.taxRates.create({ display_name: 'Sales', percentage: 8, inclusive: false });
  await stripe.taxRates.update(sales.id, { active: false });
  const inclusive = ids(await stripe.taxRates.list({ inclusive: true, limit: 100 }));
  t.ok(inclusive.includes(vat.id) && !inclusive.includes(sales.id));
  const inactive = ids(await stripe.taxRates.list({ active: false, limit: 100 }));
  t.same(inactive, [sales.id]);

  const { customer, pm } = await customerWithCard(stripe);
  const second = await stripe.paymentMethods.attach('pm_card_mastercard', { customer: customer.id });
  t.same(ids(await stripe.customers.listPaymentMethods(customer.id)), [second.id, pm.id]);
  t.same(ids(await stripe.paymentMethods.list({ customer: customer.id, type: 'card', limit: 1 })), [second.id]);
});

t.test('webhook endpoints, test clocks and meters page like every Stripe list', async (t) => {
  const endpoints: string[] = [];
  // Loopback URLs where nothing listens (tests send traffic only to 127.0.0.0/8), deleted at the end
  // so later tests' events are not delivered to them.
  for (let i = 0; i < 3; i++) endpoints.push((await stripe.webhookEndpoints.create({ url: `http://127.0.0.1:9/hook/${i}`, enabled_events: ['*'] })).id);
  t.teardown(async () => {
    for (const id of endpoints) await stripe.webhookEndpoints.del(id);
  });
  const page = await stripe.webhookEndpoints.list({ limit: 2 });
  t.same(ids(page), [endpoints[2], endpoints[1]]);
  t.equal(page.has_more, true);
  t.notOk('secret' in page.data[0]!, 'the signing secret is never listed');
  t.same(ids(await stripe.webhookEndpoints.list({ limit: 2, starting_after: endpoints[1] })), [endpoints[0]]);

  const clocks: string[] = [];
  for (let i = 0; i < 3; i++) clocks.push((await stripe.testHelpers.testClocks.create({ frozen_time: Math.floor(START.getTime() / 1000) + i })).id);
  t.same(ids(await stripe.testHelpers.testClocks.list({ limit: 2 })), [clocks[2], clocks[1]]);

  const m1 = await stripe.billing.meters.create({ display_name: 'A', event_name: 'list_a', default_aggregation: { formula: 'sum' } });
  const m2 = await stripe.billing.meters.create({ display_name: 'B', event_name: 'list_b', default_aggregation: { formula: 'sum' } });
  await stripe.billing.meters.deactivate(m1.id);
  t.same(ids(await stripe.billing.meters.list({ status: 'inactive' })), [m1.id]);
  t.ok(ids(await stripe.billing.meters.list({ status: 'active' })).includes(m2.id));
  const again = await stripe.billing.meters.create({ display_name: 'A again', event_name: 'list_a', default_aggregation: { formula: 'sum' } });
  t.ok(again.id, 'an inactive meter does not hold its event name');
  const dup = await stripe.billing.meters
    .create({ display_name: 'B twice', event_name: 'list_b', default_aggregation: { formula: 'sum' } })
    .catch((e: Stripe.errors.StripeError) => e);
  t.match((dup as Stripe.errors.StripeError).message, /An active meter with event_name `list_b` already exists/);
});

t.test('filters the index cannot answer fill the page a batch at a time, past a hundred non-matching records', async (t) => {
  const wanted = await stripe.coupons.create({ percent_off: 15, duration: 'once' });
  const codes: string[] = [];
  for (let i = 0; i < 3; i++)
    codes.push(
      (await stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon: wanted.id }, code: `KEEP${i}` } as Stripe.PromotionCodeCreateParams)).id,
    );
  const filler = await stripe.coupons.create({ percent_off: 5, duration: 'once' });
  for (let i = 0; i < 130; i++)
    await stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon: filler.id }, code: `FILL${i}` } as Stripe.PromotionCodeCreateParams);

  // `coupon` looks inside `promotion`: the three wanted codes are older than 130 others.
  const first = await stripe.promotionCodes.list({ coupon: wanted.id, limit: 2 });
  t.same(ids(first), [codes[2], codes[1]], 'newest first, read past two batches of other codes');
  t.equal(first.has_more, true);
  const rest = await stripe.promotionCodes.list({ coupon: wanted.id, limit: 2, starting_after: codes[1] });
  t.same(ids(rest), [codes[0]]);
  t.equal(rest.has_more, false);
  const back = await stripe.promotionCodes.list({ coupon: wanted.id, limit: 1, ending_before: codes[0] });
  t.same(ids(back), [codes[1]], 'ending_before pages towards the newest');
  t.equal(back.has_more, true);
  t.same(ids(await stripe.promotionCodes.list({ code: 'keep1' })), [codes[1]], 'code matches case-insensitively');
  t.equal((await stripe.promotionCodes.list({ coupon: filler.id, limit: 100 })).data.length, 100);

  // A wildcard type is a test too: 133 promotion_code.created events lie between the two coupons'.
  const couponEvents = await stripe.events.list({ type: 'coupon.*', limit: 1 });
  t.equal((couponEvents.data[0]!.data.object as { id: string }).id, filler.id);
  const older = await stripe.events.list({ type: 'coupon.*', limit: 1, starting_after: couponEvents.data[0]!.id });
  t.equal((older.data[0]!.data.object as { id: string }).id, wanted.id);
  const both = await stripe.events.list({ types: ['coupon.created', 'promotion_code.created'], limit: 3 });
  t.same(
    both.data.map((e) => e.type),
    ['promotion_code.created', 'promotion_code.created', 'promotion_code.created'],
    'exact types are conditions of the index',
  );
  t.equal(both.has_more, true);
});

t.test('products by ids[] and prices by lookup_keys[] or recurring read pages through the index', async (t) => {
  const made: string[] = [];
  for (let i = 0; i < 3; i++) made.push((await stripe.products.create({ name: `Listed ${i}` })).id);
  t.same(ids(await stripe.products.list({ ids: [made[0]!, made[2]!] })), [made[2], made[0]], 'ids[] newest first');
  t.same(ids(await stripe.products.list({ ids: [made[0]!, made[2]!], limit: 1, starting_after: made[2] })), [made[0]]);
  const monthly = await stripe.prices.create({
    product: made[0]!,
    unit_amount: 700,
    currency: 'usd',
    recurring: { interval: 'month' },
    lookup_key: 'list_monthly',
  });
  const yearly = await stripe.prices.create({
    product: made[0]!,
    unit_amount: 7000,
    currency: 'usd',
    recurring: { interval: 'year' },
    lookup_key: 'list_yearly',
  });
  const once = await stripe.prices.create({ product: made[0]!, unit_amount: 70, currency: 'usd', lookup_key: 'list_once' });
  t.same(ids(await stripe.prices.list({ lookup_keys: ['list_once', 'list_yearly'] })), [once.id, yearly.id]);
  t.same(ids(await stripe.prices.list({ product: made[0]!, recurring: { interval: 'year' } })), [yearly.id]);
  t.same(ids(await stripe.prices.list({ product: made[0]!, type: 'recurring' })), [yearly.id, monthly.id]);
});

t.test('search reads pages through the index: past a batch of non-matching records, next_page names the last object, total_count on request', async (t) => {
  // An empty resource still refuses a field no record could answer.
  const refused = await stripe.subscriptions.search({ query: "bogus:'x'" }).catch((e) => e);
  t.match(refused, { statusCode: 400, param: 'query', message: /unsupported search field/ });
  const short = await stripe.customers.search({ query: "name~'ab'" }).catch((e) => e);
  t.match(short, { statusCode: 400, param: 'query', message: /at least 3 characters/ });

  const tag = `srch${Date.now()}`;
  const wanted: string[] = [];
  for (let i = 0; i < 5; i++) wanted.push((await stripe.customers.create({ name: `Wanted ${i}`, metadata: { tag } })).id);
  // 110 newer customers that do not match sit in front of them (more than one batch of the index).
  for (let i = 0; i < 110; i += 10) {
    await Promise.all(Array.from({ length: 10 }, (_, j) => stripe.customers.create({ name: `Noise ${i + j}` })));
  }
  const deleted = await stripe.customers.create({ name: 'Wanted gone', metadata: { tag } });
  await stripe.customers.del(deleted.id);

  const query = `metadata['tag']:'${tag}'`;
  const first = await stripe.customers.search({ query, limit: 2 });
  t.same(ids(first), [wanted[4], wanted[3]], 'newest first, the deleted one left out');
  t.equal(first.has_more, true);
  t.type(first.next_page, 'string');
  const second = await stripe.customers.search({ query, limit: 2, page: first.next_page! });
  t.same(ids(second), [wanted[2], wanted[1]]);
  const third = await stripe.customers.search({ query, limit: 2, page: second.next_page! });
  t.same(ids(third), [wanted[0]]);
  t.equal(third.has_more, false);
  t.equal(third.next_page, null);

  const all: string[] = [];
  for await (const c of stripe.customers.search({ query, limit: 2 })) all.push(c.id);
  t.same(all, [...wanted].reverse(), 'auto-pagination follows next_page');

  const counted = (await stripe.customers.search({ query, limit: 1, expand: ['total_count'] })) as unknown as { total_count: number; data: unknown[] };
  t.equal(counted.total_count, 5);
  t.equal(counted.data.length, 1);

  // A token for an object that no longer exists is refused as Stripe refuses a bad page.
  const gone = await stripe.customers.create({ name: 'Short lived', metadata: { tag: `${tag}-b` } });
  await stripe.customers.create({ name: 'Short lived 2', metadata: { tag: `${tag}-b` } });
  const page = await stripe.customers.search({ query: `metadata['tag']:'${tag}-b'`, limit: 1 });
  t.equal(page.has_more, true);
  const tokenFor = (id: string) => 'page_' + Buffer.from(JSON.stringify({ a: id })).toString('base64url');
  t.match(await stripe.customers.search({ query, page: tokenFor('cus_doesnotexist') }).catch((e) => e), { statusCode: 400, param: 'page' });
  t.match(await stripe.customers.search({ query, page: 'page_notbase64json' }).catch((e) => e), { statusCode: 400, param: 'page' });
  t.ok(gone.id);

  // Invoices are matched on the object as shown (presented), and pages hold that object.
  const { customer } = await customerWithCard(stripe);
  const inv = await stripe.invoices.create({ customer: customer.id, metadata: { tag } });
  const found = await stripe.invoices.search({ query: `metadata['tag']:'${tag}' AND customer:'${customer.id}'` });
  t.same(ids(found), [inv.id]);
  t.equal(found.data[0]!.object, 'invoice');
});
