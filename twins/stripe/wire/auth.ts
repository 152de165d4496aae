// API key check with Stripe's wording: Bearer (what the SDK sends) or Basic with the key as the
// user name (what curl -u sends). Only the key minted for this container is accepted, and its
// publishable key for what Stripe.js calls (wire/publishable.ts) — which Stripe.js sends as a `key`
// parameter (form body, or query of a GET) instead of a header.

import type { RequestProblem, TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { stripeError } from './errors.js';
import { sessionTokenState } from '../model/v2-billing.js';
import { newRequestId, withStripeHeaders } from './pipeline.js';
import { publishableKeyFor, publishableRefusal } from './publishable.js';

/** The v2 stream a meter event session's token authenticates (model/v2-billing.ts). */
const METER_EVENT_STREAM = '/v2/billing/meter_event_stream';

const NO_KEY =
  "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.";

function presentedKey(req: TwinRequest): string | undefined {
  const raw = req.headers.authorization;
  if (!raw) return undefined;
  const [scheme, value = ''] = raw.trim().split(/\s+/, 2);
  if (/^bearer$/i.test(scheme!)) return value;
  if (/^basic$/i.test(scheme!)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.split(':')[0];
  }
  return raw.trim();
}

/** `sk_test_abc…wxyz` → `sk_test_*****…wxyz`, as Stripe echoes a rejected key. */
export function maskKey(key: string): string {
  const prefix = /^(sk|rk|pk)_(test|live)_/.exec(key)?.[0] ?? '';
  const tail = key.length - prefix.length > 4 ? key.slice(-4) : '';
  return prefix + '*'.repeat(Math.max(0, key.length - prefix.length - tail.length)) + tail;
}

/**
 * The publishable key of a request without an Authorization header, as Stripe.js sends it: the
 * `key` parameter, taken out of the parameters (it is the credential, not an input of the call).
 * Only a publishable key is read from there; a secret key belongs in the header.
 */
function keyParameter(req: TwinRequest, publishable: string): string | undefined {
  const holder = req.method === 'GET' || req.method === 'DELETE' ? req.query : req.body;
  if (holder.key !== publishable) return undefined;
  delete holder.key;
  return publishable;
}

export function authenticateStripe(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const header = presentedKey(req);
  if (header === ctx.apiKey) return undefined;
  if (header !== undefined && req.path === METER_EVENT_STREAM) {
    const state = sessionTokenState(ctx, header);
    if (state === 'valid') return undefined;
    if (state === 'expired') {
      const message = 'The meter event session has expired. Create a new session with POST /v2/billing/meter_event_session.';
      return withStripeHeaders(stripeError(401, { type: 'temporary_session_expired', message }), newRequestId(), req);
    }
  }
  const publishable = publishableKeyFor(ctx.apiKey);
  const key = header ?? keyParameter(req, publishable);
  if (key !== undefined && key === publishable) {
    const refused = publishableRefusal(req, ctx);
    return refused && withStripeHeaders(refused, newRequestId(), req);
  }
  const message = key ? `Invalid API Key provided: ${maskKey(key)}` : NO_KEY;
  return withStripeHeaders(stripeError(401, { type: 'invalid_request_error', message }), newRequestId(), req);
}

export function unrecognizedUrl(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const refused = authenticateStripe(req, ctx);
  if (refused) return refused;
  return withStripeHeaders(
    stripeError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${req.method}: ${req.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    }),
    newRequestId(),
    req,
  );
}

/**
 * A request the runtime could not read: a malformed URL is an unknown one; an input limit passed is
 * Stripe's 400 `invalid_request_error` naming the parameter (413 for a body past the size limit).
 */
export function stripeParseFailure(req: TwinRequest, ctx: TwinContext, problem: RequestProblem): TwinResponse {
  if (problem.kind === 'malformed_url') return unrecognizedUrl(req, ctx);
  const { refusal } = problem;
  const status = refusal.reason === 'body_too_large' ? 413 : 400;
  return withStripeHeaders(stripeError(status, { type: 'invalid_request_error', message: refusal.message, param: refusal.param }), newRequestId(), req);
}
