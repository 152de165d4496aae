// Health probes (no credential): live = the process answers; ready = database (and driver) usable.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody } from '../http/responses.js';

const status = z.object({ status: z.string() }).passthrough();
const jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).meta({ id: 'JSONWebKeySet' });
const tags = ['healthchecks'];

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/health/live',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'getLiveness',
        summary: 'Liveness probe',
        description: 'Answers 200 while the process serves HTTP; no credential.',
        response: { 200: status },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/health/ready',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'getReadiness',
        summary: 'Readiness probe',
        description: 'Answers 200 when the database and the twin driver are usable, else 503 with the failing check; no credential.',
        response: { 200: status, 503: status },
      },
    },
    async (_req, reply) => {
      const checks: Record<string, string> = {};
      try {
        app.services.db.prepare('SELECT 1').get();
        checks.database = 'ok';
      } catch (e) {
        checks.database = (e as Error).message;
      }
      try {
        checks.driver = (await app.services.orchestration.driver.check()) ?? 'ok';
      } catch (e) {
        checks.driver = (e as Error).message;
      }
      checks.storage = app.services.storage.check() ?? 'ok';
      checks.request_log = app.services.orchestration.gateway.stats().log.writable ? 'ok' : 'the request log cannot be written';
      const ok = Object.values(checks).every((v) => v === 'ok');
      return reply.status(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', driver: app.services.config.driver, checks });
    },
  );

  app.get(
    '/.well-known/jwks.json',
    {
      config: { public: true },
      schema: {
        tags,
        operationId: 'getJwks',
        summary: "The local identity provider's public keys",
        description: 'The JSON Web Key Set access tokens from `twins token` are checked against (TWINS_IDP=local); 404 under another identity provider.',
        response: { 200: jwks, 404: errorBody },
      },
    },
    async (_req, reply) => {
      const jwk = app.services.localKeys?.publicJwk;
      if (!jwk) return reply.status(404).send({ detail: 'Not Found' });
      return { keys: [jwk as Record<string, unknown>] };
    },
  );
};

export default routes;
