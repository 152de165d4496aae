// Credit notes (`cn_`): lower what an invoice is worth after it is finalized. On an open invoice
// (pre-payment) the credit lowers `amount_due`/`amount_remaining` (a credit covering the rest pays
// the invoice); on a paid one (post-payment) the credit is refunded to the card, added to the
// customer's credit balance or settled out of band, in the amounts the request names (default:
// all to the balance). Voiding undoes a credit note's effect on the invoice and the balance.
// Amounts come from invoice lines (the line's amount, or its unit amount × quantity), custom lines,
// or a plain `amount`; taxes on credit notes are not modelled (`tax_amounts` is empty).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, missingParam } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, load, newId, previousAttributes, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { contextForObject } from './clock-scope.js';
import { changeBalance } from './customer-balance.js';
import { createRefund } from './refunds.js';
import { loadInvoice, markPaid, presentInvoice, saveInvoice, type Invoice } from './invoices.js';

export const CREDIT_NOTE_REASONS = ['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory'] as const;

export interface CreditNoteLineInput {
  type: 'invoice_line_item' | 'custom_line_item';
  invoiceLineItem?: string;
  amount?: number;
  quantity?: number;
  unitAmount?: number;
  description?: string;
}

export interface CreditNoteCreate {
  invoice: string;
  amount?: number;
  lines?: CreditNoteLineInput[];
  reason?: (typeof CREDIT_NOTE_REASONS)[number];
  memo?: string;
  metadata?: MetadataPatch;
  creditAmount?: number;
  refundAmount?: number;
  outOfBandAmount?: number;
}

function creditableInvoice(ctx: TwinContext, id: string): Invoice {
  const inv = loadInvoice(ctx, id, 'invoice');
  if (inv.status !== 'open' && inv.status !== 'paid') {
    throw invalidRequest(
      `You can only create a credit note for an open or paid invoice. This invoice's status is \`${inv.status}\`.`,
      'invoice',
      'invoice_not_editable' as string,
    );
  }
  return inv;
}

function noteLine(ctx: TwinContext, inv: Invoice, l: CreditNoteLineInput, i: number): StripeObject {
  const at = `lines[${i}]`;
  let amount: number;
  let quantity: number | null = l.quantity ?? null;
  let description = l.description ?? null;
  let unit: number | null = null;
  let invoiceLine: string | null = null;
  if (l.type === 'invoice_line_item') {
    if (!l.invoiceLineItem) throw missingParam(`${at}[invoice_line_item]`);
    const line = (inv.lines.data as StripeObject[]).find((x) => x.id === l.invoiceLineItem);
    if (!line) throw invalidRequest(`The invoice line item ${l.invoiceLineItem} does not belong to invoice ${inv.id}.`, `${at}[invoice_line_item]`);
    invoiceLine = line.id;
    description ??= line.description;
    if (l.amount !== undefined) amount = l.amount;
    else if (quantity !== null) {
      const each: number = line.quantity ? Math.round(line.amount / line.quantity) : line.amount;
      unit = each;
      amount = each * quantity;
    } else amount = line.amount;
    if (amount > line.amount) throw invalidRequest(`The credit amount for line ${line.id} cannot exceed the line's amount.`, `${at}[amount]`);
  } else {
    if (l.unitAmount === undefined) throw missingParam(`${at}[unit_amount]`);
    if (!description) throw missingParam(`${at}[description]`);
    quantity ??= 1;
    unit = l.unitAmount;
    amount = unit * quantity;
  }
  if (amount < 0) throw invalidRequest('Invalid amount: must be positive.', `${at}[amount]`);
  return {
    id: ctx.ids.next('cnli_', 24),
    object: 'credit_note_line_item',
    amount,
    amount_excluding_tax: amount,
    description,
    discount_amount: 0,
    discount_amounts: [],
    ...(invoiceLine ? { invoice_line_item: invoiceLine } : {}),
    livemode: false,
    metadata: {},
    pretax_credit_amounts: [],
    quantity,
    tax_amounts: [],
    tax_rates: [],
    taxes: [],
    type: l.type,
    unit_amount: unit,
    unit_amount_decimal: unit === null ? null : String(unit),
    unit_amount_excluding_tax: unit === null ? null : String(unit),
  };
}

