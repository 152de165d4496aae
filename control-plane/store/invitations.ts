// Invitations into an organization, as sent through the identity-provider adapter. Pending means
// state 'pending' and not yet expired (invitations expire 7 days after creation).

import type { Db } from './database.js';
import type { Role } from '../auth/principal.js';

export interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: Role;
  state: 'pending' | 'revoked' | 'accepted';
  provider: string;
  created_at: string;
  expires_at: string;
  invited_by: string | null;
  closed_at: string | null;
}

const PENDING = `state = 'pending' AND expires_at > ?`;

export class InvitationStore {
  constructor(private readonly db: Db) {}

  insert(row: Omit<InvitationRow, 'state' | 'closed_at'>): InvitationRow {
    const full: InvitationRow = { ...row, state: 'pending', closed_at: null };
    this.db
      .prepare(
        `INSERT INTO invitations (id, organization_id, email, role, state, provider, created_at, expires_at, invited_by, closed_at)
         VALUES (@id, @organization_id, @email, @role, @state, @provider, @created_at, @expires_at, @invited_by, @closed_at)`,
      )
      .run(full);
    return full;
  }

  /** The pending invitation of this email into this organization, if any (emails compare case-insensitively). */
  pendingFor(orgId: string, email: string, now = new Date()): InvitationRow | undefined {
    return this.db
      .prepare(`SELECT * FROM invitations WHERE organization_id = ? AND lower(email) = lower(?) AND ${PENDING} LIMIT 1`)
      .get(orgId, email, now.toISOString()) as InvitationRow | undefined;
  }

  pending(orgId: string, id: string, now = new Date()): InvitationRow | undefined {
    return this.db.prepare(`SELECT * FROM invitations WHERE organization_id = ? AND id = ? AND ${PENDING}`).get(orgId, id, now.toISOString()) as
      | InvitationRow
      | undefined;
  }

  countPending(orgId: string, now = new Date()): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM invitations WHERE organization_id = ? AND ${PENDING}`).get(orgId, now.toISOString()) as { n: number }).n;
  }

  /** Pending invitations, newest first. */
  listPending(orgId: string, limit: number, offset: number, now = new Date()): InvitationRow[] {
    return this.db
      .prepare(`SELECT * FROM invitations WHERE organization_id = ? AND ${PENDING} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`)
      .all(orgId, now.toISOString(), limit, offset) as InvitationRow[];
  }

  close(id: string, state: 'revoked' | 'accepted', now = new Date()): void {
    this.db.prepare(`UPDATE invitations SET state = ?, closed_at = ? WHERE id = ? AND state = 'pending'`).run(state, now.toISOString(), id);
  }

  /** A member whose token names this organization has joined: their pending invitations are accepted. */
  acceptFor(orgId: string, email: string, now = new Date()): void {
    this.db
      .prepare(`UPDATE invitations SET state = 'accepted', closed_at = ? WHERE organization_id = ? AND lower(email) = lower(?) AND state = 'pending'`)
      .run(now.toISOString(), orgId, email);
  }
}
