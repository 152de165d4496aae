// The GitHub twin: api.github.com's REST shapes for users, orgs, repositories, a minimal git model,
// issues, pull requests and webhooks, driven unchanged by @octokit/rest. State and rules live in
// model/, the HTTP surface in routes/. See twins/github/README.md for what is covered.

import type { TwinDefinition, TwinRequest, TwinResponse } from '../../twin-runtime/contract.js';
import { DOCS } from './model/errors.js';
import { rollOver } from './model/rate-limit.js';
import { signGitHubDelivery } from './model/webhooks.js';
import { accountRoutes } from './routes/accounts.js';
import { repositoryRoutes } from './routes/repositories.js';
import { gitRoutes } from './routes/git.js';
import { issueRoutes } from './routes/issues.js';
import { pullRoutes } from './routes/pulls.js';
import { seeding, suggestions } from './seed-vocabulary.js';
import { ensureBootstrap } from './model/accounts.js';
import { generic } from './wire/generic.js';

function githubError(status: number, message: string): TwinResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-github-media-type': 'github.v3; format=json' },
    body: { message, documentation_url: DOCS, status: String(status) },
  };
}

/** `Authorization: token <key>` or `Bearer <key>` (Octokit sends either). */
function presentedKey(req: TwinRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^(?:token|bearer)\s+(\S+)$/i.exec(h.trim());
  return m ? m[1] : '';
}

const github: TwinDefinition = {
  slug: 'github',
  name: 'GitHub',
  description: 'GitHub REST API: users, orgs, repositories, branches and contents, issues, pull requests, reviews, webhooks.',
  version: '1.0.0',
  storageVersion: 1,
  resources: [
    'user', 'org', 'membership', 'repository', 'ref', 'commit', 'tree', 'blob', 'issue', 'issue_comment',
    'label', 'milestone', 'pull_request', 'review', 'review_comment', 'hook', 'rate_limit',
    ...generic.resources,
  ],
  mintKey: (randomBase62) => `ghp_${randomBase62(36)}`,
  routes: [...accountRoutes, ...repositoryRoutes, ...gitRoutes, ...issueRoutes, ...pullRoutes],
  generic,
  authenticate(req, ctx) {
    const key = presentedKey(req);
    if (key === undefined) return githubError(401, 'Requires authentication');
    if (key !== ctx.apiKey) return githubError(401, 'Bad credentials');
    return undefined;
  },
  notFound: () => githubError(404, 'Not Found'),
  initialize: ensureBootstrap,
  advance(ctx, to) {
    rollOver(ctx, to);
  },
  signDelivery: (delivery, payload) => signGitHubDelivery(delivery, payload),
  suggestions,
  seeding,
};

export default github;
