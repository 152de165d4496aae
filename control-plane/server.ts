// Start and stop the control plane: services, then the HTTP app; stop in reverse on SIGINT/SIGTERM.
// Stopping drains first: the API and every twin URL stop taking connections, and requests already
// read are answered (and logged) within config.drainMs before anything closes.

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
  // Admin secrets, keys and the databases: files readable by the service user only (600/700).
  process.umask(0o077);
  const services = await createServices(config, log);
  const app = await buildApp(services);
  // Reconciler and gateway: environments of an earlier run are picked back up here, before the
  // API answers (twins that did not survive the restart are reported starting, not ready).
  await services.orchestration.start();
  await app.listen({ port: config.port, host: config.host });
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
      // API requests in flight finish; past the bound their connections are cut.
      const cut = setTimeout(() => app.server.closeAllConnections(), config.drainMs);
      const apiClosed = app.close();
      const unanswered = await services.orchestration.drain(config.drainMs);
      await apiClosed;
      clearTimeout(cut);
      if (unanswered > 0) services.log.warn({ unanswered }, 'twin requests still unanswered when the drain time ran out');
      await closeServices(services);
    },
  };
}
