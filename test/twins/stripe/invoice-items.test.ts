// Invoice items through the official SDK: created on a draft or pending, picked up by a manual
// invoice (`pending_invoice_items_behavior=include`) and by a subscription's renewal after
// `advance`, updated and deleted while editable, refused once the invoice is finalized; the
// `invoiceitem.*` webhooks verified with constructEvent; objects checked against the spec schema.

import t from 'tap';
import { DAY, START, customerWithCard, monthlyPrice } from './billing-helpers.js';
import { hookedBillingTwin } from './hooked-twin.js';
import { checkSchema } from './spec-schema.js';

const twin = hookedBillingTwin(t);

t.test('items on a draft and pending items picked up by the next manual invoice', async (t) => {
  const { customer } = await customerWithCard(twin.stripe);
  const draft = await twin.stripe.invoices.create({ customer: customer.id, auto_advance: false });
  const onDraft = await twin.stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, amount: 2500, currency: 'usd', description: 'Setup fee' });
  t.match(onDraft.id, /^ii_/);
  t.equal(onDraft.invoice, draft.id);
  checkSchema(t, 'invoiceitem', await twin.raw(`/v1/invoiceitems/${onDraft.id}`));
  let inv = await twin.stripe.invoices.retrieve(draft.id);
  t.equal(inv.total, 2500);
  t.equal(inv.lines.data[0]!.parent?.invoice_item_details?.invoice_item, onDraft.id);
  await twin.hooks.waitFor('invoiceitem.created', (i) => i.id === onDraft.id);

  const more = await twin.stripe.invoiceItems.update(onDraft.id, { amount: 3000 });
  t.equal(more.amount, 3000);
  inv = await twin.stripe.invoices.retrieve(draft.id);
  t.equal(inv.total, 3000);
  t.equal(inv.lines.data.length, 1, 'the line is replaced, not added');

  const product = await twin.stripe.products.create({ name: 'Seats' });
  const unit = await twin.stripe.prices.create({ product: product.id, unit_amount: 700, currency: 'usd' });
  const pending = await twin.stripe.invoiceItems.create({ customer: customer.id, pricing: { price: unit.id }, quantity: 3 });
  t.equal(pending.invoice, null);
  t.equal(pending.amount, 2100);
  t.equal(pending.quantity, 3);
  const plain = await twin.stripe.invoiceItems.create({ customer: customer.id, amount: -500, currency: 'usd', description: 'Goodwill credit' });
  const listed = await twin.stripe.invoiceItems.list({ customer: customer.id, pending: true });
  t.same(listed.data.map((i) => i.id).sort(), [pending.id, plain.id].sort());

  const excluded = await twin.stripe.invoices.create({ customer: customer.id, auto_advance: false });
  t.equal(excluded.lines.data.length, 0, 'exclude is the default');
  const next = await twin.stripe.invoices.create({ customer: customer.id, pending_invoice_items_behavior: 'include', auto_advance: false });
  t.equal(next.total, 1600);
  t.equal(next.lines.data.length, 2);
  t.equal((await twin.stripe.invoiceItems.retrieve(pending.id)).invoice, next.id);
  t.equal((await twin.stripe.invoiceItems.list({ customer: customer.id, pending: true })).data.length, 0);

  const deleted = await twin.stripe.invoiceItems.del(plain.id);
  t.equal(deleted.deleted, true);
  t.equal((await twin.stripe.invoices.retrieve(next.id)).total, 2100);
  await twin.hooks.waitFor('invoiceitem.deleted', (i) => i.id === plain.id);
  const gone = await twin.stripe.invoiceItems.retrieve(plain.id).catch((e) => e);
  t.equal(gone.statusCode, 404);

  await twin.stripe.invoices.finalizeInvoice(next.id);
  const locked = await twin.stripe.invoiceItems.update(pending.id, { amount: 1 }).catch((e) => e);
  t.equal(locked.statusCode, 400);
  const lockedDelete = await twin.stripe.invoiceItems.del(pending.id).catch((e) => e);
  t.equal(lockedDelete.statusCode, 400);
  const finalizedTarget = await twin.stripe.invoiceItems.create({ customer: customer.id, invoice: next.id, amount: 100, currency: 'usd' }).catch((e) => e);
  t.equal(finalizedTarget.statusCode, 400);
  const noAmount = await twin.stripe.invoiceItems.create({ customer: customer.id, currency: 'usd' }).catch((e) => e);
  t.equal(noAmount.statusCode, 400);
  const noCustomer = await twin.stripe.invoiceItems.create({ customer: 'cus_missing', amount: 100, currency: 'usd' }).catch((e) => e);
  t.equal(noCustomer.statusCode, 404);
});

t.test('a pending item rides on the subscription’s renewal invoice after advance', async (t) => {
  const price = await monthlyPrice(twin.stripe, 2000);
  const { customer } = await customerWithCard(twin.stripe);
  const sub = await twin.stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
  const first = await twin.stripe.invoices.retrieve(sub.latest_invoice as string);
  t.equal(first.total, 2000);
  const item = await twin.stripe.invoiceItems.create({ customer: customer.id, amount: 500, currency: 'usd', description: 'Extra storage' });
  t.equal(item.invoice, null);
  const preview = await twin.stripe.invoices.createPreview({ subscription: sub.id });
  t.equal(preview.total, 2500, 'the upcoming invoice shows the pending item');
  await twin.bt.twin.advance(new Date(START.getTime() + 32 * DAY * 1000));
  const renewed = await twin.stripe.subscriptions.retrieve(sub.id);
  t.not(renewed.latest_invoice, first.id);
  const invoice = await twin.stripe.invoices.retrieve(renewed.latest_invoice as string);
  t.equal(invoice.total, 2500);
  t.equal(invoice.status, 'paid');
  t.ok(invoice.lines.data.some((l) => l.parent?.invoice_item_details?.invoice_item === item.id));
  t.equal((await twin.stripe.invoiceItems.retrieve(item.id)).invoice, invoice.id);
});
