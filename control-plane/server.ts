// Start and stop the control plane: services, then the HTTP app; stop in reverse on SIGINT/SIGTERM.

import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { closeServices, createServices, type Services } from './services.js';

export interface RunningControlPlane {
  app: FastifyInstance;
  services: Services;
  url: string;
  close(): Promise<void>;
}

/** `log`: another logger (`twins mcp` logs to stderr, stdout being its MCP channel). */
export async function startControlPlane(config: Config, log?: Logger): Promise<RunningControlPlane> {
  const services = await createServices(config, log);
  const app = await buildApp(services);
  await app.listen({ port: config.port, host: config.host });
  // Reconciler and gateway: environments of an earlier run are picked back up here.
  await services.orchestration.start();
  // Seeds a previous run left pending or running are generated again.
  services.seedWorker.start();
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://${config.host}:${port}`;
  // The payment processor (the house Stripe twin starts here), metering, webhooks to this URL.
  await services.billing.start(url);
  let closed = false;
  return {
    app,
    services,
    url,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await closeServices(services);
    },
  };
}
