// GitHub's public GraphQL schema (@octokit/graphql-schema), built once per process on first use
// (about a second: the introspection JSON holds some 1,600 types). Queries are validated and
// executed against it unchanged, so a client's query is refused exactly where GitHub refuses it.

import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { schema as published } from '@octokit/graphql-schema';

let built: GraphQLSchema | undefined;

export function githubSchema(): GraphQLSchema {
  if (!built) {
    const json = published.json as unknown as { data?: IntrospectionQuery } & IntrospectionQuery;
    built = buildClientSchema(json.data ?? json);
  }
  return built;
}
