// Parameters Stripe takes that its published spec (as pinned in twins/stripe/spec/, brought to the
// SDK's API version by the generator) lacks: the one place the Stripe twin describes input beyond
// the spec, by operation id. Each entry says why.

import type { InputPolicy } from '../../../twin-runtime/generic/validate.js';

/** Raw card details (an account with raw card data APIs enabled; the twin's test accounts are). */
const RAW_CARD = {
  type: 'object',
  properties: {
    number: { type: 'string', maxLength: 5000 },
    exp_month: { type: 'integer' },
    exp_year: { type: 'integer' },
    cvc: { type: 'string', maxLength: 5000 },
    token: { type: 'string', maxLength: 5000 },
  },
};

/** `payment_method_data` with raw card details (`type: card` beside the spec's wallet types). */
const CARD_DATA = { type: 'object', properties: { card: RAW_CARD, type: { type: 'string', maxLength: 5000 } } };

/** Stripe.js confirms with the publishable key and the object's `client_secret` in the body. */
const CLIENT_SECRET = { client_secret: { type: 'string', maxLength: 5000 } };

/**
 * A customer's or subscription's top-level `coupon` / `promotion_code`: gone from the SDK's API
 * version (2025-03-31.basil moved them to `discounts[]`), still sent by integrations pinned to an
 * older `Stripe-Version`; the twin does not yet vary its input by version, so it takes them.
 */
const LEGACY_DISCOUNT = { coupon: { type: 'string', maxLength: 5000 }, promotion_code: { type: 'string', maxLength: 5000 } };

export const SPEC_GAPS: NonNullable<InputPolicy['extra']> = {
  PostPaymentIntents: { body: { payment_method_data: CARD_DATA } },
  PostPaymentIntentsIntentConfirm: { body: { payment_method_data: CARD_DATA, ...CLIENT_SECRET } },
  PostSetupIntents: { body: { payment_method_data: CARD_DATA } },
  PostSetupIntentsIntentConfirm: { body: { payment_method_data: CARD_DATA, ...CLIENT_SECRET } },
  PostCustomers: { body: LEGACY_DISCOUNT },
  PostCustomersCustomer: { body: LEGACY_DISCOUNT },
  PostSubscriptions: { body: LEGACY_DISCOUNT },
  PostSubscriptionsSubscriptionExposedId: { body: LEGACY_DISCOUNT },
  // The spec names every API version as an enum; the twin's own list (wire/api-version.ts) decides.
  PostWebhookEndpoints: { body: { api_version: { type: 'string', maxLength: 5000, replace: true } } },
};

/**
 * A parameter that left the API in a version (so the current spec no longer has it), still taken
 * from requests pinned to an older `Stripe-Version`. `path` names where it sits in the parameters
 * (`*`: every item of an array); requests at `since` or later are refused it as unknown, as Stripe
 * does.
 */
export interface RetiredParam {
  /** The first API version without it (its date). */
  since: string;
  changelog: string;
  path: string[];
  type: 'integer';
}

const PHASE_ITERATIONS: RetiredParam = {
  since: '2025-09-30',
  changelog: 'https://docs.stripe.com/changelog/clover/2025-09-30/remove-iterations',
  path: ['phases', '*', 'iterations'],
  type: 'integer',
};

export const RETIRED_PARAMS: Record<string, RetiredParam[]> = {
  PostSubscriptionSchedules: [PHASE_ITERATIONS],
  PostSubscriptionSchedulesSchedule: [PHASE_ITERATIONS],
};
