// The control-plane HTTP app: one Fastify plugin per area, zod schemas, the 422 contract, the
// `{"detail": …}` error body, OpenAPI at /openapi.json and a browsable reference at /docs.

import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Services } from './services.js';
import { HttpError } from './http/errors.js';
import { RequestValidationError, validateRequestParts, validatorCompiler } from './http/validation.js';
import { parseJsonBody } from './http/json-body.js';
import { answerClientError } from './http/client-error.js';
import { TemplateRouter } from '../twin-runtime/router.js';
import { loadAllTwins } from '../twin-runtime/registry.js';
import { templateFromFindMyWay } from '../twin-runtime/path-template.js';
import { refuseLongQueries } from './http/query-limits.js';
import { documentForRequest, openapiInfo, transformDocument, transformRoute } from './http/openapi.js';
import { makeAuthenticate } from './auth/authenticate.js';
import { OrganizationShare } from './http/organization-share.js';
import { runCharged, type ThreadCost } from './http/thread-cost.js';
import { isStorageFull, STORAGE_FULL_DETAIL } from './store/storage-health.js';
import './auth/principal.js';
import healthRoutes from './routes/health.js';
import userRoutes from './routes/users.js';
import organizationRoutes from './routes/organizations.js';
import apiKeyRoutes from './routes/api-keys.js';
import billingRoutes from './routes/billing.js';
import environmentRoutes from './routes/environments.js';
import twinRoutes from './routes/twins.js';
import catalogRoutes from './routes/catalog.js';
import scenarioRoutes from './routes/scenarios.js';
import seedRoutes from './routes/seeds.js';
import testRoutes from './routes/tests.js';
import sandboxRoutes from './routes/sandboxes.js';
import homeRoutes from './routes/home.js';
import mcpRoutes, { MCP_PATH, mcpChallenge } from './mcp/http.js';
import { installMetrics } from './metrics.js';
import consoleRoutes from './routes/console.js';
import signInRoutes from './routes/sign-in.js';
import requestLogStreamRoutes from './routes/request-log-stream.js';
import catalogResourceRoutes from './routes/catalog-resources.js';
import snapshotRoutes from './routes/snapshots.js';
import faultRoutes from './routes/faults.js';
import replayRoutes from './routes/replay.js';
import startFileRoutes from './routes/start-files.js';

export const API_VERSION = '0.1.0';

/** The functional areas; each is an OpenAPI tag and a plugin under routes/. */
export const AREAS = [
  ['healthchecks', 'health probe endpoints'],
  ['users', 'the current user'],
  ['organizations', 'organizations the caller belongs to; members are invited into the active organization'],
  ['billing', "the active organization's plan, its limits, and what the current period has cost so far"],
  ['api-keys', 'long-lived credentials for callers that cannot hold an identity-provider session'],
  ['environments', 'isolated provider environments, their twins, request logs and twin records'],
  ['twins', 'provisioned twins by id (advance lifecycle, collect the twin key)'],
  ['catalog', 'the twins available for new environments'],
  ['scenarios', 'reusable starting setups of provider twins and optional seeds'],
  ['seeds', 'starting states for a twin, described in words and generated once'],
  ['snapshots', "an environment's records and clock at one instant: start environments from them, fork, diff"],
  ['faults', "faults injected into an environment's twins: rate limits, 5xx, latency, dropped connections, drawn from its seeded random source"],
  ['tests', 'outcomes described in words, compiled into request matchers, evaluated against traffic'],
  ['sandboxes', 'a sandbox grouping twins'],
] as const;

export type App = FastifyInstance;

