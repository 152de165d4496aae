// The Twilio twin: the REST API 2010-04-01 as the `twilio` package calls it (Messages with their
// status lifecycle and signed status callbacks, Calls, IncomingPhoneNumbers with SmsUrl webhooks,
// API keys) and Verify v2 (services, verifications, checks). Basic auth with the AccountSid and
// auth token. See twins/twilio/README.md.

import type { TwinDefinition } from '../../twin-runtime/contract.js';
import { account, ensureAccount } from './model/account.js';
import { moveCall } from './model/calls.js';
import { runDue } from './model/lifecycle.js';
import { moveMessage } from './model/messages.js';
import { RESOURCES, type CallStatus, type MessageStatus, type Verification } from './model/records.js';
import { setVerificationStatus } from './model/verify.js';
import { routes } from './routes/index.js';
import { authenticateTwilio } from './wire/auth.js';
import { notFound, TwilioError, twilioBody } from './wire/errors.js';
import { generic } from './wire/generic.js';
import { signDelivery } from './wire/signature.js';
import { seeding, suggestions } from './vocabulary/seeds.js';

export { seeding, suggestions };

/** Auth tokens are 32 lowercase hex characters. */
function mintKey(randomBase62: (length: number) => string): string {
  return [...randomBase62(32)].map((c) => (c.charCodeAt(0) % 16).toString(16)).join('');
}

const twilio: TwinDefinition = {
  slug: 'twilio',
  name: 'Twilio',
  description: 'Twilio REST API 2010-04-01 (Messages with status lifecycle and signed status callbacks, Calls, phone numbers with inbound webhooks) and Verify v2.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12191,
  resources: [...RESOURCES, ...generic.resources],
  mintKey,
  credentialExtras: (ctx) => ({ account_sid: account(ctx).sid }),
  routes,
  generic,
  authenticate: authenticateTwilio,
  async around(call, run) {
    ensureAccount(call.ctx);
    const res = await run();
    return { ...res, headers: { ...res.headers, 'twilio-request-id': call.ctx.ids.nextIn('request', 'RQ', 32) } };
  },
  errors: {
    render: (e) => (e instanceof TwilioError ? twilioBody(e) : undefined),
    routeMiss: (req) => twilioBody(notFound(req.path)),
    parseFailure: (req, _ctx, problem) =>
      twilioBody(problem.kind === 'input_refused' && problem.refusal.reason === 'body_too_large' ? new TwilioError(413, 20001, problem.message) : new TwilioError(400, 20001, problem.message)),
  },
  initialize: (ctx) => void ensureAccount(ctx),
  async advance(ctx, to) {
    await runDue(ctx, to, (e) => {
      if (e.kind === 'message') moveMessage(ctx, e.sid, e.status as MessageStatus, e.error_code);
      else if (e.kind === 'call') moveCall(ctx, e.sid, e.status as CallStatus);
      else {
        const v = ctx.store.get<Verification>('verification', e.sid);
        if (v?.status === 'pending') setVerificationStatus(ctx, v, 'expired');
      }
    });
  },
  signDelivery,
  suggestions,
  seeding,
};

export default twilio;
