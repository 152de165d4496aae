// Routes of the 'catalog' area: the twins available for new environments.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from '../http/errors.js';
import { catalog, catalogTwin } from '../orchestration/catalog.js';
import { catalogTwinSchema } from '../orchestration/schemas.js';

const tags = ['catalog'];

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/twins/catalog',
    { schema: { tags, summary: 'List the twins available for new environments', response: { 200: z.array(catalogTwinSchema) } } },
    async () => catalog(),
  );

  app.get(
    '/twins/catalog/:twin_slug',
    { schema: { tags, summary: 'Retrieve a twin', params: z.object({ twin_slug: z.string() }), response: { 200: catalogTwinSchema } } },
    async (req) => {
      const twin = await catalogTwin(req.params.twin_slug);
      if (!twin) throw notFound(`Twin '${req.params.twin_slug}' is not in the catalog.`);
      return twin;
    },
  );
};

export default routes;
