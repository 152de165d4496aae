// Routes of the 'api-keys' area: long-lived organization credentials. Creating one needs an
// identity-provider session; the token is shown once, in the 201 answer.

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSession } from '../auth/authenticate.js';
import { forbidden, notFound } from '../http/errors.js';
import { dateTimeString, uuidString } from '../http/fields.js';
import { pageEnvelope, pageQuery, paginate } from '../http/pagination.js';
import { errorResponses, noContent } from '../http/responses.js';
import type { ApiKeyListRow } from '../store/api-keys.js';

const DEFAULT_LIFETIME_DAYS = 90;

const apiKey = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    name: z.string(),
    created_at: z.string().meta({ format: 'date-time' }),
    expires_at: z.string().meta({ format: 'date-time' }),
    created_by: z.object({
      id: z.string().meta({ format: 'uuid' }),
      email: z.string().meta({ format: 'email' }),
      first_name: z.string(),
      last_name: z.string(),
    }),
  })
  .meta({ id: 'ApiKey' });

const createdApiKey = apiKey.extend({ token: z.string().describe('The secret token; shown only in this response.') }).meta({ id: 'ApiKeyCreated' });

const apiKeyCreate = z
  .object({
    name: z.string().min(1).max(100),
    expires_at: dateTimeString({ future: true }).nullable().optional().describe('Defaults to 90 days from now.'),
  })
  .strict()
  .meta({ id: 'ApiKeyCreate' });

const apiKeyParams = z.object({ api_key_id: uuidString() });

function toApiKey(row: ApiKeyListRow): z.infer<typeof apiKey> {
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at,
    expires_at: row.expires_at,
    created_by: { id: row.created_by, email: row.creator_email, first_name: row.creator_first_name, last_name: row.creator_last_name },
  };
}

const routes: FastifyPluginAsyncZod = async (app) => {
  const { apiKeys, identity } = app.services;

  app.post(
    '/organizations/current/api-keys',
    {
      onRequest: [requireSession],
      schema: {
        tags: ['api-keys'],
        operationId: 'createApiKey',
        summary: 'Create an API key',
        description: 'Needs an identity-provider session (an API key gets 403). The token is returned once.',
        body: apiKeyCreate,
        response: { 201: createdApiKey, ...errorResponses(401, 403) },
      },
    },
    async (req, reply) => {
      const now = new Date();
      const expiresAt = req.body.expires_at ?? new Date(now.getTime() + DEFAULT_LIFETIME_DAYS * 86_400_000).toISOString();
      const { key, token } = apiKeys.create({ orgId: req.principal.orgId, userId: req.principal.userId, name: req.body.name, expiresAt, now });
      const creator = identity.user(req.principal.userId)!;
      const item = toApiKey({ ...key, creator_email: creator.email, creator_first_name: creator.first_name, creator_last_name: creator.last_name });
      return reply.status(201).send({ ...item, token });
    },
  );

  app.get(
    '/organizations/current/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'listApiKeys',
        summary: 'List API keys',
        description: 'Every key of the active organization that has not been revoked, oldest first; expired keys included; never a token.',
        querystring: pageQuery,
        response: { 200: pageEnvelope(apiKey), ...errorResponses(401) },
      },
    },
    async (req) => {
      const orgId = req.principal.orgId;
      return paginate(req.query, apiKeys.count(orgId), (limit, offset) => apiKeys.list(orgId, limit, offset).map(toApiKey));
    },
  );

  app.delete(
    '/organizations/current/api-keys/:api_key_id',
    {
      schema: {
        tags: ['api-keys'],
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description:
          'The key stops working at once; its row is kept. Admins revoke any key of the organization, members only the keys they created (403 otherwise). Unknown or already revoked keys answer 404.',
        params: apiKeyParams,
        response: { 204: noContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (req, reply) => {
      const key = apiKeys.find(req.principal.orgId, req.params.api_key_id);
      if (!key) throw notFound('API key not found.');
      if (req.principal.role !== 'admin' && key.created_by !== req.principal.userId) {
        throw forbidden('Members can revoke only the API keys they created; ask an admin to revoke this one.');
      }
      if (!apiKeys.revoke(req.principal.orgId, req.params.api_key_id)) throw notFound('API key not found.');
      return reply.status(204).send(null);
    },
  );
};

export default routes;
