// Twilio's error body: `{code, message, more_info, status}` (the 401 adds `detail`), with the HTTP
// status. Models throw TwilioError; the twin's errors.render answers it.

import type { TwinResponse } from '../../../twin-runtime/contract.js';

export class TwilioError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

export function twilioBody(e: TwilioError): TwinResponse {
  const body: Record<string, unknown> = { code: e.code, message: e.message, more_info: `https://www.twilio.com/docs/errors/${e.code}`, status: e.status };
  if (e.detail !== undefined) body.detail = e.detail;
  return { status: e.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body };
}

/** 20404 as Twilio words it: the path that names nothing. */
export function notFound(path: string): TwilioError {
  return new TwilioError(404, 20404, `The requested resource ${path} was not found`);
}

export function badParam(code: number, message: string): TwilioError {
  return new TwilioError(400, code, message);
}

export const UNAUTHORIZED = new TwilioError(401, 20003, 'Authenticate', 'Your AccountSid or AuthToken was incorrect.');

/**
 * An operation the twin does not simulate (decisions §15): 501 in Twilio's error body (no error code
 * of Twilio's dictionary means "not simulated"; `more_info` is the dictionary). twilio-node raises
 * it as `RestException` (status 501, the sentence as its message).
 */
export function notSimulatedBody(sentence: string): TwinResponse {
  return {
    status: 501,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: { code: null, message: sentence, more_info: 'https://www.twilio.com/docs/api/errors', status: 501 },
  };
}
