// How large a request body may be. Provider API calls stay under INPUT_LIMITS.maxBodyBytes; git's
// smart HTTP requests (a push carries a whole pack) may be larger. The twin server and the
// gateway both read this, so the gateway holds what the twin would accept and no more.

import { INPUT_LIMITS } from './safe-input.js';

/** Largest git smart HTTP request body (a push's pack file). */
export const MAX_GIT_BODY_BYTES = 128 * 1024 * 1024;

const GIT_SERVICE = /\/git-(?:upload|receive)-pack$/;

/** Largest file upload (a GitHub release asset: `…/releases/{id}/assets`). */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

const UPLOAD = /\/releases\/\d+\/assets$/;

/**
 * A multipart file upload at `/v1/files` (Stripe's files.stripe.com, OpenAI's files): the body is a
 * form whose file part the twin checks against its own per-purpose limits (Stripe's largest: 16 MB).
 */
export const MAX_FILES_BODY_BYTES = 17 * 1024 * 1024;

const FILES = /^\/v1\/files$/;

/** A file upload: its bytes are the file (never parsed as JSON or a form, whatever its content type). */
export function isUploadPath(path: string): boolean {
  return UPLOAD.test(path);
}

export function maxBodyBytes(path: string): number {
  if (GIT_SERVICE.test(path)) return MAX_GIT_BODY_BYTES;
  if (UPLOAD.test(path)) return MAX_UPLOAD_BYTES;
  return FILES.test(path) ? MAX_FILES_BODY_BYTES : INPUT_LIMITS.maxBodyBytes;
}
