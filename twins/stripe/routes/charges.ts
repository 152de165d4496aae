// /v1/charges: legacy create, retrieve, update, capture, list, search.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { StripeApiError, missingParam } from '../wire/errors.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { searchResponse } from '../wire/search.js';
import { bool, currency, emptyableStr, int, obj, readMetadata, readParams, requiredInt, str } from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { CHARGE_SEARCH_FIELDS, captureCharge, createLegacyCharge, getCharge, listCharges, updateCharge } from '../model/charges.js';

export const chargeRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/charges',
    handler: (req, ctx) => {
      const p = readParams(req);
      const amount = requiredInt(p, 'amount');
      const cur = currency(p);
      if (!cur) throw missingParam('currency');
      const { charge, decline } = createLegacyCharge(ctx, {
        amount,
        currency: cur,
        customer: str(p, 'customer'),
        source: str(p, 'source'),
        description: str(p, 'description'),
        capture: bool(p, 'capture'),
        metadata: readMetadata(p),
        receiptEmail: str(p, 'receipt_email'),
        statementDescriptor: str(p, 'statement_descriptor'),
      });
      if (!decline) return ok(charge);
      // A decline keeps the failed charge: answered, not thrown (a throw would roll it back).
      return new StripeApiError(402, { type: 'card_error', ...decline, extra: { charge: charge.id } }).toResponse();
    },
  },
  {
    method: 'GET',
    path: '/v1/charges',
    handler: (req, ctx) => {
      const p = readParams(req);
      const filter = { customer: str(p, 'customer'), paymentIntent: str(p, 'payment_intent'), transferGroup: str(p, 'transfer_group') };
      return ok(listEnvelope(listCharges(ctx, filter, readListWindow(p)), '/v1/charges'));
    },
  },
  {
    method: 'GET',
    path: '/v1/charges/search',
    handler: (req, ctx) => {
      readParams(req);
      return searchResponse(req, ctx, { resource: 'charge' }, '/v1/charges/search', CHARGE_SEARCH_FIELDS, 'charges');
    },
  },
  {
    method: 'GET',
    path: '/v1/charges/{charge}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getCharge(ctx, req.params.charge!));
    },
  },
  {
    method: 'POST',
    path: '/v1/charges/{charge}',
    handler: (req, ctx) => {
      const p = readParams(req);
      const fraud = obj(p, 'fraud_details');
      return ok(
        updateCharge(ctx, req.params.charge!, {
          description: emptyableStr(p, 'description'),
          receipt_email: emptyableStr(p, 'receipt_email'),
          transfer_group: emptyableStr(p, 'transfer_group'),
          customer: str(p, 'customer'),
          fraudDetails: fraud && { user_report: str(fraud, 'user_report', 'fraud_details') },
          metadata: readMetadata(p),
        }),
      );
    },
  },
  {
    method: 'POST',
    path: '/v1/charges/{charge}/capture',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(captureCharge(ctx, req.params.charge!, int(p, 'amount')));
    },
  },
];
