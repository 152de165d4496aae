// /v1/payment_intents: create, retrieve, update, confirm, capture, cancel, list, search, and the
// twin-only 3D Secure page. Declines answer 402 with the intent's failed state kept.

import type { TwinHandler, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { stripeError } from '../wire/errors.js';
import { listEnvelope, readListWindow } from '../wire/list.js';
import { searchResponse } from '../wire/search.js';
import {
  bool,
  emptyableStr,
  int,
  obj,
  oneOf,
  readMetadata,
  readParams,
  requiredCurrency,
  requiredInt,
  requiredStr,
  str,
  strArray,
  type Params,
} from '../wire/params.js';
import { ok } from '../wire/pipeline.js';
import { onInvoicePaymentIntentSucceeded } from '../model/invoice-payments.js';
import { readPaymentMethodData } from './payment-methods.js';
import {
  CANCELLATION_REASONS,
  CAPTURE_METHODS,
  FUTURE_USAGE,
  PI_SEARCH_FIELDS,
  THREE_D_SECURE_PATH,
  type ConfirmOptions,
  type PaymentFields,
  type PaymentIntentCreate,
  type PaymentIntentUpdate,
  type PaymentOutcome,
  cancelPaymentIntent,
  completeAuthentication,
  capturePaymentIntent,
  confirmPaymentIntent,
  createPaymentIntent,
  getPaymentIntent,
  listPaymentIntents,
  updatePaymentIntent,
} from '../model/payment-intents.js';

/** What create, update and confirm read about how the intent is paid. */
function readPaymentFields(p: Params): PaymentFields {
  const data = obj(p, 'payment_method_data');
  return {
    paymentMethod: str(p, 'payment_method'),
    paymentMethodData: data && readPaymentMethodData(data),
    receiptEmail: emptyableStr(p, 'receipt_email'),
    setupFutureUsage: p.setup_future_usage === '' ? null : oneOf(p, 'setup_future_usage', FUTURE_USAGE),
    captureMethod: oneOf(p, 'capture_method', CAPTURE_METHODS),
    // Named allowed_payment_method_types at the SDK's API version (2026-10-28.endive); the older name for pinned integrations.
    paymentMethodTypes: strArray(p, 'allowed_payment_method_types') ?? strArray(p, 'payment_method_types'),
    shipping: p.shipping === undefined ? undefined : p.shipping === '' ? null : p.shipping,
  };
}

function readConfirmOptions(p: Params): ConfirmOptions {
  return { offSession: bool(p, 'off_session'), returnUrl: str(p, 'return_url') };
}

/** `transfer_data[destination]` (required once `transfer_data` is given) and `transfer_data[amount]`. */
function readTransferData(p: Params): PaymentIntentCreate['transferData'] {
  const td = obj(p, 'transfer_data');
  if (!td) return undefined;
  return { destination: requiredStr(td, 'destination', 'transfer_data'), amount: int(td, 'amount', 'transfer_data') };
}

function readCreate(p: Params): PaymentIntentCreate {
  const amount = requiredInt(p, 'amount');
  const currency = requiredCurrency(p);
  const apm = obj(p, 'automatic_payment_methods');
  return {
    amount,
    currency,
    customer: str(p, 'customer'),
    applicationFeeAmount: int(p, 'application_fee_amount'),
    allowRedirects: apm && str(apm, 'allow_redirects', 'automatic_payment_methods'),
    confirmationMethod: oneOf(p, 'confirmation_method', ['automatic', 'manual'] as const),
    description: str(p, 'description'),
    metadata: readMetadata(p),
    statementDescriptor: str(p, 'statement_descriptor'),
    statementDescriptorSuffix: str(p, 'statement_descriptor_suffix'),
    transferGroup: str(p, 'transfer_group'),
    transferData: readTransferData(p),
    onBehalfOf: str(p, 'on_behalf_of'),
    ...readPaymentFields(p),
    confirm: bool(p, 'confirm'),
    ...readConfirmOptions(p),
  };
}

function readUpdate(p: Params): PaymentIntentUpdate {
  return {
    amount: int(p, 'amount'),
    currency: str(p, 'currency'),
    customer: str(p, 'customer'),
    description: emptyableStr(p, 'description'),
    metadata: readMetadata(p),
    ...readPaymentFields(p),
  };
}

/** An intent, or Stripe's 402 `card_error` carrying it when the attempt was declined. */
export function paymentAnswer({ intent, decline }: PaymentOutcome): TwinResponse {
  if (!decline) return ok(intent);
  return stripeError(402, { ...decline, extra: { ...decline.extra, payment_intent: intent } });
}

/**
 * Twin-only: the page behind a 3D Secure `next_action` (public, as the customer's browser opens
 * it). `outcome=succeed` (default) or `fail`. With a `return_url` it redirects there as Stripe
 * does after a challenge; otherwise it answers the payment intent.
 */
const authenticate: TwinHandler = (req, ctx) => {
  const p = readParams(req, { outcome: true });
  const outcome = oneOf(p, 'outcome', ['succeed', 'fail'] as const) ?? 'succeed';
  const before = getPaymentIntent(ctx, req.params.intent!);
  const returnUrl = before.next_action?.redirect_to_url?.return_url as string | undefined;
  const pi = completeAuthentication(ctx, before.id, outcome);
  if (!returnUrl) return ok(pi);
  const target = new URL(returnUrl);
  target.searchParams.set('payment_intent', pi.id);
  target.searchParams.set('payment_intent_client_secret', pi.client_secret);
  target.searchParams.set('redirect_status', pi.status === 'succeeded' || pi.status === 'requires_capture' ? 'succeeded' : 'failed');
  return { status: 302, headers: { location: target.toString() } };
};

export const paymentIntentRoutes: TwinRoute[] = [
  { method: 'GET', path: THREE_D_SECURE_PATH, handler: authenticate, public: true },
  { method: 'POST', path: THREE_D_SECURE_PATH, handler: authenticate, public: true },
  {
    method: 'POST',
    path: '/v1/payment_intents',
    handler: (req, ctx) => paymentAnswer(createPaymentIntent(ctx, readCreate(readParams(req)))),
  },
  {
    method: 'GET',
    path: '/v1/payment_intents',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listPaymentIntents(ctx, str(p, 'customer'), readListWindow(p)), '/v1/payment_intents'));
    },
  },
  {
    method: 'GET',
    path: '/v1/payment_intents/search',
    handler: (req, ctx) => {
      readParams(req);
      return searchResponse(req, ctx, { resource: 'payment_intent' }, '/v1/payment_intents/search', PI_SEARCH_FIELDS, 'payment_intents');
    },
  },
  {
    method: 'GET',
    path: '/v1/payment_intents/{intent}',
    handler: (req, ctx) => {
      readParams(req);
      return ok(getPaymentIntent(ctx, req.params.intent!));
    },
  },
  {
    method: 'POST',
    path: '/v1/payment_intents/{intent}',
    handler: (req, ctx) => ok(updatePaymentIntent(ctx, req.params.intent!, readUpdate(readParams(req)))),
  },
  {
    method: 'POST',
    path: '/v1/payment_intents/{intent}/confirm',
    handler: (req, ctx) => {
      const p = readParams(req);
      const outcome = confirmPaymentIntent(ctx, req.params.intent!, { ...readPaymentFields(p), ...readConfirmOptions(p) });
      // A client confirming an invoice's PaymentIntent itself (default_incomplete) pays the invoice.
      const { intent } = outcome;
      if (intent.status === 'succeeded' && typeof intent.invoice === 'string') onInvoicePaymentIntentSucceeded(ctx, intent.invoice, intent);
      return paymentAnswer(outcome);
    },
  },
  {
    method: 'POST',
    path: '/v1/payment_intents/{intent}/capture',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(capturePaymentIntent(ctx, req.params.intent!, { amountToCapture: int(p, 'amount_to_capture'), metadata: readMetadata(p) }));
    },
  },
  {
    method: 'POST',
    path: '/v1/payment_intents/{intent}/cancel',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(cancelPaymentIntent(ctx, req.params.intent!, oneOf(p, 'cancellation_reason', CANCELLATION_REASONS) ?? null));
    },
  },
];
