// Forks: create a fork (for the viewer or an organization), list a repository's forks, sync a
// fork's branch with its upstream (`merge-upstream`, what `gh repo sync` calls).

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError } from '../wire/errors.js';
import { getMembership, requireOrg, viewer } from '../model/accounts.js';
import { forkRepository, listForks, mergeUpstream } from '../model/forks.js';
import { afterPush } from '../model/pushes.js';
import { jsonBody, optBool, optString, optEnum, page, queryString, repoOf, requiredString, routes } from '../wire/http.js';
import type { Json } from '../model/accounts.js';

const SORTS = ['newest', 'oldest', 'stargazers', 'watchers'] as const;

function sortForks(list: Json[], sort: string): Json[] {
  const key = (r: Json): number => (sort === 'stargazers' ? r.stargazers_count : sort === 'watchers' ? r.watchers_count : Date.parse(r.created_at));
  const sign = sort === 'oldest' ? 1 : -1;
  return [...list].sort((a, b) => (key(a) - key(b)) * sign || (a.id - b.id) * sign);
}

export const forkRoutes: TwinRoute[] = [
  ...routes('POST', '/repos/{owner}/{repo}/forks', (req, ctx) => {
    const parent = repoOf(req, ctx);
    const b = jsonBody(req);
    const orgLogin = optString(b, 'organization', false);
    const name = optString(b, 'name', false) ?? undefined;
    const defaultBranchOnly = optBool(b, 'default_branch_only');
    let owner = viewer(ctx);
    if (orgLogin) {
      owner = requireOrg(ctx, orgLogin);
      if (!getMembership(ctx, owner.login, viewer(ctx).login)) {
        throw new GitHubError(403, 'You do not have permission to create a fork in this organization.');
      }
    }
    // 202 Accepted: GitHub copies the repository in the background; the twin's copy is complete.
    return { status: 202, body: forkRepository(ctx, parent, { owner, name, defaultBranchOnly }).repo };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/forks', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const sort = optEnum({ sort: queryString(req, 'sort') }, 'sort', SORTS) ?? 'newest';
    const me = viewer(ctx).login;
    const visible = listForks(ctx, repo).filter(
      (r) => !r.private || r.owner.login === me || (r.owner.type === 'Organization' && !!getMembership(ctx, r.owner.login, me)),
    );
    return page(req, ctx, sortForks(visible, sort));
  }),
  ...routes('POST', '/repos/{owner}/{repo}/merge-upstream', (req, ctx) => {
    const fork = repoOf(req, ctx);
    if (!fork.permissions?.push) throw new GitHubError(403, 'Must have push access to repository');
    const { result, push } = mergeUpstream(ctx, fork, requiredString(jsonBody(req), 'branch'));
    if (push) afterPush(ctx, fork, push);
    return { body: result };
  }),
];
