// Repositories: create for the viewer or an org, get, update, delete, list, topics.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError } from '../wire/errors.js';
import { type Json, getMembership, requireOrg, requireUser, viewer } from '../model/accounts.js';
import { deleteRepository, replaceTopics, repositoriesOfViewer, repositoriesOwnedBy, updateRepository, type RepositoryInput } from '../model/repositories.js';
import { branchHead, openRepository } from '../model/git.js';
import { listCollaborators } from '../model/collaborators.js';
import { jsonBody, optBool, optEnum, optString, optStringArray, page, queryString, repoOf, reply, requiredString, routes } from '../wire/http.js';
import { languagesOf } from '../model/languages.js';

function repositoryInput(req: TwinRequest): RepositoryInput {
  const b = jsonBody(req);
  return {
    name: requiredString(b, 'name'),
    description: optString(b, 'description'),
    homepage: optString(b, 'homepage'),
    private: optBool(b, 'private'),
    visibility: optEnum(b, 'visibility', ['public', 'private', 'internal'] as const),
    has_issues: optBool(b, 'has_issues'),
    has_projects: optBool(b, 'has_projects'),
    has_wiki: optBool(b, 'has_wiki'),
    has_discussions: optBool(b, 'has_discussions'),
    is_template: optBool(b, 'is_template'),
    auto_init: optBool(b, 'auto_init'),
    allow_squash_merge: optBool(b, 'allow_squash_merge'),
    allow_merge_commit: optBool(b, 'allow_merge_commit'),
    allow_rebase_merge: optBool(b, 'allow_rebase_merge'),
    allow_auto_merge: optBool(b, 'allow_auto_merge'),
    delete_branch_on_merge: optBool(b, 'delete_branch_on_merge'),
  };
}

function sortRepos(list: Json[], sort: string | undefined, direction: string | undefined, defaultSort: string): Json[] {
  const s = sort ?? defaultSort;
  const dir = direction ?? (s === 'full_name' ? 'asc' : 'desc');
  const key = (r: Json): string =>
    s === 'full_name' ? r.full_name.toLowerCase() : s === 'updated' ? r.updated_at : s === 'pushed' ? (r.pushed_at ?? '') : r.created_at;
  const sign = dir === 'asc' ? 1 : -1;
  return [...list].sort((a, b) => (key(a) < key(b) ? -sign : key(a) > key(b) ? sign : (a.id - b.id) * sign));
}

function byVisibility(list: Json[], type: string | undefined): Json[] {
  if (type === 'public') return list.filter((r) => !r.private);
  if (type === 'private') return list.filter((r) => r.private);
  return list;
}

export function requireAdmin(_ctx: TwinContext, repo: Json): void {
  if (!repo.permissions?.admin) throw new GitHubError(403, 'Must have admin rights to Repository.');
}

export const repositoryRoutes: TwinRoute[] = [
  ...routes('POST', '/user/repos', (req, ctx) => ({ status: 201, body: openRepository(ctx, viewer(ctx), repositoryInput(req)) })),
  ...routes('POST', '/orgs/{org}/repos', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    const input = repositoryInput(req);
    if (!getMembership(ctx, org.login, viewer(ctx).login)) {
      throw new GitHubError(403, 'You need admin access to the organization before adding a repository to it.');
    }
    return { status: 201, body: openRepository(ctx, org, input) };
  }),
  ...routes('GET', '/user/repos', (req, ctx) =>
    page(
      req,
      ctx,
      sortRepos(
        byVisibility(repositoriesOfViewer(ctx), queryString(req, 'visibility') ?? queryString(req, 'type')),
        queryString(req, 'sort'),
        queryString(req, 'direction'),
        'full_name',
      ),
    ),
  ),
  ...routes('GET', '/users/{username}/repos', (req, ctx) => {
    const u = requireUser(ctx, req.params.username!);
    const mine = u.login === viewer(ctx).login;
    const list = repositoriesOwnedBy(ctx, u.login).filter((r) => mine || !r.private);
    return page(req, ctx, sortRepos(list, queryString(req, 'sort'), queryString(req, 'direction'), 'full_name'));
  }),
  ...routes('GET', '/orgs/{org}/repos', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    const member = !!getMembership(ctx, org.login, viewer(ctx).login);
    const list = byVisibility(
      repositoriesOwnedBy(ctx, org.login).filter((r) => member || !r.private),
      queryString(req, 'type'),
    );
    return page(req, ctx, sortRepos(list, queryString(req, 'sort'), queryString(req, 'direction'), 'created'));
  }),
  ...routes('GET', '/repos/{owner}/{repo}', (req, ctx) => ({ body: repoOf(req, ctx) })),
  ...routes('PATCH', '/repos/{owner}/{repo}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireAdmin(ctx, repo);
    const b = jsonBody(req);
    const patch: Json = {};
    for (const f of ['name', 'description', 'homepage', 'default_branch'] as const) {
      const v = f === 'name' || f === 'default_branch' ? optString(b, f, false) : optString(b, f);
      if (v !== undefined) patch[f] = v;
    }
    for (const f of [
      'private',
      'has_issues',
      'has_projects',
      'has_wiki',
      'has_discussions',
      'is_template',
      'archived',
      'allow_squash_merge',
      'allow_merge_commit',
      'allow_rebase_merge',
      'allow_auto_merge',
      'delete_branch_on_merge',
      'allow_update_branch',
      'allow_forking',
      'web_commit_signoff_required',
    ] as const) {
      const v = optBool(b, f);
      if (v !== undefined) patch[f] = v;
    }
    const vis = optEnum(b, 'visibility', ['public', 'private', 'internal'] as const);
    if (vis) patch.visibility = vis;
    return { body: updateRepository(ctx, repo, patch, (branch) => !!branchHead(ctx, repo, branch)) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireAdmin(ctx, repo);
    deleteRepository(ctx, repo);
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/topics', (req, ctx) => ({ body: { names: repoOf(req, ctx).topics ?? [] } })),
  ...routes('PUT', '/repos/{owner}/{repo}/topics', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const names = optStringArray(jsonBody(req), 'names');
    if (names === undefined) throw new GitHubError(422, 'Invalid request.\n\n"names" wasn\'t supplied.');
    return { body: { names: replaceTopics(ctx, repo, names) } };
  }),
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/languages',
    // Linguist's data is loaded on the first request that needs it.
    handler: async (req, ctx) => {
      const langs = await languagesOf(ctx, repoOf(req, ctx));
      return reply(() => ({ body: Object.fromEntries(langs.map((l) => [l.name, l.bytes])) }))(req, ctx);
    },
  },
  ...routes('GET', '/repos/{owner}/{repo}/assignees', (req, ctx) => {
    // Everyone with access can be assigned: the collaborators without their permissions.
    const users = listCollaborators(ctx, repoOf(req, ctx)).map(({ permissions: _p, role_name: _r, ...user }) => user);
    return page(req, ctx, users);
  }),
];
