// Invoicing and tax through the official SDK: a `send_invoice` invoice sent and paid on its hosted
// page (a person's form post), tax rates (exclusive and inclusive) on subscriptions and invoices;
// every webhook verified with constructEvent.

import t from 'tap';
import type Stripe from 'stripe';
import { customerWithCard, monthlyPrice, startBillingTwin, type BillingTwin } from './billing-helpers.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

let bt: BillingTwin;
let stripe: Stripe;
let hooks: WebhookReceiver;

t.before(async () => {
  bt = await startBillingTwin();
  stripe = bt.stripe;
  hooks = await startWebhookReceiver(stripe);
});
t.teardown(async () => {
  await hooks.close();
  await bt.close();
});

function pay(url: string, card: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(card).toString(),
    redirect: 'manual',
  });
}

t.test('a send_invoice invoice is sent and paid on its hosted page', async (t) => {
  const customer = await stripe.customers.create({ email: 'billing@example.com', name: 'Acme' });
  const draft = await stripe.invoices.create({ customer: customer.id, collection_method: 'send_invoice', days_until_due: 30 });
  t.equal(draft.collection_method, 'send_invoice');
  t.ok(draft.due_date! > draft.created, 'due in 30 days');
  await stripe.invoices.addLines(draft.id, { lines: [{ amount: 12_000, description: 'Consulting' } as any] });
  const sent = await stripe.invoices.sendInvoice(draft.id);
  t.equal(sent.status, 'open');
  t.ok(sent.hosted_invoice_url);
  await hooks.waitFor('invoice.sent', (i) => i.id === draft.id);

  const page = await fetch(sent.hosted_invoice_url!);
  t.equal(page.status, 200);
  const text = await page.text();
  t.match(text, /Consulting/);
  t.match(text, /<form method="post">/);

  const declined = await pay(sent.hosted_invoice_url!, {
    card_number: '4000 0000 0000 0002',
    card_expiry: '12 / 34',
    card_cvc: '123',
    email: 'billing@example.com',
  });
  t.equal(declined.status, 402);
  t.match(await declined.text(), /declined/);
  t.equal((await stripe.invoices.retrieve(draft.id)).status, 'open');

  const paid = await pay(sent.hosted_invoice_url!, {
    card_number: '4242 4242 4242 4242',
    card_expiry: '12 / 34',
    card_cvc: '123',
    email: 'billing@example.com',
  });
  t.equal(paid.status, 200);
  t.match(await paid.text(), /This invoice is paid/);
  const after = await stripe.invoices.retrieve(draft.id);
  t.equal(after.status, 'paid');
  t.equal(after.amount_paid, 12_000);
  const hook = await hooks.waitFor('invoice.paid', (i) => i.id === draft.id);
  t.equal((hook.data.object as Stripe.Invoice).amount_paid, 12_000);
  const again = await pay(sent.hosted_invoice_url!, {});
  t.equal(again.status, 409);

  const charge = await stripe.paymentIntents.list({ customer: customer.id });
  t.ok(charge.data.length > 0 && charge.data.some((pi) => pi.status === 'succeeded' && pi.amount === 12_000));

  const auto = await stripe.invoices.create({ customer: customer.id });
  const refused = await stripe.invoices.sendInvoice(auto.id).catch((e) => e);
  t.equal(refused.statusCode, 400);
});

