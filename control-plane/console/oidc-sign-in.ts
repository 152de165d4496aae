// Console sign-in under TWINS_IDP=oidc: an authorization-code + PKCE redirect to the configured
// issuer. The page builds the redirect (its own state and code verifier, kept in sessionStorage)
// and the control plane does the code exchange at the issuer's token endpoint, so the page only
// ever talks to the control plane's own address and the identity provider needs no CORS for it.
// The deployment names the issuer (TWINS_IDP_ISSUER), a public client registered there for the
// console (TWINS_CONSOLE_CLIENT_ID, redirect URI `<control plane>/`), and optionally the scope
// (TWINS_CONSOLE_SCOPE) and the audience to ask for (TWINS_IDP_AUDIENCE).

import type { Config } from '../config.js';
import { badGateway, unauthorized } from '../http/errors.js';

export interface OidcEndpoints {
  authorization_endpoint: string;
  token_endpoint: string;
}

const DISCOVERY_TTL_MS = 10 * 60_000;
const TIMEOUT_MS = 10_000;
/** A token endpoint answer larger than this is not a token answer. */
const MAX_TOKEN_RESPONSE_BYTES = 256 * 1024;

function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

export class OidcSignIn {
  private cached?: { at: number; endpoints: OidcEndpoints };

  constructor(private readonly config: Config) {}

  get configured(): boolean {
    return this.config.idp === 'oidc' && !!this.config.idpIssuer && !!this.config.consoleClientId;
  }

  /** Why the console cannot sign in with the identity provider here, or undefined when it can. */
  get missing(): string | undefined {
    if (this.config.idp !== 'oidc') return 'This deployment uses the embedded identity provider.';
    if (!this.config.idpIssuer) return 'TWINS_IDP_ISSUER is not set, so the console cannot find the identity provider.';
    if (!this.config.consoleClientId) return 'TWINS_CONSOLE_CLIENT_ID is not set: register a public client for the console at the identity provider.';
    return undefined;
  }

  /** The issuer's endpoints from its discovery document (cached for ten minutes). */
  async endpoints(): Promise<OidcEndpoints> {
    if (this.cached && Date.now() - this.cached.at < DISCOVERY_TTL_MS) return this.cached.endpoints;
    const issuer = this.config.idpIssuer!;
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let doc: Record<string, unknown>;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`status ${res.status}`);
      doc = (await res.json()) as Record<string, unknown>;
    } catch (e) {
      throw badGateway(`The identity provider's discovery document (${url}) could not be read: ${(e as Error).message}.`);
    }
    if (!isHttpUrl(doc.authorization_endpoint) || !isHttpUrl(doc.token_endpoint)) {
      throw badGateway(`The identity provider's discovery document (${url}) names no authorization and token endpoints.`);
    }
    const endpoints = { authorization_endpoint: doc.authorization_endpoint, token_endpoint: doc.token_endpoint };
    this.cached = { at: Date.now(), endpoints };
    return endpoints;
  }

  /** Exchange an authorization code (with its PKCE verifier) for the provider's access token. */
  async exchange(code: string, codeVerifier: string, redirectUri: string): Promise<{ accessToken: string; expiresIn?: number }> {
    const { token_endpoint } = await this.endpoints();
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: codeVerifier,
      redirect_uri: redirectUri,
      client_id: this.config.consoleClientId!,
    });
    let status: number;
    let body: Record<string, unknown> | undefined;
    try {
      const res = await fetch(token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = res.status;
      const text = await res.text();
      if (text.length > MAX_TOKEN_RESPONSE_BYTES) throw new Error('the answer is too large');
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
    } catch (e) {
      throw badGateway(`The identity provider's token endpoint could not be reached: ${(e as Error).message}.`);
    }
    // RFC 6749 §5.2: a refused grant is 400 with `error` (invalid_grant for a used or wrong code).
    if (status === 400 || status === 401) {
      const reason = typeof body?.error_description === 'string' ? body.error_description : typeof body?.error === 'string' ? body.error : `status ${status}`;
      throw unauthorized(`The identity provider refused the sign-in: ${reason}.`);
    }
    if (status !== 200 || typeof body?.access_token !== 'string') {
      throw badGateway(`The identity provider's token endpoint answered ${status} without an access token.`);
    }
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? Math.floor(body.expires_in) : undefined;
    return { accessToken: body.access_token, expiresIn };
  }
}
