// Vaults (beta, managed agents): named holders of credentials an agent's MCP servers use. A
// credential's secret (a static bearer token, an MCP OAuth access token) is write-only: kept, never
// answered. Archiving a vault or a credential is final; an archived one takes no updates.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { AnthropicError, invalid } from '../wire/errors.js';

export const VAULT = 'vault';

const MAX_CREDENTIALS = 1_000;

export interface VaultObject {
  id: string;
  type: 'vault';
  display_name: string;
  metadata: Record<string, string>;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

type Auth = { type: 'static_bearer'; mcp_server_url: string } | { type: 'mcp_oauth'; mcp_server_url: string; expires_at: string | null; refresh: null };

export interface CredentialObject {
  id: string;
  type: 'vault_credential';
  vault_id: string;
  display_name: string | null;
  auth: Auth;
  metadata: Record<string, string>;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

interface StoredVault {
  vault: VaultObject;
  credentials: { credential: CredentialObject; secret: string }[];
}

const now = (ctx: TwinContext) => new Date(ctx.clock.nowMs()).toISOString();

function stored(ctx: TwinContext, id: string): StoredVault {
  const s = ctx.store.get<StoredVault>(VAULT, id);
  if (!s) throw new AnthropicError(404, `Vault not found: ${id}`, 'not_found_error');
  return s;
}

function open(ctx: TwinContext, id: string): StoredVault {
  const s = stored(ctx, id);
  if (s.vault.archived_at) throw invalid(`Vault ${id} is archived.`);
  return s;
}

function checkName(name: string, field: string): void {
  if (name.length < 1 || name.length > 255) throw invalid(`${field}: must be 1 to 255 characters`);
}

/** `metadata` merges: a key set to null is removed. */
function merged(current: Record<string, string>, patch: Record<string, string | null> | undefined): Record<string, string> {
  const out = { ...current };
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v === null) delete out[k];
    else Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  if (Object.keys(out).length > 16) throw invalid('metadata: at most 16 pairs');
  return out;
}

export function createVault(ctx: TwinContext, input: { displayName: string; metadata?: Record<string, string> }): VaultObject {
  checkName(input.displayName, 'display_name');
  const at = now(ctx);
  const vault: VaultObject = {
    id: ctx.ids.nextIn('vlt', 'vlt_011C', 20),
    type: 'vault',
    display_name: input.displayName,
    metadata: input.metadata ?? {},
    archived_at: null,
    created_at: at,
    updated_at: at,
  };
  ctx.store.put(VAULT, vault.id, { vault, credentials: [] } satisfies StoredVault);
  return vault;
}

export function listVaults(ctx: TwinContext, includeArchived: boolean): VaultObject[] {
  return ctx.store
    .list<StoredVault>(VAULT)
    .map((s) => s.vault)
    .filter((v) => includeArchived || !v.archived_at)
    .reverse();
}

export function retrieveVault(ctx: TwinContext, id: string): VaultObject {
  return stored(ctx, id).vault;
}

export function updateVault(ctx: TwinContext, id: string, input: { displayName?: string; metadata?: Record<string, string | null> }): VaultObject {
  const s = open(ctx, id);
  if (input.displayName !== undefined) checkName(input.displayName, 'display_name');
  s.vault = {
    ...s.vault,
    ...(input.displayName !== undefined ? { display_name: input.displayName } : {}),
    metadata: merged(s.vault.metadata, input.metadata),
    updated_at: now(ctx),
  };
  ctx.store.put(VAULT, id, s);
  return s.vault;
}

export function archiveVault(ctx: TwinContext, id: string): VaultObject {
  const s = stored(ctx, id);
  if (!s.vault.archived_at) {
    const at = now(ctx);
    s.vault = { ...s.vault, archived_at: at, updated_at: at };
    ctx.store.put(VAULT, id, s);
  }
  return s.vault;
}

export function deleteVault(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(VAULT, id);
  return { id, type: 'vault_deleted' as const };
}

function url(v: unknown): string {
  if (typeof v !== 'string') throw invalid('auth.mcp_server_url: Field required');
  try {
    const u = new URL(v);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('scheme');
  } catch {
    throw invalid('auth.mcp_server_url: Input should be a valid URL');
  }
  return v;
}

/** The credential's auth as answered (its secret kept apart), from the create parameters. */
function readAuth(auth: unknown): { auth: Auth; secret: string } {
  const type = ownValue(auth, 'type');
  if (type === 'static_bearer') {
    const token = ownValue(auth, 'token');
    if (typeof token !== 'string' || token === '') throw invalid('auth.token: Field required');
    return { auth: { type, mcp_server_url: url(ownValue(auth, 'mcp_server_url')) }, secret: token };
  }
  if (type === 'mcp_oauth') {
    const token = ownValue(auth, 'access_token');
    if (typeof token !== 'string' || token === '') throw invalid('auth.access_token: Field required');
    const refresh = ownValue(auth, 'refresh');
    if (refresh !== undefined && refresh !== null)
      throw new NotSimulated('POST /v1/vaults/{vault_id}/credentials with an OAuth refresh', 'The twin exchanges no refresh tokens.');
    const expires = ownValue(auth, 'expires_at');
    if (expires !== undefined && expires !== null && (typeof expires !== 'string' || Number.isNaN(Date.parse(expires))))
      throw invalid('auth.expires_at: Input should be a valid datetime');
    return {
      auth: { type, mcp_server_url: url(ownValue(auth, 'mcp_server_url')), expires_at: (expires as string | null | undefined) ?? null, refresh: null },
      secret: token,
    };
  }
  if (type === 'environment_variable')
    throw new NotSimulated(
      'POST /v1/vaults/{vault_id}/credentials with environment_variable auth',
      'The twin holds MCP credentials (static_bearer, mcp_oauth).',
    );
  throw invalid("auth.type: Input should be 'static_bearer', 'mcp_oauth' or 'environment_variable'");
}

function credentialOf(s: StoredVault, id: string) {
  const c = s.credentials.find((x) => x.credential.id === id);
  if (!c) throw new AnthropicError(404, `Credential not found: ${id}`, 'not_found_error');
  return c;
}

export function createCredential(
  ctx: TwinContext,
  vaultId: string,
  input: { auth: unknown; displayName?: string; metadata?: Record<string, string> },
): CredentialObject {
  const s = open(ctx, vaultId);
  if (input.displayName !== undefined) checkName(input.displayName, 'display_name');
  if (s.credentials.length >= MAX_CREDENTIALS) throw invalid(`A vault holds at most ${MAX_CREDENTIALS} credentials.`);
  const { auth, secret } = readAuth(input.auth);
  const at = now(ctx);
  const credential: CredentialObject = {
    id: ctx.ids.nextIn('vcrd', 'vcrd_011C', 20),
    type: 'vault_credential',
    vault_id: vaultId,
    display_name: input.displayName ?? null,
    auth,
    metadata: input.metadata ?? {},
    archived_at: null,
    created_at: at,
    updated_at: at,
  };
  s.credentials.push({ credential, secret });
  ctx.store.put(VAULT, vaultId, s);
  return credential;
}

export function listCredentials(ctx: TwinContext, vaultId: string, includeArchived: boolean): CredentialObject[] {
  return stored(ctx, vaultId)
    .credentials.map((c) => c.credential)
    .filter((c) => includeArchived || !c.archived_at)
    .reverse();
}

export function retrieveCredential(ctx: TwinContext, vaultId: string, id: string): CredentialObject {
  return credentialOf(stored(ctx, vaultId), id).credential;
}

/** A rotated secret (and an OAuth expiry) for the same auth type — the server URL stays; display name and metadata change too. */
export function updateCredential(
  ctx: TwinContext,
  vaultId: string,
  id: string,
  input: { auth?: unknown; displayName?: string | null; metadata?: Record<string, string | null> },
) {
  const s = open(ctx, vaultId);
  const c = credentialOf(s, id);
  if (c.credential.archived_at) throw invalid(`Credential ${id} is archived.`);
  if (input.auth !== undefined) {
    const type = ownValue(input.auth, 'type');
    if (type !== c.credential.auth.type) throw invalid(`auth.type: a ${c.credential.auth.type} credential stays ${c.credential.auth.type}`);
    const secret = ownValue(input.auth, type === 'static_bearer' ? 'token' : 'access_token');
    if (secret !== undefined && secret !== null) {
      if (typeof secret !== 'string' || secret === '') throw invalid('auth: the new secret must be a non-empty string');
      c.secret = secret;
    }
    if (c.credential.auth.type === 'mcp_oauth') {
      const refresh = ownValue(input.auth, 'refresh');
      if (refresh !== undefined && refresh !== null)
        throw new NotSimulated('POST /v1/vaults/{vault_id}/credentials/{credential_id} with an OAuth refresh', 'The twin exchanges no refresh tokens.');
      const expires = ownValue(input.auth, 'expires_at');
      if (expires !== undefined && expires !== null && (typeof expires !== 'string' || Number.isNaN(Date.parse(expires))))
        throw invalid('auth.expires_at: Input should be a valid datetime');
      if (expires !== undefined) c.credential = { ...c.credential, auth: { ...c.credential.auth, expires_at: expires as string | null } };
    }
  }
  if (input.displayName !== undefined && input.displayName !== null) checkName(input.displayName, 'display_name');
  c.credential = {
    ...c.credential,
    ...(input.displayName !== undefined ? { display_name: input.displayName } : {}),
    metadata: merged(c.credential.metadata, input.metadata),
    updated_at: now(ctx),
  };
  ctx.store.put(VAULT, vaultId, s);
  return c.credential;
}

export function archiveCredential(ctx: TwinContext, vaultId: string, id: string): CredentialObject {
  const s = stored(ctx, vaultId);
  const c = credentialOf(s, id);
  if (!c.credential.archived_at) {
    const at = now(ctx);
    c.credential = { ...c.credential, archived_at: at, updated_at: at };
    ctx.store.put(VAULT, vaultId, s);
  }
  return c.credential;
}

export function deleteCredential(ctx: TwinContext, vaultId: string, id: string) {
  const s = stored(ctx, vaultId);
  credentialOf(s, id);
  s.credentials = s.credentials.filter((c) => c.credential.id !== id);
  ctx.store.put(VAULT, vaultId, s);
  return { id, type: 'vault_credential_deleted' as const };
}
