// The identity-provider adapter for invitations: one interface, two adapters (`local` keeps them
// in our store only; `workos` sends them through the WorkOS User Management API).

import type { Role } from '../auth/principal.js';

export const INVITATION_LIFETIME_DAYS = 7;

export interface SendInvitation {
  email: string;
  role: Role;
  /** The organization id as the identity provider knows it (the token's org claim). */
  organizationExternalId: string;
  /** The inviting user's id at the identity provider (the token's sub). */
  inviterExternalId: string;
  expiresInDays: number;
}

export interface SentInvitation {
  /** The invitation's identifier at the identity provider. */
  id: string;
  createdAt: string;
  expiresAt: string;
}

export interface InvitationProvider {
  readonly name: 'local' | 'workos';
  send(invitation: SendInvitation): Promise<SentInvitation>;
  revoke(id: string): Promise<void>;
}

/** The provider says the email is already a member or already invited (answers 409). */
export class InvitationConflictError extends Error {}

/** The provider could not do it (answers 502). */
export class IdentityProviderError extends Error {}
