// Repositories: creation for a user or an org, the full repository shape, updates (incl. rename),
// deletion with everything that belongs to it, topics, and the open-issue counter.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, RepositoryMoved, notFound, validationFailed } from '../wire/errors.js';
import { type Json, getMembership, simpleAccount, viewer } from './accounts.js';

export function repoKey(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}

/** Every record kind keyed `<repository id>:<…>`, removed with its repository. */
export const REPOSITORY_CHILDREN = [
  'issue',
  'issue_comment',
  'label',
  'milestone',
  'pull_request',
  'review',
  'review_comment',
  'hook',
  'ref',
  'commit',
  'tree',
  'blob',
  'git_object',
  'status',
  'check_suite',
  'check_run',
  'workflow',
  'workflow_run',
  'workflow_job',
  'collaborator',
  'repository_invitation',
  'reaction',
  'issue_event',
  'branch_protection',
  'ruleset',
  'release',
  'release_asset',
  'release_asset_data',
  'deployment',
  'deployment_status',
  'environment',
] as const;

export function childKey(repo: Json, rest: string | number): string {
  return `${repo.id}:${rest}`;
}

const NAME_RE = /^[A-Za-z0-9._-]+$/;

function repoUrls(fullName: string): Json {
  const url = `${API}/repos/${fullName}`;
  return {
    html_url: `${WEB}/${fullName}`,
    url,
    forks_url: `${url}/forks`,
    keys_url: `${url}/keys{/key_id}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    teams_url: `${url}/teams`,
    hooks_url: `${url}/hooks`,
    issue_events_url: `${url}/issues/events{/number}`,
    events_url: `${url}/events`,
    assignees_url: `${url}/assignees{/user}`,
    branches_url: `${url}/branches{/branch}`,
    tags_url: `${url}/tags`,
    blobs_url: `${url}/git/blobs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    trees_url: `${url}/git/trees{/sha}`,
    statuses_url: `${url}/statuses/{sha}`,
    languages_url: `${url}/languages`,
    stargazers_url: `${url}/stargazers`,
    contributors_url: `${url}/contributors`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    commits_url: `${url}/commits{/sha}`,
    git_commits_url: `${url}/git/commits{/sha}`,
    comments_url: `${url}/comments{/number}`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    contents_url: `${url}/contents/{+path}`,
    compare_url: `${url}/compare/{base}...{head}`,
    merges_url: `${url}/merges`,
    archive_url: `${url}/{archive_format}{/ref}`,
    downloads_url: `${url}/downloads`,
    issues_url: `${url}/issues{/number}`,
    pulls_url: `${url}/pulls{/number}`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    labels_url: `${url}/labels{/name}`,
    releases_url: `${url}/releases{/id}`,
    deployments_url: `${url}/deployments`,
    git_url: `git://github.com/${fullName}.git`,
    ssh_url: `git@github.com:${fullName}.git`,
    clone_url: `${WEB}/${fullName}.git`,
    svn_url: `${WEB}/${fullName}`,
  };
}

export interface RepositoryInput {
  name: string;
  description?: string | null;
  homepage?: string | null;
  private?: boolean;
  visibility?: string;
  has_issues?: boolean;
  has_projects?: boolean;
  has_wiki?: boolean;
  has_discussions?: boolean;
  is_template?: boolean;
  auto_init?: boolean;
  allow_squash_merge?: boolean;
  allow_merge_commit?: boolean;
  allow_rebase_merge?: boolean;
  allow_auto_merge?: boolean;
  delete_branch_on_merge?: boolean;
}

function permissionsFor(ctx: TwinContext, owner: Json): Json {
  const me = viewer(ctx);
  let admin = owner.login === me.login;
  if (!admin && owner.type === 'Organization') admin = getMembership(ctx, owner.login, me.login)?.role === 'admin';
  const member = admin || (owner.type === 'Organization' && !!getMembership(ctx, owner.login, me.login));
  return { admin, maintain: admin, push: member, triage: member, pull: true };
}

