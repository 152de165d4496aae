// API keys: `twk_` + 32 random bytes in base62, stored only as SHA-256 plus a short display prefix.
// A key acts with its creator's role as of each request; revoked rows are kept.

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from './database.js';
import type { Principal } from '../auth/principal.js';

export const API_KEY_PREFIX = 'twk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256: every 32-byte value fits in 43 base62 digits. */
const SECRET_DIGITS = 43;
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

export function base62(bytes: Buffer, digits: number): string {
  let n = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out.padStart(digits, '0');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The shape a key token must have; anything else is refused without a lookup. */
const TOKEN_SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_DIGITS}}$`);

export interface ApiKeyRow {
  id: string;
  organization_id: string;
  name: string;
  prefix: string;
  created_by: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface ApiKeyListRow extends ApiKeyRow {
  creator_email: string;
  creator_first_name: string;
  creator_last_name: string;
}

export class ApiKeyStore {
  constructor(private readonly db: Db) {}

  /** Mint a key; the token is returned here once and never stored. */
  create(input: { orgId: string; userId: string; name: string; expiresAt: string; now?: Date }): { key: ApiKeyRow; token: string } {
    const token = API_KEY_PREFIX + base62(randomBytes(32), SECRET_DIGITS);
    const key: ApiKeyRow = {
      id: randomUUID(),
      organization_id: input.orgId,
      name: input.name,
      prefix: token.slice(0, DISPLAY_PREFIX_LENGTH),
      created_by: input.userId,
      created_at: (input.now ?? new Date()).toISOString(),
      expires_at: input.expiresAt,
      revoked_at: null,
    };
    this.db
      .prepare(
        `INSERT INTO api_keys (id, organization_id, name, token_sha256, prefix, created_by, created_at, expires_at, revoked_at)
         VALUES (@id, @organization_id, @name, @token_sha256, @prefix, @created_by, @created_at, @expires_at, NULL)`,
      )
      .run({ ...key, token_sha256: hashToken(token) });
    return { key, token };
  }

  /** Keys of an organization that are not revoked (expired ones included), oldest first. */
  count(orgId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM api_keys WHERE organization_id = ? AND revoked_at IS NULL').get(orgId) as { n: number }).n;
  }

  list(orgId: string, limit: number, offset: number): ApiKeyListRow[] {
    return this.db
      .prepare(
        `SELECT k.*, u.email AS creator_email, u.first_name AS creator_first_name, u.last_name AS creator_last_name
         FROM api_keys k JOIN users u ON u.id = k.created_by
         WHERE k.organization_id = ? AND k.revoked_at IS NULL
         ORDER BY k.created_at ASC, k.rowid ASC LIMIT ? OFFSET ?`,
      )
      .all(orgId, limit, offset) as ApiKeyListRow[];
  }

  /** A live (not revoked) key of this organization. */
  find(orgId: string, id: string): ApiKeyRow | undefined {
    return this.db.prepare('SELECT * FROM api_keys WHERE id = ? AND organization_id = ? AND revoked_at IS NULL').get(id, orgId) as ApiKeyRow | undefined;
  }

  /** Revoke a key of this organization; false when unknown, another org's, or already revoked. */
  revoke(orgId: string, id: string, now = new Date()): boolean {
    const r = this.db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND organization_id = ? AND revoked_at IS NULL')
      .run(now.toISOString(), id, orgId);
    return r.changes === 1;
  }

  /** The principal a key acts as right now, or undefined (malformed, unknown, revoked, expired, creator gone). */
  authenticate(token: string, now = new Date()): Principal | undefined {
    if (!TOKEN_SHAPE.test(token)) return undefined;
    const row = this.db
      .prepare(
        `SELECT k.id, k.organization_id, k.created_by, k.expires_at, k.revoked_at, m.role, u.email
         FROM api_keys k
         JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.created_by AND m.active = 1
           -- keys created before their creator was removed stay dead after an invitation back
           AND (m.tokens_valid_after IS NULL OR CAST(strftime('%s', k.created_at) AS INTEGER) >= m.tokens_valid_after)
         JOIN users u ON u.id = k.created_by
         WHERE k.token_sha256 = ?`,
      )
      .get(hashToken(token)) as
      | { id: string; organization_id: string; created_by: string; expires_at: string; revoked_at: string | null; role: 'admin' | 'member'; email: string }
      | undefined;
    if (!row || row.revoked_at !== null || Date.parse(row.expires_at) <= now.getTime()) return undefined;
    return { kind: 'api_key', userId: row.created_by, email: row.email, orgId: row.organization_id, role: row.role, apiKeyId: row.id };
  }
}
