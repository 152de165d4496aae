// GitHub Actions secrets and variables, per repository, per organization and per deployment environment. Each scope has its
// own libsodium key pair (made on first use from the twin's seeded bytes, so a run repeats): the
// public key is what `GET …/secrets/public-key` gives, a secret arrives as a sealed box made with it
// (`crypto_box_seal`, as GitHub's docs and every client do), is opened here — a box not sealed
// for this key is refused — and its value is kept but never answered. Names follow GitHub's rules
// (letters, digits and `_`, not starting with a digit or `GITHUB_`) and are stored upper-cased.
// Variables keep their value in the open. Organization ones have a visibility (`all`, `private`,
// `selected` with the repositories chosen).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { GitHubError, notFound, validationFailed } from '../wire/errors.js';
import type { Json } from './accounts.js';
import { API, now } from './identity.js';
import { findRepositoryById } from './repositories.js';

/** libsodium's functions the twin uses (libsodium-wrappers, loaded on first use). */
export interface Sodium {
  crypto_box_seed_keypair(seed: Uint8Array): { publicKey: Uint8Array; privateKey: Uint8Array };
  crypto_box_seal_open(cipher: Uint8Array, publicKey: Uint8Array, privateKey: Uint8Array): Uint8Array;
}

export type SecretScope = { kind: 'repo'; repo: Json } | { kind: 'org'; org: Json } | { kind: 'env'; repo: Json; environment: string };
export type Visibility = 'all' | 'private' | 'selected';

const KEYS = 'actions_public_key';
const SECRETS = 'actions_secret';
const VARIABLES = 'actions_variable';
export const ACTIONS_SECRET_RESOURCES = [KEYS, SECRETS, VARIABLES];

const scopeKey = (s: SecretScope) => (s.kind === 'repo' ? `repo:${s.repo.id}` : s.kind === 'org' ? `org:${s.org.id}` : `env:${s.repo.id}:${s.environment}`);
const SCOPE_NOUN = { repo: 'repository', org: 'organization', env: 'environment' } as const;

/** The scope's key pair, made on first use. */
function keyPair(ctx: TwinContext, scope: SecretScope, sodium: Sodium): Json {
  const existing = ctx.store.get<Json>(KEYS, scopeKey(scope));
  if (existing) return existing;
  const pair = sodium.crypto_box_seed_keypair(ctx.ids.bytes(32));
  const record = {
    // GitHub's key ids are long decimal strings.
    key_id: BigInt(`0x${ctx.ids.bytes(7).toString('hex')}`).toString(),
    key: Buffer.from(pair.publicKey).toString('base64'),
    private_key: Buffer.from(pair.privateKey).toString('base64'),
  };
  ctx.store.put(KEYS, scopeKey(scope), record);
  return record;
}

export function publicKey(ctx: TwinContext, scope: SecretScope, sodium: Sodium): { key_id: string; key: string } {
  const { key_id, key } = keyPair(ctx, scope, sodium);
  return { key_id, key };
}

/** GitHub's naming rules for secrets and variables; the name as stored (upper case). */
export function checkedName(name: string, what: 'secret' | 'variable'): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.length > 255) {
    throw validationFailed({
      resource: what === 'secret' ? 'Secret' : 'ActionsVariable',
      field: 'name',
      code: 'invalid',
      message: `${what === 'secret' ? 'Secret' : 'Variable'} names can only contain alphanumeric characters ([a-z], [A-Z], [0-9]) or underscores (_), and must not start with a number.`,
    });
  }
  if (/^GITHUB_/i.test(name)) {
    throw validationFailed({
      resource: what === 'secret' ? 'Secret' : 'ActionsVariable',
      field: 'name',
      code: 'invalid',
      message: `${what === 'secret' ? 'Secret' : 'Variable'} names must not start with GITHUB_.`,
    });
  }
  return name.toUpperCase();
}

export interface SecretInput {
  encryptedValue: string;
  keyId: string;
  visibility?: Visibility;
  selectedRepositoryIds?: number[];
}

