// Routes of the 'organizations' area: the active organization, its members, and invitations
// (sent through the identity-provider adapter; admin with an IdP session only).

import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole, requireSession } from '../auth/authenticate.js';
import { conflict, notFound } from '../http/errors.js';
import { emailString, organizationRole, uuidString } from '../http/fields.js';
import { pageEnvelope, pageQuery, paginate } from '../http/pagination.js';
import { errorResponses, noContent } from '../http/responses.js';
import type { InvitationRow } from '../store/invitations.js';

const organization = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    name: z.string(),
    created_at: z.string().meta({ format: 'date-time' }),
    role: organizationRole,
  })
  .meta({ id: 'Organization' });

const member = z
  .object({
    user_id: z.string().meta({ format: 'uuid' }),
    email: z.string().meta({ format: 'email' }),
    first_name: z.string(),
    last_name: z.string(),
    role: organizationRole,
    joined_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'OrganizationMember' });

const invitation = z
  .object({
    id: z.string(),
    email: z.string().meta({ format: 'email' }),
    role: organizationRole,
    state: z.literal('pending'),
    created_at: z.string().meta({ format: 'date-time' }),
    expires_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'Invitation' });

const invitationCreate = z
  .object({
    email: emailString(),
    role: organizationRole,
  })
  .strict()
  .meta({ id: 'InvitationCreate' });

const invitationParams = z.object({ invitation_id: z.string().min(1) });
const memberParams = z.object({ user_id: uuidString() });

function toInvitation(row: InvitationRow): z.infer<typeof invitation> {
  return { id: row.id, email: row.email, role: row.role, state: 'pending', created_at: row.created_at, expires_at: row.expires_at };
}

const routes: FastifyPluginAsyncZod = async (app) => {
  const { identity, invitations, invitationStore } = app.services;

  app.get(
    '/organizations/current',
    {
      schema: {
        tags: ['organizations'],
        operationId: 'getCurrentOrganization',
        summary: 'The active organization',
        description: "The organization the credential names, with the caller's role in it.",
        response: { 200: organization, ...errorResponses(401) },
      },
    },
    async (req) => {
      const org = identity.organization(req.principal.orgId);
      if (!org) throw notFound('Not Found');
      return { id: org.id, name: org.name, created_at: org.created_at, role: req.principal.role };
    },
  );

  app.get(
    '/organizations/current/members',
    {
      schema: {
        tags: ['organizations'],
        operationId: 'listMembers',
        summary: 'Members of the active organization',
        description: 'Every member of the active organization with their role, oldest first (paged).',
        querystring: pageQuery,
        response: { 200: pageEnvelope(member), ...errorResponses(401) },
      },
    },
    async (req) => {
      const orgId = req.principal.orgId;
      return paginate(req.query, identity.countMembers(orgId), (limit, offset) =>
        identity.listMembers(orgId, limit, offset).map((m) => ({
          user_id: m.user_id,
          email: m.email,
          first_name: m.first_name,
          last_name: m.last_name,
          role: m.role,
          joined_at: m.joined_at,
        })),
      );
    },
  );

  app.delete(
    '/organizations/current/members/:user_id',
    {
      onRequest: [requireSession, requireRole('admin')],
      schema: {
        tags: ['organizations'],
        operationId: 'removeMember',
        summary: 'Remove a member',
        description:
          'Needs an identity-provider session and the admin role. The member leaves at once: their access tokens issued until now ' +
          'and the API keys they created answer 401, and they stay removed until invited again. Removing the last admin answers 409.',
        params: memberParams,
        response: { 204: noContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      const orgId = req.principal.orgId;
      const member = identity.membership(orgId, req.params.user_id);
      if (!member) throw notFound('Member not found.');
      // The check and the removal run in one synchronous step: two admins cannot remove each other.
      if (member.role === 'admin' && identity.countAdmins(orgId) <= 1) {
        throw conflict('The last admin of the organization cannot be removed; make another member an admin first.');
      }
      identity.removeMember(orgId, member.user_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/organizations/current/invitations',
    {
      onRequest: [requireSession, requireRole('admin')],
      schema: {
        tags: ['organizations'],
        operationId: 'createInvitation',
        summary: 'Invite an organization member',
        description: 'Sends an invitation through the identity provider. Needs an identity-provider session and the admin role; an API key is refused.',
        body: invitationCreate,
        response: { 201: invitation, ...errorResponses(401, 403, 409, 502) },
      },
    },
    async (req, reply) => {
      const row = await invitations.invite(req.principal, req.body.email, req.body.role);
      return reply.status(201).send(toInvitation(row));
    },
  );

  app.get(
    '/organizations/current/invitations',
    {
      schema: {
        tags: ['organizations'],
        operationId: 'listInvitations',
        summary: 'Pending invitations of the active organization',
        description: 'Invitations not yet accepted, revoked or expired (paged).',
        querystring: pageQuery,
        response: { 200: pageEnvelope(invitation), ...errorResponses(401) },
      },
    },
    async (req) => {
      const orgId = req.principal.orgId;
      const now = new Date();
      return paginate(req.query, invitationStore.countPending(orgId, now), (limit, offset) =>
        invitationStore.listPending(orgId, limit, offset, now).map(toInvitation),
      );
    },
  );

  app.delete(
    '/organizations/current/invitations/:invitation_id',
    {
      onRequest: [requireSession, requireRole('admin')],
      schema: {
        tags: ['organizations'],
        operationId: 'revokeInvitation',
        summary: 'Revoke a pending invitation',
        description: 'Needs the admin role and an identity-provider session. Answers 204; an unknown invitation 404.',
        params: invitationParams,
        response: { 204: noContent, ...errorResponses(401, 403, 404, 502) },
      },
    },
    async (req, reply) => {
      await invitations.revoke(req.principal.orgId, req.params.invitation_id);
      return reply.status(204).send(null);
    },
  );
};

export default routes;
