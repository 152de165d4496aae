// The Stripe twin: Stripe's REST API (form bodies, list/search envelopes, expand, idempotency,
// test cards, events and signed webhooks) over the twin runtime's record store and clock.
// Every route runs through http/pipeline.ts (transaction, idempotency, expand, Request-Id).

import type { TwinDefinition, TwinRoute } from '../../twin-runtime/contract.js';
import { authenticateStripe, unrecognizedUrl } from './http/auth.js';
import { stripeRoute } from './http/pipeline.js';
import { STRIPE_RESOURCES } from './model/objects.js';
import { signStripeDelivery } from './model/events.js';
import { advanceStripe } from './model/lifecycle.js';
import { coreRoutes } from './routes/core.js';
import { billingRoutes } from './routes/billing.js';
import { seeding, suggestions } from './seed-vocabulary.js';
import { generic } from './wire/generic.js';

function piped(routes: TwinRoute[]): TwinRoute[] {
  return routes.map((r) => ({ ...r, handler: stripeRoute(r.handler) }));
}

const stripe: TwinDefinition = {
  slug: 'stripe',
  name: 'Stripe',
  description:
    'Stateful Stripe test mode: customers, catalog, payment methods and intents with test cards, refunds, subscriptions and invoices, checkout, meters, events and signed webhooks, test clocks.',
  version: '1.0.0',
  storageVersion: 1,
  resources: [...new Set([...STRIPE_RESOURCES, ...generic.resources])],
  mintKey: (randomBase62) => `sk_test_${randomBase62(99)}`,
  routes: [...piped(coreRoutes), ...piped(billingRoutes)],
  generic,
  authenticate: authenticateStripe,
  notFound: unrecognizedUrl,
  advance: (ctx, to) => advanceStripe(ctx, to),
  signDelivery: signStripeDelivery,
  suggestions,
  seeding,
};

export default stripe;
