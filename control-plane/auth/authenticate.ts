// The credential check every non-public route runs first (so 401 comes before 403 and 422), and the
// guards routes add for a role or an identity-provider session.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../http/errors.js';
import type { Services } from '../services.js';
import { API_KEY_PREFIX } from '../store/api-keys.js';
import type { Principal, Role } from './principal.js';

export { API_KEY_PREFIX };

function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

export function makeAuthenticate(services: Services) {
  return async function authenticate(req: FastifyRequest): Promise<void> {
    if (req.routeOptions.config?.public) return;
    const token = bearer(req);
    if (!token) throw unauthorized('Not authenticated');
    if (token.startsWith(API_KEY_PREFIX)) {
      const principal = services.apiKeys.authenticate(token);
      if (!principal) throw unauthorized('Invalid, expired or revoked API key.');
      req.principal = principal;
      return;
    }
    const identity = await services.tokens.verify(token);
    if (!identity) throw unauthorized('Invalid or expired access token.');
    // Reads only, unless the token brings something new (a first call, a new role or name).
    const outcome = services.identity.resolveToken(identity, (orgId, email) => services.invitationStore.pendingFor(orgId, email) !== undefined);
    if (!outcome.ok) throw unauthorized(outcome.reason);
    const { org, user, membership } = outcome;
    // Joining (first call, or back after an invitation) accepts the invitation waiting, if any.
    if (outcome.joined) services.invitationStore.acceptFor(org.id, user.email);
    const principal: Principal = { kind: 'session', userId: user.id, email: user.email, orgId: org.id, role: membership.role };
    req.principal = principal;
  };
}

/** Route guard: the caller's role must be `role` (admin covers member). */
export function requireRole(role: Role) {
  return async (req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (role === 'admin' && req.principal.role !== 'admin') {
      throw forbidden('This action requires the admin role in the organization.');
    }
  };
}

/** Route guard: only an identity-provider session may do this (an API key gets 403). */
export async function requireSession(req: FastifyRequest): Promise<void> {
  if (req.principal.kind !== 'session') {
    throw forbidden('This action requires an identity-provider session; API keys cannot perform it.');
  }
}
