// A twin in a container for your own tests, with Testcontainers (https://node.testcontainers.org):
// start the twin-runtime image (`make image` builds it as twins-runtime:local), get its URL and key,
// point the provider's official SDK at it, stop it when the test ends.
//
//   const twin = await startTwinContainer({ slug: 'stripe' });
//   const stripe = new Stripe(twin.apiKey, { host: twin.host, port: twin.port, protocol: 'http' });
//   ...
//   await twin.stop();
//
// `network: 'bridge'` (the default) maps the twin's port to a random host port, as Testcontainers
// usually does; `network: 'host'` shares the host's network (engines without a bridge network).

import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { createServer } from 'node:net';

export interface TwinContainerOptions {
  /** Which twin: stripe, github, slack. */
  slug: string;
  /** The twin-runtime image (default twins-runtime:local, from `make image`). */
  image?: string;
  /** The provider key the twin accepts (default: a fixed test key per twin, so tests can hard-code it). */
  apiKey?: string;
  network?: 'bridge' | 'host';
}

export interface TwinContainer {
  container: StartedTestContainer;
  host: string;
  port: number;
  /** e.g. http://localhost:32768 — the SDK's base URL. */
  url: string;
  apiKey: string;
  stop(): Promise<void>;
}

const DEFAULT_KEYS: Record<string, string> = {
  stripe: 'sk_test_testcontainers',
  github: 'ghp_testcontainers',
  slack: 'xoxb-testcontainers',
};
/** The port the twin listens on inside the container (Stripe's, as stripe-mock). */
const CONTAINER_PORT = 12111;

async function freeHostPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startTwinContainer(options: TwinContainerOptions): Promise<TwinContainer> {
  const apiKey = options.apiKey ?? DEFAULT_KEYS[options.slug] ?? `${options.slug}_testcontainers`;
  const host = options.network === 'host';
  const port = host ? await freeHostPort() : CONTAINER_PORT;
  let container = new GenericContainer(options.image ?? 'twins-runtime:local')
    .withCommand(['--twin', options.slug, '--data', '/tmp/twin.sqlite', '--port', String(port), '--host', host ? '127.0.0.1' : '0.0.0.0'])
    .withEnvironment({ TWIN_API_KEY: apiKey })
    .withWaitStrategy(Wait.forLogMessage(/"event":"listening"/))
    .withStartupTimeout(60_000);
  container = host ? container.withNetworkMode('host') : container.withExposedPorts(port);
  const started = await container.start();
  const mappedHost = host ? '127.0.0.1' : started.getHost();
  const mappedPort = host ? port : started.getMappedPort(port);
  return {
    container: started,
    host: mappedHost,
    port: mappedPort,
    url: `http://${mappedHost}:${mappedPort}`,
    apiKey,
    stop: async () => void (await started.stop()),
  };
}
