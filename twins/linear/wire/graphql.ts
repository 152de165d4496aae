// POST /graphql as Linear answers it: the document is parsed (with a token and a nesting limit),
// measured against Linear's complexity limit (twin-runtime/graphql-limits.ts), validated against
// Linear's schema (spec/schema.ts) and executed by graphql-js. Fields resolve through the
// twin's type models (wire/types.ts); a field no model computes is read from the stored record,
// else given its type's empty value (`""`, `0`, `false`, `[]`, an empty connection, null where
// the schema allows it), so every query the SDK sends validates and runs.

import {
  execute,
  getNamedType,
  getNullableType,
  GraphQLError,
  isEnumType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  parse,
  validate,
  type DocumentNode,
  type GraphQLField,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { TwinContext, TwinOperationLevel, TwinRequest, TwinResponse } from '../../../twin-runtime/contract.js';
import { isConnection, measure, nestingPast, operationOf, type CostRules } from '../../../twin-runtime/graphql-limits.js';
import { linearSchema } from '../spec/schema.js';
import { connection } from './connection.js';
import { errorBody, LinearApiError, notSimulated } from './errors.js';
import { matches, type FieldReader } from './filter.js';
import type { Args, Rec, TypeModels } from './types.js';

/** At most this many tokens in one document (Linear limits query complexity; this bounds parsing). */
const MAX_TOKENS = 20_000;
const MAX_QUERY_CHARS = 200_000;
/** `{ [ (` nested in the text at most, checked before parsing (the parser recurses per level). */
const MAX_NESTING = 100;
/** Linear's most complex single query ("The query is too complex. … Maximum allowed complexity: 10000."). */
const MAX_COMPLEXITY = 10_000;
/** Nodes a connection counts for when asked without `first` or `last` (Linear's page size). */
const DEFAULT_PAGE = 50;

/**
 * Linear's complexity (its rate-limiting docs): a property is 0.1, an object 1, and a connection
 * multiplies what it selects by `first` (or `last`, else 50).
 */
const LINEAR_COSTS: CostRules = {
  metaCost: 0.1,
  field(_parent, field, arg) {
    if (isConnection(field)) {
      const first = arg('first');
      const last = arg('last');
      const size = typeof first === 'number' ? first : typeof last === 'number' ? last : DEFAULT_PAGE;
      return { cost: 1, times: Math.max(0, size), connection: true };
    }
    const named = getNamedType(field.type);
    return { cost: isObjectType(named) || isInterfaceType(named) || isUnionType(named) ? 1 : 0.1, times: 1 };
  },
};

/** Linear's refusal of a query past its complexity (HTTP 400, `invalid input`). */
function tooComplex(detail: string): Record<string, unknown> {
  return errorBody(new LinearApiError('invalid input', 'Query too complex', detail));
}

const EMPTY_CONNECTION = () => ({
  nodes: [],
  edges: [],
  pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
});

function emptyValue(type: GraphQLOutputType, source: Rec, schema: GraphQLSchema): unknown {
  if (!isNonNullType(type)) return null;
  const inner = type.ofType;
  if (isListType(inner)) return [];
  if (isEnumType(inner)) return inner.getValues()[0]?.value ?? null;
  if (isObjectType(inner)) return inner.name.endsWith('Connection') ? EMPTY_CONNECTION() : {};
  // An abstract type needs a concrete one to resolve to: its first possible type.
  if (isInterfaceType(inner) || isUnionType(inner)) return { __typename: schema.getPossibleTypes(inner)[0]?.name };
  switch (inner.name) {
    case 'Boolean':
      return false;
    case 'Int':
    case 'Float':
      return 0;
    case 'DateTime':
      return source.createdAt ?? new Date(0).toISOString();
    case 'TimelessDate':
      return String(source.createdAt ?? '1970-01-01').slice(0, 10);
    case 'JSON':
    case 'JSONObject':
      return {};
    default:
      return '';
  }
}

/**
 * A paged list type: Relay connections (`IssueConnection`) and search payloads
 * (`IssueSearchPayload`: `nodes`, `edges`, `pageInfo`, `totalCount`) alike.
 */
function isPaged(type: GraphQLOutputType): boolean {
  const named = getNamedType(type);
  if (!isObjectType(named)) return false;
  const fields = named.getFields();
  return !!fields.nodes && !!fields.pageInfo;
}

function graphqlError(message: string, locations?: readonly unknown[]): Record<string, unknown> {
  return {
    message,
    ...(locations ? { locations } : {}),
    extensions: { type: 'graphql error', code: 'GRAPHQL_VALIDATION_FAILED', statusCode: 400, userError: true, userPresentableMessage: message },
  };
}

export function graphqlFailure(status: number, errors: Record<string, unknown>[]): TwinResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: { errors } };
}

