// Routes of the 'sandboxes' area: the sandbox of each environment, grouping its twins.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pageEnvelope, pageQuery } from '../http/pagination.js';
import { idParam, sandboxSchema } from '../orchestration/schemas.js';

const tags = ['sandboxes'];

const routes: FastifyPluginAsyncZod = async (app) => {
  const envs = () => app.services.orchestration.environments;

  app.get(
    '/sandboxes',
    { schema: { tags, summary: 'List sandboxes (newest first)', querystring: pageQuery, response: { 200: pageEnvelope(sandboxSchema) } } },
    async (req) => envs().listSandboxes(req.principal.orgId, req.query),
  );

  app.get(
    '/sandboxes/:sandbox_id',
    { schema: { tags, summary: 'Retrieve a sandbox', params: z.object({ sandbox_id: idParam }), response: { 200: sandboxSchema } } },
    async (req) => envs().sandbox(req.principal.orgId, req.params.sandbox_id),
  );
};

export default routes;
