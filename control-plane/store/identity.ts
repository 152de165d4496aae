// Organizations, users and memberships, refreshed from each verified token.

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
}

export class IdentityStore {
  /** Told about each organization this store creates (billing creates its customer). */
  onOrganizationCreated?: (org: OrganizationRow) => void;

  constructor(private readonly db: Db, private readonly defaultPlan: PlanName) {}

  /** Create or refresh the organization, user and membership a verified token names. */
  upsertFromToken(id: TokenIdentity): { org: OrganizationRow; user: UserRow; membership: MembershipRow } {
    let created: OrganizationRow | undefined;
    const out = this.db.transaction(() => {
      const now = new Date().toISOString();
      let org = this.db.prepare('SELECT * FROM organizations WHERE external_id = ?').get(id.orgExternalId) as OrganizationRow | undefined;
      if (!org) {
        org = { id: randomUUID(), external_id: id.orgExternalId, name: id.orgName ?? id.orgExternalId, plan: this.defaultPlan, created_at: now };
        this.db.prepare('INSERT INTO organizations (id, external_id, name, plan, created_at) VALUES (@id, @external_id, @name, @plan, @created_at)').run(org);
        created = org;
      }
      let user = this.db.prepare('SELECT * FROM users WHERE external_id = ?').get(id.sub) as UserRow | undefined;
      if (!user) {
        user = { id: randomUUID(), external_id: id.sub, email: id.email ?? '', first_name: id.firstName ?? '', last_name: id.lastName ?? '', created_at: now };
        this.db.prepare('INSERT INTO users (id, external_id, email, first_name, last_name, created_at) VALUES (@id, @external_id, @email, @first_name, @last_name, @created_at)').run(user);
      } else {
        const email = id.email ?? user.email;
        const first = id.firstName ?? user.first_name;
        const last = id.lastName ?? user.last_name;
        if (user.email !== email || user.first_name !== first || user.last_name !== last) {
          this.db.prepare('UPDATE users SET email = ?, first_name = ?, last_name = ? WHERE id = ?').run(email, first, last, user.id);
          user = { ...user, email, first_name: first, last_name: last };
        }
      }
      this.db
        .prepare(
          `INSERT INTO memberships (organization_id, user_id, role, joined_at, active) VALUES (?, ?, ?, ?, 1)
           ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role, active = 1,
             joined_at = CASE WHEN memberships.active = 0 THEN excluded.joined_at ELSE memberships.joined_at END`,
        )
        .run(org.id, user.id, id.role, now);
      const membership = this.membership(org.id, user.id)!;
      return { org, user, membership };
    })();
    if (created) this.onOrganizationCreated?.(created);
    return out;
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
   * The user leaves the organization (their API keys stop working: a key needs its creator to be
   * a member). A later token naming the organization makes them a member again.
   */
  removeMember(orgId: string, userId: string): boolean {
    return this.db.prepare('UPDATE memberships SET active = 0 WHERE organization_id = ? AND user_id = ? AND active = 1').run(orgId, userId).changes === 1;
  }

  membership(orgId: string, userId: string): MembershipRow | undefined {
    return this.db.prepare('SELECT * FROM memberships WHERE organization_id = ? AND user_id = ? AND active = 1').get(orgId, userId) as
      | MembershipRow
      | undefined;
  }
}