/** Open and store a secret: `created` (201) or `updated` (204). */
export function putSecret(ctx: TwinContext, scope: SecretScope, rawName: string, input: SecretInput, sodium: Sodium): 'created' | 'updated' {
  const name = checkedName(rawName, 'secret');
  const pair = keyPair(ctx, scope, sodium);
  if (input.keyId !== pair.key_id) {
    throw validationFailed({
      resource: 'Secret',
      field: 'key_id',
      code: 'invalid',
      message: `key_id ${input.keyId} is not this ${SCOPE_NOUN[scope.kind]}'s public key (${pair.key_id}).`,
    });
  }
  let value: string;
  try {
    const opened = sodium.crypto_box_seal_open(
      Buffer.from(input.encryptedValue, 'base64'),
      Buffer.from(pair.key, 'base64'),
      Buffer.from(pair.private_key, 'base64'),
    );
    value = Buffer.from(opened).toString('utf8');
  } catch {
    throw validationFailed({
      resource: 'Secret',
      field: 'encrypted_value',
      code: 'invalid',
      message: 'encrypted_value is not a sealed box for the public key key_id names (libsodium crypto_box_seal, base64).',
    });
  }
  const key = `${scopeKey(scope)}:${name}`;
  const existing = ctx.store.get<Json>(SECRETS, key);
  const at = now(ctx);
  const record: Json = { name, value, created_at: existing?.created_at ?? at, updated_at: at };
  if (scope.kind === 'org') {
    record.visibility = input.visibility ?? existing?.visibility ?? 'private';
    record.selected_repository_ids =
      record.visibility === 'selected' ? checkedRepositories(ctx, input.selectedRepositoryIds ?? existing?.selected_repository_ids ?? []) : [];
  }
  ctx.store.put(SECRETS, key, record);
  return existing ? 'updated' : 'created';
}

function checkedRepositories(ctx: TwinContext, ids: number[]): number[] {
  for (const id of ids)
    if (!findRepositoryById(ctx, id)) throw validationFailed({ resource: 'Secret', field: 'selected_repository_ids', code: 'invalid', value: id });
  return [...new Set(ids)];
}

/** A secret as the API shows it: never its value. */
function presentSecret(scope: SecretScope, s: Json): Json {
  const out: Json = { name: s.name, created_at: s.created_at, updated_at: s.updated_at };
  if (scope.kind === 'org') {
    out.visibility = s.visibility;
    if (s.visibility === 'selected') out.selected_repositories_url = `${API}/orgs/${scope.org.login}/actions/secrets/${s.name}/repositories`;
  }
  return out;
}

