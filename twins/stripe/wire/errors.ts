// Stripe's error envelope: `{error: {type, code, decline_code?, message, param, doc_url}}` with the
// HTTP status Stripe uses for each kind (400 invalid request, 401 bad key, 402 card error,
// 404 missing resource). Handlers either return `stripeError(...)` or throw `StripeApiError`
// (a throw also rolls back everything the request wrote; see wire/pipeline.ts).

import type { TwinResponse } from '../../../twin-runtime/contract.js';

export type StripeErrorType =
  | 'api_error'
  | 'card_error'
  | 'idempotency_error'
  | 'invalid_request_error'
  | 'authentication_error'
  | 'rate_limit_error'
  // v2's own error types (the SDK's generateV2Error reads them)
  | 'temporary_session_expired';

export interface StripeErrorFields {
  type: StripeErrorType;
  code?: string;
  decline_code?: string;
  message: string;
  param?: string;
  /** Extra members Stripe adds for some errors (card errors carry `charge`, `payment_intent`…). */
  extra?: Record<string, unknown>;
}

export function docUrl(code: string): string {
  return `https://stripe.com/docs/error-codes/${code.replaceAll('_', '-')}`;
}

/** The `error` object itself (also stored as an intent's `last_payment_error`). */
export function errorObject(fields: StripeErrorFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields.extra) Object.assign(out, fields.extra);
  if (fields.code) out.code = fields.code;
  if (fields.decline_code) out.decline_code = fields.decline_code;
  if (fields.code) out.doc_url = docUrl(fields.code);
  out.message = fields.message;
  if (fields.param !== undefined) out.param = fields.param;
  out.type = fields.type;
  return out;
}

export function stripeError(status: number, fields: StripeErrorFields): TwinResponse {
  return { status, body: { error: errorObject(fields) } };
}

export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly fields: StripeErrorFields,
  ) {
    super(fields.message);
    this.name = 'StripeApiError';
  }

  toResponse(): TwinResponse {
    return stripeError(this.status, this.fields);
  }
}

/** 404 `resource_missing`: "No such customer: 'cus_x'". `kind` is the object name with spaces. */
export function resourceMissing(kind: string, id: string, param = 'id'): StripeApiError {
  return new StripeApiError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${id}'`,
    param,
  });
}

/** 400 `invalid_request_error`, optionally with a code (`parameter_unknown`, `amount_too_small`…). */
export function invalidRequest(message: string, param?: string, code?: string): StripeApiError {
  return new StripeApiError(400, { type: 'invalid_request_error', message, param, code });
}

/** 400 `parameter_missing`, Stripe's wording. */
export function missingParam(param: string): StripeApiError {
  return invalidRequest(`Missing required param: ${param}.`, param, 'parameter_missing');
}

/**
 * Run `fn`, naming the parameters of any Stripe error it throws under `prefix`: an error about
 * `card[number]` inside `payment_method_data` names `payment_method_data[card][number]`.
 */
export function underParam<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof StripeApiError && e.fields.param && !e.fields.param.startsWith(prefix)) {
      const param = e.fields.param.replace(/^([^[]+)/, '[$1]');
      throw new StripeApiError(e.status, { ...e.fields, param: `${prefix}${param}` });
    }
    throw e;
  }
}

/**
 * An operation the twin does not simulate (decisions §15): 501 `api_error`, which the `stripe` SDK
 * raises as `StripeAPIError` with the sentence as its message; `Stripe-Should-Retry: false` keeps it
 * from retrying a 5xx that will not change.
 */
export function notSimulatedResponse(sentence: string): TwinResponse {
  return { ...stripeError(501, { type: 'api_error', message: sentence }), headers: { 'stripe-should-retry': 'false' } };
}
