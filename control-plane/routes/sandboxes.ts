// Routes of the 'sandboxes' area: the sandbox of each environment, grouping its twins.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pageEnvelope, pageQuery } from '../http/pagination.js';
import { idParam, sandboxSchema } from '../orchestration/schemas.js';
import { errorResponses } from '../http/responses.js';

const tags = ['sandboxes'];

const routes: FastifyPluginAsyncZod = async (app) => {
  const envs = () => app.services.orchestration.environments;

  app.get(
    '/sandboxes',
    {
      schema: {
        tags,
        operationId: 'listSandboxes',
        summary: 'List sandboxes (newest first)',
        description: "The sandbox of each of the organization's environments, newest first (paged).",
        querystring: pageQuery,
        response: { 200: pageEnvelope(sandboxSchema), ...errorResponses(401) },
      },
    },
    async (req) => envs().listSandboxes(req.principal.orgId, req.query),
  );

  app.get(
    '/sandboxes/:sandbox_id',
    {
      schema: {
        tags,
        operationId: 'getSandbox',
        summary: 'Retrieve a sandbox',
        description: 'One sandbox by id, with the twins it groups.',
        params: z.object({ sandbox_id: idParam }),
        response: { 200: sandboxSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => envs().sandbox(req.principal.orgId, req.params.sandbox_id),
  );
};

export default routes;
