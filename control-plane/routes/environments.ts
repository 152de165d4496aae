// Routes of the 'environments' area: environments CRUD, their twins, reset, request logs and twin
// records. Rules live in orchestration/environments.ts; this file is the HTTP surface.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pageEnvelope, pageQuery } from '../http/pagination.js';
import { errorResponses } from '../http/responses.js';
import { advanceReply, ADVANCE_DESCRIPTION } from './advance-reply.js';
import {
  advanceBody,
  advanceSchema,
  createEnvironmentBody,
  environmentSchema,
  idParam,
  patchEnvironmentBody,
  putRecordBody,
  requestLogSchema,
  twinRecordSchema,
  twinRequestBody,
  twinSchema,
} from '../orchestration/schemas.js';

const tags = ['environments'];
const envParams = z.object({ environment_id: idParam });
const envTwinParams = z.object({ environment_id: idParam, twin_id: idParam });
const recordsParams = z.object({ environment_id: idParam, environment_twin_id: idParam, resource: z.string().min(1) });
const recordParams = recordsParams.extend({ external_id: z.string().min(1) });
const advanceParams = z.object({ environment_id: idParam, advance_id: idParam });

const routes: FastifyPluginAsyncZod = async (app) => {
  const envs = () => app.services.orchestration.environments;

  app.post(
    '/environments',
    { schema: { tags, summary: 'Create an environment', body: createEnvironmentBody, response: { 201: environmentSchema } } },
    async (req, reply) => reply.status(201).send(await envs().create(req.principal.orgId, req.body)),
  );

  app.get(
    '/environments',
    { schema: { tags, summary: 'List environments (newest first)', querystring: pageQuery, response: { 200: pageEnvelope(environmentSchema) } } },
    async (req) => envs().list(req.principal.orgId, req.query),
  );

  app.get(
    '/environments/:environment_id',
    { schema: { tags, summary: 'Retrieve an environment', params: envParams, response: { 200: environmentSchema } } },
    async (req) => envs().view(envs().environment(req.principal.orgId, req.params.environment_id)),
  );

  app.patch(
    '/environments/:environment_id',
    { schema: { tags, summary: 'Rename an environment or change its lifetime', params: envParams, body: patchEnvironmentBody, response: { 200: environmentSchema } } },
    async (req) => envs().update(req.principal.orgId, req.params.environment_id, req.body),
  );

  app.delete(
    '/environments/:environment_id',
    { schema: { tags, summary: 'Delete an environment and tear down its twins', params: envParams } },
    async (req, reply) => {
      await envs().delete(req.principal.orgId, req.params.environment_id);
      return reply.status(204).send();
    },
  );

  app.post(
    '/environments/:environment_id/twins',
    { schema: { tags, summary: 'Add a twin to an environment', params: envParams, body: twinRequestBody, response: { 201: twinSchema } } },
    async (req, reply) => reply.status(201).send(await envs().addTwin(req.principal.orgId, req.params.environment_id, req.body)),
  );

  app.delete(
    '/environments/:environment_id/twins/:twin_id',
    { schema: { tags, summary: 'Remove a twin from an environment', params: envTwinParams } },
    async (req, reply) => {
      await envs().removeTwin(req.principal.orgId, req.params.environment_id, req.params.twin_id);
      return reply.status(204).send();
    },
  );

  app.post(
    '/environments/:environment_id/reset',
    { schema: { tags, summary: 'Put every twin back to its seed (or empty) state and the clock back to its start', params: envParams, response: { 200: environmentSchema } } },
    async (req) => envs().reset(req.principal.orgId, req.params.environment_id),
  );

  app.post(
    '/environments/:environment_id/advance',
    {
      schema: {
        tags,
        summary: "Advance the environment clock and every twin's lifecycle",
        description: `Moves the environment clock to \`at\` (default: max(now, clock)) and runs every due lifecycle event of its twins. ${ADVANCE_DESCRIPTION}`,
        params: envParams,
        body: advanceBody,
        response: { 200: z.object({}), 202: advanceSchema, ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req, reply) => {
      const at = req.body?.at;
      return advanceReply(reply, await envs().advance(req.principal.orgId, req.params.environment_id, at === undefined ? undefined : new Date(at)));
    },
  );

  app.get(
    '/environments/:environment_id/advances/:advance_id',
    {
      schema: {
        tags,
        summary: 'Follow a long advance',
        description: 'The Advance a 202 named in `Location`: `running` until every twin has finished, then `succeeded` or `failed` (with `failure`).',
        params: advanceParams,
        response: { 200: advanceSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => envs().advanceOf(req.principal.orgId, req.params.environment_id, req.params.advance_id),
  );

  app.get(
    '/environments/:environment_id/logs',
    { schema: { tags, summary: 'List recent environment request logs (newest first)', params: envParams, querystring: pageQuery, response: { 200: pageEnvelope(requestLogSchema) } } },
    async (req) => envs().logs(req.principal.orgId, req.params.environment_id, req.query),
  );

  app.get(
    '/environments/:environment_id/twins/:environment_twin_id/records/:resource',
    { schema: { tags, summary: 'List environment twin state', params: recordsParams, response: { 200: z.array(twinRecordSchema) } } },
    async (req) => {
      const p = req.params;
      return envs().listRecords(req.principal.orgId, p.environment_id, p.environment_twin_id, p.resource);
    },
  );

  app.put(
    '/environments/:environment_id/twins/:environment_twin_id/records/:resource/:external_id',
    { schema: { tags, summary: 'Replace an environment twin record', params: recordParams, body: putRecordBody, response: { 200: twinRecordSchema } } },
    async (req) => {
      const p = req.params;
      return envs().putRecord(req.principal.orgId, p.environment_id, p.environment_twin_id, p.resource, p.external_id, req.body.fields);
    },
  );

  app.delete(
    '/environments/:environment_id/twins/:environment_twin_id/records/:resource/:external_id',
    { schema: { tags, summary: 'Delete an environment twin record', params: recordParams } },
    async (req, reply) => {
      const p = req.params;
      await envs().deleteRecord(req.principal.orgId, p.environment_id, p.environment_twin_id, p.resource, p.external_id);
      return reply.status(204).send();
    },
  );
};

export default routes;
