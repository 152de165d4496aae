// The Notion twin: the Notion API as @notionhq/client calls it (users, pages, databases and data
// sources, properties of every common type, blocks and children, queries with filters and sorts,
// search, comments, cursor pagination, Notion's errors) with integration webhooks signed by
// `X-Notion-Signature`. See twins/notion/README.md.

import type { TwinDefinition } from '../../twin-runtime/contract.js';
import { RESOURCES } from './model/records.js';
import { createStartingPages } from './model/starter.js';
import { signDelivery, stampDelivery } from './model/webhooks.js';
import { ensureWorkspace } from './model/workspace.js';
import { routes } from './routes/index.js';
import { errorResponse, NotionError } from './wire/errors.js';
import { generic } from './wire/generic.js';
import { aroundNotion, authenticateNotion, renderNotionError, requestId } from './wire/protocol.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { NOTION_OPERATIONS } from './vocabulary/phrasebook.js';
import { notionMcp } from './mcp/tools.js';

export { seeding, suggestions };

const notion: TwinDefinition = {
  slug: 'notion',
  name: 'Notion',
  description:
    'Notion API (users, pages, databases and data sources, property values, blocks, queries with filters and sorts, search, comments) with signed webhooks.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12181,
  resources: [...RESOURCES, ...generic.resources],
  mintKey: (random) => `ntn_${random(46)}`,
  routes,
  generic,
  authenticate: authenticateNotion,
  around(call, run) {
    ensureWorkspace(call.ctx, createStartingPages);
    return aroundNotion(call, run);
  },
  errors: {
    render: renderNotionError,
    routeMiss: (req, ctx) => errorResponse(new NotionError(400, 'invalid_request_url', 'Invalid request URL.'), requestId(req, ctx)),
    // Not simulated (decisions §15): Notion's own 400 `invalid_request` ("This request is not
    // supported"), which `@notionhq/client` raises as `APIResponseError` with that code.
    unsupported: (req, ctx, sentence) => errorResponse(new NotionError(400, 'invalid_request', sentence), requestId(req, ctx)),
    parseFailure(req, ctx, problem) {
      if (problem.kind === 'malformed_url') return errorResponse(new NotionError(400, 'invalid_request_url', 'Invalid request URL.'), requestId(req, ctx));
      if (problem.refusal.reason === 'body_too_large')
        return errorResponse(new NotionError(413, 'validation_error', 'Request body too large.'), requestId(req, ctx));
      if (problem.refusal.part === 'body') return errorResponse(new NotionError(400, 'invalid_json', 'Error parsing JSON body.'), requestId(req, ctx));
      return errorResponse(new NotionError(400, 'validation_error', problem.message), requestId(req, ctx));
    },
  },
  unavailable: () => ({
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: { object: 'error', status: 503, code: 'service_unavailable', message: 'Notion is unavailable, please try again later.' },
  }),
  initialize: (ctx) => ensureWorkspace(ctx, createStartingPages),
  signDelivery,
  stampDelivery,
  suggestions,
  seeding,
  phrasebook: NOTION_OPERATIONS,
  mcp: notionMcp,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: '@notionhq/client',
        code: [
          "import { Client } from '@notionhq/client';",
          '',
          'const notion = new Client({ auth: {{api_key}}, baseUrl: {{url}} });',
          'const me = await notion.users.me({});',
        ].join('\n'),
      },
    ],
    env: { NOTION_TOKEN: '{{api_key}}', NOTION_BASE_URL: '{{url}}' },
  },
  specSource: () => import('./spec/source.js'),
};

export default notion;
