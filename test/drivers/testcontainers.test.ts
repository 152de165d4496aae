// The Testcontainers example (examples/testcontainers/twin-container.ts) as a user would run it: a
// twin-runtime container started from a test, the official stripe SDK pointed at it. Needs a Docker
// engine (scripts/ci/ensure-docker.sh starts one in CI); skipped, saying why, when none is reachable.

import t from 'tap';
import Docker from 'dockerode';
import Stripe from 'stripe';
import { buildImage, engineReachable } from '../helpers/docker.js';

// The reaper container is pulled from Docker Hub; containers here are stopped by the test itself.
process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
const IMAGE = 'twins-runtime:testcontainers';
// Image builds and containers: minutes on a loaded machine.
t.setTimeout(900_000);
const reachable = await engineReachable();

t.test(
  'a Stripe twin in a Testcontainers container answers the official SDK',
  { skip: reachable ? false : 'no Docker engine reachable on this machine' },
  async (t) => {
    buildImage(IMAGE, 'twin-runtime');
    const { startTwinContainer } = await import('../../examples/testcontainers/twin-container.js');
    // Engines started without a bridge network (CI's dockerd) share the host's network instead.
    const bridge = await new Docker()
      .getNetwork('bridge')
      .inspect()
      .then(
        () => true,
        () => false,
      );
    // Without a bridge (and inside a container) Testcontainers cannot find the engine's gateway: the
    // twin is on this host's own network then, so its host is loopback.
    if (!bridge) process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
    const twin = await startTwinContainer({ slug: 'stripe', image: IMAGE, network: bridge ? 'bridge' : 'host' });
    t.teardown(() => twin.stop());
    t.equal(twin.apiKey, 'sk_test_testcontainers', 'a fixed key tests can hard-code');

    const stripe = new Stripe(twin.apiKey, { host: twin.host, port: twin.port, protocol: 'http', maxNetworkRetries: 0 });
    const customer = await stripe.customers.create({ email: 'ada@example.com', name: 'Ada' });
    t.match(customer.id, /^cus_/);
    t.equal(((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).email, 'ada@example.com');
    const refused = await new Stripe('sk_test_wrong', { host: twin.host, port: twin.port, protocol: 'http', maxNetworkRetries: 0 }).customers
      .list()
      .catch((e: Stripe.errors.StripeError) => e);
    t.equal((refused as Stripe.errors.StripeError).statusCode, 401, 'another key gets Stripe’s own 401');
  },
);
