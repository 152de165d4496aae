// `local` invitations: nothing leaves the service; the invitation is kept in our store and turns
// into a membership when a token for that email naming the organization arrives.

import { randomBytes } from 'node:crypto';
import { base62 } from '../store/api-keys.js';
import type { InvitationProvider, SendInvitation, SentInvitation } from './provider.js';

export class LocalInvitationProvider implements InvitationProvider {
  readonly name = 'local' as const;

  constructor(private readonly now: () => Date = () => new Date()) {}

  async send(inv: SendInvitation): Promise<SentInvitation> {
    const created = this.now();
    const expires = new Date(created.getTime() + inv.expiresInDays * 86_400_000);
    return { id: `invitation_${base62(randomBytes(16), 22)}`, createdAt: created.toISOString(), expiresAt: expires.toISOString() };
  }

  async revoke(_id: string): Promise<void> {
    // Nothing was sent anywhere; the store marks it revoked.
  }
}
