// Inviting members into the active organization: the rules (409 for a member or a pending
// invitation, 7-day lifetime) in front of whichever identity-provider adapter is configured.

import { conflict, badGateway, notFound } from '../http/errors.js';
import type { IdentityStore } from '../store/identity.js';
import type { InvitationRow, InvitationStore } from '../store/invitations.js';
import type { Principal, Role } from '../auth/principal.js';
import { IdentityProviderError, INVITATION_LIFETIME_DAYS, InvitationConflictError, type InvitationProvider } from './provider.js';

export class InvitationService {
  constructor(
    private readonly identity: IdentityStore,
    private readonly store: InvitationStore,
    private readonly provider: InvitationProvider,
  ) {}

  async invite(by: Principal, email: string, role: Role): Promise<InvitationRow> {
    const org = this.identity.organization(by.orgId);
    const inviter = this.identity.user(by.userId);
    if (!org || !inviter) throw notFound('Not Found');
    if (this.identity.memberByEmail(org.id, email)) throw conflict(`${email} is already a member of the organization.`);
    if (this.store.pendingFor(org.id, email)) throw conflict(`${email} already has a pending invitation to the organization.`);
    let sent;
    try {
      sent = await this.provider.send({
        email,
        role,
        organizationExternalId: org.external_id,
        inviterExternalId: inviter.external_id,
        expiresInDays: INVITATION_LIFETIME_DAYS,
      });
    } catch (e) {
      if (e instanceof InvitationConflictError) throw conflict(e.message);
      if (e instanceof IdentityProviderError) throw badGateway(e.message);
      throw badGateway('The identity provider could not create the invitation.');
    }
    return this.store.insert({
      id: sent.id,
      organization_id: org.id,
      email,
      role,
      provider: this.provider.name,
      created_at: sent.createdAt,
      expires_at: sent.expiresAt,
      invited_by: inviter.id,
    });
  }

  async revoke(orgId: string, id: string): Promise<void> {
    const inv = this.store.pending(orgId, id);
    if (!inv) throw notFound('Invitation not found.');
    try {
      await this.provider.revoke(inv.id);
    } catch (e) {
      throw badGateway(e instanceof IdentityProviderError ? e.message : 'The identity provider could not revoke the invitation.');
    }
    this.store.close(inv.id, 'revoked');
  }
}
