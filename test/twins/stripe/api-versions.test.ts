// `Stripe-Version`: one twin behind the recording gateway, the official SDK on the default version
// and a second client pinned to an older one. A charge shows its `refunds` list only before
// 2022-11-15 (after it, only with `expand[]=refunds`); a paid invoice shows `charge`,
// `payment_intent`, `paid` and `subscription` only before 2025-03-31.basil, a subscription its
// `current_period_*`, a line its `type`/`price`; a webhook endpoint made with an old `api_version`
// receives its events in that shape (verified with constructEvent), and `/v1/events` renders in the
// request's version. The default shape carries no field the SDK's types leave out; the old shape
// validates against the spec copy, which describes that era.

import t from 'tap';
import Stripe from 'stripe';
import { startTwinBehindGateway, type GatewayTwin } from '../../helpers/gateway-twin.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { SPEC_API_VERSION, checkSchema } from './spec-schema.js';
import { undeclaredFields } from './sdk-fields.js';
import { customerWithCard } from './billing-helpers.js';

const DEFAULT = '2026-10-28.endive';
const OLD = '2022-08-01';

let gw: GatewayTwin;
let stripe: Stripe;
let old: Stripe;
let hooks: WebhookReceiver;
let oldHooks: WebhookReceiver;

function client(apiVersion?: string): Stripe {
  const url = new URL(gw.url);
  return new Stripe(gw.apiKey, {
    host: url.hostname,
    port: Number(url.port),
    protocol: 'http',
    maxNetworkRetries: 0,
    ...(apiVersion ? { apiVersion: apiVersion as Stripe.LatestApiVersion } : {}),
  });
}

/** The raw JSON the twin answers, pinned to `version` or on the default. */
async function raw(path: string, version?: string): Promise<any> {
  const res = await fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${gw.apiKey}`, ...(version ? { 'stripe-version': version } : {}) } });
  return res.json();
}

t.before(async () => {
  gw = await startTwinBehindGateway('stripe');
  stripe = client();
  old = client(OLD);
  hooks = await startWebhookReceiver(stripe);
  oldHooks = await startWebhookReceiver(stripe, { apiVersion: OLD });
});
t.teardown(async () => {
  await hooks?.close();
  await oldHooks?.close();
  await gw?.close();
});

async function paidCharge(amount = 5000): Promise<Stripe.PaymentIntent> {
  return stripe.paymentIntents.create({
    amount,
    currency: 'usd',
    payment_method: 'pm_card_visa',
    confirm: true,
    automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
  });
}

t.test('a charge embeds its refunds only for versions before 2022-11-15', async (t) => {
  const pi = await paidCharge();
  const chargeId = pi.latest_charge as string;
  const first = await stripe.refunds.create({ charge: chargeId, amount: 1000 });
  const second = await stripe.refunds.create({ charge: chargeId, amount: 1500 });

  const current = await stripe.charges.retrieve(chargeId);
  t.notOk('refunds' in current, 'the default version carries no refunds');
  t.equal(current.amount_refunded, 2500);

  const pinned = (await old.charges.retrieve(chargeId)) as any;
  t.equal(pinned.refunds.object, 'list');
  t.same(
    pinned.refunds.data.map((r: Stripe.Refund) => r.id),
    [second.id, first.id],
    'newest first, from the twin’s refunds',
  );
  t.equal(pinned.refunds.total_count, 2);
  t.equal(pinned.refunds.has_more, false);
  t.equal(pinned.refunds.url, `/v1/charges/${chargeId}/refunds`);
  t.equal(pinned.refunds.data[0].amount, 1500);

  const expanded = await stripe.charges.retrieve(chargeId, { expand: ['refunds'] });
  t.same(
    expanded.refunds!.data.map((r) => r.id),
    [second.id, first.id],
    'expand[]=refunds on the default version',
  );
  const listed = await stripe.charges.list({ payment_intent: pi.id, expand: ['data.refunds'] });
  t.equal(listed.data.length, 1);
  t.equal((listed.data[0]!.refunds as any).total_count, 2, 'expand[]=data.refunds on a list');
  const oldList = (await old.charges.list({ payment_intent: pi.id })) as any;
  t.equal(oldList.data.length, 1);
  t.equal(oldList.data[0].refunds.data.length, 2, 'list data in the pinned version');
  t.notOk('refunds' in (await stripe.charges.list({ payment_intent: pi.id })).data[0]!);

  // A charge with no refunds still has the (empty) list in the old version.
  const fresh = await paidCharge(700);
  const none = await raw(`/v1/charges/${fresh.latest_charge}`, OLD);
  t.same(none.refunds, { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/charges/${fresh.latest_charge}/refunds` });

  // The old endpoint's charge.refunded webhook carries the list; the default endpoint's does not.
  const oldHook = await oldHooks.waitFor('charge.refunded', (c) => c.id === chargeId && c.refunds?.total_count === 2);
  t.equal(oldHook.api_version, OLD);
  const hook = await hooks.waitFor('charge.refunded', (c) => c.id === chargeId && c.amount_refunded === 2500);
  t.equal(hook.api_version, DEFAULT);
  t.notOk('refunds' in hook.data.object);
  t.same(hooks.rejected, []);
  t.same(oldHooks.rejected, []);
  checkSchema(t, 'charge', await raw(`/v1/charges/${chargeId}`));
  checkSchema(t, 'charge', pinned);
});

