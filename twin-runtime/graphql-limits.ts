// What a GraphQL document will cost, known before it runs: a twin answering GraphQL (GitHub,
// Linear) checks a query here first and refuses it in its provider's words when it is past the
// provider's limits. Nothing here is exponential in the document:
//   - nestingPast: the deepest nesting of `{ [ (` counted by graphql-js's own lexer (a loop, no
//     recursion), before the recursive parser, validator and executor ever see the document: a
//     query 5,000 braces deep answered "RangeError: Maximum call stack size exceeded" before;
//   - measure: depth, node count and cost of the operation, each fragment measured once and reused
//     wherever it is spread (a fragment's cost scales with the connection sizes around it, so one
//     number per fragment suffices). Walking fragments again at each spread made a 1 KB query of 16
//     fragments, each spreading the previous three times, hold the GitHub twin 63 s (issue 33).
// The provider's rules say what each field costs and multiplies (measure's `rules`).

import {
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  Lexer,
  Source,
  TokenKind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/**
 * Whether the text opens more than `max` levels of `{`, `[` or `(` (operations, selections, object
 * and list values, arguments): the offset of the first token past it, or -1. Malformed text is left
 * for the parser to report; past `maxTokens` the parser's own limit answers.
 */
export function nestingPast(query: string, max: number, maxTokens: number): number {
  const lexer = new Lexer(new Source(query));
  let depth = 0;
  try {
    for (let n = 0; n < maxTokens; n++) {
      const token = lexer.advance();
      if (token.kind === TokenKind.EOF) return -1;
      if (token.kind === TokenKind.BRACE_L || token.kind === TokenKind.BRACKET_L || token.kind === TokenKind.PAREN_L) {
        if (++depth > max) return token.start;
      } else if (token.kind === TokenKind.BRACE_R || token.kind === TokenKind.BRACKET_R || token.kind === TokenKind.PAREN_R) depth--;
    }
  } catch {
    // a syntax error: the parser says where
  }
  return -1;
}

/** How one field counts, as the provider's rules say. */
export interface FieldCount {
  /** What the field itself costs once. */
  cost: number;
  /** How many times its selection runs per parent (a connection's page size); 1 otherwise. */
  times: number;
  /** Whether the field is a connection whose `times` nodes count toward a node limit. */
  connection?: boolean;
}

export interface CostRules {
  /**
   * How `field` (of `parent`, with these argument values) counts; `selects` tells whether its own
   * selection set names a field directly (`nodes`, `edges`).
   */
  field(parent: GraphQLNamedType, field: GraphQLField<unknown, unknown>, args: (name: string) => unknown, selects: (name: string) => boolean): FieldCount;
  /** What `__typename` and other meta fields cost. */
  metaCost: number;
}

export interface Measure {
  /**
   * Deepest field nesting (a field directly under the operation is 1); Infinity when selections and
   * fragment spreads nest past MAX_SELECTION_NESTING (a chain of fragments each spreading the next).
   */
  depth: number;
  /** Sum of every field's cost times the connection sizes around it. */
  cost: number;
  /** Sum over connections of the nodes they may return (their size times the sizes around them). */
  nodes: number;
}

const ZERO: Measure = { depth: 0, cost: 0, nodes: 0 };

/** Selection sets and fragment spreads nested in one another, at most (far beyond any provider's depth). */
export const MAX_SELECTION_NESTING = 200;

/** The operation the request names (or the only one), as graphql-js's executor picks it. */
export function operationOf(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName) return ops.find((o) => o.name?.value === operationName);
  return ops.length === 1 ? ops[0] : undefined;
}

/** A literal or variable argument's value (lists and objects are not needed by any rule). */
function argumentValue(node: ValueNode | undefined, variables: Record<string, unknown>): unknown {
  if (!node) return undefined;
  switch (node.kind) {
    case Kind.VARIABLE:
      return Object.hasOwn(variables, node.name.value) ? variables[node.name.value] : undefined;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.length;
    default:
      return undefined;
  }
}

/**
 * Depth, cost and node count of the operation, each fragment measured once. Fields the schema does
 * not have are skipped (validation refuses them); fragment cycles count once (validation refuses
 * them too). Alternatives (inline fragments on different types) are added, an upper bound.
 */
export function measure(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  rules: CostRules,
): Measure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(d.name.value)) fragments.set(d.name.value, d);
  const measured = new Map<string, Measure>();
  const measuring = new Set<string>();
  let nesting = 0;
  let tooDeep = false;

  const ofFragment = (name: string): Measure => {
    const done = measured.get(name);
    if (done) return done;
    const frag = fragments.get(name);
    if (!frag || measuring.has(name)) return ZERO;
    measuring.add(name);
    const type = schema.getType(frag.typeCondition.name.value);
    const m = type ? ofSet(type, frag.selectionSet) : ZERO;
    measuring.delete(name);
    measured.set(name, m);
    return m;
  };

  const ofField = (parent: GraphQLNamedType, node: FieldNode): Measure => {
    const name = node.name.value;
    if (name.startsWith('__')) return { depth: 1, cost: rules.metaCost, nodes: 0 };
    const def = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
    if (!def) return ZERO;
    const count = rules.field(
      parent,
      def,
      (arg) => argumentValue(node.arguments?.find((a) => a.name.value === arg)?.value, variables),
      (child) => node.selectionSet?.selections.some((sel) => sel.kind === Kind.FIELD && sel.name.value === child) ?? false,
    );
    const inner = node.selectionSet ? ofSet(getNamedType(def.type), node.selectionSet) : ZERO;
    return {
      depth: 1 + inner.depth,
      cost: count.cost + count.times * inner.cost,
      nodes: (count.connection ? count.times : 0) + count.times * inner.nodes,
    };
  };

  // `spread`: fragments already spread into this selection set (graphql-js collects each once per set).
  const ofSet = (type: GraphQLNamedType, set: SelectionSetNode, spread = new Set<string>()): Measure => {
    if (++nesting > MAX_SELECTION_NESTING) {
      nesting--;
      tooDeep = true;
      return ZERO;
    }
    let depth = 0;
    let cost = 0;
    let nodes = 0;
    for (const sel of set.selections) {
      let m: Measure;
      if (sel.kind === Kind.FIELD) m = ofField(type, sel);
      else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : type;
        m = on ? ofSet(on, sel.selectionSet, spread) : ZERO;
      } else if (spread.has(sel.name.value)) continue;
      else {
        spread.add(sel.name.value);
        m = ofFragment(sel.name.value);
      }
      depth = Math.max(depth, m.depth);
      cost += m.cost;
      nodes += m.nodes;
    }
    nesting--;
    return { depth, cost, nodes };
  };

  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  const m = root ? ofSet(root, operation.selectionSet) : ZERO;
  return tooDeep ? { ...m, depth: Number.POSITIVE_INFINITY } : m;
}

/** Whether a named type is a Relay connection (`…Connection` with `first`/`last` on its field). */
export function isConnection(field: GraphQLField<unknown, unknown>): boolean {
  return getNamedType(field.type).name.endsWith('Connection') && field.args.some((a) => a.name === 'first' || a.name === 'last');
}
