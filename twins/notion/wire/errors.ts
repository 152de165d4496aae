// Notion's error body: `{object: "error", status, code, message, request_id}` with the HTTP status.
// Models throw NotionError; the twin's errors.render answers it. Codes and statuses as Notion's
// status-code reference lists them.

import type { TwinResponse } from '../../../twin-runtime/contract.js';

export type NotionErrorCode =
  | 'invalid_json'
  | 'invalid_request_url'
  | 'invalid_request'
  | 'validation_error'
  | 'missing_version'
  | 'unauthorized'
  | 'restricted_resource'
  | 'object_not_found'
  | 'conflict_error'
  | 'rate_limited'
  | 'internal_server_error'
  | 'service_unavailable';

export class NotionError extends Error {
  constructor(
    readonly status: number,
    readonly code: NotionErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const validation = (message: string): NotionError => new NotionError(400, 'validation_error', message);

/** `body.parent should be defined, instead was \`undefined\`.` as Notion words a body check. */
export function bodyInvalid(path: string, expectation: string, got: unknown): NotionError {
  return validation(`body failed validation: body.${path} ${expectation}, instead was \`${got === undefined ? 'undefined' : JSON.stringify(got)}\`.`);
}

export function notFound(kind: 'page' | 'block' | 'database' | 'data_source' | 'user' | 'comment', id: string): NotionError {
  const noun = kind === 'data_source' ? 'data source' : kind;
  return new NotionError(
    404,
    'object_not_found',
    `Could not find ${noun} with ID: ${id}. Make sure the relevant pages and databases are shared with your integration.`,
  );
}

export function errorResponse(e: NotionError, requestId: string): TwinResponse {
  return {
    status: e.status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: { object: 'error', status: e.status, code: e.code, message: e.message, request_id: requestId },
  };
}