export async function buildApp(services: Services): Promise<FastifyInstance> {
  // Plugins below are typed with the zod provider; the instance is returned as a plain FastifyInstance.
  const app = Fastify({
    loggerInstance: services.log.child({ component: 'http' }) as FastifyBaseLogger,
    // The gateway's request log is the record of traffic; Fastify's per-request lines would repeat it.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: undefined,
    // Bodies past 1 MiB answer 413 `{"detail"}` (the error handler below); said here, not left to a default.
    bodyLimit: 1024 * 1024,
    // Long path parameters reach the validator (422) instead of a bare 414.
    routerOptions: { maxParamLength: 2048 },
    // 431 and malformed requests in the `{"detail": …}` shape too.
    clientErrorHandler: answerClientError,
    // Router-level failures (malformed percent-encoding) keep the `{"detail": …}` body.
    frameworkErrors: (err, _req, reply) => {
      const status = (err as FastifyError).statusCode ?? 400;
      void (reply as unknown as FastifyReply).status(status).send({ detail: status === 414 ? 'URI Too Long' : 'Bad Request: the URL is not valid.' });
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  app.decorate('services', services);
  app.decorateRequest('principal', null as never);

  app.setErrorHandler((err: FastifyError | HttpError | RequestValidationError, req, reply) => {
    if (err instanceof RequestValidationError) return reply.status(422).send({ detail: err.entries });
    if (err instanceof HttpError) return reply.status(err.statusCode).headers(err.headers).send({ detail: err.detail });
    if (isStorageFull(err)) {
      services.storage.noteFull();
      return reply.status(503).header('retry-after', '30').send({ detail: STORAGE_FULL_DETAIL });
    }
    const status = (err as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      if (status === 415) return reply.status(415).send({ detail: 'Unsupported media type; send application/json.' });
      if (status === 413) return reply.status(413).send({ detail: 'Request body too large.' });
      return reply.status(status).send({ detail: err.message });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ detail: 'Internal Server Error' });
  });
  // A known path with another method answers 405 with Allow (as Starlette does); else 404. The
  // twin runtime's router matches the paths (one template compiler for the whole product).
  const knownRoutes = new TemplateRouter<true>();
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => String(m).toUpperCase());
    const template = templateFromFindMyWay(route.url);
    for (const m of methods) if (!knownRoutes.has(m, template)) knownRoutes.add(m, template, true);
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = knownRoutes.methodsFor(path);
    if (allowed.length > 0 && !allowed.includes(req.method)) {
      return reply
        .status(405)
        .header('allow', allowed.filter((m) => m !== 'HEAD').join(', '))
        .send({ detail: 'Method Not Allowed' });
    }
    return reply.status(404).send({ detail: 'Not Found' });
  });

  // Schemas named with .meta({ id }) become components the $refs point at (http/openapi.ts).
  await app.register(swagger, {
    openapi: openapiInfo(
      API_VERSION,
      AREAS,
      (await loadAllTwins()).map((d) => d.name),
    ),
    transform: transformRoute,
    transformObject: transformDocument,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: false },
    transformSpecification: (doc, req) => documentForRequest(doc, req),
  });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async (req) => documentForRequest(app.swagger(), req));

  app.addHook('onRequest', refuseLongQueries);
  // An organization's requests beyond its rate wait; this many waiting, more are refused.
  const MAX_WAITING = 1000;
  const share = new OrganizationShare({
    rate: services.config.apiRate,
    burst: services.config.apiRate,
    maxWaiting: MAX_WAITING,
    costMsPerSecond: services.config.apiThreadMsPerSecond,
  });
  // What a request costs the API thread (http/thread-cost.ts), charged to its organization when it
  // ends: its handler's synchronous part, its SQLite statements, and the serialization of its answer.
  const COST = Symbol('API thread cost');
  const SERIALIZING = Symbol('serializing since');
  type Costed = { [COST]?: ThreadCost; [SERIALIZING]?: number };
  app.addHook('onRoute', (route) => {
    const handler = route.handler as (this: unknown, req: FastifyRequest, reply: FastifyReply) => unknown;
    route.handler = function (this: unknown, req: FastifyRequest, reply: FastifyReply) {
      const cost = (req as unknown as Costed)[COST];
      return cost ? runCharged(cost, () => handler.call(this, req, reply)) : handler.call(this, req, reply);
    } as typeof route.handler;
  });
  app.addHook('preSerialization', (req, _reply, payload, done) => {
    (req as unknown as Costed)[SERIALIZING] = performance.now();
    done(null, payload);
  });
  app.addHook('onSend', (req, _reply, payload, done) => {
    const r = req as unknown as Costed;
    if (r[SERIALIZING] !== undefined && r[COST]) r[COST].ms += performance.now() - r[SERIALIZING];
    done(null, payload);
  });
  app.addHook('onRequest', async (req, reply) => {
    // Unknown routes answer 404 whoever asks, as FastAPI does; /docs is public.
    const route = req.routeOptions.url;
    if (route === undefined || route.startsWith('/docs')) return;
    try {
      await authenticate(req);
    } catch (e) {
      // An MCP client that follows the spec finds how to authorize from the challenge.
      if (e instanceof HttpError && e.statusCode === 401 && route === MCP_PATH) e.headers['www-authenticate'] = mcpChallenge(req);
      throw e;
    }
    if (!req.principal) return;
    const admission = share.admit(req.principal.orgId);
    if (!admission.admitted) {
      throw new HttpError(
        429,
        `This organization is sending requests faster than ${services.config.apiRate} a second (or more costly ones than ${services.config.apiThreadMsPerSecond} ms of work a second) and ${MAX_WAITING} are already waiting; retry after ${admission.retryAfterSeconds} s.`,
        { 'retry-after': String(admission.retryAfterSeconds) },
      );
    }
    // Finished when its connection is done with it, whatever happened (an answer, an abort).
    const org = req.principal.orgId;
    const cost: ThreadCost = { ms: 0 };
    (req as unknown as Costed)[COST] = cost;
    reply.raw.once('close', () => share.finish(org, cost.ms));
    if (admission.wait) await admission.wait;
  });
  const authenticate = makeAuthenticate(services);
  // Path, query and body are validated together so a 422 lists every failing field (FastAPI).
  app.addHook('preValidation', async (req) => {
    validateRequestParts(req.routeOptions.schema as Parameters<typeof validateRequestParts>[0], req);
  });

  installMetrics(app as unknown as FastifyInstance, services);
  for (const plugin of [
    homeRoutes,
    mcpRoutes,
    healthRoutes,
    userRoutes,
    organizationRoutes,
    apiKeyRoutes,
    billingRoutes,
    environmentRoutes,
    twinRoutes,
    catalogRoutes,
    scenarioRoutes,
    seedRoutes,
    snapshotRoutes,
    faultRoutes,
    replayRoutes,
    startFileRoutes,
    testRoutes,
    sandboxRoutes,
    consoleRoutes,
    signInRoutes,
    requestLogStreamRoutes,
    catalogResourceRoutes,
  ]) {
    await app.register(plugin);
  }
  return app as unknown as FastifyInstance;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
