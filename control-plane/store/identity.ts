// Organizations, users and memberships, refreshed from verified tokens. Reading a token writes
// nothing unless something changed (a new user, a new role, a new name), so authentication keeps
// working on a full disk. A member an admin removed stays removed: their tokens and API keys from
// before the removal answer 401, and a later token only brings them back with a new invitation.

import { randomUUID } from 'node:crypto';
import type { Db } from './database.js';
import type { PlanName } from '../config.js';
import type { TokenIdentity } from '../auth/access-tokens.js';

export interface OrganizationRow {
  id: string;
  external_id: string;
  name: string;
  plan: PlanName;
  created_at: string;
}

export interface UserRow {
  id: string;
  external_id: string;
  email: string;
  first_name: string;
  last_name: string;
  created_at: string;
}

export interface MembershipRow {
  organization_id: string;
  user_id: string;
  role: 'admin' | 'member';
  joined_at: string;
  active: number;
  removed_at: string | null;
  /** Unix seconds: tokens issued earlier (and API keys created earlier) are refused. */
  tokens_valid_after: number | null;
}

/** What a verified token amounts to. */
export type TokenOutcome = { ok: true; org: OrganizationRow; user: UserRow; membership: MembershipRow; joined: boolean } | { ok: false; reason: string };

export class IdentityStore {
  /** Told about each organization this store creates (billing creates its customer). */
  onOrganizationCreated?: (org: OrganizationRow) => void;

  constructor(
    private readonly db: Db,
    private readonly defaultPlan: PlanName,
  ) {}

  /**
   * The organization, user and membership a verified token names, created or refreshed as needed.
   * `pendingInvitation` says whether the token's holder has an invitation waiting (it re-admits a
   * removed member). Writes only when something is new or changed.
   */
  resolveToken(id: TokenIdentity, pendingInvitation: (orgId: string, email: string) => boolean): TokenOutcome {
    const read = () => ({
      org: this.db.prepare('SELECT * FROM organizations WHERE external_id = ?').get(id.orgExternalId) as OrganizationRow | undefined,
      user: this.db.prepare('SELECT * FROM users WHERE external_id = ?').get(id.sub) as UserRow | undefined,
    });
    const { org, user } = read();
    const membership = org && user ? this.anyMembership(org.id, user.id) : undefined;
    const email = id.email ?? user?.email ?? '';
    const first = id.firstName ?? user?.first_name ?? '';
    const last = id.lastName ?? user?.last_name ?? '';
    const issued = id.issuedAt ?? Math.floor(Date.now() / 1000);
    // Tokens from before a removal never count again.
    if (membership?.tokens_valid_after != null && issued < membership.tokens_valid_after) {
      return { ok: false, reason: 'This token was issued before the holder was removed from the organization.' };
    }
    const removed = membership !== undefined && membership.active === 0;
    const invited = removed ? pendingInvitation(org!.id, email) : false;
    if (removed && !invited) return { ok: false, reason: 'The holder of this token was removed from the organization; an admin must invite them again.' };
    const unchanged =
      org && user && membership && !removed && membership.role === id.role && user.email === email && user.first_name === first && user.last_name === last;
    if (unchanged) return { ok: true, org, user, membership, joined: false };

    let created: OrganizationRow | undefined;
    const outcome = this.db.transaction((): TokenOutcome => {
      const now = new Date().toISOString();
      let o = this.db.prepare('SELECT * FROM organizations WHERE external_id = ?').get(id.orgExternalId) as OrganizationRow | undefined;
      if (!o) {
        o = { id: randomUUID(), external_id: id.orgExternalId, name: id.orgName ?? id.orgExternalId, plan: this.defaultPlan, created_at: now };
        this.db.prepare('INSERT INTO organizations (id, external_id, name, plan, created_at) VALUES (@id, @external_id, @name, @plan, @created_at)').run(o);
        created = o;
      }
      let u = this.db.prepare('SELECT * FROM users WHERE external_id = ?').get(id.sub) as UserRow | undefined;
      if (!u) {
        u = { id: randomUUID(), external_id: id.sub, email, first_name: first, last_name: last, created_at: now };
        this.db
          .prepare(
            'INSERT INTO users (id, external_id, email, first_name, last_name, created_at) VALUES (@id, @external_id, @email, @first_name, @last_name, @created_at)',
          )
          .run(u);
      } else if (u.email !== email || u.first_name !== first || u.last_name !== last) {
        this.db.prepare('UPDATE users SET email = ?, first_name = ?, last_name = ? WHERE id = ?').run(email, first, last, u.id);
        u = { ...u, email, first_name: first, last_name: last };
      }
      const existing = this.anyMembership(o.id, u.id);
      if (!existing) {
        this.db.prepare('INSERT INTO memberships (organization_id, user_id, role, joined_at, active) VALUES (?, ?, ?, ?, 1)').run(o.id, u.id, id.role, now);
      } else if (existing.active === 0) {
        // Invited again: back in, with the role of this token; older tokens and keys stay refused.
        this.db
          .prepare('UPDATE memberships SET active = 1, role = ?, joined_at = ?, removed_at = NULL WHERE organization_id = ? AND user_id = ?')
          .run(id.role, now, o.id, u.id);
      } else if (existing.role !== id.role) {
        this.db.prepare('UPDATE memberships SET role = ? WHERE organization_id = ? AND user_id = ?').run(id.role, o.id, u.id);
      }
      const m = this.membership(o.id, u.id)!;
      return { ok: true, org: o, user: u, membership: m, joined: !existing || existing.active === 0 };
    })();
    if (created) this.onOrganizationCreated?.(created);
    return outcome;
  }

