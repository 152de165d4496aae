// Route of the 'catalog' area naming the kinds of records a twin keeps, so a client can browse a
// running twin's state (`GET /environments/{id}/twins/{twin_id}/records/{resource}`) without
// guessing the kinds.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from '../http/errors.js';
import { errorResponses } from '../http/responses.js';
import { isTwinSlug, loadTwin } from '../../twin-runtime/registry.js';
import { DELIVERY_RESOURCE } from '../../twin-runtime/deliveries.js';

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/twins/catalog/:twin_slug/resources',
    {
      schema: {
        tags: ['catalog'],
        operationId: 'listCatalogTwinResources',
        summary: 'List the kinds of records a twin keeps',
        description:
          'The `resource` names the records API of an environment twin accepts for this twin (e.g. `customer` for Stripe), ' +
          `in the twin's own order, followed by \`${DELIVERY_RESOURCE}\` (the webhook deliveries the twin sent).`,
        params: z.object({ twin_slug: z.string() }),
        response: { 200: z.array(z.string()), ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      const slug = req.params.twin_slug;
      if (!isTwinSlug(slug)) throw notFound(`Twin '${slug}' is not in the catalog.`);
      const def = await loadTwin(slug);
      return [...def.resources, DELIVERY_RESOURCE];
    },
  );
};

export default routes;
