// Linear's errors: GraphQL errors whose `extensions` carry `type` (the SDK maps it to
// InvalidInputLinearError, AuthenticationLinearError…), `code`, `statusCode`, `userError` and a
// `userPresentableMessage`. Models throw LinearApiError; wire/graphql.ts renders it.

export type LinearErrorKind = 'invalid input' | 'authentication error' | 'forbidden' | 'ratelimited' | 'graphql error' | 'unsupported';

const CODES: Record<LinearErrorKind, { code: string; status: number }> = {
  'invalid input': { code: 'INPUT_ERROR', status: 400 },
  'authentication error': { code: 'AUTHENTICATION_ERROR', status: 401 },
  forbidden: { code: 'FORBIDDEN', status: 403 },
  ratelimited: { code: 'RATELIMITED', status: 429 },
  'graphql error': { code: 'GRAPHQL_VALIDATION_FAILED', status: 400 },
  // The twin's own refusal of a root field it does not simulate (the SDK reads it as a LinearError).
  unsupported: { code: 'TWIN_UNSUPPORTED_FIELD', status: 400 },
};

export class LinearApiError extends Error {
  constructor(
    readonly kind: LinearErrorKind,
    message: string,
    readonly userPresentableMessage: string = message,
  ) {
    super(message);
  }

  get extensions(): Record<string, unknown> {
    const { code, status } = CODES[this.kind];
    return { type: this.kind, code, statusCode: status, userError: true, userPresentableMessage: this.userPresentableMessage };
  }
}

/** `Entity not found: Issue` — what Linear answers for an id that names nothing. */
export function notFound(entity: string): LinearApiError {
  return new LinearApiError('invalid input', `Entity not found: ${entity}`, `Could not find referenced ${entity}.`);
}

/** A root field no model answers: refused rather than answered with an invented empty value. */
export function notSimulated(field: string): LinearApiError {
  return new LinearApiError('unsupported', `This twin does not simulate ${field}.`);
}

export function invalidInput(message: string): LinearApiError {
  return new LinearApiError('invalid input', 'Argument Validation Error', message);
}

/** One GraphQL error body of Linear's shape (HTTP `status`). */
export function errorBody(error: LinearApiError, path?: readonly (string | number)[]): Record<string, unknown> {
  return { message: error.message, ...(path ? { path } : {}), extensions: error.extensions };
}
