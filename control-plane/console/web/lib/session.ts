// The console's credential: an access token kept in sessionStorage (this tab only; closing it signs
// out), obtained once per sign-in from a one-time proof — a `twins console` ticket carried in the
// URL fragment, or an OIDC authorization code — exchanged at POST /auth/token. API keys are never
// typed into the page.

const TOKEN_KEY = 'twins.console.token';
const PKCE_KEY = 'twins.console.pkce';

interface StoredToken {
  token: string;
  /** Epoch milliseconds, or null when the issuer did not say. */
  expiresAt: number | null;
}

type Listener = () => void;
const listeners = new Set<Listener>();

export function onSessionChange(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function notify(): void {
  for (const fn of listeners) fn();
}

export function accessToken(): string | undefined {
  const raw = sessionStorage.getItem(TOKEN_KEY);
  if (!raw) return undefined;
  try {
    const stored = JSON.parse(raw) as StoredToken;
    if (stored.expiresAt !== null && stored.expiresAt <= Date.now()) {
      sessionStorage.removeItem(TOKEN_KEY);
      return undefined;
    }
    return stored.token;
  } catch {
    sessionStorage.removeItem(TOKEN_KEY);
    return undefined;
  }
}

export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  notify();
}

function store(token: string, expiresIn: number | null): void {
  const stored: StoredToken = { token, expiresAt: expiresIn === null ? null : Date.now() + expiresIn * 1000 };
  sessionStorage.setItem(TOKEN_KEY, JSON.stringify(stored));
  notify();
}

interface TokenAnswer {
  access_token: string;
  expires_in: number | null;
}

async function exchange(body: Record<string, string>): Promise<void> {
  const res = await fetch('/auth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    cache: 'no-store',
  });
  const answer = (await res.json().catch(() => ({}))) as Partial<TokenAnswer> & { detail?: unknown };
  if (!res.ok || typeof answer.access_token !== 'string') {
    throw new Error(typeof answer.detail === 'string' ? answer.detail : `Sign-in failed (status ${res.status}).`);
  }
  store(answer.access_token, answer.expires_in ?? null);
}

/**
 * A sign-in the address carries, consumed before anything else runs: the ticket of a
 * `twins console` link (`#ticket=…`) or an OIDC redirect (`?code=…&state=…`). The address is
 * cleaned first, so the proof is neither kept in history nor bookmarked.
 */
export async function consumeSignInFromAddress(): Promise<{ error?: string } | undefined> {
  const hash = location.hash;
  if (hash.startsWith('#ticket=')) {
    const ticket = decodeURIComponent(hash.slice('#ticket='.length));
    history.replaceState(null, '', location.pathname + '#/environments');
    try {
      await exchange({ grant_type: 'sign_in_ticket', ticket });
      return {};
    } catch (e) {
      return { error: (e as Error).message };
    }
  }
  const params = new URLSearchParams(location.search);
  if (params.has('code') || params.has('error')) {
    const pending = readPkce();
    sessionStorage.removeItem(PKCE_KEY);
    history.replaceState(null, '', location.pathname + (pending?.returnTo ?? '#/environments'));
    if (params.has('error')) return { error: `The identity provider refused the sign-in: ${params.get('error_description') ?? params.get('error')}.` };
    if (!pending || params.get('state') !== pending.state) return { error: 'The sign-in answer did not match a sign-in started here; sign in again.' };
    try {
      await exchange({ grant_type: 'authorization_code', code: params.get('code') ?? '', code_verifier: pending.verifier, redirect_uri: redirectUri() });
      return {};
    } catch (e) {
      return { error: (e as Error).message };
    }
  }
  return undefined;
}

// ---- OIDC (authorization code + PKCE, RFC 7636) ------------------------------------------------

interface PendingPkce {
  state: string;
  verifier: string;
  returnTo: string;
}

function readPkce(): PendingPkce | undefined {
  try {
    return JSON.parse(sessionStorage.getItem(PKCE_KEY) ?? 'null') ?? undefined;
  } catch {
    return undefined;
  }
}

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export function redirectUri(): string {
  return `${location.origin}/`;
}

export interface OidcOptions {
  authorization_endpoint: string;
  client_id: string;
  scope: string | null;
  audience: string | null;
}

/** Send the browser to the issuer; it comes back to `/` with a code. */
export async function startOidcSignIn(o: OidcOptions): Promise<void> {
  const verifier = randomString(48);
  const state = randomString(24);
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const returnTo = location.hash && location.hash !== '#/' ? location.hash : '#/environments';
  sessionStorage.setItem(PKCE_KEY, JSON.stringify({ state, verifier, returnTo } satisfies PendingPkce));
  const url = new URL(o.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', o.client_id);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('scope', o.scope ?? 'openid');
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  if (o.audience) url.searchParams.set('audience', o.audience);
  location.assign(url.toString());
}
