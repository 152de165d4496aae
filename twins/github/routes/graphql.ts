// `POST /graphql` (api.github.com) and `POST /api/graphql` (GitHub Enterprise, what gh uses for
// any host but github.com). A failed mutation is rolled back whole, as GitHub's are.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { isGraphQLUrlKey, toTwinUrls } from '../wire/urls.js';
import type { GraphQLRequest } from '../graphql/execute.js';
import { RolledBackAnswer } from '../graphql/errors.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';

/**
 * The executor (and the graphql package under it), loaded with the first query: most twins never see
 * one, and loading it at start cost every GitHub twin ~110 ms and several MiB.
 */
const loadExecutor = loadOnce(() => import('../graphql/execute.js'));

function json(ctx: TwinContext, status: number, body: unknown): TwinResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(toTwinUrls(body, ctx.baseUrl, isGraphQLUrlKey)) };
}

function readRequest(req: TwinRequest): GraphQLRequest | string {
  if (req.bodyKind !== 'json' || !req.body || typeof req.body !== 'object' || Array.isArray(req.body)) return 'Problems parsing JSON';
  const b = req.body as Record<string, unknown>;
  if (typeof b.query !== 'string') return 'A query attribute must be specified and must be a string.';
  const variables = b.variables;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return 'Variables must be an object.';
  return {
    query: b.query,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: typeof b.operationName === 'string' ? b.operationName : undefined,
  };
}

async function answer(req: TwinRequest, ctx: TwinContext): Promise<TwinResponse> {
  const request = readRequest(req);
  if (typeof request === 'string') {
    return json(
      ctx,
      request === 'Problems parsing JSON' ? 400 : 200,
      request === 'Problems parsing JSON' ? { message: request, documentation_url: 'https://docs.github.com/graphql' } : { errors: [{ message: request }] },
    );
  }
  const { runGraphQL } = await loadExecutor();
  const result = await runGraphQL(ctx, request);
  const res = json(ctx, 200, result.body);
  if (result.failedMutation) throw new RolledBackAnswer(res);
  return res;
}

export const graphqlRoutes: TwinRoute[] = [
  { method: 'POST', path: '/graphql', handler: answer },
  { method: 'POST', path: '/api/graphql', handler: answer },
];
