// Credit notes through the official SDK: a pre-payment credit on an open invoice lowering
// `amount_due`/`amount_remaining`, a preview, a void restoring it; a post-payment credit split
// between a refund and the customer's balance; `credit_note.*` webhooks verified with
// constructEvent; the objects checked against the spec schema.

import t from 'tap';
import type Stripe from 'stripe';
import { customerWithCard } from './billing-helpers.js';
import { hookedBillingTwin } from './hooked-twin.js';
import { SPEC_API_VERSION, checkSchema } from './spec-schema.js';

const twin = hookedBillingTwin(t);

async function openInvoice(customer: string, amount: number): Promise<Stripe.Invoice> {
  const draft = await twin.stripe.invoices.create({ customer, collection_method: 'send_invoice', days_until_due: 30 });
  await twin.stripe.invoiceItems.create({ customer, invoice: draft.id, amount, currency: 'usd', description: 'Consulting' });
  return twin.stripe.invoices.finalizeInvoice(draft.id);
}

t.test('a pre-payment credit note lowers what is due; voiding it restores it', async (t) => {
  const customer = await twin.stripe.customers.create({ email: 'ap@example.com' });
  const inv = await openInvoice(customer.id, 10_000);
  t.equal(inv.status, 'open');
  t.equal(inv.amount_remaining, 10_000);
  const line = inv.lines.data[0]!;

  const preview = await twin.stripe.creditNotes.preview({ invoice: inv.id, lines: [{ type: 'invoice_line_item', invoice_line_item: line.id, amount: 2500 }] });
  t.equal(preview.total, 2500);
  t.equal((await twin.stripe.creditNotes.list({ invoice: inv.id })).data.length, 0, 'a preview stores nothing');

  const note = await twin.stripe.creditNotes.create({
    invoice: inv.id,
    lines: [{ type: 'invoice_line_item', invoice_line_item: line.id, amount: 2500 }],
    reason: 'order_change',
    memo: 'Scope cut',
  });
  t.match(note.id, /^cn_/);
  t.equal(note.type, 'pre_payment');
  t.equal(note.status, 'issued');
  t.equal(note.total, 2500);
  t.equal(note.number, `${inv.number}-CN-01`);
  checkSchema(t, 'credit_note', await twin.raw(`/v1/credit_notes/${note.id}`));
  checkSchema(t, 'credit_note_line_item', (await twin.raw(`/v1/credit_notes/${note.id}/lines`)).data[0]);
  let after = await twin.stripe.invoices.retrieve(inv.id);
  t.equal(after.amount_due, 7500);
  t.equal(after.amount_remaining, 7500);
  t.equal(after.pre_payment_credit_notes_amount, 2500);
  await twin.hooks.waitFor('credit_note.created', (c) => c.id === note.id);
  checkSchema(t, 'invoice', await twin.raw(`/v1/invoices/${inv.id}`, SPEC_API_VERSION));

  const tooMuch = await twin.stripe.creditNotes.create({ invoice: inv.id, amount: 9000 }).catch((e) => e);
  t.equal(tooMuch.statusCode, 400);
  const updated = await twin.stripe.creditNotes.update(note.id, { memo: 'Scope cut (phase 2)' });
  t.equal(updated.memo, 'Scope cut (phase 2)');
  await twin.hooks.waitFor('credit_note.updated', (c) => c.id === note.id);

  const voided = await twin.stripe.creditNotes.voidCreditNote(note.id);
  t.equal(voided.status, 'void');
  t.ok(voided.voided_at);
  after = await twin.stripe.invoices.retrieve(inv.id);
  t.equal(after.amount_remaining, 10_000);
  t.equal(after.pre_payment_credit_notes_amount, 0);
  await twin.hooks.waitFor('credit_note.voided', (c) => c.id === note.id);
  const again = await twin.stripe.creditNotes.voidCreditNote(note.id).catch((e) => e);
  t.equal(again.statusCode, 400);

  const rest = await twin.stripe.creditNotes.create({ invoice: inv.id, amount: 10_000 });
  t.equal(rest.number, `${inv.number}-CN-02`);
  t.equal((await twin.stripe.invoices.retrieve(inv.id)).status, 'paid', 'a credit covering the rest settles the invoice');
  const listed = await twin.stripe.creditNotes.list({ customer: customer.id });
  t.equal(listed.data.length, 2);

  const draft = await twin.stripe.invoices.create({ customer: customer.id });
  const onDraft = await twin.stripe.creditNotes.create({ invoice: draft.id, amount: 100 }).catch((e) => e);
  t.equal(onDraft.statusCode, 400);
});

t.test('a post-payment credit note refunds part and credits the rest to the balance', async (t) => {
  const { customer } = await customerWithCard(twin.stripe);
  const draft = await twin.stripe.invoices.create({ customer: customer.id });
  await twin.stripe.invoiceItems.create({ customer: customer.id, invoice: draft.id, amount: 8000, currency: 'usd' });
  const paid = await twin.stripe.invoices.pay(draft.id);
  t.equal(paid.status, 'paid');
  const custom = [{ type: 'custom_line_item' as const, description: 'Service credit', unit_amount: 1500, quantity: 2 }];
  const unbalanced = await twin.stripe.creditNotes.create({ invoice: paid.id, lines: custom, refund_amount: 1000 }).catch((e) => e);
  t.equal(unbalanced.statusCode, 400);
  const note = await twin.stripe.creditNotes.create({ invoice: paid.id, lines: custom, refund_amount: 1000, credit_amount: 2000 });
  t.equal(note.type, 'post_payment');
  t.equal(note.total, 3000);
  t.match(note.customer_balance_transaction, /^cbtxn_/);
  const refundId = (note as any).refund ?? note.refunds?.[0]?.refund;
  t.match(refundId, /^re_/);
  const refund = await twin.stripe.refunds.retrieve(refundId);
  t.equal(refund.amount, 1000);
  const cust = (await twin.stripe.customers.retrieve(customer.id)) as Stripe.Customer;
  t.equal(cust.balance, -2000);
  const inv = await twin.stripe.invoices.retrieve(paid.id);
  t.equal(inv.post_payment_credit_notes_amount, 3000);
  t.equal(inv.amount_paid, 8000);
  checkSchema(t, 'credit_note', await twin.raw(`/v1/credit_notes/${note.id}`));
  await twin.hooks.waitFor('credit_note.created', (c) => c.id === note.id);
  await twin.hooks.waitFor('refund.created', (r) => r.id === refundId);
  t.same(twin.hooks.rejected, []);
});