t.test('tax rates: exclusive on a subscription, inclusive on an invoice', async (t) => {
  const vat = await stripe.taxRates.create({ display_name: 'VAT', percentage: 20, inclusive: false, country: 'GB', tax_type: 'vat' });
  t.match(vat.id, /^txr_/);
  t.equal(vat.percentage, 20);
  t.equal(vat.active, true);
  const gst = await stripe.taxRates.create({ display_name: 'GST', percentage: 10, inclusive: true });
  const missing = await stripe.taxRates.create({ display_name: 'X', percentage: 5 } as any).catch((e) => e);
  t.equal(missing.statusCode, 400);
  t.equal(missing.param, 'inclusive');

  const { customer } = await customerWithCard(stripe);
  const price = await monthlyPrice(stripe, 1000, 'Taxed');
  const sub = await stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: price.id }],
    default_tax_rates: [vat.id],
    expand: ['latest_invoice'],
  });
  t.equal(sub.default_tax_rates![0]!.id, vat.id);
  const inv = sub.latest_invoice as Stripe.Invoice;
  t.equal(inv.subtotal, 1000);
  t.equal(inv.total, 1200);
  t.equal(inv.total_excluding_tax, 1000);
  t.equal(inv.amount_paid, 1200);
  t.same(inv.total_taxes, [
    {
      amount: 200,
      tax_behavior: 'exclusive',
      tax_rate_details: { tax_rate: vat.id },
      taxability_reason: 'standard_rated',
      taxable_amount: 1000,
      type: 'tax_rate_details',
    },
  ]);
  t.equal(inv.lines.data[0]!.taxes![0]!.amount, 200);

  const one = await stripe.invoices.create({ customer: customer.id, default_tax_rates: [gst.id] });
  await stripe.invoices.addLines(one.id, { lines: [{ amount: 1100, description: 'Inclusive' } as any] });
  const incl = await stripe.invoices.retrieve(one.id);
  t.equal(incl.total, 1100, 'inclusive tax does not add to the total');
  t.equal(incl.total_taxes![0]!.amount, 100);
  t.equal(incl.total_excluding_tax, 1000);

  const off = await stripe.taxRates.update(gst.id, { active: false });
  t.equal(off.active, false);
  const inactive = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_tax_rates: [gst.id] }).catch((e) => e);
  t.equal(inactive.statusCode, 400);
  const listed = await stripe.taxRates.list({ active: true });
  t.ok(listed.data.length > 0 && listed.data.every((r) => r.active));
  await hooks.waitFor('tax_rate.updated', (r) => r.id === gst.id);
  t.same(hooks.rejected, []);
});

t.test('pause_collection holds renewal invoices; a paused subscription resumes', async (t) => {
  const { customer } = await customerWithCard(stripe);
  const price = await monthlyPrice(stripe, 900, 'Pausable');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  const paused = await stripe.subscriptions.update(sub.id, { pause_collection: { behavior: 'void' } });
  t.same(paused.pause_collection, { behavior: 'void', resumes_at: null });
  const end = sub.items.data[0]!.current_period_end;
  await bt.twin.advance(new Date((end + 2 * 3600) * 1000));
  const held = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] });
  t.equal(held.status, 'active');
  t.equal((held.latest_invoice as Stripe.Invoice).status, 'void', 'the renewal invoice is voided, not charged');
  const resumed = await stripe.subscriptions.update(sub.id, { pause_collection: '' });
  t.equal(resumed.pause_collection, null);

  // Trial ending with no payment method and missing_payment_method=pause.
  const bare = await stripe.customers.create({ email: 'trial@example.com' });
  const trial = await stripe.subscriptions.create({
    customer: bare.id,
    items: [{ price: price.id }],
    trial_period_days: 7,
    trial_settings: { end_behavior: { missing_payment_method: 'pause' } },
  });
  const notPaused = await stripe.subscriptions.resume(trial.id).catch((e) => e);
  t.equal(notPaused.statusCode, 400);
  await bt.twin.advance(new Date((trial.trial_end! + 60) * 1000));
  t.equal((await stripe.subscriptions.retrieve(trial.id)).status, 'paused');
  await hooks.waitFor('customer.subscription.paused', (s) => s.id === trial.id);
  const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: bare.id });
  await stripe.subscriptions.update(trial.id, { default_payment_method: pm.id });
  const back = await stripe.subscriptions.resume(trial.id, { expand: ['latest_invoice'] });
  t.equal(back.status, 'active');
  t.equal((back.latest_invoice as Stripe.Invoice).status, 'paid');
  t.equal((back.latest_invoice as Stripe.Invoice).amount_paid, 900);
  await hooks.waitFor('customer.subscription.resumed', (s) => s.id === trial.id);
});
