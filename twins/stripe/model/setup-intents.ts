// Setup intents: save a card for later. Confirm checks the card with the issuer (test cards that
// decline on attach fail here with `last_setup_error` and a 402), attaches it to the customer, and
// emits `setup_intent.*` events.

import type { TwinContext, TwinResponse } from '../../../twin-runtime/contract.js';
import { errorObject, invalidRequest, resourceMissing, stripeError, type StripeErrorFields } from '../http/errors.js';
import { bool, metadata, obj, oneOf, str, strArray, type Params, type ParamSpec } from '../http/params.js';
import { getCustomer } from './customers.js';
import { emitEvent } from './events.js';
import { clone, find, newId, save, type StripeObject } from './objects.js';
import { attachPaymentMethod, checkCardOnAttach, paymentMethodFromData, resolvePaymentMethod } from './payment-methods.js';

export type SetupIntent = StripeObject & { object: 'setup_intent' };

const CONFIRM_FIELDS: ParamSpec = {
  payment_method: true,
  payment_method_data: true,
  payment_method_options: true,
  return_url: true,
  mandate_data: true,
  use_stripe_sdk: true,
  confirmation_token: true,
};

export const SETI_CREATE_SPEC: ParamSpec = {
  ...CONFIRM_FIELDS,
  automatic_payment_methods: { enabled: true, allow_redirects: true },
  attach_to_self: true,
  confirm: true,
  customer: true,
  description: true,
  flow_directions: true,
  metadata: true,
  on_behalf_of: true,
  payment_method_configuration: true,
  payment_method_types: true,
  single_use: true,
  usage: true,
};
export const SETI_UPDATE_SPEC: ParamSpec = {
  customer: true,
  description: true,
  metadata: true,
  payment_method: true,
  payment_method_options: true,
  payment_method_types: true,
  flow_directions: true,
  attach_to_self: true,
};
export const SETI_CONFIRM_SPEC: ParamSpec = CONFIRM_FIELDS;
export const SETI_CANCEL_SPEC: ParamSpec = { cancellation_reason: true };

export function getSetupIntent(ctx: TwinContext, id: string): SetupIntent {
  const s = find<SetupIntent>(ctx, 'setup_intent', id);
  if (!s) throw resourceMissing('setupintent', id, 'intent');
  return s;
}

function applyCommon(ctx: TwinContext, si: SetupIntent, p: Params): void {
  const pmId = str(p, 'payment_method');
  const pmData = obj(p, 'payment_method_data');
  if (pmId && pmData) {
    throw invalidRequest('You may only specify one of these parameters: payment_method, payment_method_data.', 'payment_method_data');
  }
  if (pmId) si.payment_method = resolvePaymentMethod(ctx, pmId).id;
  if (pmData) si.payment_method = paymentMethodFromData(ctx, pmData).id;
  const types = strArray(p, 'payment_method_types');
  if (types) {
    si.payment_method_types = types;
    si.automatic_payment_methods = null;
  }
  if (si.status === 'requires_payment_method' && si.payment_method) si.status = 'requires_confirmation';
}

export function createSetupIntent(ctx: TwinContext, p: Params): TwinResponse {
  const customer = str(p, 'customer') ?? null;
  if (customer) getCustomer(ctx, customer);
  const apm = obj(p, 'automatic_payment_methods');
  const id = newId(ctx, 'setup_intent');
  const si: SetupIntent = {
    id,
    object: 'setup_intent',
    application: null,
    automatic_payment_methods: { allow_redirects: (apm && str(apm, 'allow_redirects', 'automatic_payment_methods')) ?? 'always', enabled: true },
    cancellation_reason: null,
    client_secret: `${id}_secret_${ctx.ids.token(25)}`,
    created: ctx.clock.nowSeconds(),
    customer,
    description: str(p, 'description') ?? null,
    flow_directions: strArray(p, 'flow_directions') ?? null,
    last_setup_error: null,
    latest_attempt: null,
    livemode: false,
    mandate: null,
    metadata: metadata(p) ?? {},
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: { card: { mandate_options: null, network: null, request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    single_use_mandate: null,
    status: 'requires_payment_method',
    usage: oneOf(p, 'usage', ['off_session', 'on_session'] as const) ?? 'off_session',
  };
  applyCommon(ctx, si, p);
  save(ctx, 'setup_intent', si);
  emitEvent(ctx, 'setup_intent.created', si);
  if (bool(p, 'confirm')) return confirmSetupIntent(ctx, si.id, {});
  return { status: 200, body: si };
}

export function updateSetupIntent(ctx: TwinContext, id: string, p: Params): SetupIntent {
  const si = clone(getSetupIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(si.status)) {
    throw invalidRequest(`You cannot update this SetupIntent because it has a status of ${si.status}.`, undefined, 'setup_intent_unexpected_state');
  }
  const customer = str(p, 'customer');
  if (customer !== undefined) {
    getCustomer(ctx, customer);
    si.customer = customer;
  }
  const description = str(p, 'description');
  if (description !== undefined) si.description = description || null;
  const md = metadata(p, si.metadata);
  if (md !== undefined) si.metadata = md;
  applyCommon(ctx, si, p);
  return save(ctx, 'setup_intent', si);
}

export function confirmSetupIntent(ctx: TwinContext, id: string, p: Params): TwinResponse {
  const si = clone(getSetupIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(si.status)) {
    throw invalidRequest(
      `You cannot confirm this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be confirmed: requires_confirmation, requires_action, requires_payment_method.`,
      undefined,
      'setup_intent_unexpected_state',
    );
  }
  applyCommon(ctx, si, p);
  if (!si.payment_method) {
    throw invalidRequest(
      "You cannot confirm this SetupIntent because it's missing a payment method. Update the SetupIntent with a payment method and then confirm it again.",
      'payment_method',
      'setup_intent_unexpected_state',
    );
  }
  const pm = resolvePaymentMethod(ctx, si.payment_method);
  const refused = checkCardOnAttach(pm);
  if (refused) {
    const fields: StripeErrorFields = {
      type: 'card_error',
      code: refused.code,
      decline_code: refused.decline_code,
      message: refused.message,
      extra: { payment_method: pm },
    };
    si.status = 'requires_payment_method';
    si.payment_method = null;
    si.last_setup_error = errorObject(fields);
    save(ctx, 'setup_intent', si);
    emitEvent(ctx, 'setup_intent.setup_failed', si);
    return stripeError(402, { ...fields, extra: { ...fields.extra, setup_intent: si } });
  }
  if (si.customer) attachPaymentMethod(ctx, pm, si.customer);
  si.status = 'succeeded';
  si.last_setup_error = null;
  save(ctx, 'setup_intent', si);
  emitEvent(ctx, 'setup_intent.succeeded', si);
  return { status: 200, body: si };
}

export function cancelSetupIntent(ctx: TwinContext, id: string, p: Params): SetupIntent {
  const si = clone(getSetupIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(si.status)) {
    throw invalidRequest(
      `You cannot cancel this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be canceled: requires_payment_method, requires_confirmation, requires_action.`,
      undefined,
      'setup_intent_unexpected_state',
    );
  }
  si.status = 'canceled';
  si.cancellation_reason = oneOf(p, 'cancellation_reason', ['abandoned', 'duplicate', 'requested_by_customer'] as const) ?? null;
  save(ctx, 'setup_intent', si);
  emitEvent(ctx, 'setup_intent.canceled', si);
  return si;
}

