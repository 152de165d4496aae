// How large a request body may be. Provider API calls stay under INPUT_LIMITS.maxBodyBytes; git's
// smart HTTP requests (a push carries a whole pack) may be larger. The twin server and the
// gateway both read this, so the gateway holds what the twin would accept and no more.

import { INPUT_LIMITS } from './safe-input.js';

/** Largest git smart HTTP request body (a push's pack file). */
export const MAX_GIT_BODY_BYTES = 128 * 1024 * 1024;

const GIT_SERVICE = /\/git-(?:upload|receive)-pack$/;

export function maxBodyBytes(path: string): number {
  return GIT_SERVICE.test(path) ? MAX_GIT_BODY_BYTES : INPUT_LIMITS.maxBodyBytes;
}
