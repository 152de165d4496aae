// Routes of the 'twins' area: a provisioned twin by id, advancing its environment's clock, and
// collecting the key its current container minted.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { twinView } from '../orchestration/environments.js';
import { advanceBody, credentialSchema, idParam, twinSchema } from '../orchestration/schemas.js';
import { errorResponses } from '../http/responses.js';

const tags = ['twins'];
const params = z.object({ twin_id: idParam });

const routes: FastifyPluginAsyncZod = async (app) => {
  const envs = () => app.services.orchestration.environments;

  app.get(
    '/twins/:twin_id',
    {
      schema: {
        tags,
        operationId: 'getTwin',
        summary: 'Retrieve a twin',
        description: 'A twin of an environment by id: its state and the URL its provider API answers at.',
        params,
        response: { 200: twinSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => twinView(envs().twin(req.principal.orgId, req.params.twin_id)),
  );

  app.post(
    '/twins/:twin_id/advance',
    {
      schema: {
        tags,
        operationId: 'advanceTwin',
        summary: 'Advance a deterministic twin lifecycle',
        description: "Moves the environment clock to `at` (default: now) and runs every due lifecycle event of the environment's twins, in time order, before answering.",
        params,
        body: advanceBody,
        response: { 200: z.object({}), ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req) => {
      const at = req.body?.at;
      await envs().advance(req.principal.orgId, req.params.twin_id, at === undefined ? undefined : new Date(at));
      return {};
    },
  );

  app.post(
    '/twins/:twin_id/credential',
    {
      schema: {
        tags,
        operationId: 'getTwinCredential',
        summary: "Collect the twin's API key",
        description: "The key the twin's provider API accepts (what the provider SDK's constructor takes); 409 while the twin is not ready.",
        params,
        response: { 200: credentialSchema, ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req) => envs().credential(req.principal.orgId, req.params.twin_id),
  );
};

export default routes;
