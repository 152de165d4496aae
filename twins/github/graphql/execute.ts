// Executing a GraphQL request against GitHub's schema: parse (with a token and a nesting limit),
// measure depth, nodes and fields against GitHub's limits (twin-runtime/graphql-limits.ts, each
// fragment once), validate, run the resolvers over the twin's records, and shape errors the way
// GitHub does (`type` beside `message`, `path`, `locations`). A field the twin does not model is an
// error naming it, never a silent null.

import {
  type GraphQLError,
  Kind,
  OverlappingFieldsCanBeMergedRule,
  execute,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFieldResolver,
  type GraphQLTypeResolver,
} from 'graphql';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { isConnection, MAX_SELECTION_NESTING, measure, nestingPast, operationOf, type CostRules } from '../../../twin-runtime/graphql-limits.js';
import { GitHubError } from '../wire/errors.js';
import { getOrg, getUser, viewer } from '../model/accounts.js';
import { findRepository } from '../model/repositories.js';
import { currentWindow } from '../model/rate-limit.js';
import { githubSchema } from './schema.js';
import { GraphQLFailure } from './errors.js';
import { account, findNode, repository, search, type Source } from './nodes.js';
import { mutations } from './mutations.js';

/**
 * graphql-js's rules except the overlapping-fields one: GitHub (graphql-ruby) accepts a field that
 * has different types in two inline fragments of a union (`... on Issue { state } ... on
 * PullRequest { state }`, which `gh issue view` sends).
 */
const RULES = specifiedRules.filter((r) => r !== OverlappingFieldsCanBeMergedRule);

/** Parser token limit (a query past it is refused before any work). */
const MAX_TOKENS = 20_000;
/** Deepest selection nesting accepted (GitHub's own queries stay well under 20). */
const MAX_DEPTH = 30;
/** `{ [ (` nested in the text at most, checked before parsing (the parser recurses per level). */
const MAX_NESTING = 100;
/** GitHub's node limit: "Individual calls cannot request more than 500,000 total nodes." */
const MAX_NODES = 500_000;
/**
 * Fields resolved at most (each field times the page sizes around it). GitHub stops a query past its
 * resources with RESOURCE_LIMITS_EXCEEDED; here the bound is known before running: aliases of
 * plain objects nested in fragments multiply without any connection (no node limit sees them).
 */
const MAX_FIELDS_RESOLVED = 1_000_000;

/** Page size counted for a connection asked for without `first` or `last` (the largest page). */
const UNBOUNDED_PAGE = 100;

/**
 * GitHub's node count (docs: "Rate limits and node limits for the GraphQL API"): a connection asks
 * for `first` (or `last`) nodes times the sizes of the connections around it. The docs say every
 * connection needs one, but GitHub answers gh's own queries that leave it out on some connections
 * (`pullRequests`, `users`): one without that asks for its `nodes` or `edges` counts as a full
 * page; one that asks only for `totalCount` or `pageInfo` (gh's `reactionGroups { users {
 * totalCount } }`) returns no nodes and counts none.
 */
const GITHUB_COSTS: CostRules = {
  metaCost: 1,
  field(_parent, field, arg, selects) {
    if (!isConnection(field)) return { cost: 1, times: 1 };
    const first = arg('first');
    const last = arg('last');
    if (typeof first !== 'number' && typeof last !== 'number' && !selects('nodes') && !selects('edges')) return { cost: 1, times: 1 };
    const size = typeof first === 'number' ? first : typeof last === 'number' ? last : UNBOUNDED_PAGE;
    return { cost: 1, times: Math.max(0, size), connection: true };
  },
};

export interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

export interface GraphQLAnswer {
  body: { data?: unknown; errors?: unknown[] };
  /** Whether a mutation failed (its writes must be rolled back). */
  failedMutation: boolean;
}