/** The credit note a request describes, checked against the invoice, not yet stored. */
function buildCreditNote(ctx: TwinContext, input: CreditNoteCreate): { note: StripeObject; inv: Invoice; refund: number; credit: number } {
  const inv = creditableInvoice(ctx, input.invoice);
  if (input.amount === undefined && !input.lines?.length) throw invalidRequest('You must pass either `amount` or `lines`.', 'amount');
  const id = newId(ctx, 'credit_note');
  const lines = (input.lines ?? []).map((l, i) => noteLine(ctx, inv, l, i));
  const linesTotal = lines.reduce((s, l) => s + l.amount, 0);
  if (input.amount !== undefined && lines.length > 0 && input.amount !== linesTotal) {
    throw invalidRequest(`The amount (${input.amount}) must equal the sum of the lines (${linesTotal}).`, 'amount');
  }
  const total = input.amount ?? linesTotal;
  if (total <= 0) throw invalidRequest('The credit note total must be positive.', 'amount');
  const prePayment = inv.status === 'open';
  const creditable = prePayment ? inv.amount_remaining : inv.amount_paid - inv.post_payment_credit_notes_amount;
  if (total > creditable) {
    throw invalidRequest(
      `The credit note total (${total}) exceeds the amount that can be credited on this invoice (${creditable}).`,
      input.amount !== undefined ? 'amount' : 'lines',
    );
  }
  let refund = 0;
  let credit = 0;
  let outOfBand = 0;
  if (!prePayment) {
    const named = input.refundAmount !== undefined || input.creditAmount !== undefined || input.outOfBandAmount !== undefined;
    refund = input.refundAmount ?? 0;
    outOfBand = input.outOfBandAmount ?? 0;
    credit = input.creditAmount ?? (named ? 0 : total);
    if (refund + credit + outOfBand !== total) {
      throw invalidRequest(
        `The sum of refund_amount, credit_amount and out_of_band_amount (${refund + credit + outOfBand}) must equal the credit note total (${total}).`,
        'refund_amount',
      );
    }
    if (refund > 0 && !inv.payment_intent) throw invalidRequest('This invoice was not paid with a charge that can be refunded.', 'refund_amount');
  } else if (input.refundAmount || input.creditAmount || input.outOfBandAmount) {
    throw invalidRequest(
      '`refund_amount`, `credit_amount` and `out_of_band_amount` apply only to paid invoices.',
      input.refundAmount ? 'refund_amount' : input.creditAmount ? 'credit_amount' : 'out_of_band_amount',
    );
  }
  const sequence = ctx.store.countWhere({ resource: 'credit_note', equals: { invoice: inv.id } }) + 1;
  const note: StripeObject = {
    id,
    object: 'credit_note',
    amount: total,
    amount_shipping: 0,
    created: ctx.clock.nowSeconds(),
    currency: inv.currency,
    customer: inv.customer,
    customer_account: null,
    customer_balance_transaction: null,
    discount_amount: 0,
    discount_amounts: [],
    effective_at: ctx.clock.nowSeconds(),
    invoice: inv.id,
    lines: { object: 'list', data: lines, has_more: false, total_count: lines.length, url: `/v1/credit_notes/${id}/lines` },
    livemode: false,
    memo: input.memo ?? null,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    number: `${inv.number}-CN-${String(sequence).padStart(2, '0')}`,
    out_of_band_amount: outOfBand || null,
    pdf: `${ctx.baseUrl}/i/${inv.id}/credit_notes/${id}.pdf`,
    post_payment_amount: prePayment ? 0 : total,
    pre_payment_amount: prePayment ? total : 0,
    pretax_credit_amounts: [],
    reason: input.reason ?? null,
    refund: null,
    refunds: [],
    shipping_cost: null,
    status: 'issued',
    subtotal: total,
    subtotal_excluding_tax: total,
    tax_amounts: [],
    total,
    total_excluding_tax: total,
    total_taxes: [],
    type: prePayment ? 'pre_payment' : 'post_payment',
    voided_at: null,
  };
  return { note, inv, refund, credit };
}

/** `GET /v1/credit_notes/preview`: the credit note the same request would create. */
export function previewCreditNote(ctx: TwinContext, input: CreditNoteCreate): StripeObject {
  return buildCreditNote(ctx, input).note;
}

