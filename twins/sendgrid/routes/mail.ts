// `POST /v3/mail/send`: 202 with `X-Message-Id` and no body; 200 in sandbox mode (checked, not
// sent); 400 with every validation error; 403 when the account has verified senders and `from` is
// none of them (SendGrid's Sender Identity rule).

import type { TwinContext, TwinRoute } from '../../../twin-runtime/contract.js';
import { acceptMail, checkMailSend } from '../model/mail.js';
import { plainError } from '../wire/errors.js';
import { jsonBody } from '../wire/params.js';

/** Verified sender identities (`/v3/verified_senders`, kept by the generic layer). */
function senderAllowed(ctx: TwinContext, email: string): boolean {
  const senders = ctx.store.list<{ from_email?: unknown; verified?: unknown }>('verified_senders');
  // An account without sender identities accepts any `from` (the twin's starting state).
  if (senders.length === 0) return true;
  return senders.some((s) => typeof s.from_email === 'string' && s.from_email.toLowerCase() === email.toLowerCase() && s.verified !== false);
}

export const mailRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v3/mail/send',
    handler(req, ctx) {
      const checked = checkMailSend(ctx, jsonBody(req));
      const senders = [checked.from, ...checked.personalizations.map((p) => p.from)].filter((a) => a !== undefined);
      if (!senders.every((a) => senderAllowed(ctx, a.email))) {
        throw plainError(
          403,
          'The from address does not match a verified Sender Identity. Mail cannot be sent until this error is resolved. Visit https://sendgrid.com/docs/for-developers/sending-email/sender-identity/ to see the Sender Identity requirements',
        );
      }
      const { xMessageId } = acceptMail(ctx, checked);
      return { status: checked.sandbox ? 200 : 202, headers: { 'x-message-id': xMessageId } };
    },
  },
];