/** A query text read once: its document, or why it is refused before running. */
interface ParsedQuery {
  document?: DocumentNode;
  /** Syntax errors. */
  errors?: readonly GraphQLError[];
  /** Refused before parsing (nesting past MAX_NESTING), in Linear's shape. */
  refused?: Record<string, unknown>;
  /** Validation errors ([] when valid), once validated. */
  invalid?: readonly GraphQLError[];
}

export class LinearGraphQL {
  private schemaCache?: GraphQLSchema;
  private readonly documents = new Map<string, ParsedQuery>();

  constructor(private readonly models: TypeModels) {}

  get schema(): GraphQLSchema {
    return (this.schemaCache ??= linearSchema());
  }

  /**
   * A document parsed once (the SDK sends the same few documents again and again), its nesting
   * checked before the parser (which recurses per level) sees it; validated once it is known to be
   * within Linear's complexity (validation's cost grows with the document it checks).
   */
  private document(query: string): ParsedQuery {
    const cached = this.documents.get(query);
    if (cached) return cached;
    let result: ParsedQuery;
    if (nestingPast(query, MAX_NESTING, MAX_TOKENS) !== -1) result = { refused: tooComplex(`The query nests more than ${MAX_NESTING} levels deep.`) };
    else {
      try {
        result = { document: parse(query, { maxTokens: MAX_TOKENS, noLocation: false }) };
      } catch (e) {
        if (!(e instanceof GraphQLError)) throw e;
        result = { errors: [e] };
      }
    }
    if (this.documents.size > 500) this.documents.clear();
    this.documents.set(query, result);
    return result;
  }

  /** Linear's complexity of the operation, measured before it runs (each fragment once). */
  private complexity(entry: ParsedQuery, operationName: string | undefined, variables: Record<string, unknown>): Record<string, unknown> | undefined {
    const op = operationOf(entry.document!, operationName);
    if (!op) return undefined;
    const m = measure(this.schema, entry.document!, op, variables, LINEAR_COSTS);
    if (!Number.isFinite(m.depth)) return tooComplex(`The query nests more than ${MAX_NESTING} levels deep.`);
    if (m.cost > MAX_COMPLEXITY) return tooComplex(`The query is too complex. Complexity: ${m.cost}. Maximum allowed complexity: ${MAX_COMPLEXITY}.`);
    return undefined;
  }

  private field(typeName: string, name: string): GraphQLField<unknown, unknown> | undefined {
    const type = this.schema.getType(typeName);
    return type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields()[name] : undefined;
  }

  /** Every root field of the schema with its level: modelled where a model answers it, else refused. */
  operationLevels(): TwinOperationLevel[] {
    const out: TwinOperationLevel[] = [];
    for (const root of [this.schema.getQueryType(), this.schema.getMutationType()]) {
      if (!root) continue;
      for (const name of Object.keys(root.getFields()).sort()) {
        const modelled = this.answers(root.name, name);
        out.push({
          method: 'POST',
          path: '/graphql',
          operation: `${root.name}.${name}`,
          level: modelled ? 'modelled' : 'unsupported',
          ...(modelled ? {} : { reason: 'no model answers it: refused as a GraphQL error (TWIN_UNSUPPORTED_FIELD)' }),
        });
      }
    }
    return out;
  }

  /** Whether a model computes the field (a root field without one has nothing to read from). */
  answers(typeName: string, name: string): boolean {
    const model = this.models[typeName];
    return !!(model?.computed?.[name] ?? model?.one?.[name] ?? model?.many?.[name]);
  }

  /** A field of a record, resolved as the GraphQL answer would resolve it (collections as plain lists). */
  read(typeName: string, rec: Rec, name: string, ctx: TwinContext, args: Args = {}): unknown {
    const model = this.models[typeName];
    const computed = model?.computed?.[name];
    if (computed) return computed(rec, args, ctx);
    const one = model?.one?.[name];
    if (one) return one(rec, ctx);
    const many = model?.many?.[name];
    if (many) return this.filtered(many(rec, ctx, args), args, this.nodeType(typeName, name), ctx);
    return Object.hasOwn(rec, name) ? rec[name] : undefined;
  }

  /** The node type of a collection field (`Issue.children` → `Issue`). */
  private nodeType(typeName: string, name: string): string {
    const f = this.field(typeName, name);
    if (!f) return '';
    const named = getNamedType(f.type);
    if (isObjectType(named) && isPaged(named)) return getNamedType(named.getFields().nodes!.type).name;
    return named.name;
  }