const fieldResolver: GraphQLFieldResolver<unknown, TwinContext> = (source, args, _ctx, info) => {
  const s = source as Source | null;
  if (s && Object.hasOwn(s, info.fieldName)) {
    const v = s[info.fieldName];
    return typeof v === 'function' ? (v as (a: unknown) => unknown)(args) : v;
  }
  throw new GraphQLFailure(`The GitHub twin does not serve the field '${info.fieldName}' of type '${info.parentType.name}'.`, 'TWIN_UNSUPPORTED_FIELD');
};

const typeResolver: GraphQLTypeResolver<unknown, TwinContext> = (value) => (value as Source).__typename as string;

function root(ctx: TwinContext): Source {
  return {
    viewer: () => account(ctx, viewer(ctx)),
    user: (a: { login: string }) => {
      const u = getUser(ctx, a.login);
      if (!u) throw new GraphQLFailure(`Could not resolve to a User with the login of '${a.login}'.`, 'NOT_FOUND');
      return account(ctx, u);
    },
    organization: (a: { login: string }) => {
      const o = getOrg(ctx, a.login);
      if (!o) throw new GraphQLFailure(`Could not resolve to an Organization with the login of '${a.login}'.`, 'NOT_FOUND');
      return account(ctx, o);
    },
    repositoryOwner: (a: { login: string }) => {
      const acc = getUser(ctx, a.login) ?? getOrg(ctx, a.login);
      return acc ? account(ctx, acc) : null;
    },
    repository: (a: { owner: string; name: string }) => {
      const r = findRepository(ctx, a.owner, a.name);
      if (!r) throw new GraphQLFailure(`Could not resolve to a Repository with the name '${a.owner}/${a.name}'.`, 'NOT_FOUND');
      return repository(ctx, r);
    },
    node: (a: { id: string }) => {
      const n = findNode(ctx, a.id);
      if (!n) throw new GraphQLFailure(`Could not resolve to a node with the global id of '${a.id}'`, 'NOT_FOUND');
      return n;
    },
    nodes: (a: { ids: string[] }) => {
      if (a.ids.length > 100) throw new GraphQLFailure('You may not request more than 100 nodes at once.', 'EXCESSIVE_PAGINATION');
      return a.ids.map((id) => {
        const n = findNode(ctx, id);
        if (!n) throw new GraphQLFailure(`Could not resolve to a node with the global id of '${id}'`, 'NOT_FOUND');
        return n;
      });
    },
    search: (a: Record<string, unknown>) => search(ctx, a),
    rateLimit: () => {
      const w = currentWindow(ctx);
      return {
        limit: w.limit,
        remaining: w.remaining,
        used: w.used,
        cost: 1,
        nodeCount: 0,
        resetAt: new Date(w.reset * 1000).toISOString().replace('.000Z', 'Z'),
      };
    },
  };
}

function mutationRoot(ctx: TwinContext): Source {
  const out: Source = {};
  for (const [name, run] of Object.entries(mutations)) out[name] = (a: { input: Record<string, unknown> }) => run(ctx, a.input ?? {});
  return out;
}

function errorType(e: GraphQLError): string | undefined {
  const o = e.originalError;
  if (o instanceof GraphQLFailure) return o.type;
  if (o instanceof GitHubError) return o.status === 404 ? 'NOT_FOUND' : o.status === 403 ? 'FORBIDDEN' : 'UNPROCESSABLE';
  return undefined;
}

function formatError(e: GraphQLError): Record<string, unknown> {
  const type = errorType(e);
  const out: Record<string, unknown> = {};
  if (type) out.type = type;
  if (e.path) out.path = e.path;
  if (e.locations) out.locations = e.locations;
  let message = e.message;
  const o = e.originalError;
  if (o instanceof GitHubError && o.extra.errors?.length) {
    message = o.extra.errors.map((x) => (typeof x === 'string' ? x : (x.message ?? `${x.resource} ${x.field ?? ''} ${x.code}`.trim()))).join(', ');
  }
  out.message = message;
  return out;
}

