// SendGrid's error body: `{errors: [{message, field, help}]}` with the HTTP status. Mail send's
// validation errors name the field by its dotted path (`personalizations.0.to`) and link the
// errors page; account errors carry `field: null, help: null`. Models throw SendGridError.

import type { TwinResponse } from '../../../twin-runtime/contract.js';

export interface SendGridErrorItem {
  message: string;
  field: string | null;
  help: string | null;
}

export class SendGridError extends Error {
  constructor(
    readonly status: number,
    readonly errors: SendGridErrorItem[],
  ) {
    super(errors[0]?.message ?? `HTTP ${status}`);
  }
}

const MAIL_ERRORS = 'http://sendgrid.com/docs/API_Reference/Web_API_v3/Mail/errors.html';

/** One 400 of mail send: its message, its field, and the errors page anchor SendGrid links. */
export function mailError(field: string | null, message: string, anchor: string): SendGridErrorItem {
  return { message, field, help: `${MAIL_ERRORS}#${anchor}` };
}

/** An error without a field (authorization, not found, account state). */
export function plainError(status: number, message: string, field: string | null = null): SendGridError {
  return new SendGridError(status, [{ message, field, help: null }]);
}

export function sendgridBody(e: SendGridError): TwinResponse {
  return { status: e.status, headers: { 'content-type': 'application/json' }, body: { errors: e.errors } };
}

export const unauthorized = (): SendGridError => plainError(401, 'The provided authorization grant is invalid, expired, or revoked');
export const authorizationRequired = (): SendGridError => plainError(401, 'authorization required');
