// One-time console sign-in tickets of the embedded identity provider (TWINS_IDP=local).
//
// `twins console` holds the local signing key (it runs beside the server, on the same data
// directory) and signs a short-lived *ticket*: a JWT whose audience is not the API's, so it is
// never accepted as an access token. The sign-in URL carries it in the fragment (`/#ticket=…`),
// which browsers never send to a server, so no server or proxy logs it. The console page posts it
// once to `POST /auth/token`; the service checks the signature, the expiry and that its `jti` was
// never redeemed before (recorded in SQLite, so a restart does not reopen it), and answers an
// access token for the identity the ticket names. Whoever can sign a ticket can already mint
// tokens with `twins token`: the exchange adds no way to obtain a token without the key.

import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Db } from '../store/database.js';
import { LOCAL_ISSUER, mintLocalToken, type LocalKeys } from '../auth/local-idp.js';

/** Audience of tickets: the API's verifier (audience `twins`) refuses them as access tokens. */
export const TICKET_AUDIENCE = 'twins-console-sign-in';
/** How long a printed sign-in URL can be used. */
export const TICKET_TTL_SECONDS = 120;
/** Lifetime of the access token a ticket is exchanged for, unless the ticket asks for another. */
export const DEFAULT_SESSION_SECONDS = 8 * 3600;
export const MAX_SESSION_SECONDS = 24 * 3600;

export interface TicketRequest {
  email: string;
  org: string;
  role: 'admin' | 'member';
  firstName?: string;
  lastName?: string;
  /** Lifetime of the console session (the access token), seconds. */
  sessionSeconds?: number;
  /** Lifetime of the ticket itself, seconds. */
  ttlSeconds?: number;
}

export async function mintSignInTicket(keys: LocalKeys, req: TicketRequest, now = new Date()): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  const session = req.sessionSeconds ?? DEFAULT_SESSION_SECONDS;
  if (!Number.isInteger(session) || session <= 0 || session > MAX_SESSION_SECONDS) {
    throw new Error(`The session lifetime must be a whole number of seconds from 1 to ${MAX_SESSION_SECONDS}.`);
  }
  return new SignJWT({
    email: req.email,
    given_name: req.firstName ?? '',
    family_name: req.lastName ?? '',
    org_id: req.org,
    org_role: req.role,
    session_seconds: session,
  })
    .setProtectedHeader({ alg: 'ES256', kid: keys.publicJwk.kid, typ: 'JWT' })
    .setIssuer(LOCAL_ISSUER)
    .setAudience(TICKET_AUDIENCE)
    .setSubject(`local|${req.email.toLowerCase()}`)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + (req.ttlSeconds ?? TICKET_TTL_SECONDS))
    .sign(keys.privateKey);
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** Why a ticket was refused: the sentence the 401 carries. */
export class TicketRefused extends Error {}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

export class SignInTickets {
  private readonly keySet;
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly keys: LocalKeys,
  ) {
    this.keySet = createLocalJWKSet({ keys: [keys.publicJwk] });
    this.stmts = {
      redeem: db.prepare('INSERT OR IGNORE INTO console_sign_in_tickets (jti, redeemed_at, expires_at) VALUES (?, ?, ?)'),
      forgetExpired: db.prepare('DELETE FROM console_sign_in_tickets WHERE expires_at < ?'),
    };
  }

  /** Check the ticket, mark it used, and mint the access token it stands for. */
  async redeem(ticket: string, now = new Date()): Promise<IssuedToken> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(ticket, this.keySet, { issuer: LOCAL_ISSUER, audience: TICKET_AUDIENCE, currentDate: now }));
    } catch {
      throw new TicketRefused('The sign-in link is not valid or has expired; run `twins console` again for a new one.');
    }
    const jti = str(payload.jti);
    const email = str(payload.email);
    const org = str(payload.org_id);
    const role = payload.org_role;
    const session = payload.session_seconds;
    if (
      !jti ||
      !email ||
      !org ||
      (role !== 'admin' && role !== 'member') ||
      typeof session !== 'number' ||
      !Number.isInteger(session) ||
      session <= 0 ||
      session > MAX_SESSION_SECONDS
    ) {
      throw new TicketRefused('The sign-in link is not valid; run `twins console` again for a new one.');
    }
    const nowIso = now.toISOString();
    const expiresAt = new Date((payload.exp ?? 0) * 1000).toISOString();
    const fresh = this.db.transaction(() => {
      this.stmts.forgetExpired.run(nowIso);
      return this.stmts.redeem.run(jti, nowIso, expiresAt).changes === 1;
    })();
    if (!fresh) throw new TicketRefused('This sign-in link was already used; run `twins console` again for a new one.');
    const accessToken = await mintLocalToken(this.keys, {
      email,
      org,
      role,
      firstName: str(payload.given_name),
      lastName: str(payload.family_name),
      sub: str(payload.sub),
      ttlSeconds: session,
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: session };
  }
}
