// Routes of the 'scenarios' area: named, reusable starting setups — which twins an environment
// gets and the seed each starts from. Environments are created from one with `scenario_id`.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { conflict, notFound } from '../http/errors.js';
import { errorResponses, noContent } from '../http/responses.js';
import { uuidString } from '../http/fields.js';
import { twinSlug } from '../orchestration/schemas.js';
import { pageEnvelope, pageQuery, paginate } from '../http/pagination.js';
import type { ScenarioTwin } from '../store/scenarios.js';
import type { Services } from '../services.js';

const tags = ['scenarios'];

const scenarioTwinSchema = z.object({ twin: z.string(), seed_id: z.string().nullable() });
const scenarioSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    twins: z.array(scenarioTwinSchema),
    created_at: z.string().meta({ format: 'date-time' }),
    updated_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Scenario' });

const scenarioTwinInput = z.strictObject({
  twin: twinSlug(),
  seed_id: uuidString().nullable().optional(),
});
const createScenarioBody = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().max(4000).optional(),
  twins: z.array(scenarioTwinInput).min(1).max(20),
});
const patchScenarioBody = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  description: z.string().max(4000).optional(),
  twins: z.array(scenarioTwinInput).min(1).max(20).optional(),
});
const scenarioParams = z.object({ scenario_id: uuidString() });

/** Every seed a scenario names must be the organization's and be a seed of that twin. */
function checkedTwins(services: Services, orgId: string, twins: z.infer<typeof scenarioTwinInput>[]): ScenarioTwin[] {
  return twins.map((t) => {
    const seedId = t.seed_id ?? null;
    if (seedId !== null) {
      const seed = services.seeds.get(orgId, seedId);
      if (!seed) throw notFound(`Seed ${seedId} not found.`);
      if (seed.twin !== t.twin) throw conflict(`Seed ${seedId} is a seed of the ${seed.twin} twin, not of ${t.twin}.`);
    }
    return { twin: t.twin, seed_id: seedId };
  });
}

const routes: FastifyPluginAsyncZod = async (app) => {
  const scenarios = () => app.services.scenarios;

  app.post(
    '/scenarios',
    {
      schema: {
        tags,
        operationId: 'createScenario',
        summary: 'Create a scenario',
        description: 'A reusable starting setup: twins, each with an optional seed. 404 for an unknown seed, 409 for a seed of another twin.',
        body: createScenarioBody,
        response: { 201: scenarioSchema, ...errorResponses(401, 404, 409) },
      },
    },
    async (req, reply) => {
      const { orgId } = req.principal;
      const twins = checkedTwins(app.services, orgId, req.body.twins);
      return reply.status(201).send(scenarios().create(orgId, { name: req.body.name, description: req.body.description, twins }));
    },
  );

  app.get(
    '/scenarios',
    {
      schema: {
        tags,
        operationId: 'listScenarios',
        summary: 'List scenarios (newest first)',
        description: "The organization's scenarios, newest first (paged).",
        querystring: pageQuery,
        response: { 200: pageEnvelope(scenarioSchema), ...errorResponses(401) },
      },
    },
    async (req) => {
      const { orgId } = req.principal;
      return paginate(req.query, scenarios().count(orgId), (limit, offset) => scenarios().list(orgId, limit, offset));
    },
  );

  app.get(
    '/scenarios/:scenario_id',
    {
      schema: {
        tags,
        operationId: 'getScenario',
        summary: 'Retrieve a scenario',
        description: 'One scenario by id.',
        params: scenarioParams,
        response: { 200: scenarioSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const s = scenarios().get(req.principal.orgId, req.params.scenario_id);
      if (!s) throw notFound(`Scenario ${req.params.scenario_id} not found.`);
      return s;
    },
  );

  app.patch(
    '/scenarios/:scenario_id',
    {
      schema: {
        tags,
        operationId: 'updateScenario',
        summary: 'Edit a scenario',
        description: 'Change the name, description or twins of a scenario; environments created from it earlier keep what they were made with.',
        params: scenarioParams,
        body: patchScenarioBody,
        response: { 200: scenarioSchema, ...errorResponses(401, 404, 409) },
      },
    },
    async (req) => {
      const { orgId } = req.principal;
      const id = req.params.scenario_id;
      if (!scenarios().get(orgId, id)) throw notFound(`Scenario ${id} not found.`);
      const twins = req.body.twins ? checkedTwins(app.services, orgId, req.body.twins) : undefined;
      return scenarios().update(orgId, id, { name: req.body.name, description: req.body.description, twins })!;
    },
  );

  app.delete(
    '/scenarios/:scenario_id',
    {
      schema: {
        tags,
        operationId: 'deleteScenario',
        summary: 'Delete a scenario',
        description: 'Answers 204; environments created from it are kept.',
        params: scenarioParams,
        response: { 204: noContent, ...errorResponses(401, 404) },
      },
    },
    async (req, reply) => {
      if (!scenarios().delete(req.principal.orgId, req.params.scenario_id)) {
        throw notFound(`Scenario ${req.params.scenario_id} not found.`);
      }
      return reply.status(204).send(null);
    },
  );
};

export default routes;
