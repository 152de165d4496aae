// GitHub Actions secrets and variables of a repository, an organization and a deployment environment
// (model/actions-secrets.ts).

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';
import { requireOrg } from '../model/accounts.js';
import {
  type SecretScope,
  type Sodium,
  changeSelection,
  createVariable,
  deleteSecret,
  deleteVariable,
  getSecret,
  getVariable,
  listSecrets,
  listVariables,
  publicKey,
  putSecret,
  selectedRepositories,
  updateVariable,
} from '../model/actions-secrets.js';
import { searchRepository } from '../model/search.js';
import { requireEnvironment } from '../model/deployments.js';
import { invalidRequest } from '../wire/errors.js';
import { type Reply, jsonBody, numberParam, optEnum, optString, page, repoOf, reply, requiredString, routes } from '../wire/http.js';

/** libsodium (WebAssembly), loaded and initialised on the first request that needs it. */
const loadSodium = loadOnce(async (): Promise<Sodium> => {
  const { default: sodium } = await import('libsodium-wrappers');
  await sodium.ready;
  return sodium;
});

const repoScope = (req: TwinRequest, ctx: TwinContext): SecretScope => ({ kind: 'repo', repo: repoOf(req, ctx) });
const orgScope = (req: TwinRequest, ctx: TwinContext): SecretScope => ({ kind: 'org', org: requireOrg(ctx, req.params.org!) });
/** An environment of the repository (it must exist, as GitHub's 404 says). */
const envScope = (req: TwinRequest, ctx: TwinContext): SecretScope => {
  const repo = repoOf(req, ctx);
  const environment = requireEnvironment(ctx, repo, req.params.environment_name!).name as string;
  return { kind: 'env', repo, environment };
};

/** A route whose handler needs libsodium. */
function withSodium(method: TwinRoute['method'], path: string, handler: (req: TwinRequest, ctx: TwinContext, sodium: Sodium) => Reply): TwinRoute {
  return {
    method,
    path,
    handler: async (req, ctx) => {
      const sodium = await loadSodium();
      return reply(() => handler(req, ctx, sodium))(req, ctx);
    },
  };
}

function selectedIds(b: Record<string, unknown>): number[] | undefined {
  const ids = b.selected_repository_ids;
  if (ids === undefined || ids === null) return undefined;
  if (!Array.isArray(ids) || !ids.every((x) => Number.isInteger(Number(x)))) {
    throw invalidRequest(`For 'properties/selected_repository_ids', ${JSON.stringify(ids)} is not an array of integers.`);
  }
  return ids.map(Number);
}

