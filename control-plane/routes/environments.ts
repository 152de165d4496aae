// Routes of the 'environments' area: environments CRUD, their twins, reset, request logs and twin
// records. Rules live in orchestration/environments.ts; this file is the HTTP surface.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pageEnvelope, pageQuery } from '../http/pagination.js';
import { intField } from '../http/fields.js';
import { errorResponses, noContent } from '../http/responses.js';
import { advanceReply, ADVANCE_DESCRIPTION } from './advance-reply.js';
import { FIDELITY_LEVELS } from '../../twin-runtime/fidelity.js';
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
const logsQuery = pageQuery.extend({
  twin_id: idParam.optional().describe('Only requests served by this twin of the environment (among the newest 50,000 requests).'),
  status_code: intField({ ge: 100, le: 599 }).optional().describe('Only requests answered with this status code (among the newest 50,000 requests).'),
  fidelity: z
    .enum(FIDELITY_LEVELS)
    .optional()
    .describe('Only requests the twin answered at this fidelity level, e.g. `unsupported` (among the newest 50,000 requests).'),
});

const routes: FastifyPluginAsyncZod = async (app) => {
  const envs = () => app.services.orchestration.environments;

  app.post(
    '/environments',
    {
      schema: {
        tags,
        operationId: 'createEnvironment',
        summary: 'Create an environment',
        description:
          'Creates the environment and starts its twins (given as `twins`, or from `scenario_id`); answers 201 at once with `status: provisioning`. ' +
          '`fidelity` (default `strict`) and `clock` (default `living`) are kept for the life of the environment, across restarts and resets. ' +
          "Follow getEnvironment until `ready`. 402 when the plan's `max_parallel_twins` would be passed; 404 for an unknown scenario, seed or twin.",
        body: createEnvironmentBody,
        response: { 201: environmentSchema, ...errorResponses(401, 402, 404, 409, 503) },
      },
    },
    async (req, reply) => reply.status(201).send(await envs().create(req.principal.orgId, req.body)),
  );

  app.get(
    '/environments',
    {
      schema: {
        tags,
        operationId: 'listEnvironments',
        summary: 'List environments (newest first)',
        description: "The organization's environments with their twins, newest first (paged).",
        querystring: pageQuery,
        response: { 200: pageEnvelope(environmentSchema), ...errorResponses(401) },
      },
    },
    async (req) => envs().list(req.principal.orgId, req.query),
  );

  app.get(
    '/environments/:environment_id',
    {
      schema: {
        tags,
        operationId: 'getEnvironment',
        summary: 'Retrieve an environment',
        description: 'The environment, its status and clock, and each twin with its state and URL.',
        params: envParams,
        response: { 200: environmentSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => envs().view(envs().environment(req.principal.orgId, req.params.environment_id)),
  );

  app.patch(
    '/environments/:environment_id',
    {
      schema: {
        tags,
        operationId: 'updateEnvironment',
        summary: 'Rename an environment or change its lifetime',
        description: "`ttl_seconds` counts from the environment's creation, capped by the plan; an expired environment answers 409.",
        params: envParams,
        body: patchEnvironmentBody,
        response: { 200: environmentSchema, ...errorResponses(401, 404, 409) },
      },
    },
    async (req) => envs().update(req.principal.orgId, req.params.environment_id, req.body),
  );

  app.delete(
    '/environments/:environment_id',
    {
      schema: {
        tags,
        operationId: 'deleteEnvironment',
        summary: 'Delete an environment and tear down its twins',
        description: 'Stops every twin, removes their data and forgets the environment; answers 204.',
        params: envParams,
        response: { 204: noContent, ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      await envs().delete(req.principal.orgId, req.params.environment_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/environments/:environment_id/twins',
    {
      schema: {
        tags,
        operationId: 'addEnvironmentTwin',
        summary: 'Add a twin to an environment',
        description:
          "Starts one more twin in the environment (optionally from a seed); 402 past the plan's `max_parallel_twins`, 409 when the environment has expired.",
        params: envParams,
        body: twinRequestBody,
        response: { 201: twinSchema, ...errorResponses(401, 402, 404, 409, 503) },
      },
    },
    async (req, reply) => reply.status(201).send(await envs().addTwin(req.principal.orgId, req.params.environment_id, req.body)),
  );

  app.delete(
    '/environments/:environment_id/twins/:twin_id',
    {
      schema: {
        tags,
        operationId: 'removeEnvironmentTwin',
        summary: 'Remove a twin from an environment',
        description: 'Stops the twin and removes its data; answers 204.',
        params: envTwinParams,
        response: { 204: noContent, ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      await envs().removeTwin(req.principal.orgId, req.params.environment_id, req.params.twin_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/environments/:environment_id/reset',
    {
      schema: {
        tags,
        operationId: 'resetEnvironment',
        summary: 'Put every twin back to its seed (or empty) state and the clock back to its start',
        description: 'Needs every twin ready (409 otherwise); the request log is kept.',
        params: envParams,
        response: { 200: environmentSchema, ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req) => envs().reset(req.principal.orgId, req.params.environment_id),
  );

  app.post(
    '/environments/:environment_id/advance',
    {
      schema: {
        tags,
        operationId: 'advanceEnvironment',
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
        operationId: 'getAdvance',
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
    {
      schema: {
        tags,
        operationId: 'listRequestLogs',
        summary: 'List recent environment request logs (newest first)',
        description:
          "Every request the environment's twins served through the gateway, newest first (paged), each with the fidelity level the twin answered at; " +
          '`twin_id`, `status_code` and `fidelity` narrow it.',
        params: envParams,
        querystring: logsQuery,
        response: { 200: pageEnvelope(requestLogSchema), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const { twin_id, status_code, fidelity, ...page } = req.query;
      // Requests already answered are listed: their entries may still be on their way from the journal.
      await app.services.orchestration.gateway.awaitLogged();
      return envs().logs(req.principal.orgId, req.params.environment_id, page, { twinId: twin_id, statusCode: status_code, fidelity });
    },
  );

  app.get(
    '/environments/:environment_id/twins/:environment_twin_id/records/:resource',
    {
      schema: {
        tags,
        operationId: 'listTwinRecords',
        summary: 'List environment twin state',
        description: 'Every record of one kind (`resource`, e.g. `customer`) the twin holds, as the provider would return it; 409 while the twin is not ready.',
        params: recordsParams,
        response: { 200: z.array(twinRecordSchema), ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req) => {
      const p = req.params;
      return envs().listRecords(req.principal.orgId, p.environment_id, p.environment_twin_id, p.resource);
    },
  );

  app.get(
    '/environments/:environment_id/twins/:environment_twin_id/records/:resource/:external_id',
    {
      schema: {
        tags,
        operationId: 'getTwinRecord',
        summary: 'Retrieve an environment twin record',
        description: 'One record by its provider id (`external_id`, e.g. `cus_…`); 404 when the twin holds none.',
        params: recordParams,
        response: { 200: twinRecordSchema, ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (req) => {
      const p = req.params;
      return envs().getRecord(req.principal.orgId, p.environment_id, p.environment_twin_id, p.resource, p.external_id);
    },
  );

  app.put(
    '/environments/:environment_id/twins/:environment_twin_id/records/:resource/:external_id',
    {
      schema: {
        tags,
        operationId: 'replaceTwinRecord',
        summary: 'Replace an environment twin record',
        description:
          'Stores `fields` as the whole record (created when absent); the twin answers its provider API from it at once. ' +
          'Delivery records (what the twin sent) are read-only: 403.',
        params: recordParams,
        body: putRecordBody,
        response: { 200: twinRecordSchema, ...errorResponses(401, 403, 404, 409, 502) },
      },
    },
    async (req) => {
      const p = req.params;
      return envs().putRecord(req.principal.orgId, p.environment_id, p.environment_twin_id, p.resource, p.external_id, req.body.fields);
    },
  );

  app.delete(
    '/environments/:environment_id/twins/:environment_twin_id/records/:resource/:external_id',
    {
      schema: {
        tags,
        operationId: 'deleteTwinRecord',
        summary: 'Delete an environment twin record',
        description: 'Answers 204; 404 when the twin holds no such record; 403 for a delivery record (read-only).',
        params: recordParams,
        response: { 204: noContent, ...errorResponses(401, 403, 404, 409, 502) },
      },
    },
    async (req, reply) => {
      const p = req.params;
      await envs().deleteRecord(req.principal.orgId, p.environment_id, p.environment_twin_id, p.resource, p.external_id);
      return reply.status(204).send(null);
    },
  );
};

export default routes;
