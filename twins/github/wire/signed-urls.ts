// Short-lived download URLs, as GitHub hands out for Actions logs, release assets and archives: a
// GET the API answers with a 302 to a URL of the twin carrying its expiry and an HMAC (keyed by the
// twin key) over path and expiry, so the download itself needs no credentials.

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TwinContext, TwinRequest } from '../../../twin-runtime/contract.js';
import { GitHubError } from './errors.js';
import { queryString } from './http.js';

/** How long a download URL stays valid (GitHub's are valid for about a minute). */
const URL_SECONDS = 60;

function signature(ctx: TwinContext, path: string, expires: number): string {
  return createHmac('sha256', ctx.apiKey).update(`${path}\n${expires}`).digest('hex');
}

/** A pre-signed URL of the twin for `path` (the redirect target; it needs no credentials). */
export function signedUrl(ctx: TwinContext, path: string): string {
  const expires = Math.floor(Date.now() / 1000) + URL_SECONDS;
  return `${ctx.baseUrl.replace(/\/$/, '')}${path}?expires=${expires}&sig=${signature(ctx, path, expires)}`;
}

/** Refuse (403) a download whose signature does not match its path or whose time is up. */
export function checkSignature(req: TwinRequest, ctx: TwinContext): void {
  const expires = Number(queryString(req, 'expires'));
  const sig = queryString(req, 'sig') ?? '';
  const want = signature(ctx, req.path, expires);
  const ok = Number.isFinite(expires) && expires >= Date.now() / 1000 && sig.length === want.length && timingSafeEqual(Buffer.from(sig), Buffer.from(want));
  if (!ok) throw new GitHubError(403, 'Request has expired or its signature does not match');
}
