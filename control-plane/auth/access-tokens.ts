// Verifying identity-provider access tokens (JWTs) and reading the claims we use (docs/decisions.md §4).

import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config.js';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalKeys } from './local-idp.js';

export interface TokenIdentity {
  sub: string;
  /** Absent from some providers' access tokens (WorkOS, Clerk by default): the stored one is kept. */
  email?: string;
  /** Absent names keep the stored ones. */
  firstName?: string;
  lastName?: string;
  orgExternalId: string;
  orgName?: string;
  role: 'admin' | 'member';
  /** `iat` (unix seconds): tokens issued before a member's removal are refused. */
  issuedAt?: number;
}

/**
 * Tokens verified lately, kept (issue 33): an ES256 check costs ~0.36 ms of CPU and is paid before
 * a request's organization is known, so the organization's share of the API thread cannot charge
 * it; at 200 requests a second that was ~70 ms a second no limit held. A client sending the same
 * token again is answered from here until the token expires, or for VERIFIED_TTL_MS at most (a
 * remote key set may rotate). Keyed by the whole token: only the same bytes hit.
 */
const VERIFIED_SIZE = 1024;
const VERIFIED_TTL_MS = 60_000;

export interface TokenVerifierOptions {
  /** Wall clock in ms (default Date.now; tests move it). */
  now?: () => number;
}

export class TokenVerifier {
  private readonly keySet: JWTVerifyGetKey;
  private readonly issuer?: string;
  private readonly audience?: string;
  private readonly now: () => number;
  private readonly verified = new Map<string, { identity: Readonly<TokenIdentity>; until: number }>();

  constructor(config: Config, localKeys: LocalKeys | undefined, options: TokenVerifierOptions = {}) {
    this.now = options.now ?? Date.now;
    if (config.idp === 'local') {
      if (!localKeys) throw new Error('The local identity provider needs its keys.');
      this.keySet = createLocalJWKSet({ keys: [localKeys.publicJwk] });
      this.issuer = LOCAL_ISSUER;
      this.audience = LOCAL_AUDIENCE;
    } else {
      if (!config.idpJwksUrl) throw new Error('TWINS_IDP=oidc needs TWINS_IDP_JWKS_URL.');
      this.keySet = createRemoteJWKSet(new URL(config.idpJwksUrl));
      this.issuer = config.idpIssuer;
      this.audience = config.idpAudience;
    }
  }

  /** The identity a token carries, or undefined when it is not a valid, trusted token. */
  async verify(token: string): Promise<Readonly<TokenIdentity> | undefined> {
    const now = this.now();
    const known = this.verified.get(token);
    if (known && known.until > now) return known.identity;
    if (known) this.verified.delete(token);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keySet, {
        issuer: this.issuer,
        audience: this.audience,
        currentDate: new Date(now),
      }));
    } catch {
      return undefined;
    }
    const identity = readClaims(payload);
    if (!identity) return undefined;
    const until = Math.min(now + VERIFIED_TTL_MS, typeof payload.exp === 'number' ? payload.exp * 1000 : now);
    if (until > now) {
      // The oldest entry makes room (a Map iterates in insertion order).
      if (this.verified.size >= VERIFIED_SIZE) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, { identity: Object.freeze(identity), until });
    }
    return identity;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Our claims, Clerk v2 (`o.id`/`o.rol`) and WorkOS (`org_id` + `role`). */
export function readClaims(p: JWTPayload): TokenIdentity | undefined {
  const o = (p as { o?: { id?: unknown; rol?: unknown; slg?: unknown } }).o;
  const sub = str(p.sub);
  const email = str(p.email);
  const orgExternalId = str(p.org_id) ?? str(o?.id);
  const rawRole = str(p.org_role) ?? str(o?.rol) ?? str(p.role);
  if (!sub || !orgExternalId || !rawRole) return undefined;
  const role = rawRole.replace(/^org:/, '');
  if (role !== 'admin' && role !== 'member') return undefined;
  return {
    sub,
    email,
    firstName: str(p.given_name),
    lastName: str(p.family_name),
    orgExternalId,
    orgName: str(p.org_name) ?? str(o?.slg),
    role,
    issuedAt: typeof p.iat === 'number' ? p.iat : undefined,
  };
}