/** Secrets and variables under `base` (`/repos/{o}/{r}/actions`, `/orgs/{org}/actions`, an environment). */
function secretRoutes(base: string, scopeOf: (req: TwinRequest, ctx: TwinContext) => SecretScope): TwinRoute[] {
  const isOrg = base.startsWith('/orgs/');
  return [
    withSodium('GET', `${base}/secrets/public-key`, (req, ctx, sodium) => ({ body: publicKey(ctx, scopeOf(req, ctx), sodium) })),
    ...routes('GET', `${base}/secrets`, (req, ctx) => {
      const secrets = listSecrets(ctx, scopeOf(req, ctx));
      return page(req, ctx, secrets, (items) => ({ total_count: secrets.length, secrets: items }));
    }),
    ...routes('GET', `${base}/secrets/{secret_name}`, (req, ctx) => ({ body: getSecret(ctx, scopeOf(req, ctx), req.params.secret_name!) })),
    withSodium('PUT', `${base}/secrets/{secret_name}`, (req, ctx, sodium) => {
      const b = jsonBody(req);
      const outcome = putSecret(
        ctx,
        scopeOf(req, ctx),
        req.params.secret_name!,
        {
          encryptedValue: requiredString(b, 'encrypted_value'),
          keyId: requiredString(b, 'key_id'),
          visibility: isOrg ? optEnum(b, 'visibility', ['all', 'private', 'selected'] as const) : undefined,
          selectedRepositoryIds: isOrg ? selectedIds(b) : undefined,
        },
        sodium,
      );
      return outcome === 'created' ? { status: 201, body: {} } : { status: 204 };
    }),
    ...routes('DELETE', `${base}/secrets/{secret_name}`, (req, ctx) => {
      deleteSecret(ctx, scopeOf(req, ctx), req.params.secret_name!);
      return { status: 204 };
    }),
    ...routes('GET', `${base}/variables`, (req, ctx) => {
      const variables = listVariables(ctx, scopeOf(req, ctx));
      return page(req, ctx, variables, (items) => ({ total_count: variables.length, variables: items }));
    }),
    ...routes('POST', `${base}/variables`, (req, ctx) => {
      const b = jsonBody(req);
      createVariable(ctx, scopeOf(req, ctx), {
        name: requiredString(b, 'name'),
        value: requiredString(b, 'value'),
        visibility: isOrg ? optEnum(b, 'visibility', ['all', 'private', 'selected'] as const) : undefined,
        selectedRepositoryIds: isOrg ? selectedIds(b) : undefined,
      });
      return { status: 201, body: {} };
    }),
    ...routes('GET', `${base}/variables/{name}`, (req, ctx) => ({ body: getVariable(ctx, scopeOf(req, ctx), req.params.name!) })),
    ...routes('PATCH', `${base}/variables/{name}`, (req, ctx) => {
      const b = jsonBody(req);
      updateVariable(ctx, scopeOf(req, ctx), req.params.name!, {
        name: optString(b, 'name') ?? undefined,
        value: optString(b, 'value') ?? undefined,
        visibility: isOrg ? optEnum(b, 'visibility', ['all', 'private', 'selected'] as const) : undefined,
        selectedRepositoryIds: isOrg ? selectedIds(b) : undefined,
      });
      return { status: 204 };
    }),
    ...routes('DELETE', `${base}/variables/{name}`, (req, ctx) => {
      deleteVariable(ctx, scopeOf(req, ctx), req.params.name!);
      return { status: 204 };
    }),
  ];
}

/** An organization secret's or variable's chosen repositories (visibility `selected`). */
function selectionRoutes(what: 'secret' | 'variable'): TwinRoute[] {
  const base = what === 'secret' ? '/orgs/{org}/actions/secrets/{secret_name}' : '/orgs/{org}/actions/variables/{name}';
  const nameOf = (req: TwinRequest) => (what === 'secret' ? req.params.secret_name! : req.params.name!);
  return [
    ...routes('GET', `${base}/repositories`, (req, ctx) => {
      const repos = selectedRepositories(ctx, orgScope(req, ctx), nameOf(req), what).map(searchRepository);
      return page(req, ctx, repos, (items) => ({ total_count: repos.length, repositories: items }));
    }),
    ...routes('PUT', `${base}/repositories`, (req, ctx) => {
      const ids = selectedIds(jsonBody(req));
      if (!ids) throw invalidRequest('"selected_repository_ids" wasn\'t supplied.');
      changeSelection(ctx, orgScope(req, ctx), nameOf(req), what, { set: ids });
      return { status: 204 };
    }),
    ...routes('PUT', `${base}/repositories/{repository_id}`, (req, ctx) => {
      changeSelection(ctx, orgScope(req, ctx), nameOf(req), what, { add: numberParam(req, 'repository_id') });
      return { status: 204 };
    }),
    ...routes('DELETE', `${base}/repositories/{repository_id}`, (req, ctx) => {
      changeSelection(ctx, orgScope(req, ctx), nameOf(req), what, { remove: numberParam(req, 'repository_id') });
      return { status: 204 };
    }),
  ];
}

export const actionsSecretRoutes: TwinRoute[] = [
  ...secretRoutes('/repos/{owner}/{repo}/actions', repoScope),
  ...secretRoutes('/orgs/{org}/actions', orgScope),
  ...secretRoutes('/repos/{owner}/{repo}/environments/{environment_name}', envScope),
  ...selectionRoutes('secret'),
  ...selectionRoutes('variable'),
];