t.test('a paid invoice names its charge and payment intent only before basil', async (t) => {
  const product = await stripe.products.create({ name: 'Versions plan' });
  const price = await stripe.prices.create({ product: product.id, unit_amount: 2500, currency: 'usd', recurring: { interval: 'month' } });
  const { customer } = await customerWithCard(stripe);
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  t.equal(sub.status, 'active');
  const invoiceId = sub.latest_invoice as string;

  const current = await stripe.invoices.retrieve(invoiceId);
  t.equal(current.status, 'paid');
  for (const gone of ['charge', 'payment_intent', 'paid', 'paid_out_of_band', 'subscription', 'total_tax_amounts'])
    t.notOk(gone in current, `no ${gone} on the default version`);
  t.equal(current.parent?.subscription_details?.subscription, sub.id);
  t.same(undeclaredFields(current as any, 'Invoices', 'Invoice'), [], 'the default invoice carries only fields the SDK declares');
  const line = current.lines.data[0]!;
  t.same(undeclaredFields(line as any, 'InvoiceLineItems', 'InvoiceLineItem'), [], 'so does its line');
  t.notOk('current_period_end' in (await stripe.subscriptions.retrieve(sub.id)));

  const pinned = (await old.invoices.retrieve(invoiceId)) as any;
  t.match(pinned.payment_intent, /^pi_/);
  const pi = await stripe.paymentIntents.retrieve(pinned.payment_intent);
  t.equal(pi.status, 'succeeded');
  t.equal(pi.amount, 2500);
  t.equal(pinned.charge, pi.latest_charge, 'the charge that paid it');
  t.equal(pinned.paid, true);
  t.equal(pinned.paid_out_of_band, false);
  t.equal(pinned.subscription, sub.id);
  t.notOk('parent' in pinned);
  t.same(pinned.total_tax_amounts, []);
  const oldLine = pinned.lines.data[0];
  t.equal(oldLine.type, 'subscription');
  t.equal(oldLine.subscription, sub.id);
  t.equal(oldLine.price.id, price.id);
  t.equal(oldLine.proration, false);
  t.notOk('parent' in oldLine);
  t.notOk('pricing' in oldLine);

  // The payment intent and charge name the invoice only before basil.
  t.notOk('invoice' in pi);
  t.equal(((await old.paymentIntents.retrieve(pi.id)) as any).invoice, invoiceId);
  t.equal(((await old.charges.retrieve(pi.latest_charge as string)) as any).invoice, invoiceId);

  const oldSub = (await old.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })) as any;
  t.equal(oldSub.current_period_end, sub.items.data[0]!.current_period_end, 'the period on the subscription');
  t.equal(oldSub.current_period_start, sub.items.data[0]!.current_period_start);
  t.notOk('current_period_end' in oldSub.items.data[0], 'not on its items');
  t.equal(oldSub.latest_invoice.charge, pi.latest_charge, 'an expanded invoice in the pinned version');
  const expandedNew = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] });
  t.notOk('charge' in (expandedNew.latest_invoice as Stripe.Invoice), 'and in the default version without it');

  // The spec copy describes the pre-basil shape: the pinned objects validate against it.
  checkSchema(t, 'invoice', await raw(`/v1/invoices/${invoiceId}`, SPEC_API_VERSION));
  checkSchema(t, 'line_item', (await raw(`/v1/invoices/${invoiceId}`, SPEC_API_VERSION)).lines.data[0]);
  checkSchema(t, 'subscription', await raw(`/v1/subscriptions/${sub.id}`, SPEC_API_VERSION));
  checkSchema(t, 'payment_intent', await raw(`/v1/payment_intents/${pi.id}`));

  // Webhooks: the old endpoint's invoice.paid has the old shape, the default one's the new.
  const oldPaid = await oldHooks.waitFor('invoice.paid', (i) => i.id === invoiceId);
  t.equal(oldPaid.api_version, OLD);
  const oldObject = oldPaid.data.object as any;
  t.equal(oldObject.charge, pi.latest_charge);
  t.equal(oldObject.payment_intent, pi.id);
  t.equal(oldObject.subscription, sub.id);
  t.equal(oldObject.paid, true);
  t.equal(oldObject.lines.data[0].type, 'subscription');
  t.equal((oldPaid.data as any).previous_attributes?.paid, false, 'the old shape keeps paid in previous_attributes');
  const paid = await hooks.waitFor('invoice.paid', (i) => i.id === invoiceId);
  t.equal(paid.api_version, DEFAULT);
  t.notOk('charge' in paid.data.object);
  t.notOk('paid' in ((paid.data as any).previous_attributes ?? {}), 'previous_attributes lose the removed fields too');
  const oldCreated = await oldHooks.waitFor('customer.subscription.created', (s) => s.id === sub.id);
  t.ok((oldCreated.data.object as any).current_period_end > 0);
  t.same(oldHooks.rejected, []);

  // /v1/events renders in the request's version.
  const event = await raw(`/v1/events/${paid.id}`, OLD);
  t.equal(event.api_version, OLD);
  t.equal(event.data.object.charge, pi.latest_charge);
  const eventNow = await raw(`/v1/events/${paid.id}`);
  t.equal(eventNow.api_version, DEFAULT);
  t.notOk('charge' in eventNow.data.object);
  const listedOld = await raw(`/v1/events?type=invoice.paid&limit=100`, OLD);
  const ours = listedOld.data.find((e: any) => e.id === paid.id);
  t.ok(ours, 'the event is listed');
  t.equal(ours.data.object.payment_intent, pi.id);
});

