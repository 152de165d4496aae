// The Linear twin: Linear's GraphQL API (`POST /graphql`) as @linear/sdk calls it, executed by
// graphql-js against the schema the SDK package carries, with a deterministic starting workspace,
// signed webhooks and cycles that complete on the environment clock. See twins/linear/README.md.

import type { TwinDefinition, TwinRequest } from '../../twin-runtime/contract.js';
import { completeDueCycles } from './model/projects.js';
import { RESOURCES } from './model/records.js';
import { signDelivery, stampDelivery } from './model/webhooks.js';
import { ensureWorkspace } from './model/workspace.js';
import { createRequire } from 'node:module';
import { linearGraphQL, routes } from './routes/index.js';
import { graphqlFailure } from './wire/graphql.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { LINEAR_OPERATIONS } from './vocabulary/phrasebook.js';

export { seeding, suggestions };

/** A personal API key is sent bare (`Authorization: lin_api_…`), an OAuth token as `Bearer …`. */
function presentedKey(req: TwinRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || header.trim() === '') return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1] : header.trim();
}

const AUTH_REQUIRED = {
  message: 'Authentication required, not authenticated',
  extensions: {
    type: 'authentication error',
    code: 'AUTHENTICATION_ERROR',
    statusCode: 401,
    userError: true,
    userPresentableMessage: 'You need to authenticate to access this operation.',
  },
};

const linear: TwinDefinition = {
  slug: 'linear',
  name: 'Linear',
  description: 'Linear GraphQL API (teams, workflow states, issues, sub-issues, labels, comments, projects, cycles, users) with signed webhooks.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12161,
  resources: RESOURCES,
  mintKey: (random) => `lin_api_${random(40)}`,
  routes,
  // Coverage: every root field of the schema the SDK carries, modelled or refused.
  operationTable: {
    get source() {
      const { version } = createRequire(import.meta.url)('@linear/sdk/package.json') as { version: string };
      return `\`@linear/sdk@${version}\` schema types, its Query and Mutation root fields`;
    },
    operations: () => linearGraphQL.operationLevels(),
  },
  authenticate(req, ctx) {
    const key = presentedKey(req);
    if (key !== ctx.apiKey) return graphqlFailure(400, [AUTH_REQUIRED]);
    return undefined;
  },
  around(call, run) {
    ensureWorkspace(call.ctx);
    return run();
  },
  errors: {
    render: () => undefined,
    routeMiss: () => ({
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: "Cannot find the requested resource. Linear's API is at POST /graphql.",
    }),
    parseFailure: (_req, _ctx, problem) =>
      graphqlFailure(problem.kind === 'input_refused' && problem.refusal.reason === 'body_too_large' ? 413 : 400, [
        {
          message: problem.message,
          extensions: { type: 'graphql error', code: 'BAD_REQUEST', statusCode: 400, userError: true, userPresentableMessage: problem.message },
        },
      ]),
  },
  initialize: ensureWorkspace,
  advance(ctx, to) {
    ensureWorkspace(ctx);
    completeDueCycles(ctx, to);
  },
  signDelivery,
  stampDelivery,
  suggestions,
  seeding,
  phrasebook: LINEAR_OPERATIONS,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: '@linear/sdk',
        code: [
          "import { LinearClient } from '@linear/sdk';",
          '',
          'const linear = new LinearClient({ apiKey: {{api_key}}, apiUrl: {{url:/graphql}} });',
          'const me = await linear.viewer;',
        ].join('\n'),
      },
    ],
    env: { LINEAR_API_KEY: '{{api_key}}', LINEAR_API_URL: '{{url:/graphql}}' },
  },
};

export default linear;
