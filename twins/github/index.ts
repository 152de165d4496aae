// The GitHub twin: api.github.com's REST shapes for users, orgs, repositories, a minimal git model,
// issues, pull requests and webhooks, driven unchanged by @octokit/rest. State and rules live in
// model/, the HTTP surface in routes/. See twins/github/README.md for what is covered.

import type { TwinDefinition } from '../../twin-runtime/contract.js';
import { aroundGitHub, authenticateGitHub, parseFailureGitHub, renderGitHubError, routeMissGitHub, unsupportedGitHub } from './wire/http.js';
import { rollOver } from './model/rate-limit.js';
import { signGitHubDelivery } from './model/webhooks.js';
import { accountRoutes } from './routes/accounts.js';
import { repositoryRoutes } from './routes/repositories.js';
import { forkRoutes } from './routes/forks.js';
import { collaboratorRoutes } from './routes/collaborators.js';
import { reactionRoutes } from './routes/reactions.js';
import { issueEventRoutes } from './routes/issue-events.js';
import { teamRoutes } from './routes/teams.js';
import { gitRoutes, rawFileRoutes } from './routes/git.js';
import { protectionRoutes } from './routes/protection.js';
import { releaseDownloadRoutes, releaseRoutes } from './routes/releases.js';
import { deploymentRoutes } from './routes/deployments.js';
import { gitHttpRoutes } from './routes/git-http.js';
import { issueRoutes } from './routes/issues.js';
import { searchRoutes } from './routes/search.js';
import { gistRoutes } from './routes/gists.js';
import { pullRoutes } from './routes/pulls.js';
import { labelRoutes } from './routes/labels.js';
import { webhookRoutes } from './routes/webhooks.js';
import { rateLimitRoutes } from './routes/rate-limit.js';
import { metaRoutes } from './routes/meta.js';
import { graphqlRoutes } from './routes/graphql.js';
import { checkRoutes } from './routes/checks.js';
import { actionRoutes } from './routes/actions.js';
import { actionsSecretRoutes } from './routes/actions-secrets.js';
import { ACTIONS_SECRET_RESOURCES } from './model/actions-secrets.js';
import { appRoutes } from './routes/apps.js';
import { ENTERPRISE_PREFIX, genericWithoutEnterprisePrefix, onlyAtRoot, underEnterprisePrefix } from './wire/enterprise.js';
import { withMediaTypes } from './wire/media.js';
import { alsoUnderRepositoryId } from './wire/http.js';
import { seeding, suggestions } from './vocabulary/seeds.js';
import { GITHUB_OPERATIONS } from './vocabulary/phrasebook.js';
import { ensureBootstrap } from './model/accounts.js';
import { generic } from './wire/generic.js';
import { githubMcp } from './mcp/tools.js';
import { githubFaultAnswer } from './wire/faults.js';

const github: TwinDefinition = {
  slug: 'github',
  name: 'GitHub',
  description: 'GitHub REST API: users, orgs, repositories, branches and contents, issues, pull requests, reviews, webhooks.',
  version: '1.0.0',
  storageVersion: 2,
  defaultPort: 12121,
  resources: [
    'user',
    'org',
    'membership',
    'repository',
    'ref',
    'commit',
    'tree',
    'blob',
    'git_object',
    'issue',
    'issue_comment',
    'label',
    'milestone',
    'pull_request',
    'review',
    'review_comment',
    'hook',
    'rate_limit',
    'status',
    'check_suite',
    'check_run',
    'workflow',
    'workflow_run',
    'workflow_job',
    'actions_outcome',
    'app',
    'installation',
    'installation_token',
    'collaborator',
    'repository_invitation',
    'reaction',
    'issue_event',
    'repository_redirect',
    'team',
    'team_membership',
    'team_repo',
    'branch_protection',
    'ruleset',
    'release',
    'release_asset',
    'release_asset_data',
    'deployment',
    'deployment_status',
    'environment',
    ...ACTIONS_SECRET_RESOURCES,
    ...generic.resources,
  ],
  mintKey: (randomBase62) => `ghp_${randomBase62(36)}`,
  routes: [
    ...withMediaTypes(
      underEnterprisePrefix(
        alsoUnderRepositoryId([
          ...metaRoutes,
          ...accountRoutes,
          ...rateLimitRoutes,
          ...repositoryRoutes,
          ...forkRoutes,
          ...collaboratorRoutes,
          ...teamRoutes,
          ...webhookRoutes,
          ...gitRoutes,
          ...protectionRoutes,
          ...releaseRoutes,
          ...deploymentRoutes,
          ...issueRoutes,
          ...searchRoutes,
          ...gistRoutes,
          ...labelRoutes,
          ...pullRoutes,
          ...reactionRoutes,
          ...issueEventRoutes,
          ...checkRoutes,
          ...actionRoutes,
          ...actionsSecretRoutes,
          ...appRoutes,
          ...graphqlRoutes,
        ]),
      ),
    ),
    // Git's smart HTTP lives at the host's root (`/{owner}/{repo}.git/…`), never under /api/v3.
    ...onlyAtRoot(gitHttpRoutes),
    // The uploads host (`/api/uploads`), release downloads and signed download URLs: not under /api/v3.
    ...onlyAtRoot(releaseDownloadRoutes),
    ...onlyAtRoot(rawFileRoutes),
  ],
  generic: genericWithoutEnterprisePrefix(generic),
  // Every route but those at the host's root also answers under GitHub Enterprise's `/api/v3`.
  routing: { ignoreTrailingSlash: true, headAsGet: true, prefixes: [ENTERPRISE_PREFIX] },
  // `gh` matches a clone's remote by host without its port: see the README, "gh inside a clone".
  ownHost: true,
  authenticate: authenticateGitHub,
  around: aroundGitHub,
  errors: { render: renderGitHubError, routeMiss: routeMissGitHub, parseFailure: parseFailureGitHub, unsupported: unsupportedGitHub },
  unavailable: () => ({
    status: 503,
    body: { message: 'Service Unavailable', documentation_url: 'https://docs.github.com/rest', status: '503' },
  }),
  // Webhook secrets (`config.secret`) and OAuth credentials in bodies; tokens in old-style query auth.
  faultAnswer: githubFaultAnswer,
  redact: { query: ['access_token', 'client_secret'], body: ['access_token', 'client_secret', 'refresh_token', 'secret'] },
  initialize: ensureBootstrap,
  advance(ctx, to) {
    rollOver(ctx, to);
  },
  signDelivery: (delivery, payload) => signGitHubDelivery(delivery, payload),
  suggestions,
  seeding,
  phrasebook: GITHUB_OPERATIONS,
  mcp: githubMcp,
  sdk: {
    snippets: [
      {
        language: 'JavaScript',
        package: '@octokit/rest',
        code: [
          "import { Octokit } from '@octokit/rest';",
          '',
          'const octokit = new Octokit({ auth: {{api_key}}, baseUrl: {{url}} });',
          'const { data: me } = await octokit.rest.users.getAuthenticated();',
        ].join('\n'),
      },
    ],
    env: { GITHUB_TOKEN: '{{api_key}}', GITHUB_API_URL: '{{url}}' },
  },
  specSource: () => import('./spec/source.js'),
  countedSurface: {
    description: 'operations of `@octokit/openapi` outside GitHub Enterprise-only paths',
    includes: (entry) => !/^\/enterprises\//.test(entry.path),
  },
};

export default github;
