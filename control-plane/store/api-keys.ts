// API keys: `twk_` + 32 random bytes in base62, stored only as SHA-256 plus a short display prefix.
// A key acts with its creator's role as of each request.

import { createHash } from 'node:crypto';
import type { Db } from './database.js';
import type { Principal } from '../auth/principal.js';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class ApiKeyStore {
  constructor(private readonly db: Db) {}

  /** The principal a key acts as right now, or undefined (unknown, revoked, expired, creator gone). */
  authenticate(token: string): Principal | undefined {
    const row = this.db
      .prepare(
        `SELECT k.id, k.organization_id, k.created_by, k.expires_at, k.revoked_at, m.role, u.email
         FROM api_keys k
         JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.created_by AND m.active = 1
         JOIN users u ON u.id = k.created_by
         WHERE k.token_sha256 = ?`,
      )
      .get(hashToken(token)) as
      | { id: string; organization_id: string; created_by: string; expires_at: string; revoked_at: string | null; role: 'admin' | 'member'; email: string }
      | undefined;
    if (!row || row.revoked_at !== null || Date.parse(row.expires_at) <= Date.now()) return undefined;
    return { kind: 'api_key', userId: row.created_by, email: row.email, orgId: row.organization_id, role: row.role, apiKeyId: row.id };
  }
}
