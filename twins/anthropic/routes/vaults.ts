// Vaults (beta): the vaults (create, list, retrieve, update, archive, delete) and their credentials
// (create, list, retrieve, update, archive, delete).

import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import {
  archiveCredential,
  archiveVault,
  createCredential,
  createVault,
  deleteCredential,
  deleteVault,
  listCredentials,
  listVaults,
  retrieveCredential,
  retrieveVault,
  updateCredential,
  updateVault,
} from '../model/vaults.js';
import { invalid } from '../wire/errors.js';
import { get, jsonBody, pageQuery, type Body } from '../wire/params.js';

const VAULT = '/v1/vaults/{vault_id}';
const CREDENTIAL = `${VAULT}/credentials/{credential_id}`;

function fields(body: Body, known: readonly string[]): void {
  const extra = Object.keys(body).find((k) => !known.includes(k));
  if (extra !== undefined) throw invalid(`${extra}: Extra inputs are not permitted`);
}

function name(body: Body): string | undefined {
  const v = get(body, 'display_name');
  if (v !== undefined && typeof v !== 'string') throw invalid('display_name: Input should be a valid string');
  return v;
}

/** Metadata as given (a value of null removes the key on update). */
function metadata(body: Body, allowNull: boolean): Record<string, string | null> | undefined {
  const m = ownValue(body, 'metadata');
  if (m === undefined || m === null) return undefined;
  if (typeof m !== 'object' || Array.isArray(m)) throw invalid('metadata: Input should be a valid dictionary');
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(m)) {
    if (!(typeof v === 'string' || (allowNull && v === null)) || k.length < 1 || k.length > 64 || (typeof v === 'string' && v.length > 512)) {
      throw invalid(`metadata.${k}: keys of 1 to 64 characters, string values of at most 512`);
    }
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  if (Object.keys(out).length > 16) throw invalid('metadata: at most 16 pairs');
  return out;
}

function paged<T extends { id: string }>(req: TwinRequest, all: T[]) {
  const { limit } = pageQuery(req);
  const page = ownValue(req.query, 'page');
  let start = 0;
  if (typeof page === 'string' && page !== '') {
    const at = all.findIndex((x) => x.id === page);
    if (at === -1) throw invalid('page: invalid page token');
    start = at + 1;
  }
  const data = all.slice(start, start + limit);
  return { data, next_page: start + limit < all.length ? data[data.length - 1]!.id : null };
}

const archived = (req: TwinRequest) => ownValue(req.query, 'include_archived') === 'true';

export const vaultRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/vaults',
    handler(req, ctx) {
      const body = jsonBody(req);
      fields(body, ['display_name', 'metadata']);
      const displayName = name(body);
      if (displayName === undefined) throw invalid('display_name: Field required');
      return { status: 200, body: createVault(ctx, { displayName, metadata: metadata(body, false) as Record<string, string> | undefined }) };
    },
  },
  { method: 'GET', path: '/v1/vaults', handler: (req, ctx) => ({ status: 200, body: paged(req, listVaults(ctx, archived(req))) }) },
  { method: 'GET', path: VAULT, handler: (req, ctx) => ({ status: 200, body: retrieveVault(ctx, req.params.vault_id!) }) },
  {
    method: 'POST',
    path: VAULT,
    handler(req, ctx) {
      const body = jsonBody(req);
      fields(body, ['display_name', 'metadata']);
      return { status: 200, body: updateVault(ctx, req.params.vault_id!, { displayName: name(body), metadata: metadata(body, true) }) };
    },
  },
  { method: 'POST', path: `${VAULT}/archive`, handler: (req, ctx) => ({ status: 200, body: archiveVault(ctx, req.params.vault_id!) }) },
  { method: 'DELETE', path: VAULT, handler: (req, ctx) => ({ status: 200, body: deleteVault(ctx, req.params.vault_id!) }) },
  {
    method: 'POST',
    path: `${VAULT}/credentials`,
    handler(req, ctx) {
      const body = jsonBody(req);
      fields(body, ['auth', 'display_name', 'metadata']);
      const auth = get(body, 'auth');
      if (auth === undefined) throw invalid('auth: Field required');
      return {
        status: 200,
        body: createCredential(ctx, req.params.vault_id!, {
          auth,
          displayName: name(body),
          metadata: metadata(body, false) as Record<string, string> | undefined,
        }),
      };
    },
  },
  {
    method: 'GET',
    path: `${VAULT}/credentials`,
    handler: (req, ctx) => ({ status: 200, body: paged(req, listCredentials(ctx, req.params.vault_id!, archived(req))) }),
  },
  { method: 'GET', path: CREDENTIAL, handler: (req, ctx) => ({ status: 200, body: retrieveCredential(ctx, req.params.vault_id!, req.params.credential_id!) }) },
  {
    method: 'POST',
    path: CREDENTIAL,
    handler(req, ctx) {
      const body = jsonBody(req);
      fields(body, ['auth', 'display_name', 'metadata']);
      const displayName = ownValue(body, 'display_name');
      if (displayName !== undefined && displayName !== null && typeof displayName !== 'string') throw invalid('display_name: Input should be a valid string');
      return {
        status: 200,
        body: updateCredential(ctx, req.params.vault_id!, req.params.credential_id!, {
          auth: get(body, 'auth'),
          displayName: displayName as string | null | undefined,
          metadata: metadata(body, true),
        }),
      };
    },
  },
  {
    method: 'POST',
    path: `${CREDENTIAL}/archive`,
    handler: (req, ctx) => ({ status: 200, body: archiveCredential(ctx, req.params.vault_id!, req.params.credential_id!) }),
  },
  {
    method: 'DELETE',
    path: CREDENTIAL,
    handler: (req, ctx) => ({ status: 200, body: deleteCredential(ctx, req.params.vault_id!, req.params.credential_id!) }),
  },
];