export function createCreditNote(ctx: TwinContext, input: CreditNoteCreate): StripeObject {
  ctx = contextForObject(ctx, 'invoice', input.invoice);
  const { note, inv, refund, credit } = buildCreditNote(ctx, input);
  if (refund > 0) {
    const r = createRefund(ctx, { paymentIntent: inv.payment_intent, amount: refund, metadata: { credit_note: note.id } });
    note.refund = r.id;
    note.refunds = [{ amount_refunded: refund, refund: r.id }];
  }
  if (credit > 0) {
    const txn = changeBalance(ctx, inv.customer, { amount: -credit, currency: inv.currency, type: 'credit_note', creditNote: note.id, invoice: inv.id });
    note.customer_balance_transaction = txn.id;
  }
  save(ctx, 'credit_note', note);
  applyToInvoice(ctx, inv.id, note, 1);
  emitEvent(ctx, 'credit_note.created', note);
  return note;
}

/** Add (`sign` 1) or take back (`sign` −1) a credit note's effect on its invoice's amounts. */
function applyToInvoice(ctx: TwinContext, invoiceId: string, note: StripeObject, sign: 1 | -1): void {
  const before = loadInvoice(ctx, invoiceId);
  const inv = clone(before);
  if (note.type === 'pre_payment') {
    inv.pre_payment_credit_notes_amount += sign * note.total;
    inv.amount_due -= sign * note.total;
    inv.amount_remaining -= sign * note.total;
  } else {
    inv.post_payment_credit_notes_amount += sign * note.total;
  }
  saveInvoice(ctx, inv);
  emitEvent(ctx, 'invoice.updated', presentInvoice(inv), previousAttributes(presentInvoice(before), presentInvoice(inv)));
  // A credit covering what was left to pay settles the invoice.
  if (inv.status === 'open' && inv.amount_remaining === 0) markPaid(ctx, inv.id, { outOfBand: false });
}

export function getCreditNote(ctx: TwinContext, id: string, param = 'id'): StripeObject {
  return load(ctx, 'credit_note', id, param);
}

export function updateCreditNote(ctx: TwinContext, id: string, input: { memo?: string | null; metadata?: MetadataPatch }): StripeObject {
  const before = getCreditNote(ctx, id);
  const note = clone(before);
  if (input.memo !== undefined) note.memo = input.memo;
  if (input.metadata !== undefined) note.metadata = applyMetadata(note.metadata ?? {}, input.metadata);
  save(ctx, 'credit_note', note);
  const prev = previousAttributes(before, note);
  if (Object.keys(prev).length > 0) emitEvent(ctx, 'credit_note.updated', note, prev);
  return note;
}

/** `POST /v1/credit_notes/{id}/void`: the credit is taken back (a refunded one cannot be voided). */
export function voidCreditNote(ctx: TwinContext, id: string): StripeObject {
  ctx = contextForObject(ctx, 'invoice', getCreditNote(ctx, id).invoice);
  const before = getCreditNote(ctx, id);
  if (before.status === 'void') throw invalidRequest('This credit note has already been voided.', undefined, 'credit_note_already_voided' as string);
  if (before.refund) throw invalidRequest('You cannot void a credit note that issued a refund.', 'id');
  const inv = find(ctx, 'invoice', before.invoice);
  if (before.type === 'pre_payment' && inv && inv.status !== 'open') {
    throw invalidRequest(`You cannot void a pre-payment credit note once its invoice is \`${inv.status}\`.`, 'id');
  }
  const note = clone(before);
  note.status = 'void';
  note.voided_at = ctx.clock.nowSeconds();
  if (note.customer_balance_transaction) {
    const credited = find(ctx, 'customer_balance_transaction', note.customer_balance_transaction);
    if (credited)
      changeBalance(ctx, note.customer, { amount: -credited.amount, currency: note.currency, type: 'credit_note', creditNote: note.id, invoice: note.invoice });
  }
  save(ctx, 'credit_note', note);
  applyToInvoice(ctx, note.invoice, note, -1);
  emitEvent(ctx, 'credit_note.voided', note, previousAttributes(before, note));
  return note;
}

/** `GET /v1/credit_notes`: one page through the store's index. */
export function listCreditNotes(ctx: TwinContext, f: { customer?: string; invoice?: string }, window: ListWindow): ListPage<StripeObject> {
  const equals: FieldEquals = {};
  if (f.customer !== undefined) equals.customer = f.customer;
  if (f.invoice !== undefined) equals.invoice = f.invoice;
  return readPage<StripeObject>(ctx, 'credit_note', equals, window);
}