export function listSecrets(ctx: TwinContext, scope: SecretScope): Json[] {
  return ctx.store
    .listByPrefix<Json>(SECRETS, `${scopeKey(scope)}:`)
    .map((r) => presentSecret(scope, r.body))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

function requireSecret(ctx: TwinContext, scope: SecretScope, name: string): Json {
  const s = ctx.store.get<Json>(SECRETS, `${scopeKey(scope)}:${name.toUpperCase()}`);
  if (!s) throw notFound();
  return s;
}

export function getSecret(ctx: TwinContext, scope: SecretScope, name: string): Json {
  return presentSecret(scope, requireSecret(ctx, scope, name));
}

export function deleteSecret(ctx: TwinContext, scope: SecretScope, name: string): void {
  requireSecret(ctx, scope, name);
  ctx.store.delete(SECRETS, `${scopeKey(scope)}:${name.toUpperCase()}`);
}

/** The repositories an organization secret or variable with `selected` visibility is for. */
export function selectedRepositories(ctx: TwinContext, scope: SecretScope, name: string, what: 'secret' | 'variable'): Json[] {
  const s = what === 'secret' ? requireSecret(ctx, scope, name) : requireVariable(ctx, scope, name);
  if (s.visibility !== 'selected') throw new GitHubError(409, `The ${what}'s visibility is ${s.visibility}, not selected.`);
  return (s.selected_repository_ids as number[]).map((id) => findRepositoryById(ctx, id)).filter((r): r is Json => r !== undefined);
}

/** Replace, add or remove repositories of a `selected` organization secret or variable. */
export function changeSelection(
  ctx: TwinContext,
  scope: SecretScope,
  name: string,
  what: 'secret' | 'variable',
  change: { set?: number[]; add?: number; remove?: number },
): void {
  const resource = what === 'secret' ? SECRETS : VARIABLES;
  const key = `${scopeKey(scope)}:${name.toUpperCase()}`;
  const s = what === 'secret' ? requireSecret(ctx, scope, name) : requireVariable(ctx, scope, name);
  if (s.visibility !== 'selected') throw new GitHubError(409, `The ${what}'s visibility is ${s.visibility}, not selected.`);
  let ids = s.selected_repository_ids as number[];
  if (change.set) ids = checkedRepositories(ctx, change.set);
  if (change.add !== undefined) ids = checkedRepositories(ctx, [...ids, change.add]);
  if (change.remove !== undefined) ids = ids.filter((id) => id !== change.remove);
  ctx.store.put(resource, key, { ...s, selected_repository_ids: ids, updated_at: now(ctx) });
}

// ---- variables ------------------------------------------------------------------------------

export interface VariableInput {
  name?: string;
  value?: string;
  visibility?: Visibility;
  selectedRepositoryIds?: number[];
}

function requireVariable(ctx: TwinContext, scope: SecretScope, name: string): Json {
  const v = ctx.store.get<Json>(VARIABLES, `${scopeKey(scope)}:${name.toUpperCase()}`);
  if (!v) throw notFound();
  return v;
}

function presentVariable(scope: SecretScope, v: Json): Json {
  const out: Json = { name: v.name, value: v.value, created_at: v.created_at, updated_at: v.updated_at };
  if (scope.kind === 'org') {
    out.visibility = v.visibility;
    if (v.visibility === 'selected') out.selected_repositories_url = `${API}/orgs/${scope.org.login}/actions/variables/${v.name}/repositories`;
  }
  return out;
}

export function createVariable(ctx: TwinContext, scope: SecretScope, input: VariableInput & { name: string; value: string }): void {
  const name = checkedName(input.name, 'variable');
  const key = `${scopeKey(scope)}:${name}`;
  if (ctx.store.has(VARIABLES, key)) throw new GitHubError(409, 'Already exists - Variable already exists');
  const at = now(ctx);
  const record: Json = { name, value: input.value, created_at: at, updated_at: at };
  if (scope.kind === 'org') {
    record.visibility = input.visibility ?? 'private';
    record.selected_repository_ids = record.visibility === 'selected' ? checkedRepositories(ctx, input.selectedRepositoryIds ?? []) : [];
  }
  ctx.store.put(VARIABLES, key, record);
}

export function updateVariable(ctx: TwinContext, scope: SecretScope, name: string, input: VariableInput): void {
  const current = requireVariable(ctx, scope, name);
  const newName = input.name !== undefined ? checkedName(input.name, 'variable') : current.name;
  const oldKey = `${scopeKey(scope)}:${current.name}`;
  const newKey = `${scopeKey(scope)}:${newName}`;
  if (newKey !== oldKey && ctx.store.has(VARIABLES, newKey)) throw new GitHubError(409, 'Already exists - Variable already exists');
  const record: Json = { ...current, name: newName, value: input.value ?? current.value, updated_at: now(ctx) };
  if (scope.kind === 'org' && input.visibility) {
    record.visibility = input.visibility;
    record.selected_repository_ids =
      input.visibility === 'selected' ? checkedRepositories(ctx, input.selectedRepositoryIds ?? current.selected_repository_ids ?? []) : [];
  }
  if (newKey !== oldKey) ctx.store.delete(VARIABLES, oldKey);
  ctx.store.put(VARIABLES, newKey, record);
}

export function listVariables(ctx: TwinContext, scope: SecretScope): Json[] {
  return ctx.store
    .listByPrefix<Json>(VARIABLES, `${scopeKey(scope)}:`)
    .map((r) => presentVariable(scope, r.body))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

export function getVariable(ctx: TwinContext, scope: SecretScope, name: string): Json {
  return presentVariable(scope, requireVariable(ctx, scope, name));
}

export function deleteVariable(ctx: TwinContext, scope: SecretScope, name: string): void {
  const v = requireVariable(ctx, scope, name);
  ctx.store.delete(VARIABLES, `${scopeKey(scope)}:${v.name}`);
}
