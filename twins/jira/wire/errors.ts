// Jira's error body: `{errorMessages: [...], errors: {field: message}}` with the HTTP status.
// Models throw JiraError; the twin's errors.render answers it.

import type { TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';

export class JiraError extends Error {
  constructor(
    readonly status: number,
    readonly errorMessages: string[],
    readonly errors: Record<string, string> = {},
  ) {
    super(errorMessages[0] ?? Object.values(errors)[0] ?? `HTTP ${status}`);
  }
}

export function fieldError(field: string, message: string): JiraError {
  return new JiraError(400, [], { [field]: message });
}

export function issueNotFound(): JiraError {
  return new JiraError(404, ['Issue does not exist or you do not have permission to see it.']);
}

export function jiraBody(e: JiraError): TwinResponse {
  return { status: e.status, headers: { 'content-type': 'application/json;charset=UTF-8' }, body: { errorMessages: e.errorMessages, errors: e.errors } };
}

/**
 * A URL no resource answers. Under `/rest/` Jira's REST layer (Jersey) answers 404
 * `{"message": "null for uri: <the full URL>", "status-code": 404}`; elsewhere the site's HTML
 * "page not found".
 */
export function routeMiss(req: TwinRequest, baseUrl: string): TwinResponse {
  const url = `${req.origin ?? baseUrl}${req.path}${req.queryString ? `?${req.queryString}` : ''}`;
  if (req.path.startsWith('/rest/'))
    return { status: 404, headers: { 'content-type': 'application/json;charset=UTF-8' }, body: { message: `null for uri: ${url}`, 'status-code': 404 } };
  return {
    status: 404,
    headers: { 'content-type': 'text/html;charset=UTF-8' },
    body: '<!DOCTYPE html><html><head><title>Page not found</title></head><body><h1>Page not found</h1></body></html>',
  };
}
