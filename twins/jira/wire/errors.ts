// Jira's error body: `{errorMessages: [...], errors: {field: message}}` with the HTTP status.
// Models throw JiraError; the twin's errors.render answers it.

import type { TwinResponse } from '../../../twin-runtime/contract.js';

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