t.test('taxes and search results in the pinned version', async (t) => {
  const rate = await stripe.taxRates.create({ display_name: 'VAT', percentage: 10, inclusive: false });
  const customer = await stripe.customers.create({ email: 'taxed@example.com' });
  const draft = await stripe.invoices.create({ customer: customer.id, collection_method: 'send_invoice', days_until_due: 30, default_tax_rates: [rate.id] });
  const item = await stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, amount: 10_000, currency: 'usd', description: 'Consulting' });
  // Raw JSON: the SDK turns decimal strings into Decimal objects.
  const itemNow = await raw(`/v1/invoiceitems/${item.id}`);
  t.equal(itemNow.pricing.unit_amount_decimal, '10000');
  for (const gone of ['price', 'unit_amount', 'unit_amount_decimal']) t.notOk(gone in itemNow, `no ${gone} on the default invoice item`);
  const oldItem = await raw(`/v1/invoiceitems/${item.id}`, OLD);
  t.equal(oldItem.unit_amount_decimal, '10000');
  t.equal(oldItem.unit_amount, 10_000);
  t.equal(oldItem.price, null);
  t.notOk('pricing' in oldItem);
  checkSchema(t, 'invoiceitem', oldItem);
  const inv = await stripe.invoices.finalizeInvoice(draft.id!);
  t.equal(inv.total, 11_000);
  t.equal(inv.total_taxes![0]!.amount, 1000);
  const pinned = await raw(`/v1/invoices/${inv.id}`, OLD);
  t.same(pinned.total_tax_amounts, [{ amount: 1000, inclusive: false, tax_rate: rate.id, taxability_reason: 'standard_rated', taxable_amount: 10_000 }]);
  t.notOk('total_taxes' in pinned);
  const line = pinned.lines.data[0];
  t.same(line.tax_amounts, [{ amount: 1000, inclusive: false, tax_rate: rate.id, taxability_reason: 'standard_rated', taxable_amount: 10_000 }]);
  t.equal(line.type, 'invoiceitem');
  t.match(line.invoice_item, /^ii_/);
  t.notOk('subscription_item' in line);
  t.notOk('taxes' in line);
  t.equal(pinned.paid, false);
  t.equal(pinned.subscription, null);
  checkSchema(t, 'invoice', await raw(`/v1/invoices/${inv.id}`, SPEC_API_VERSION));

  const pi = await paidCharge(4321);
  await stripe.refunds.create({ payment_intent: pi.id, amount: 321 });
  const found = (await old.charges.search({ query: 'amount:4321' })) as any;
  t.equal(found.data.length, 1);
  t.equal(found.data[0].refunds.total_count, 1, 'search results in the pinned version');
  t.notOk('refunds' in (await stripe.charges.search({ query: 'amount:4321' })).data[0]!);
});

t.test('versions: the basil boundary, a version the twin cannot know, an endpoint version', async (t) => {
  const pi = await paidCharge(900);
  const before = await raw(`/v1/payment_intents/${pi.id}`, '2025-02-24.acacia');
  t.equal(before.invoice, null, 'acacia still has payment_intent.invoice');
  const basil = await raw(`/v1/payment_intents/${pi.id}`, '2025-03-31.basil');
  t.notOk('invoice' in basil, 'basil has not');
  const refused = await fetch(`${gw.url}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'url=http://127.0.0.1:9/x&enabled_events[]=*&api_version=2024-09-30.zucchini',
  });
  t.equal(refused.status, 400);
  t.equal(((await refused.json()) as any).error.message, 'Invalid Stripe API version: 2024-09-30.zucchini');
  const res = await fetch(`${gw.url}/v1/charges/${pi.latest_charge}`, { headers: { authorization: `Bearer ${gw.apiKey}`, 'stripe-version': OLD } });
  t.equal(res.headers.get('stripe-version'), OLD, 'the answer names the version it was rendered in');
});
