// The Stripe twin: Stripe's REST API (form bodies, list/search envelopes, expand, idempotency,
// test cards, events and signed webhooks) over the twin runtime's record store and clock.
// Every routed request runs through wire/pipeline.ts's `around` (request id, idempotency, expand)
// inside the runtime's per-request transaction.

import type { TwinDefinition } from '../../twin-runtime/contract.js';
import { authenticateStripe, stripeParseFailure, unrecognizedUrl } from './wire/auth.js';
import { aroundStripe, renderStripeError } from './wire/pipeline.js';
import { notSimulatedResponse, stripeError } from './wire/errors.js';
import { STRIPE_RESOURCES } from './model/objects.js';
import { renderEventsWith, signStripeDelivery } from './model/events.js';
import { advanceStripe } from './model/lifecycle.js';
import { routes } from './routes/index.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { STRIPE_OPERATIONS } from './vocabulary/phrasebook.js';
import { generic } from './wire/generic.js';
import { publishableKeyFor } from './wire/publishable.js';
import { renderInVersion } from './wire/versions.js';
import { stripeMcp } from './mcp/tools.js';
import { stripeFaultAnswer } from './wire/faults.js';

// Webhook endpoints pinned to an older API version get events rendered in it.
renderEventsWith(renderInVersion);

const stripe: TwinDefinition = {
  slug: 'stripe',
  name: 'Stripe',
  description:
    'Stateful Stripe test mode: customers, catalog, payment methods and intents with test cards, refunds, subscriptions, schedules, invoices, invoice items and credit notes, discounts, checkout, the customer portal, meters, Connect (accounts, onboarding links, Stripe-Account scoping, transfers, destination charges, application fees), events and signed webhooks, test clocks.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12111, // as stripe-mock does
  resources: [...new Set([...STRIPE_RESOURCES, ...generic.resources])],
  journal: ['event', 'idempotency_key'],
  mintKey: (randomBase62) => `sk_test_${randomBase62(99)}`,
  // The frontend's half: Stripe.js and the mobile SDKs are constructed with it.
  credentialExtras: (ctx) => ({ publishable_key: publishableKeyFor(ctx.apiKey) }),
  routes,
  generic,
  authenticate: authenticateStripe,
  around: aroundStripe,
  errors: {
    render: renderStripeError,
    routeMiss: unrecognizedUrl,
    parseFailure: stripeParseFailure,
    unsupported: (_req, _ctx, sentence) => notSimulatedResponse(sentence),
  },
  // Stripe marks retryable failures with Stripe-Should-Retry; its SDKs honour it.
  unavailable: (_req, _retryAfter, sentence) => ({
    ...stripeError(503, { type: 'api_error', message: sentence ?? 'Stripe is temporarily unavailable. Please retry shortly.' }),
    headers: { 'stripe-should-retry': 'true' },
  }),
  faultAnswer: stripeFaultAnswer,
  redact: { query: ['client_secret'], body: ['client_secret', 'refresh_token'] },
  advance: (ctx, to) => advanceStripe(ctx, to),
  signDelivery: signStripeDelivery,
  suggestions,
  seeding,
  phrasebook: STRIPE_OPERATIONS,
  mcp: stripeMcp,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: 'stripe',
        code: [
          "import Stripe from 'stripe';",
          '',
          'const stripe = new Stripe({{api_key}}, { host: {{host}}, port: {{port}}, protocol: {{protocol}} });',
          "const customer = await stripe.customers.create({ email: 'jenny@example.com' });",
        ].join('\n'),
      },
    ],
    env: { STRIPE_SECRET_KEY: '{{api_key}}', STRIPE_PUBLISHABLE_KEY: '{{publishable_key}}', STRIPE_API_URL: '{{url}}' },
  },
  specSource: () => import('./spec/source.js'),
  countedSurface: {
    description: 'v1 operations the `stripe` SDK names (test helpers included)',
    includes: (entry) => entry.origin !== 'spec' && entry.path.startsWith('/v1/'),
  },
};

export default stripe;
