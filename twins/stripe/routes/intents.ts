// /v1/payment_intents and /v1/setup_intents: create, retrieve, update, confirm, capture, cancel,
// list, search. Declines answer 402 with the intent's failed state kept.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { fieldFilters, keysetListBody, searchResponse } from '../http/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, oneOf, readParams, type ParamSpec } from '../http/params.js';
import type { TwinHandler } from '../../../twin-runtime/contract.js';
import { ok } from '../http/pipeline.js';
import { onInvoicePaymentIntentSucceeded } from '../model/invoices.js';
import {
  PI_CANCEL_SPEC,
  PI_CAPTURE_SPEC,
  PI_CONFIRM_SPEC,
  PI_CREATE_SPEC,
  PI_SEARCH_FIELDS,
  PI_UPDATE_SPEC,
  THREE_D_SECURE_PATH,
  cancelPaymentIntent,
  completeAuthentication,
  capturePaymentIntent,
  confirmPaymentIntent,
  createPaymentIntent,
  getPaymentIntent,
  updatePaymentIntent,
} from '../model/payment-intents.js';
import {
  SETI_CANCEL_SPEC,
  SETI_CONFIRM_SPEC,
  SETI_CREATE_SPEC,
  SETI_UPDATE_SPEC,
  cancelSetupIntent,
  confirmSetupIntent,
  createSetupIntent,
  getSetupIntent,
  updateSetupIntent,
} from '../model/setup-intents.js';

const RETRIEVE_SPEC: ParamSpec = { client_secret: true };

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

export const intentRoutes: TwinRoute[] = [
  { method: 'GET', path: THREE_D_SECURE_PATH, handler: authenticate, public: true },
  { method: 'POST', path: THREE_D_SECURE_PATH, handler: authenticate, public: true },
  {
    method: 'POST',
    path: '/v1/payment_intents',
    handler: (req, ctx) => createPaymentIntent(ctx, readParams(req, PI_CREATE_SPEC)).response,
  },
  {
    method: 'GET',
    path: '/v1/payment_intents',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, customer: true });
      return ok(keysetListBody(ctx, p, { resource: 'payment_intent', equals: fieldFilters(p, ['customer']) }, '/v1/payment_intents'));
    },
  },
  {
    method: 'GET',
    path: '/v1/payment_intents/search',
    handler: (req, ctx) => {
      readParams(req, SEARCH_PARAMS);
      return searchResponse(req, ctx, ctx.store.list<any>('payment_intent'), '/v1/payment_intents/search', PI_SEARCH_FIELDS, 'payment_intents');
    },
  },
  {
    method: 'GET',
    path: '/v1/payment_intents/{intent}',
    handler: (req, ctx) => {
      readParams(req, RETRIEVE_SPEC);
      return ok(getPaymentIntent(ctx, req.params.intent!));
    },
  },
  {
    method: 'POST',
    path: '/v1/payment_intents/{intent}',
    handler: (req, ctx) => ok(updatePaymentIntent(ctx, req.params.intent!, readParams(req, PI_UPDATE_SPEC))),
  },
  {
    method: 'POST',
    path: '/v1/payment_intents/{intent}/confirm',
    handler: (req, ctx) => {
      const { intent, response } = confirmPaymentIntent(ctx, req.params.intent!, readParams(req, { ...PI_CONFIRM_SPEC, client_secret: true }));
      // A client confirming an invoice's PaymentIntent itself (default_incomplete) pays the invoice.
      if (intent.status === 'succeeded' && typeof intent.invoice === 'string') onInvoicePaymentIntentSucceeded(ctx, intent.invoice, intent);
      return response;
    },
  },
  {
    method: 'POST',
    path: '/v1/payment_intents/{intent}/capture',
    handler: (req, ctx) => ok(capturePaymentIntent(ctx, req.params.intent!, readParams(req, PI_CAPTURE_SPEC))),
  },
  {
    method: 'POST',
    path: '/v1/payment_intents/{intent}/cancel',
    handler: (req, ctx) => ok(cancelPaymentIntent(ctx, req.params.intent!, readParams(req, PI_CANCEL_SPEC))),
  },
  {
    method: 'POST',
    path: '/v1/setup_intents',
    handler: (req, ctx) => createSetupIntent(ctx, readParams(req, SETI_CREATE_SPEC)),
  },
  {
    method: 'GET',
    path: '/v1/setup_intents',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, customer: true, payment_method: true, attach_to_self: true });
      return ok(keysetListBody(ctx, p, { resource: 'setup_intent', equals: fieldFilters(p, ['customer', 'payment_method']) }, '/v1/setup_intents'));
    },
  },
  {
    method: 'GET',
    path: '/v1/setup_intents/{intent}',
    handler: (req, ctx) => {
      readParams(req, RETRIEVE_SPEC);
      return ok(getSetupIntent(ctx, req.params.intent!));
    },
  },
  {
    method: 'POST',
    path: '/v1/setup_intents/{intent}',
    handler: (req, ctx) => ok(updateSetupIntent(ctx, req.params.intent!, readParams(req, SETI_UPDATE_SPEC))),
  },
  {
    method: 'POST',
    path: '/v1/setup_intents/{intent}/confirm',
    handler: (req, ctx) => confirmSetupIntent(ctx, req.params.intent!, readParams(req, { ...SETI_CONFIRM_SPEC, client_secret: true })),
  },
  {
    method: 'POST',
    path: '/v1/setup_intents/{intent}/cancel',
    handler: (req, ctx) => ok(cancelSetupIntent(ctx, req.params.intent!, readParams(req, SETI_CANCEL_SPEC))),
  },
];
