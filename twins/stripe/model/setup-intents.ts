// Setup intents: save a card for later. Confirm checks the card with the issuer (test cards that
// decline on attach fail here with `last_setup_error` and a 402), attaches it to the customer, and
// emits `setup_intent.*` events.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { errorObject, invalidRequest, resourceMissing, type StripeErrorFields } from '../wire/errors.js';
import { getCustomer } from './customers.js';
import { emitEvent } from './events.js';
import { applyMetadata, clone, find, newId, save, type MetadataPatch, type StripeObject } from './objects.js';
import { readPage, type FieldEquals, type ListPage, type ListWindow } from './pages.js';
import { attachPaymentMethod, checkCardOnAttach, paymentMethodFromData, resolvePaymentMethod, type PaymentMethodCreate } from './payment-methods.js';

export type SetupIntent = StripeObject & { object: 'setup_intent' };

export const SETUP_USAGES = ['off_session', 'on_session'] as const;
export const SETUP_CANCELLATION_REASONS = ['abandoned', 'duplicate', 'requested_by_customer'] as const;

/** What create, update and confirm may set about the card being saved. */
export interface SetupFields {
  paymentMethod?: string;
  paymentMethodData?: PaymentMethodCreate;
  paymentMethodTypes?: string[];
}

export interface SetupIntentCreate extends SetupFields {
  customer?: string;
  description?: string;
  flowDirections?: string[];
  metadata?: MetadataPatch;
  usage?: (typeof SETUP_USAGES)[number];
  allowRedirects?: string;
  confirm?: boolean;
}

export interface SetupIntentUpdate extends SetupFields {
  customer?: string;
  /** `''` clears it. */
  description?: string;
  metadata?: MetadataPatch;
}

/** What a confirmation led to; a card the issuer refuses is a decline (402), kept on the intent. */
export interface SetupOutcome {
  intent: SetupIntent;
  decline?: StripeErrorFields;
}

export function getSetupIntent(ctx: TwinContext, id: string): SetupIntent {
  const s = find<SetupIntent>(ctx, 'setup_intent', id);
  if (!s) throw resourceMissing('setupintent', id, 'intent');
  return s;
}

function applyCommon(ctx: TwinContext, si: SetupIntent, input: SetupFields): void {
  if (input.paymentMethod && input.paymentMethodData) {
    throw invalidRequest('You may only specify one of these parameters: payment_method, payment_method_data.', 'payment_method_data');
  }
  if (input.paymentMethod) si.payment_method = resolvePaymentMethod(ctx, input.paymentMethod).id;
  if (input.paymentMethodData) si.payment_method = paymentMethodFromData(ctx, input.paymentMethodData).id;
  if (input.paymentMethodTypes) {
    si.payment_method_types = input.paymentMethodTypes;
    si.automatic_payment_methods = null;
  }
  if (si.status === 'requires_payment_method' && si.payment_method) si.status = 'requires_confirmation';
}

export function createSetupIntent(ctx: TwinContext, input: SetupIntentCreate): SetupOutcome {
  const customer = input.customer ?? null;
  if (customer) getCustomer(ctx, customer);
  const id = newId(ctx, 'setup_intent');
  const si: SetupIntent = {
    id,
    object: 'setup_intent',
    application: null,
    automatic_payment_methods: { allow_redirects: input.allowRedirects ?? 'always', enabled: true },
    cancellation_reason: null,
    client_secret: `${id}_secret_${ctx.ids.token(25)}`,
    created: ctx.clock.nowSeconds(),
    customer,
    description: input.description ?? null,
    flow_directions: input.flowDirections ?? null,
    last_setup_error: null,
    latest_attempt: null,
    livemode: false,
    mandate: null,
    metadata: input.metadata === undefined ? {} : applyMetadata({}, input.metadata),
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: { card: { mandate_options: null, network: null, request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    single_use_mandate: null,
    status: 'requires_payment_method',
    usage: input.usage ?? 'off_session',
  };
  applyCommon(ctx, si, input);
  save(ctx, 'setup_intent', si);
  emitEvent(ctx, 'setup_intent.created', si);
  if (input.confirm) return confirmSetupIntent(ctx, si.id, {});
  return { intent: si };
}

export function updateSetupIntent(ctx: TwinContext, id: string, input: SetupIntentUpdate): SetupIntent {
  const si = clone(getSetupIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(si.status)) {
    throw invalidRequest(`You cannot update this SetupIntent because it has a status of ${si.status}.`, undefined, 'setup_intent_unexpected_state');
  }
  if (input.customer !== undefined) {
    getCustomer(ctx, input.customer);
    si.customer = input.customer;
  }
  if (input.description !== undefined) si.description = input.description || null;
  if (input.metadata !== undefined) si.metadata = applyMetadata(si.metadata, input.metadata);
  applyCommon(ctx, si, input);
  return save(ctx, 'setup_intent', si);
}

export function confirmSetupIntent(ctx: TwinContext, id: string, input: SetupFields): SetupOutcome {
  const si = clone(getSetupIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(si.status)) {
    throw invalidRequest(
      `You cannot confirm this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be confirmed: requires_confirmation, requires_action, requires_payment_method.`,
      undefined,
      'setup_intent_unexpected_state',
    );
  }
  applyCommon(ctx, si, input);
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
    return { intent: si, decline: fields };
  }
  if (si.customer) attachPaymentMethod(ctx, pm, si.customer);
  si.status = 'succeeded';
  si.last_setup_error = null;
  save(ctx, 'setup_intent', si);
  emitEvent(ctx, 'setup_intent.succeeded', si);
  return { intent: si };
}

export function cancelSetupIntent(ctx: TwinContext, id: string, reason: (typeof SETUP_CANCELLATION_REASONS)[number] | null): SetupIntent {
  const si = clone(getSetupIntent(ctx, id));
  if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(si.status)) {
    throw invalidRequest(
      `You cannot cancel this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be canceled: requires_payment_method, requires_confirmation, requires_action.`,
      undefined,
      'setup_intent_unexpected_state',
    );
  }
  si.status = 'canceled';
  si.cancellation_reason = reason;
  save(ctx, 'setup_intent', si);
  emitEvent(ctx, 'setup_intent.canceled', si);
  return si;
}

/** One page of setup intents, newest first, of one customer or payment method or all. */
export function listSetupIntents(ctx: TwinContext, filter: { customer?: string; paymentMethod?: string }, window: ListWindow): ListPage<SetupIntent> {
  const equals: FieldEquals = {};
  if (filter.customer !== undefined) equals.customer = filter.customer;
  if (filter.paymentMethod !== undefined) equals.payment_method = filter.paymentMethod;
  return readPage<SetupIntent>(ctx, 'setup_intent', equals, window);
}
