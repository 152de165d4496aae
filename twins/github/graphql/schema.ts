// GitHub's public GraphQL schema (@octokit/graphql-schema), built once per process on first use
// (about half a second: the introspection JSON holds some 1,600 types). Queries are validated and
// executed against it unchanged, so a client's query is refused exactly where GitHub refuses it.
// The package's own entry point builds a second schema as it is imported (its `validate`), so the
// JSON beside it is read directly: importing the package cost every GitHub twin ~430 ms at start.

import { readFileSync } from 'node:fs';
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

let built: GraphQLSchema | undefined;

export function githubSchema(): GraphQLSchema {
  if (!built) {
    const file = new URL('./schema.json', import.meta.resolve('@octokit/graphql-schema'));
    const json = JSON.parse(readFileSync(file, 'utf8')) as { data?: IntrospectionQuery } & IntrospectionQuery;
    built = buildClientSchema(json.data ?? json);
  }
  return built;
}