/** Create the repository record (the caller initialises git content when `auto_init`). */
export function createRepository(ctx: TwinContext, owner: Json, input: RepositoryInput): Json {
  const name = input.name;
  if (!NAME_RE.test(name)) {
    throw validationFailed({ resource: 'Repository', field: 'name', code: 'custom', message: 'name is invalid' });
  }
  if (ctx.store.has('repository', repoKey(owner.login, name))) {
    throw new GitHubError(422, 'Repository creation failed.', {
      errors: [{ resource: 'Repository', code: 'custom', field: 'name', message: 'name already exists on this account' }],
    });
  }
  const id = nextId(ctx, 'repository');
  const at = now(ctx);
  const fullName = `${owner.login}/${name}`;
  ctx.store.delete(REDIRECT, repoKey(owner.login, name));
  const isPrivate = input.visibility ? input.visibility !== 'public' : !!input.private;
  const repo: Json = {
    id,
    node_id: nodeId('Repository', id),
    name,
    full_name: fullName,
    private: isPrivate,
    owner: simpleAccount(owner),
    description: input.description ?? null,
    fork: false,
    ...repoUrls(fullName),
    homepage: input.homepage ?? null,
    mirror_url: null,
    language: null,
    size: 0,
    stargazers_count: 0,
    watchers_count: 0,
    forks_count: 0,
    open_issues_count: 0,
    forks: 0,
    open_issues: 0,
    watchers: 0,
    default_branch: 'main',
    is_template: input.is_template ?? false,
    topics: [],
    has_issues: input.has_issues ?? true,
    has_projects: input.has_projects ?? true,
    has_wiki: input.has_wiki ?? true,
    has_pages: false,
    has_downloads: true,
    has_discussions: input.has_discussions ?? false,
    archived: false,
    disabled: false,
    visibility: isPrivate ? 'private' : 'public',
    license: null,
    allow_forking: true,
    web_commit_signoff_required: false,
    pushed_at: at,
    created_at: at,
    updated_at: at,
    permissions: permissionsFor(ctx, owner),
    allow_rebase_merge: input.allow_rebase_merge ?? true,
    allow_squash_merge: input.allow_squash_merge ?? true,
    allow_merge_commit: input.allow_merge_commit ?? true,
    allow_auto_merge: input.allow_auto_merge ?? false,
    delete_branch_on_merge: input.delete_branch_on_merge ?? false,
    allow_update_branch: false,
    use_squash_pr_title_as_default: false,
    squash_merge_commit_title: 'COMMIT_OR_PR_TITLE',
    squash_merge_commit_message: 'COMMIT_MESSAGES',
    merge_commit_title: 'MERGE_MESSAGE',
    merge_commit_message: 'PR_TITLE',
    network_count: 0,
    subscribers_count: 1,
  };
  if (owner.type === 'Organization') repo.organization = simpleAccount(owner);
  ctx.store.put('repository', repoKey(owner.login, name), repo);
  return repo;
}

export function findRepository(ctx: TwinContext, owner: string, name: string): Json | undefined {
  return ctx.store.get<Json>('repository', repoKey(owner, name));
}

/** The repository, or a redirect to it when `owner/name` is an old name (404 otherwise). */
export function requireRepository(ctx: TwinContext, owner: string, name: string): Json {
  const repo = findRepository(ctx, owner, name);
  if (repo) return repo;
  const moved = movedRepository(ctx, owner, name);
  if (moved) throw new RepositoryMoved(moved.id);
  throw notFound();
}

export function saveRepository(ctx: TwinContext, repo: Json): void {
  ctx.store.put('repository', repoKey(repo.owner.login, repo.name), repo);
}

const UPDATABLE = [
  'description',
  'homepage',
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
] as const;

export function updateRepository(ctx: TwinContext, repo: Json, patch: Json, branchExists: (b: string) => boolean): Json {
  const oldKey = repoKey(repo.owner.login, repo.name);
  for (const f of UPDATABLE) if (patch[f] !== undefined) repo[f] = patch[f];
  if (patch.private !== undefined) {
    repo.private = !!patch.private;
    repo.visibility = repo.private ? 'private' : 'public';
  }
  if (patch.visibility !== undefined) {
    repo.visibility = patch.visibility;
    repo.private = patch.visibility !== 'public';
  }
  if (patch.default_branch !== undefined && patch.default_branch !== repo.default_branch) {
    if (!branchExists(patch.default_branch)) {
      throw validationFailed({
        resource: 'Repository',
        field: 'default_branch',
        code: 'invalid',
        message: `The branch ${patch.default_branch} was not found. Please push that ref first or create it via the Git Data API.`,
      });
    }
    repo.default_branch = patch.default_branch;
  }
  if (patch.name !== undefined && patch.name !== repo.name) {
    if (!NAME_RE.test(patch.name)) {
      throw validationFailed({ resource: 'Repository', field: 'name', code: 'custom', message: 'name is invalid' });
    }
    if (ctx.store.has('repository', repoKey(repo.owner.login, patch.name))) {
      throw validationFailed({ resource: 'Repository', field: 'name', code: 'custom', message: 'name already exists on this account' });
    }
    repo.name = patch.name;
    repo.full_name = `${repo.owner.login}/${patch.name}`;
    Object.assign(repo, repoUrls(repo.full_name));
  }
  repo.updated_at = now(ctx);
  ctx.store.transaction(() => {
    if (oldKey !== repoKey(repo.owner.login, repo.name)) {
      ctx.store.delete('repository', oldKey);
      // The old name keeps answering with a redirect to the repository (until a new one takes it).
      ctx.store.put(REDIRECT, oldKey, { id: repo.id });
      ctx.store.delete(REDIRECT, repoKey(repo.owner.login, repo.name));
    }
    saveRepository(ctx, repo);
  });
  return repo;
}

