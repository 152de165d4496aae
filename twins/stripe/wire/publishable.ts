// The publishable key (`pk_test_…`) a frontend embeds: derived from the twin's secret key (so it
// needs no storage and changes when the secret does), and allowed only what Stripe.js and the mobile
// SDKs call with it: create payment methods and tokens, retrieve and confirm a payment or setup
// intent with its `client_secret`, read an elements session. Anything else is refused as Stripe
// refuses a publishable key on a secret-key call.

import type { TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { base62, hmacStream } from '../../../twin-runtime/ids.js';
import { stripeError } from './errors.js';
import { paramsOf } from './params.js';

let lastDerived: { secretKey: string; publishable: string } | undefined;

export function publishableKeyFor(secretKey: string): string {
  // A twin has one secret key: derived once, not per request.
  if (lastDerived?.secretKey !== secretKey) {
    lastDerived = { secretKey, publishable: `pk_test_${base62(hmacStream('stripe-twin-publishable-key', secretKey), 99)}` };
  }
  return lastDerived.publishable;
}

const SECRET_ONLY =
  'This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.';

interface Allowed {
  method: string;
  path: RegExp;
  /** The intent kind whose `client_secret` the call must carry (`pi`, `seti`), captured as group 1. */
  intent?: 'payment_intent' | 'setup_intent';
}

const ALLOWED: Allowed[] = [
  { method: 'POST', path: /^\/v1\/payment_methods$/ },
  { method: 'POST', path: /^\/v1\/tokens$/ },
  { method: 'GET', path: /^\/v1\/elements\/sessions$/ },
  { method: 'GET', path: /^\/v1\/payment_intents\/([^/]+)$/, intent: 'payment_intent' },
  { method: 'POST', path: /^\/v1\/payment_intents\/([^/]+)\/confirm$/, intent: 'payment_intent' },
  { method: 'GET', path: /^\/v1\/setup_intents\/([^/]+)$/, intent: 'setup_intent' },
  { method: 'POST', path: /^\/v1\/setup_intents\/([^/]+)\/confirm$/, intent: 'setup_intent' },
];

const refuse = (status: number, message: string, param?: string): TwinResponse => stripeError(status, { type: 'invalid_request_error', message, param });

/**
 * The refusal for a request made with the publishable key, or undefined when Stripe.js could make
 * it: an intent call must name the intent's own `client_secret`.
 */
export function publishableRefusal(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  for (const rule of ALLOWED) {
    if (rule.method !== req.method) continue;
    const m = rule.path.exec(req.path);
    if (!m) continue;
    if (!rule.intent) return undefined;
    const id = decodeURIComponent(m[1]!);
    const secret = paramsOf(req).client_secret;
    const noun = rule.intent === 'payment_intent' ? 'PaymentIntent' : 'SetupIntent';
    if (typeof secret !== 'string' || secret === '') {
      return refuse(400, `You must provide the client_secret of the ${noun} when using a publishable key.`, 'client_secret');
    }
    const intent = ctx.store.get<{ client_secret?: string }>(rule.intent, id);
    if (!intent || intent.client_secret !== secret) {
      return refuse(400, `The client_secret provided does not match the client_secret associated with the ${noun}.`, 'client_secret');
    }
    return undefined;
  }
  return refuse(401, SECRET_ONLY);
}
