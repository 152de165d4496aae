// The Stripe twin: Stripe's REST API (form bodies, list/search envelopes, expand, idempotency,
// test cards, events and signed webhooks) over the twin runtime's record store and clock.
// Every routed request runs through wire/pipeline.ts's `around` (request id, idempotency, expand)
// inside the runtime's per-request transaction.

import type { TwinDefinition } from '../../twin-runtime/contract.js';
import { authenticateStripe, stripeParseFailure, unrecognizedUrl } from './wire/auth.js';
import { aroundStripe, renderStripeError } from './wire/pipeline.js';
import { notSimulatedResponse, stripeError } from './wire/errors.js';
import { STRIPE_RESOURCES } from './model/objects.js';
import { signStripeDelivery } from './model/events.js';
import { advanceStripe } from './model/lifecycle.js';
import { routes } from './routes/index.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { generic } from './wire/generic.js';
import { publishableKeyFor } from './wire/publishable.js';

const stripe: TwinDefinition = {
  slug: 'stripe',
  name: 'Stripe',
  description:
    'Stateful Stripe test mode: customers, catalog, payment methods and intents with test cards, refunds, subscriptions, schedules, invoices, invoice items and credit notes, discounts, checkout, the customer portal, meters, Connect (accounts, onboarding links, Stripe-Account scoping, transfers, destination charges, application fees), events and signed webhooks, test clocks.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12111, // as stripe-mock does
  resources: [...new Set([...STRIPE_RESOURCES, ...generic.resources])],
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
  redact: { query: ['client_secret'], body: ['client_secret', 'refresh_token'] },
  advance: (ctx, to) => advanceStripe(ctx, to),
  signDelivery: signStripeDelivery,
  suggestions,
  seeding,
};

export default stripe;
