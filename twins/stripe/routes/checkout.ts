// /v1/checkout/sessions (create, retrieve, update, expire, list, line items), the twin-only
// completion helper, and the minimal hosted page a session's `url` points at.

import { showHostedCheckout, submitHostedCheckout } from './hosted-checkout.js';
import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listEnvelope, readListWindow } from '../wire/list.js';
import {
  bool,
  expandPaths,
  int,
  obj,
  objArray,
  oneOf,
  paramsOf,
  readMetadata,
  readParams,
  requiredStr,
  str,
  strArray,
  type Params,
  type ParamSpec,
} from '../wire/params.js';
import type { StripeObject } from '../model/objects.js';
import { readDiscounts } from './coupons.js';
import { readPriceRef } from './prices.js';
import {
  MODES,
  UI_MODES,
  completeSession,
  createSession,
  expireSession,
  listSessions,
  loadSession,
  presentSession,
  updateSession,
  type SessionCreate,
  type SessionIntentData,
} from '../model/checkout.js';

const expandOf = (req: TwinRequest): string[] => expandPaths(paramsOf(req));

const COMPLETE_PARAMS: ParamSpec = { payment_method: true, email: true, name: true };

function readIntentData(p: Params | undefined, prefix: string): SessionIntentData | undefined {
  return p && { description: str(p, 'description', prefix), metadata: readMetadata(p) };
}

/** `payment_intent_data`, with its Connect options (a destination charge and its application fee). */
function readPaymentIntentData(p: Params | undefined): SessionIntentData | undefined {
  if (!p) return undefined;
  const at = 'payment_intent_data';
  const td = obj(p, 'transfer_data', at);
  return {
    ...readIntentData(p, at),
    applicationFeeAmount: int(p, 'application_fee_amount', at),
    onBehalfOf: str(p, 'on_behalf_of', at),
    transferGroup: str(p, 'transfer_group', at),
    transferData: td && { destination: requiredStr(td, 'destination', `${at}[transfer_data]`), amount: int(td, 'amount', `${at}[transfer_data]`) },
  };
}

function readSessionCreate(p: Params): SessionCreate {
  const sd = obj(p, 'subscription_data');
  const line = (li: Params, i: number) => ({ ...readPriceRef(li, `line_items[${i}]`), quantity: int(li, 'quantity', `line_items[${i}]`) });
  return {
    mode: oneOf(p, 'mode', MODES),
    uiMode: oneOf(p, 'ui_mode', UI_MODES),
    lineItems: (objArray(p, 'line_items') ?? []).map(line),
    customer: str(p, 'customer'),
    customerEmail: str(p, 'customer_email'),
    expiresAt: int(p, 'expires_at'),
    successUrl: str(p, 'success_url'),
    returnUrl: str(p, 'return_url'),
    cancelUrl: str(p, 'cancel_url'),
    currency: str(p, 'currency'),
    paymentMethodTypes: strArray(p, 'payment_method_types'),
    allowPromotionCodes: bool(p, 'allow_promotion_codes'),
    discounts: readDiscounts(p) ?? undefined,
    billingAddressCollection: oneOf(p, 'billing_address_collection', ['auto', 'required'] as const),
    clientReferenceId: str(p, 'client_reference_id'),
    customerCreation: oneOf(p, 'customer_creation', ['always', 'if_required'] as const),
    locale: str(p, 'locale'),
    metadata: readMetadata(p),
    paymentMethodCollection: oneOf(p, 'payment_method_collection', ['always', 'if_required'] as const),
    submitType: oneOf(p, 'submit_type', ['auto', 'book', 'donate', 'pay', 'subscribe'] as const),
    subscriptionData: sd && {
      trialPeriodDays: int(sd, 'trial_period_days', 'subscription_data'),
      trialEnd: sd.trial_end === 'now' ? 'now' : int(sd, 'trial_end', 'subscription_data'),
      metadata: readMetadata(sd),
      description: str(sd, 'description', 'subscription_data'),
    },
    paymentIntentData: readPaymentIntentData(obj(p, 'payment_intent_data')),
    setupIntentData: readIntentData(obj(p, 'setup_intent_data'), 'setup_intent_data'),
  };
}

export const checkoutRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/checkout/sessions',
    handler: (req, ctx) => ok(presentSession(createSession(ctx, readSessionCreate(readParams(req))), expandOf(req))),
  },
  {
    method: 'GET',
    path: '/v1/checkout/sessions',
    handler: (req, ctx) => {
      const p = readParams(req);
      const details = obj(p, 'customer_details');
      const filter = {
        customer: str(p, 'customer'),
        paymentIntent: str(p, 'payment_intent'),
        subscription: str(p, 'subscription'),
        paymentLink: str(p, 'payment_link'),
        status: oneOf(p, 'status', ['complete', 'expired', 'open'] as const),
        email: details ? str(details, 'email', 'customer_details') : undefined,
      };
      return ok(listEnvelope(listSessions(ctx, filter, readListWindow(p)), '/v1/checkout/sessions'));
    },
  },
  {
    method: 'GET',
    path: '/v1/checkout/sessions/{id}',
    handler: (req, ctx) => (readParams(req), ok(presentSession(loadSession(ctx, req.params.id!), expandOf(req)))),
  },
  {
    method: 'POST',
    path: '/v1/checkout/sessions/{id}',
    handler: (req, ctx) => ok(presentSession(updateSession(ctx, req.params.id!, readMetadata(readParams(req))), expandOf(req))),
  },
  {
    method: 'POST',
    path: '/v1/checkout/sessions/{id}/expire',
    handler: (req, ctx) => (readParams(req), ok(presentSession(expireSession(ctx, req.params.id!), expandOf(req)))),
  },
  {
    method: 'GET',
    path: '/v1/checkout/sessions/{id}/line_items',
    handler: (req, ctx) => {
      const p = readParams(req);
      const s = loadSession(ctx, req.params.id!);
      const items = [...((s.line_items?.data ?? []) as StripeObject[])].reverse();
      return ok(listBody(p, items, `/v1/checkout/sessions/${s.id}/line_items`));
    },
  },
  {
    // Twin-only: complete the session as the customer would (see docs in model/checkout.ts).
    method: 'POST',
    path: '/v1/test_helpers/checkout/sessions/{id}/complete',
    handler: (req, ctx) => {
      const p = readParams(req, COMPLETE_PARAMS);
      const done = completeSession(ctx, req.params.id!, { paymentMethod: str(p, 'payment_method'), email: str(p, 'email'), name: str(p, 'name') });
      return ok(presentSession(done, expandOf(req)));
    },
  },
  // The hosted page a session's `url` points at, and its form (routes/hosted-checkout.ts).
  { method: 'GET', path: '/c/pay/{id}', public: true, handler: showHostedCheckout },
  { method: 'POST', path: '/c/pay/{id}', public: true, handler: submitHostedCheckout },
];
