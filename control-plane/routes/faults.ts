// Routes of the 'faults' area (issue 38): faults injected into an environment's twins. Rules live
// in orchestration/faults.ts (and, for matching and drawing, twin-runtime/faults.ts); this file is
// the HTTP surface.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pageEnvelope, pageQuery } from '../http/pagination.js';
import { errorResponses, noContent } from '../http/responses.js';
import { idParam } from '../orchestration/schemas.js';
import { createFaultBody, faultSchema } from '../orchestration/faults.js';

const tags = ['faults'];
const envParams = z.object({ environment_id: idParam });
const faultParams = z.object({ environment_id: idParam, fault_id: z.string().regex(/^flt_[A-Za-z0-9]{1,64}$/) });

const routes: FastifyPluginAsyncZod = async (app) => {
  const faults = () => app.services.orchestration.faults;

  app.post(
    '/environments/:environment_id/faults',
    {
      schema: {
        tags,
        operationId: 'createFault',
        summary: 'Inject a fault into a twin of the environment',
        description:
          "The twin answers matching requests with the fault's effect, with its probability drawn from the environment's seeded random source " +
          "(kept in the twin's file: snapshots and forks carry it, so the same run fails the same way). Every answer a fault made, delayed or dropped names it in the request log (`fault`). " +
          'Faults survive restarts and resets of the twin, and travel with snapshots and forks. 409 when the twin is not ready or holds 50 faults already.',
        params: envParams,
        body: createFaultBody,
        response: { 201: faultSchema, ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req, reply) => reply.status(201).send(await faults().create(req.principal.orgId, req.params.environment_id, req.body)),
  );

  app.get(
    '/environments/:environment_id/faults',
    {
      schema: {
        tags,
        operationId: 'listFaults',
        summary: "List the environment's faults",
        description: 'Twin by twin, oldest first; the faults of twins that are not ready are not listed.',
        params: envParams,
        querystring: pageQuery,
        response: { 200: pageEnvelope(faultSchema), ...errorResponses(401, 404, 502) },
      },
    },
    async (req) => faults().list(req.principal.orgId, req.params.environment_id, req.query),
  );

  app.get(
    '/environments/:environment_id/faults/:fault_id',
    {
      schema: {
        tags,
        operationId: 'getFault',
        summary: 'Retrieve a fault',
        description: 'One fault of the environment by id: what it matches, what it does and how often. 404 for a fault of another environment.',
        params: faultParams,
        response: { 200: faultSchema, ...errorResponses(401, 404, 502) },
      },
    },
    async (req) => faults().get(req.principal.orgId, req.params.environment_id, req.params.fault_id),
  );

  app.delete(
    '/environments/:environment_id/faults/:fault_id',
    {
      schema: {
        tags,
        operationId: 'deleteFault',
        summary: 'Remove a fault',
        description: 'Answers 204; requests after it are answered normally.',
        params: faultParams,
        response: { 204: noContent, ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req, reply) => {
      await faults().delete(req.principal.orgId, req.params.environment_id, req.params.fault_id);
      return reply.status(204).send(null);
    },
  );
};

export default routes;
