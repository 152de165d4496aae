// The credential an `Authorization` header carries, for twins whose provider takes HTTP basic auth
// (Jira's email and API token, Twilio's AccountSid and auth token) and, for the seed expander and
// token users, `Bearer <token>`.

import type { TwinRequest } from './contract.js';

/** `Basic base64(user:secret)` → both halves; `Bearer token` → the token as `secret`; else undefined. */
export function presentedCredential(req: TwinRequest): { user?: string; secret: string } | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (basic) {
    const text = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    if (colon === -1) return undefined;
    return { user: text.slice(0, colon), secret: text.slice(colon + 1) };
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return bearer ? { secret: bearer[1]! } : undefined;
}