  /**
   * The local identity provider vouches for a token it mints (`twins token`): its holder is a member
   * from that moment, before their first call. A removed member is not brought back this way.
   */
  registerLocalMember(id: TokenIdentity): void {
    this.resolveToken(id, () => false);
  }

  /** The membership whether active or removed. */
  private anyMembership(orgId: string, userId: string): MembershipRow | undefined {
    return this.db.prepare('SELECT * FROM memberships WHERE organization_id = ? AND user_id = ?').get(orgId, userId) as MembershipRow | undefined;
  }

  /** Active admins of the organization. */
  countAdmins(orgId: string): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM memberships WHERE organization_id = ? AND active = 1 AND role = 'admin'").get(orgId) as { n: number }).n;
  }

  organization(id: string): OrganizationRow | undefined {
    return this.db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as OrganizationRow | undefined;
  }

  user(id: string): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
  }

  /** The active member of this organization with that email (case-insensitive), if any. */
  memberByEmail(orgId: string, email: string): MembershipRow | undefined {
    return this.db
      .prepare(
        `SELECT m.* FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.organization_id = ? AND m.active = 1 AND lower(u.email) = lower(?) LIMIT 1`,
      )
      .get(orgId, email) as MembershipRow | undefined;
  }

  countMembers(orgId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM memberships WHERE organization_id = ? AND active = 1').get(orgId) as { n: number }).n;
  }

  /** Active members with their user fields, newest first. */
  listMembers(orgId: string, limit: number, offset: number): (MembershipRow & Pick<UserRow, 'email' | 'first_name' | 'last_name'>)[] {
    return this.db
      .prepare(
        `SELECT m.*, u.email, u.first_name, u.last_name FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.organization_id = ? AND m.active = 1
         ORDER BY m.joined_at DESC, m.rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(orgId, limit, offset) as (MembershipRow & Pick<UserRow, 'email' | 'first_name' | 'last_name'>)[];
  }

  /**
   * The user leaves the organization: their tokens issued until now and the API keys they created
   * answer 401 from now on, and no later token brings them back without a new invitation.
   */
  removeMember(orgId: string, userId: string, now = new Date()): boolean {
    // Whole seconds (token `iat`): a token minted in the second of the removal counts as before it.
    const validAfter = Math.floor(now.getTime() / 1000) + 1;
    return (
      this.db
        .prepare('UPDATE memberships SET active = 0, removed_at = ?, tokens_valid_after = ? WHERE organization_id = ? AND user_id = ? AND active = 1')
        .run(now.toISOString(), validAfter, orgId, userId).changes === 1
    );
  }

  membership(orgId: string, userId: string): MembershipRow | undefined {
    return this.db.prepare('SELECT * FROM memberships WHERE organization_id = ? AND user_id = ? AND active = 1').get(orgId, userId) as
      | MembershipRow
      | undefined;
  }
}
