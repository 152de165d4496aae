// Executing a GraphQL request against GitHub's schema: parse (with a token limit), validate,
// check the nesting depth, run the resolvers over the twin's records, and shape errors the way
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
  type SelectionSetNode,
} from 'graphql';
import type { TwinContext } from '../../../twin-runtime/contract.js';
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

function depth(set: SelectionSetNode | undefined, doc: DocumentNode, seen = new Set<string>()): number {
  if (!set) return 0;
  let max = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) max = Math.max(max, 1 + depth(sel.selectionSet, doc, seen));
    else if (sel.kind === Kind.INLINE_FRAGMENT) max = Math.max(max, depth(sel.selectionSet, doc, seen));
    else if (!seen.has(sel.name.value)) {
      const frag = doc.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === sel.name.value);
      if (frag && frag.kind === Kind.FRAGMENT_DEFINITION) max = Math.max(max, depth(frag.selectionSet, doc, new Set([...seen, sel.name.value])));
    }
  }
  return max;
}

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

/** Parsed and validated documents by query text (clients send the same few queries again and again). */
const checked = new Map<string, DocumentNode | { errors: unknown[] }>();
const CHECKED_MAX = 256;

/** Parse, validate and depth-check a query once; the outcome is kept for the next identical query. */
function check(query: string): DocumentNode | { errors: unknown[] } {
  const hit = checked.get(query);
  if (hit) return hit;
  const outcome = checkUncached(query);
  if (checked.size >= CHECKED_MAX) checked.delete(checked.keys().next().value!);
  checked.set(query, outcome);
  return outcome;
}

function checkUncached(query: string): DocumentNode | { errors: unknown[] } {
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: MAX_TOKENS });
  } catch (e) {
    const err = e as GraphQLError;
    return { errors: [{ message: err.message, locations: err.locations }] };
  }
  const invalid = validate(githubSchema(), document, RULES);
  if (invalid.length) return { errors: invalid.map((e) => ({ message: e.message, locations: e.locations })) };
  for (const def of document.definitions) {
    if (def.kind === Kind.OPERATION_DEFINITION && depth(def.selectionSet, document) > MAX_DEPTH) {
      return { errors: [{ message: `Query has depth of more than ${MAX_DEPTH}, which exceeds max depth of ${MAX_DEPTH}` }] };
    }
  }
  return document;
}

export async function runGraphQL(ctx: TwinContext, request: GraphQLRequest): Promise<GraphQLAnswer> {
  const outcome = check(request.query);
  if ('errors' in outcome) return { body: { errors: outcome.errors }, failedMutation: false };
  const document = outcome;
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