  private filtered(records: Rec[], args: Args, nodeType: string, ctx: TwinContext): Rec[] {
    const filter = args.filter as Rec | undefined | null;
    if (!filter || !nodeType) return records;
    const reader = this.reader(ctx);
    return records.filter((r) => matches(filter, r, nodeType, reader));
  }

  reader(ctx: TwinContext): FieldReader {
    return {
      kind: (typeName, name) => {
        const f = this.field(typeName, name);
        if (!f) return undefined;
        const named = getNamedType(f.type);
        if (isObjectType(named) && isPaged(named)) return { kind: 'list', target: this.nodeType(typeName, name) };
        if (isListType(getNullableType(f.type)) && (isObjectType(named) || isInterfaceType(named))) return { kind: 'list', target: named.name };
        if (isObjectType(named) || isInterfaceType(named)) return { kind: 'object', target: named.name };
        return { kind: 'scalar', target: named.name };
      },
      read: (typeName, rec, name) => this.read(typeName, rec, name, ctx) ?? null,
      now: () => ctx.clock.nowMs(),
    };
  }

  private resolve(source: unknown, args: Args, ctx: TwinContext, info: GraphQLResolveInfo): unknown {
    const rec = (source ?? {}) as Rec;
    const typeName = info.parentType.name;
    const name = info.fieldName;
    const many = this.models[typeName]?.many?.[name];
    if (many) {
      const nodeType = this.nodeType(typeName, name);
      const list = this.filtered(many(rec, ctx, args), args, nodeType, ctx);
      if (!isPaged(info.returnType)) return list;
      const named = getNamedType(info.returnType);
      // Search payloads also count every match (`totalCount`), not only the page.
      const counted = isObjectType(named) && named.getFields().totalCount;
      return counted
        ? { ...connection(list, args), totalCount: list.filter((r) => args.includeArchived === true || !r.archivedAt).length }
        : connection(list, args);
    }
    // A root field no model answers is refused: an empty value there would be an invented success.
    if ((info.parentType === info.schema.getQueryType() || info.parentType === info.schema.getMutationType()) && !this.answers(typeName, name))
      throw notSimulated(`${typeName}.${name}`);
    const value = this.read(typeName, rec, name, ctx, args);
    return value === undefined ? emptyValue(info.returnType, rec, info.schema) : value;
  }

  async run(req: TwinRequest, ctx: TwinContext): Promise<TwinResponse> {
    const body = req.body;
    const query = typeof body.query === 'string' ? body.query : typeof req.query.query === 'string' ? req.query.query : undefined;
    if (!query) return graphqlFailure(400, [graphqlError('Must provide query string.')]);
    if (query.length > MAX_QUERY_CHARS) return graphqlFailure(400, [graphqlError('Query is too large.')]);
    const variables = body.variables ?? null;
    if (variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
      return graphqlFailure(400, [graphqlError('Variables must be an object.')]);
    }
    const entry = this.document(query);
    if (entry.refused) return graphqlFailure(400, [entry.refused]);
    if (entry.errors)
      return graphqlFailure(
        400,
        entry.errors.map((e) => graphqlError(e.message, e.locations)),
      );
    const operationName = typeof body.operationName === 'string' ? body.operationName : undefined;
    const complex = this.complexity(entry, operationName, (variables ?? {}) as Record<string, unknown>);
    if (complex) return graphqlFailure(400, [complex]);
    entry.invalid ??= validate(this.schema, entry.document!);
    if (entry.invalid.length > 0)
      return graphqlFailure(
        400,
        entry.invalid.map((e) => graphqlError(e.message, e.locations)),
      );
    const result = await execute({
      schema: this.schema,
      document: entry.document!,
      variableValues: variables as Record<string, unknown> | null,
      operationName,
      contextValue: ctx,
      fieldResolver: (source, args, context, info) => this.resolve(source, args as Args, context as TwinContext, info),
    });
    const errors = (result.errors ?? []).map((e) => {
      const original = e.originalError;
      if (original instanceof LinearApiError) return errorBody(original, e.path);
      // A resolver's own failure is a bug in the twin: the runtime answers 500 and logs it.
      if (original && !(original instanceof GraphQLError) && e.path) throw original;
      return graphqlError(e.message, e.locations);
    });
    if (errors.length === 0) return { status: 200, body: { data: result.data } };
    const anyData = result.data && Object.values(result.data).some((v) => v !== null);
    // Nothing answered and a root field refused as not simulated: the answer says so in its level.
    const unsupported = !anyData && (result.errors ?? []).some((e) => e.originalError instanceof LinearApiError && e.originalError.kind === 'unsupported');
    return {
      status: anyData ? 200 : 400,
      body: { ...(result.data !== undefined ? { data: result.data } : {}), errors },
      ...(unsupported ? { fidelity: 'unsupported' as const } : {}),
    };
  }
}
