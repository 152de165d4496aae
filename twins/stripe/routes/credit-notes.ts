// /v1/credit_notes: create, preview (and its lines), retrieve, update, void, list, lines.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listEnvelope, readListWindow } from '../wire/list.js';
import { emptyableStr, int, objArray, oneOf, readMetadata, readParams, requiredStr, str, type Params } from '../wire/params.js';
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
  { method: 'POST', path: '/v1/credit_notes', handler: (req, ctx) => ok(createCreditNote(ctx, readCreate(readParams(req)))) },
  { method: 'GET', path: '/v1/credit_notes/preview', handler: (req, ctx) => ok(previewCreditNote(ctx, readCreate(readParams(req)))) },
  {
    method: 'GET',
    path: '/v1/credit_notes/preview/lines',
    handler: (req, ctx) => {
      const p = readParams(req);
      const note = previewCreditNote(ctx, readCreate(p));
      return { status: 200, body: listBody(readParams(req), note.lines.data, '/v1/credit_notes/preview/lines') };
    },
  },
  {
    method: 'GET',
    path: '/v1/credit_notes',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listCreditNotes(ctx, { customer: str(p, 'customer'), invoice: str(p, 'invoice') }, readListWindow(p)), '/v1/credit_notes'));
    },
  },
  { method: 'GET', path: '/v1/credit_notes/{id}', handler: (req, ctx) => (readParams(req), ok(getCreditNote(ctx, req.params.id!))) },
  {
    method: 'POST',
    path: '/v1/credit_notes/{id}',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(updateCreditNote(ctx, req.params.id!, { memo: emptyableStr(p, 'memo'), metadata: readMetadata(p) }));
    },
  },
  { method: 'POST', path: '/v1/credit_notes/{id}/void', handler: (req, ctx) => (readParams(req), ok(voidCreditNote(ctx, req.params.id!))) },
  {
    method: 'GET',
    path: '/v1/credit_notes/{credit_note}/lines',
    handler: (req, ctx) => {
      readParams(req);
      const note = getCreditNote(ctx, req.params.credit_note!, 'credit_note');
      return { status: 200, body: listBody(readParams(req), note.lines.data, `/v1/credit_notes/${note.id}/lines`) };
    },
  },
];
