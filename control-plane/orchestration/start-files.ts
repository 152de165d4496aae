// The internal route a twin fetches its starting file (seed or snapshot) from at first start, when
// its driver runs it where the control plane's files are out of reach (kubernetes: a Pod). The
// route answers only with a short-lived token minted for that one twin (HMAC over the twin id and
// an expiry, with a key this control plane process keeps in memory): no token, a wrong or expired
// one, or one for another twin get the same 401, so nothing tells whether another twin exists.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Where a twin's starting file is served, relative to the control plane's base URL. */
export function startFilePath(twinId: string): string {
  return `/internal/twins/${encodeURIComponent(twinId)}/start-file`;
}

/** Long enough for an image pull and a Pod to be scheduled; a restarted container keeps its data volume, so it does not fetch again. */
export const START_FILE_TOKEN_TTL_MS = 15 * 60_000;

export class StartFileTokens {
  constructor(
    private readonly key: Buffer = randomBytes(32),
    private readonly ttlMs = START_FILE_TOKEN_TTL_MS,
  ) {}

  private sign(twinId: string, expiresMs: number): string {
    return createHmac('sha256', this.key).update(`start-file\n${twinId}\n${expiresMs}`).digest('base64url');
  }

  /** A token that opens `twinId`'s starting file until `now + ttl`. */
  mint(twinId: string, now = Date.now()): string {
    const expires = now + this.ttlMs;
    return `${expires}.${this.sign(twinId, expires)}`;
  }

  /** Whether `token` was minted for `twinId` and has not expired. */
  verify(token: string | undefined, twinId: string, now = Date.now()): boolean {
    const m = token ? /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token) : null;
    if (!m) return false;
    const expires = Number(m[1]);
    if (!(expires > now)) return false;
    const given = Buffer.from(m[2]!, 'base64url');
    const expected = Buffer.from(this.sign(twinId, expires), 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** The bearer token of an Authorization header, if any. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = header ? /^Bearer ([^\s]+)$/i.exec(header) : null;
  return m?.[1];
}
