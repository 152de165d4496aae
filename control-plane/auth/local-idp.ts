// The embedded identity provider (TWINS_IDP=local): an ES256 key pair kept in the data directory.
// The public half is served at /.well-known/jwks.json; `twins token` signs access tokens with it.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type CryptoKey } from 'jose';

export const LOCAL_ISSUER = 'twins-local';
export const LOCAL_AUDIENCE = 'twins';
const ALG = 'ES256';

export interface LocalKeys {
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** Load the local signing key of a data directory, creating it on first use. */
export async function loadLocalKeys(dataDir: string): Promise<LocalKeys> {
  const file = join(dataDir, 'local-idp-key.json');
  let jwk: JWK;
  if (existsSync(file)) {
    jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  } else {
    const pair = await generateKeyPair(ALG, { extractable: true });
    jwk = { ...(await exportJWK(pair.privateKey)), alg: ALG, use: 'sig' };
    jwk.kid = `local-${Date.now().toString(36)}`;
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(jwk), { mode: 0o600 });
  }
  const privateKey = (await importJWK(jwk, ALG)) as CryptoKey;
  const { d: _d, ...publicJwk } = jwk;
  return { privateKey, publicJwk };
}

export interface TokenRequest {
  email: string;
  org: string;
  role: 'admin' | 'member';
  firstName?: string;
  lastName?: string;
  ttlSeconds?: number;
  /** Subject; defaults to a stable id derived from the email. */
  sub?: string;
}

export async function mintLocalToken(keys: LocalKeys, req: TokenRequest): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    email: req.email,
    given_name: req.firstName ?? '',
    family_name: req.lastName ?? '',
    org_id: req.org,
    org_name: req.org,
    org_role: req.role,
  })
    .setProtectedHeader({ alg: ALG, kid: keys.publicJwk.kid, typ: 'JWT' })
    .setIssuer(LOCAL_ISSUER)
    .setAudience(LOCAL_AUDIENCE)
    .setSubject(req.sub ?? `local|${req.email.toLowerCase()}`)
    .setIssuedAt(now)
    .setExpirationTime(now + (req.ttlSeconds ?? 3600))
    .sign(keys.privateKey);
}
