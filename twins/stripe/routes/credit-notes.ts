// /v1/credit_notes: create, preview (and its lines), retrieve, update, void, list, lines.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listEnvelope, readListWindow } from '../wire/list.js';
import {
  LIST_PARAMS,
  emptyableStr,
  int,
  objArray,
  oneOf,
  paramsOf,
  readMetadata,
  readParams,
  requiredStr,
  str,
  type Params,
  type ParamSpec,
} from '../wire/params.js';
import { missingParam } from '../wire/errors.js';
import {
  CREDIT_NOTE_REASONS,
  createCreditNote,
  getCreditNote,
  listCreditNotes,
  previewCreditNote,
  updateCreditNote,
  voidCreditNote,
  type CreditNoteCreate,
} from '../model/credit-notes.js';

const CREATE_SPEC: ParamSpec = {
  invoice: true,
  amount: true,
  credit_amount: true,
  refund_amount: true,
  out_of_band_amount: true,
  effective_at: true,
  email_type: true,
  memo: true,
  metadata: true,
  reason: true,
  refund: true,
  refunds: true,
  shipping_cost: true,
  lines: {
    type: true,
    invoice_line_item: true,
    amount: true,
    quantity: true,
    unit_amount: true,
    unit_amount_decimal: true,
    description: true,
    tax_rates: true,
    tax_amounts: true,
    metadata: true,
  },
};

function readCreate(p: Params): CreditNoteCreate {
  return {
    invoice: requiredStr(p, 'invoice'),
    amount: int(p, 'amount'),
    lines: objArray(p, 'lines')?.map((l, i) => {
      const at = `lines[${i}]`;
      const type = oneOf(l, 'type', ['custom_line_item', 'invoice_line_item'] as const, at);
      if (!type) throw missingParam(`${at}[type]`);
      return {
        type,
        invoiceLineItem: str(l, 'invoice_line_item', at),
        amount: int(l, 'amount', at),
        quantity: int(l, 'quantity', at),
        unitAmount: int(l, 'unit_amount', at),
        description: str(l, 'description', at),
      };
    }),
    reason: oneOf(p, 'reason', CREDIT_NOTE_REASONS),
    memo: str(p, 'memo'),
    metadata: readMetadata(p),
    creditAmount: int(p, 'credit_amount'),
    refundAmount: int(p, 'refund_amount'),
    outOfBandAmount: int(p, 'out_of_band_amount'),
  };
}

export const creditNoteRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/credit_notes', handler: (req, ctx) => ok(createCreditNote(ctx, readCreate(readParams(req, CREATE_SPEC)))) },
  { method: 'GET', path: '/v1/credit_notes/preview', handler: (req, ctx) => ok(previewCreditNote(ctx, readCreate(readParams(req, CREATE_SPEC)))) },
  {
    method: 'GET',
    path: '/v1/credit_notes/preview/lines',
    handler: (req, ctx) => {
      const p = readParams(req, { ...CREATE_SPEC, ...LIST_PARAMS });
      const note = previewCreditNote(ctx, readCreate(p));
      return { status: 200, body: listBody(paramsOf(req), note.lines.data, '/v1/credit_notes/preview/lines') };
    },
  },
  {
    method: 'GET',
    path: '/v1/credit_notes',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, customer: true, customer_account: true, invoice: true });
      return ok(listEnvelope(listCreditNotes(ctx, { customer: str(p, 'customer'), invoice: str(p, 'invoice') }, readListWindow(p)), '/v1/credit_notes'));
    },
  },
  { method: 'GET', path: '/v1/credit_notes/{id}', handler: (req, ctx) => (readParams(req, {}), ok(getCreditNote(ctx, req.params.id!))) },
  {
    method: 'POST',
    path: '/v1/credit_notes/{id}',
    handler: (req, ctx) => {
      const p = readParams(req, { memo: true, metadata: true });
      return ok(updateCreditNote(ctx, req.params.id!, { memo: emptyableStr(p, 'memo'), metadata: readMetadata(p) }));
    },
  },
  { method: 'POST', path: '/v1/credit_notes/{id}/void', handler: (req, ctx) => (readParams(req, {}), ok(voidCreditNote(ctx, req.params.id!))) },
  {
    method: 'GET',
    path: '/v1/credit_notes/{credit_note}/lines',
    handler: (req, ctx) => {
      readParams(req, LIST_PARAMS);
      const note = getCreditNote(ctx, req.params.credit_note!, 'credit_note');
      return { status: 200, body: listBody(paramsOf(req), note.lines.data, `/v1/credit_notes/${note.id}/lines`) };
    },
  },
];
