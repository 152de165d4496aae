// Routes of the 'seeds' area: create a seed from a prompt (generated in the background by the seed
// worker), list, read, delete, and the suggested starting states each twin ships.

import { z } from 'zod';
import { rmSync } from 'node:fs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { conflict, notFound, paymentRequired } from '../http/errors.js';
import { errorResponses, noContent } from '../http/responses.js';
import { uuidString } from '../http/fields.js';
import { twinSlug } from '../orchestration/schemas.js';
import { planNamed } from '../billing/plans.js';
import { twinRelease } from '../seeds/twin-releases.js';
import { seedFilePath } from '../seeds/files.js';
import { listSuggestions, seedView } from '../seeds/views.js';

const tags = ['seeds'];

const seedSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    twin: z.string(),
    prompt: z.string(),
    status: z.enum(['pending', 'running', 'ready', 'failed']),
    usable: z.boolean(),
    created_at: z.string().meta({ format: 'date-time' }),
    failure: z.string().nullable(),
    twin_version: z.string(),
    size_bytes: z.number().int(),
    completed_at: z.string().meta({ format: 'date-time' }).nullable(),
  })
  .meta({ id: 'Seed' });

const suggestionSchema = z.object({ twin: z.string(), name: z.string(), prompt: z.string() }).meta({ id: 'SeedSuggestion' });

const createSeedBody = z.strictObject({
  name: z.string().min(1).max(200),
  twin: twinSlug(),
  prompt: z.string().min(1).max(4000),
});

const twinFilter = z.object({ twin: z.string().optional() });
const seedParams = z.object({ seed_id: uuidString() });

const routes: FastifyPluginAsyncZod = async (app) => {
  const seeds = () => app.services.seeds;

  app.post(
    '/seeds',
    {
      schema: {
        tags,
        operationId: 'createSeed',
        summary: 'Describe a starting state in words; a worker generates it',
        description: 'Answers 201 with `status: pending` at once; follow it with getSeed until `ready` or `failed`. 402 when the plan has no AI generation.',
        body: createSeedBody,
        response: { 201: seedSchema, ...errorResponses(401, 402, 409) },
      },
    },
    async (req, reply) => {
      const org = app.services.identity.organization(req.principal.orgId);
      if (!planNamed(org?.plan ?? 'free').aiGenerationEnabled) {
        throw paymentRequired('Generating seeds needs a plan with AI generation; upgrade to pay as you go.');
      }
      const release = twinRelease(req.body.twin);
      if (!release) throw conflict(`The ${req.body.twin} twin is not available in this build.`);
      const row = seeds().create({
        orgId: req.principal.orgId,
        name: req.body.name,
        twin: req.body.twin,
        prompt: req.body.prompt,
        twinVersion: release.version,
      });
      app.services.seedWorker.enqueue(row.id);
      return reply.status(201).send(seedView(row));
    },
  );

  app.get(
    '/seeds',
    {
      schema: {
        tags,
        operationId: 'listSeeds',
        summary: 'List seeds (newest first)',
        description: "The organization's seeds, newest first; `twin` keeps one twin's.",
        querystring: twinFilter,
        response: { 200: z.array(seedSchema), ...errorResponses(401) },
      },
    },
    async (req) => seeds().list(req.principal.orgId, req.query.twin).map(seedView),
  );

  app.get(
    '/seeds/suggestions',
    {
      schema: {
        tags,
        operationId: 'listSeedSuggestions',
        summary: 'List suggested starting states',
        description: "Starting states each twin ships, as prompts ready for createSeed; `twin` keeps one twin's.",
        querystring: twinFilter,
        response: { 200: z.array(suggestionSchema), ...errorResponses(401) },
      },
    },
    async (req) => listSuggestions(req.query.twin),
  );

  app.get(
    '/seeds/:seed_id',
    {
      schema: {
        tags,
        operationId: 'getSeed',
        summary: 'Retrieve a seed',
        description: 'One seed by id, with its generation status and whether the current twin release can load it (`usable`).',
        params: seedParams,
        response: { 200: seedSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const row = seeds().get(req.principal.orgId, req.params.seed_id);
      if (!row) throw notFound(`Seed ${req.params.seed_id} not found.`);
      return seedView(row);
    },
  );

  app.delete(
    '/seeds/:seed_id',
    {
      schema: {
        tags,
        operationId: 'deleteSeed',
        summary: 'Delete a seed',
        description: 'Answers 204; 409 while a scenario or a live environment uses it.',
        params: seedParams,
        response: { 204: noContent, ...errorResponses(401, 404, 409) },
      },
    },
    async (req, reply) => {
      const { orgId } = req.principal;
      const id = req.params.seed_id;
      if (!seeds().get(orgId, id)) throw notFound(`Seed ${id} not found.`);
      const scenarios = app.services.scenarios.usingSeed(orgId, id);
      if (scenarios.length > 0) {
        throw conflict(
          `Seed ${id} is used by the scenario${scenarios.length > 1 ? 's' : ''} ${scenarios.map((n) => `'${n}'`).join(', ')}; remove it there first.`,
        );
      }
      const twins = seeds().liveTwinsUsing(id);
      if (twins > 0) {
        throw conflict(
          `Seed ${id} is loaded by ${twins} twin${twins > 1 ? 's' : ''} of live environments (reset returns to it); delete those environments first.`,
        );
      }
      seeds().softDelete(orgId, id);
      rmSync(seedFilePath(app.services.config.dataDir, id), { force: true });
      return reply.status(204).send(null);
    },
  );
};

export default routes;
