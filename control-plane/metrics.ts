// /metrics in the Prometheus text format (prom-client, one registry per app): API requests and
// latency per route, gateway requests per twin, twins by state, the request-log writer's queue.

import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Services } from './services.js';

export const METRICS_PATH = '/metrics';

export interface DataPathStats {
  gatewayRequestsByTwin: Record<string, number>;
  logQueueDepth: number;
  logWritten: number;
  logDropped: number;
}

/**
 * The one place the data path's figures are read: the gateway and its log writer run on their own
 * thread, and their counters are shared memory read here without a round trip.
 */
export function dataPathStats(services: Services): DataPathStats {
  const stats = services.orchestration.gateway.stats();
  const gatewayRequestsByTwin: Record<string, number> = {};
  for (const t of stats.twins) gatewayRequestsByTwin[t.twin_slug] = (gatewayRequestsByTwin[t.twin_slug] ?? 0) + t.requests;
  return {
    gatewayRequestsByTwin,
    logQueueDepth: stats.log.queue_depth,
    logWritten: stats.log.written,
    logDropped: stats.log.failed,
  };
}

/** A counter whose value is kept elsewhere: set from the source at each scrape. */
function mirroredCounter(registry: Registry, name: string, help: string, labelNames: string[], read: () => [Record<string, string>, number][]) {
  return new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.inc(labels, value);
    },
  });
}

export function createMetrics(services: Services) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'twins_' });
  const requests = new Counter({
    name: 'twins_http_requests_total',
    help: 'API requests answered, by route and status',
    labelNames: ['method', 'route', 'status_code'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'twins_http_request_duration_seconds',
    help: 'API request latency by route',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  mirroredCounter(registry, 'twins_gateway_requests_total', 'Requests the twin gateways served, by twin', ['twin'], () =>
    Object.entries(dataPathStats(services).gatewayRequestsByTwin).map(([twin, n]) => [{ twin }, n]),
  );
  mirroredCounter(registry, 'twins_request_log_written_total', 'Request-log entries written', [], () => [[{}, dataPathStats(services).logWritten]]);
  mirroredCounter(registry, 'twins_request_log_dropped_total', 'Request-log entries not written (their requests were answered 503)', [], () => [
    [{}, dataPathStats(services).logDropped],
  ]);
  new Gauge({
    name: 'twins_request_log_queue_depth',
    help: 'Request-log entries waiting to be written',
    registers: [registry],
    collect() {
      this.set(dataPathStats(services).logQueueDepth);
    },
  });
  const twinStates = services.db.prepare('SELECT state, COUNT(*) AS n FROM environment_twins WHERE deleted_at IS NULL GROUP BY state');
  new Gauge({
    name: 'twins_twins',
    help: 'Twins of live environments, by state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const row of twinStates.all() as { state: string; n: number }[]) this.set({ state: row.state }, row.n);
    },
  });
  return {
    registry,
    observe(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status_code: String(status) });
      latency.observe({ method, route }, seconds);
    },
  };
}

/**
 * On the root instance (hooks of a registered plugin would stay inside it): count and time every
 * API request by its route template, log one line per request, and serve /metrics.
 */
export function installMetrics(app: FastifyInstance, services: Services): void {
  const metrics = createMetrics(services);
  app.addHook('onResponse', async (req, reply) => {
    // Unknown paths share one label, so a scanner cannot grow the series without bound.
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.observe(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
    req.log.info(
      { method: req.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      `${req.method} ${req.url.split('?')[0]} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`,
    );
  });
  app.get(METRICS_PATH, { config: { public: true }, schema: { hide: true } }, async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
