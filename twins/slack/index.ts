// The Slack twin: the Web API (`/api/<method>`) as @slack/web-api calls it, with a deterministic
// starting workspace, Events API callbacks and scheduled messages on the environment clock.
// See twins/slack/README.md for the workspace, settings and methods.

import type { TwinDefinition, TwinRequest } from '../../twin-runtime/contract.js';
import type { InputRefusal } from '../../twin-runtime/safe-input.js';
import { signDelivery } from './model/events.js';
import { RESOURCES } from './model/records.js';
import { postDueMessages } from './model/scheduled.js';
import { ensureWorkspace } from './model/workspace.js';
import { routes } from './routes/index.js';
import { aroundSlack, authenticateSlack, renderSlackError, slackFailure } from './wire/method.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { SLACK_OPERATIONS } from './vocabulary/phrasebook.js';
import { upgradeSlack } from './wire/socket.js';
import { appToken, clientCredentials } from './model/tokens.js';
import { getSetting } from './model/settings.js';
import { generic } from './wire/generic.js';
import { notSupportedByTwin } from './wire/errors.js';
import { slackFaultAnswer } from './wire/faults.js';

export { seeding, suggestions };

/**
 * Slack's own codes for a call it cannot read (HTTP 200 with `ok:false`, as for every failed call):
 * a too long argument name, an array where a string belongs, or a body it cannot decode.
 */
function refusalCode(refusal: InputRefusal, req: TwinRequest): string {
  if (refusal.reason === 'key_too_long') return 'invalid_arg_name';
  if (refusal.reason === 'index_too_large' || (refusal.reason === 'nesting_too_deep' && refusal.param !== undefined)) return 'invalid_array_arg';
  const json =
    refusal.part === 'body' &&
    String(req.headers['content-type'] ?? '')
      .toLowerCase()
      .includes('json');
  return json ? 'invalid_json' : 'invalid_form_data';
}

/** Slack bot tokens: `xoxb-<12 digits>-<13 digits>-<24 base62>`. */
function mintKey(randomBase62: (length: number) => string): string {
  const digits = (n: number) => [...randomBase62(n)].map((ch) => String(ch.charCodeAt(0) % 10)).join('');
  const nonZeroDigit = () => String(1 + (randomBase62(1).charCodeAt(0) % 9));
  return `xoxb-${nonZeroDigit()}${digits(11)}-${nonZeroDigit()}${digits(12)}-${randomBase62(24)}`;
}

const slack: TwinDefinition = {
  slug: 'slack',
  name: 'Slack',
  description: 'Slack Web API (conversations, chat, threads, reactions, users, scheduled messages) with signed Events API callbacks.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12131,
  resources: [...RESOURCES, ...generic.resources],
  mintKey,
  routes,
  generic,
  authenticate: authenticateSlack,
  around: aroundSlack,
  errors: {
    render: renderSlackError,
    routeMiss(req) {
      if (req.path.startsWith('/api/')) {
        return slackFailure('unknown_method', { req_method: req.path.slice('/api/'.length) });
      }
      return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Not Found' };
    },
    unsupported: (_req, _ctx, sentence) => renderSlackError(notSupportedByTwin(sentence))!,
    parseFailure(req, ctx, problem) {
      if (problem.kind === 'malformed_url') return this.routeMiss(req, ctx);
      const { refusal } = problem;
      return slackFailure(refusalCode(refusal, req), { response_metadata: { messages: [`[ERROR] ${refusal.message}`] } });
    },
  },
  unavailable: () => ({ ...slackFailure('service_unavailable'), status: 503 }),
  // Slack takes `token` from the query and from form bodies; OAuth exchanges carry client secrets.
  faultAnswer: slackFaultAnswer,
  redact: { query: ['token', 'client_secret'], body: ['token', 'client_secret', 'refresh_token'] },
  upgrade: upgradeSlack,
  credentialExtras(ctx) {
    ensureWorkspace(ctx);
    return { app_token: appToken(ctx), signing_secret: getSetting(ctx, 'events').signing_secret, ...clientCredentials(ctx) };
  },
  initialize(ctx) {
    ensureWorkspace(ctx);
    getSetting(ctx, 'events'); // the signing secret exists before anyone asks for the credential
  },
  advance(ctx, to) {
    ensureWorkspace(ctx);
    postDueMessages(ctx, to);
  },
  signDelivery,
  suggestions,
  seeding,
  phrasebook: SLACK_OPERATIONS,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: '@slack/web-api',
        code: [
          "import { WebClient } from '@slack/web-api';",
          '',
          'const slack = new WebClient({{api_key}}, { slackApiUrl: {{url:/api/}} });',
          "await slack.chat.postMessage({ channel: '#general', text: 'Hello from a twin' });",
        ].join('\n'),
      },
    ],
    env: { SLACK_BOT_TOKEN: '{{api_key}}', SLACK_APP_TOKEN: '{{app_token}}', SLACK_SIGNING_SECRET: '{{signing_secret}}', SLACK_API_URL: '{{url:/api/}}' },
  },
  specSource: () => import('./spec/source.js'),
  countedSurface: {
    description: 'methods of `@slack/web-api` outside `admin.*`',
    includes: (entry) => entry.origin !== 'spec' && !entry.id.startsWith('admin.'),
  },
};

export default slack;