/** Old names of renamed repositories (`owner/name` lower-cased → `{id}`). */
const REDIRECT = 'repository_redirect';

export function findRepositoryById(ctx: TwinContext, id: number): Json | undefined {
  return ctx.store.list<Json>('repository').find((r) => r.id === id);
}

/** The repository that used to be called `owner/name`, when it was renamed. */
export function movedRepository(ctx: TwinContext, owner: string, name: string): Json | undefined {
  const redirect = ctx.store.get<Json>(REDIRECT, repoKey(owner, name));
  return redirect ? findRepositoryById(ctx, redirect.id) : undefined;
}

export function deleteRepository(ctx: TwinContext, repo: Json): void {
  const prefix = `${repo.id}:`;
  ctx.store.transaction(() => {
    for (const kind of REPOSITORY_CHILDREN) {
      for (const r of ctx.store.listByPrefix(kind, prefix)) ctx.store.delete(kind, r.external_id);
    }
    ctx.store.delete('repository', repoKey(repo.owner.login, repo.name));
    // A deleted fork no longer counts among its parent's forks.
    const parent = repo.parent ? findRepository(ctx, repo.parent.owner.login, repo.parent.name) : undefined;
    if (parent?.id === repo.parent?.id && parent) {
      parent.forks_count = parent.forks = Math.max(0, (parent.forks_count ?? 1) - 1);
      saveRepository(ctx, parent);
    }
    for (const r of ctx.store.listRecords<Json>(REDIRECT)) if (r.body.id === repo.id) ctx.store.delete(REDIRECT, r.external_id);
  });
}

export function repositoriesOwnedBy(ctx: TwinContext, login: string): Json[] {
  const l = login.toLowerCase();
  return ctx.store.listByPrefix<Json>('repository', `${l}/`).map((r) => r.body);
}

/** Repositories the viewer can see as owner, collaborator or org member (`GET /user/repos`). */
export function repositoriesOfViewer(ctx: TwinContext): Json[] {
  const me = viewer(ctx);
  // Direct collaborations are keyed `<repository id>:<login>` (model/collaborators.ts).
  const collaborating = new Set(
    ctx.store
      .listRecords<Json>('collaborator')
      .filter((r) => r.body.login.toLowerCase() === me.login.toLowerCase())
      .map((r) => Number(r.external_id.split(':')[0])),
  );
  return ctx.store
    .list<Json>('repository')
    .filter((r) => r.owner.login === me.login || collaborating.has(r.id) || (r.owner.type === 'Organization' && !!getMembership(ctx, r.owner.login, me.login)));
}

export function replaceTopics(ctx: TwinContext, repo: Json, names: string[]): string[] {
  const bad = names.find((n) => !/^[a-z0-9][a-z0-9-]{0,49}$/.test(n));
  if (bad !== undefined) {
    throw validationFailed({
      resource: 'Repository',
      field: 'topics',
      code: 'invalid',
      message: `Topics must start with a lowercase letter or number, consist of 50 characters or less, and can include hyphens.`,
      value: bad,
    });
  }
  repo.topics = [...new Set(names)];
  saveRepository(ctx, repo);
  return repo.topics;
}

/** An issue or pull request opened (+1) or closed (-1): move the counter without recounting. */
export function adjustOpenIssues(ctx: TwinContext, repo: Json, delta: number): void {
  if (!delta) return;
  const fresh = ctx.store.get<Json>('repository', repoKey(repo.owner.login, repo.name)) ?? repo;
  const open = Math.max(0, (fresh.open_issues_count ?? 0) + delta);
  fresh.open_issues_count = fresh.open_issues = open;
  repo.open_issues_count = repo.open_issues = open;
  saveRepository(ctx, fresh);
}
