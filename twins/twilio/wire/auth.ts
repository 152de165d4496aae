// Twilio's HTTP basic auth: `AccountSid:AuthToken`, or an API key `SKxxx:secret` made on the
// account. The seed expander's `Bearer <auth token>` is accepted too (twin-only). A 2010-04-01
// path names its account; another account's path answers 404 as Twilio does.

import type { TwinContext, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { presentedCredential } from '../../../twin-runtime/authorization.js';
import { account } from '../model/account.js';
import type { ApiKey } from '../model/records.js';
import { notFound, twilioBody, UNAUTHORIZED } from './errors.js';

function unauthorized(): TwinResponse {
  const res = twilioBody(UNAUTHORIZED);
  return { ...res, headers: { ...res.headers, 'www-authenticate': 'Basic realm="Twilio API"' } };
}

export function authenticateTwilio(req: TwinRequest, ctx: TwinContext): TwinResponse | undefined {
  const cred = presentedCredential(req);
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
