// Short-lived credentials a server hands to its frontend: customer sessions (a `client_secret`
// that lets Stripe.js's Payment Element or pricing table act for one customer, valid 30 minutes)
// and ephemeral keys (an `ek_test_…` secret for the mobile SDKs, pinned to the API version the
// client asked for, valid an hour, revocable).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { getCustomer } from './customers.js';
import { find, newId, save, type StripeObject } from './objects.js';

export const CUSTOMER_SESSION_SECONDS = 30 * 60;
export const EPHEMERAL_KEY_SECONDS = 60 * 60;

export const CUSTOMER_SESSION_COMPONENTS = ['buy_button', 'payment_element', 'pricing_table', 'customer_sheet', 'mobile_payment_element'] as const;
export type SessionComponent = (typeof CUSTOMER_SESSION_COMPONENTS)[number];

export interface CustomerSessionCreate {
  customer: string;
  /** Each component asked for, with whether it is enabled and its features as given. */
  components: Partial<Record<SessionComponent, { enabled: boolean; features?: Record<string, unknown> }>>;
}

export function createCustomerSession(ctx: TwinContext, input: CustomerSessionCreate): StripeObject {
  getCustomer(ctx, input.customer, 'customer');
  if (!Object.values(input.components).some((c) => c?.enabled)) {
    throw invalidRequest('At least one component must be enabled.', 'components');
  }
  const now = ctx.clock.nowSeconds();
  const components: Record<string, unknown> = {};
  for (const name of CUSTOMER_SESSION_COMPONENTS) {
    const asked = input.components[name];
    components[name] =
      name === 'buy_button' || name === 'pricing_table'
        ? { enabled: asked?.enabled ?? false }
        : { enabled: asked?.enabled ?? false, features: asked?.enabled ? (asked.features ?? {}) : null };
  }
  const clientSecret = `cuss_secret_${ctx.ids.token(58)}`;
  const session: StripeObject = {
    id: clientSecret,
    object: 'customer_session',
    client_secret: clientSecret,
    components,
    created: now,
    customer: input.customer,
    customer_account: null,
    expires_at: now + CUSTOMER_SESSION_SECONDS,
    livemode: false,
  };
  ctx.store.put('customer_session', clientSecret, session);
  // The API answers no id for a customer session.
  const { id: _id, ...answer } = session;
  return answer as StripeObject;
}

export interface EphemeralKeyCreate {
  customer?: string;
  issuingCard?: string;
  verificationSession?: string;
  /** The `Stripe-Version` the request pinned (the mobile SDK's version). */
  apiVersion: string | undefined;
}

export function createEphemeralKey(ctx: TwinContext, input: EphemeralKeyCreate): StripeObject {
  if (!input.apiVersion) {
    throw invalidRequest('Stripe-Version header is required when creating an ephemeral key: pass the API version your mobile SDK uses.');
  }
  const associated: { id: string; type: string }[] = [];
  if (input.customer !== undefined) {
    getCustomer(ctx, input.customer, 'customer');
    associated.push({ id: input.customer, type: 'customer' });
  }
  if (input.issuingCard !== undefined) associated.push({ id: input.issuingCard, type: 'issuing.card' });
  if (input.verificationSession !== undefined) associated.push({ id: input.verificationSession, type: 'identity.verification_session' });
  if (associated.length !== 1) {
    throw invalidRequest('You must pass exactly one of customer, issuing_card or verification_session.', associated.length ? undefined : 'customer');
  }
  const now = ctx.clock.nowSeconds();
  const key: StripeObject = {
    id: newId(ctx, 'ephemeral_key'),
    object: 'ephemeral_key',
    associated_objects: associated,
    created: now,
    expires: now + EPHEMERAL_KEY_SECONDS,
    livemode: false,
    secret: `ek_test_${ctx.ids.token(99)}`,
  };
  return save(ctx, 'ephemeral_key', key);
}

/** Revoke an ephemeral key: it expires now; Stripe answers the key without its secret. */
export function deleteEphemeralKey(ctx: TwinContext, id: string): StripeObject {
  const key = find(ctx, 'ephemeral_key', id);
  if (!key) throw resourceMissing('ephemeral key', id, 'key');
  const revoked: StripeObject = { ...key, expires: Math.min(key.expires as number, ctx.clock.nowSeconds()) };
  save(ctx, 'ephemeral_key', revoked);
  const { secret: _secret, ...answer } = revoked;
  return answer as StripeObject;
}
