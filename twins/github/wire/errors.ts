// GitHub's error bodies. Model code throws GitHubError; the HTTP layer renders it as GitHub does:
// `{message, documentation_url, status}` plus `errors[]` for 422 Validation Failed, with the
// documentation page of the operation that failed (docs.ts) unless the error names its own.

import { DOCS } from './docs.js';

export { DOCS };

export interface ValidationError {
  resource: string;
  field?: string;
  code: 'missing' | 'missing_field' | 'invalid' | 'already_exists' | 'unprocessable' | 'custom';
  message?: string;
  value?: unknown;
}

export class GitHubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: { errors?: (ValidationError | string)[]; documentation_url?: string } = {},
  ) {
    super(message);
  }

  /** The body GitHub answers; `docs` is the page of the operation (default: the REST index). */
  body(docs = DOCS): Record<string, unknown> {
    const out: Record<string, unknown> = { message: this.message };
    if (this.extra.errors) out.errors = this.extra.errors;
    out.documentation_url = this.extra.documentation_url ?? docs;
    out.status = String(this.status);
    return out;
  }
}

/**
 * A renamed repository asked for by its old name: GitHub answers 301 (307 for writes) with
 * `Location` naming the repository by id (`/repositories/{id}/…`), which clients follow.
 */
export class RepositoryMoved extends GitHubError {
  constructor(readonly repositoryId: number) {
    super(301, 'Moved Permanently');
  }
}

export const notFound = (): GitHubError => new GitHubError(404, 'Not Found');

export function validationFailed(...errors: ValidationError[]): GitHubError {
  return new GitHubError(422, 'Validation Failed', { errors });
}

/** Schema-level problems (missing or mistyped parameter): GitHub answers "Invalid request." without errors[]. */
export function invalidRequest(detail: string): GitHubError {
  return new GitHubError(422, `Invalid request.\n\n${detail}`);
}

export const issuesDisabled = (): GitHubError =>
  new GitHubError(410, 'Issues are disabled for this repo', {
    documentation_url: 'https://docs.github.com/v3/issues/',
  });