/** A query's document (or why it does not parse), and its validation once asked for, by query text. */
interface Checked {
  document?: DocumentNode;
  errors?: unknown[];
  /** Validation errors ([] when valid); validated only once the query is known to be within limits. */
  invalid?: unknown[];
}

/** Documents by query text (clients send the same few queries again and again). */
const checked = new Map<string, Checked>();
const CHECKED_MAX = 256;

/** `depth` may be a lower bound past which the query was not measured (`more than`). */
function depthError(depth: number, moreThan = false): unknown[] {
  const shown = moreThan ? `more than ${depth}` : String(depth);
  return [{ message: `Query has depth of ${shown}, which exceeds max depth of ${MAX_DEPTH}` }];
}

/** Parse a query once (its nesting checked first: the parser recurses per level). */
function parsed(query: string): Checked {
  const hit = checked.get(query);
  if (hit) return hit;
  let outcome: Checked;
  if (nestingPast(query, MAX_NESTING, MAX_TOKENS) !== -1) outcome = { errors: depthError(MAX_NESTING, true) };
  else {
    try {
      outcome = { document: parse(query, { maxTokens: MAX_TOKENS }) };
    } catch (e) {
      const err = e as GraphQLError;
      outcome = { errors: [{ message: err.message, locations: err.locations }] };
    }
  }
  if (checked.size >= CHECKED_MAX) checked.delete(checked.keys().next().value!);
  checked.set(query, outcome);
  return outcome;
}

function number(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * GitHub's limits, measured before anything runs (each fragment once): depth, the node limit
 * (MAX_NODE_LIMIT_EXCEEDED), fields resolved (RESOURCE_LIMITS_EXCEEDED). Then schema validation,
 * once per query text.
 */
function refusal(entry: Checked, request: GraphQLRequest): unknown[] | undefined {
  const document = entry.document!;
  const op = operationOf(document, request.operationName);
  if (op) {
    const m = measure(githubSchema(), document, op, request.variables ?? {}, GITHUB_COSTS);
    if (m.depth > MAX_DEPTH) return Number.isFinite(m.depth) ? depthError(m.depth) : depthError(MAX_SELECTION_NESTING, true);
    if (m.nodes > MAX_NODES) {
      return [
        {
          type: 'MAX_NODE_LIMIT_EXCEEDED',
          message: `This query requests up to ${number(m.nodes)} possible nodes which exceeds the maximum limit of ${number(MAX_NODES)}.`,
        },
      ];
    }
    if (m.cost > MAX_FIELDS_RESOLVED) return [{ type: 'RESOURCE_LIMITS_EXCEEDED', message: 'Resource limits for this query exceeded.' }];
  }
  entry.invalid ??= validate(githubSchema(), document, RULES).map((e) => ({ message: e.message, locations: e.locations }));
  return entry.invalid.length ? entry.invalid : undefined;
}

export async function runGraphQL(ctx: TwinContext, request: GraphQLRequest): Promise<GraphQLAnswer> {
  const entry = parsed(request.query);
  if (entry.errors) return { body: { errors: entry.errors }, failedMutation: false };
  const refused = refusal(entry, request);
  if (refused) return { body: { errors: refused }, failedMutation: false };
  const document = entry.document!;
  const schema = githubSchema();
  const op = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && (!request.operationName || d.name?.value === request.operationName));
  const isMutation = op?.kind === Kind.OPERATION_DEFINITION && op.operation === 'mutation';
  const result: ExecutionResult = await execute({
    schema,
    document,
    rootValue: isMutation ? mutationRoot(ctx) : root(ctx),
    contextValue: ctx,
    variableValues: request.variables,
    operationName: request.operationName,
    fieldResolver,
    typeResolver,
  });
  const body: GraphQLAnswer['body'] = {};
  if (result.data !== undefined) body.data = result.data;
  if (result.errors?.length) body.errors = result.errors.map(formatError);
  return { body, failedMutation: isMutation && !!result.errors?.length };
}
