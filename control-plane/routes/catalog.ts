// Routes of the 'catalog' area: the twins available for new environments.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from '../http/errors.js';
import { errorResponses } from '../http/responses.js';
import { catalog, catalogCoverage, catalogTwin } from '../orchestration/catalog.js';
import { catalogTwinSchema, coverageRowSchema } from '../orchestration/schemas.js';

const tags = ['catalog'];

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/twins/catalog',
    {
      schema: {
        tags,
        operationId: 'listCatalog',
        summary: 'List the twins available for new environments',
        description: 'Every twin this deployment runs, by slug (the value `twins[].twin` takes when creating an environment).',
        response: { 200: z.array(catalogTwinSchema), ...errorResponses(401) },
      },
    },
    async () => catalog(),
  );

  app.get(
    '/twins/catalog/:twin_slug',
    {
      schema: {
        tags,
        operationId: 'getCatalogTwin',
        summary: 'Retrieve a catalog twin',
        description: 'One twin of the catalog by slug; 404 for a slug this deployment does not run.',
        params: z.object({ twin_slug: z.string() }),
        response: { 200: catalogTwinSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const twin = await catalogTwin(req.params.twin_slug);
      if (!twin) throw notFound(`Twin '${req.params.twin_slug}' is not in the catalog.`);
      return twin;
    },
  );

  app.get(
    '/twins/catalog/:twin_slug/coverage',
    {
      schema: {
        tags,
        operationId: 'getCatalogTwinCoverage',
        summary: "A twin's coverage matrix",
        description:
          "For every operation of the provider's published surface, its fidelity level (the `Twin-Fidelity` header its answers carry): `modelled` (hand-written behaviour), `inferred` (the generic engine applies what the spec makes safe: parents and references exist, status verbs move the status, new records start in their initial state), `stored` (plain record keeping) or `unsupported` (refused in the provider's own error envelope), with the reason; then, for a twin serving its provider's MCP tools, one row per tool (method `MCP`, path `/mcp`, `operation_id` the tool's name) at the lowest level of the operations it performs.",
        params: z.object({ twin_slug: z.string() }),
        response: { 200: z.array(coverageRowSchema), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const rows = await catalogCoverage(req.params.twin_slug);
      if (!rows) throw notFound(`Twin '${req.params.twin_slug}' is not in the catalog.`);
      return rows;
    },
  );
};

export default routes;
