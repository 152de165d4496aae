// Twilio's HTTP basic auth: `AccountSid:AuthToken`, or an API key `SKxxx:secret` made on the
// account. The seed expander's `Bearer <auth token>` is accepted too (twin-only). A 2010-04-01
// path names its account; another account's path answers 404 as Twilio does.

import type { TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { account } from '../model/account.js';
import type { ApiKey } from '../model/records.js';
import { notFound, twilioBody, UNAUTHORIZED } from './errors.js';

function presented(req: TwinRequest): { user?: string; secret: string } | undefined {
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

function unauthorized(): TwinResponse {
  const res = twilioBody(UNAUTHORIZED);
  return { ...res, headers: { ...res.headers, 'www-authenticate': 'Basic realm="Twilio API"' } };
}

export function authenticateTwilio(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const cred = presented(req);
  if (!cred) return unauthorized();
  const acct = account(ctx);
  if (cred.user === undefined) return cred.secret === ctx.apiKey ? undefined : unauthorized();
  if (cred.user === acct.sid) return cred.secret === ctx.apiKey ? undefined : unauthorized();
  if (cred.user.startsWith('SK')) {
    const key = ctx.store.get<ApiKey>('api_key', cred.user);
    return key && key.secret === cred.secret ? undefined : unauthorized();
  }
  return unauthorized();
}

/** The account a 2010-04-01 path names must be the caller's. */
export function ownAccount(req: TwinRequest, ctx: TwinContext): string {
  const acct = account(ctx).sid;
  const named = req.params.AccountSid;
  if (named !== undefined && named !== acct) throw notFound(req.path);
  return acct;
}
