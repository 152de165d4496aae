// Routes of the 'users' area: the current user, as the credential names them.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from '../http/errors.js';
import { errorResponses } from '../http/responses.js';
import { organizationRole } from '../http/fields.js';

const currentUser = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    email: z.string().meta({ format: 'email' }),
    first_name: z.string(),
    last_name: z.string(),
    organization_id: z.string().meta({ format: 'uuid' }),
    role: organizationRole,
    created_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'CurrentUser' });

const routes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/users/me',
    {
      schema: {
        tags: ['users'],
        operationId: 'getCurrentUser',
        summary: 'The current user',
        description: 'The caller: the user the access token or API key acts for, with the role it holds in the active organization.',
        response: { 200: currentUser, ...errorResponses(401) },
      },
    },
    async (req) => {
      const user = app.services.identity.user(req.principal.userId);
      if (!user) throw notFound('Not Found');
      return {
        id: user.id,
        email: user.email,
        first_name: user.first_name,
        last_name: user.last_name,
        organization_id: req.principal.orgId,
        role: req.principal.role,
        created_at: user.created_at,
      };
    },
  );
};

export default routes;
