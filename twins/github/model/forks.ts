// Forks: a fork is a repository of its own (`fork: true`, `parent`, `source`) that starts with the
// parent's git objects and branches. GitHub keeps one object store per fork network, so a fork's
// commits can be read through the parent (a cross-repository pull request's head, its merge); the
// twin gives each repository its own copy of the objects it can reach, shared in one SQL statement
// when a fork is made and again when a fork's commits become a pull request's head.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB } from './identity.js';
import { refuseRefUpdate } from './protection.js';
import { GitHubError } from '../wire/errors.js';
import { type Json, viewer } from './accounts.js';
import { childKey, createRepository, findRepository, repositoriesOwnedBy, saveRepository } from './repositories.js';
import { createDefaultLabels } from './labels.js';
import { GIT_OBJECT } from './git-objects.js';
import {
  type Push,
  ancestors,
  branchHead,
  commitFiles,
  commitModes,
  commitsBetween,
  createCommit,
  listRefs,
  mergeBase,
  mergeFiles,
  putTree,
  setRef,
} from './git.js';

/** Record kinds holding git objects, keyed `<repository id>:<sha>`. */
const OBJECT_KINDS = ['blob', 'tree', 'commit', GIT_OBJECT] as const;

const shareStatements = new WeakMap<object, { run(...args: unknown[]): unknown }>();

/**
 * Give `to` every git object `from` holds that it lacks, with the URLs inside the records pointing
 * at `to` (records keep canonical https://api.github.com/repos/<full name>/… URLs).
 */
export function shareGitObjects(ctx: TwinContext, from: Json, to: Json): void {
  if (from.id === to.id) return;
  const db = ctx.store.db;
  let stmt = shareStatements.get(db);
  if (!stmt) {
    // Objects `to` already holds are skipped before their bodies are rewritten (a pull request
    // from a fork shares again on every new head: only the new objects cost anything).
    stmt = db.prepare(
      `INSERT INTO records (resource, external_id, body, created, status)
         SELECT src.resource, :to || substr(src.external_id, :cut), replace(replace(src.body, :fromApi, :toApi), :fromWeb, :toWeb),
                src.created, src.status
           FROM records AS src
          WHERE src.resource IN (${OBJECT_KINDS.map((k) => `'${k}'`).join(', ')})
            AND src.external_id >= :lo AND src.external_id < :hi
            AND NOT EXISTS (SELECT 1 FROM records AS dst
                             WHERE dst.resource = src.resource AND dst.external_id = :to || substr(src.external_id, :cut))
       ON CONFLICT (resource, external_id) DO NOTHING`,
    );
    shareStatements.set(db, stmt);
  }
  const prefix = `${from.id}:`;
  stmt.run({
    to: `${to.id}:`,
    cut: prefix.length + 1,
    fromApi: `${API}/repos/${from.full_name}/`,
    toApi: `${API}/repos/${to.full_name}/`,
    fromWeb: `${WEB}/${from.full_name}/`,
    toWeb: `${WEB}/${to.full_name}/`,
    lo: prefix,
    hi: `${prefix}\u{10ffff}`,
  });
}

/** The repository as `parent`/`source` embed it (no nested parent, source or viewer permissions). */
function embedded(repo: Json): Json {
  const { parent: _p, source: _s, permissions: _perm, ...rest } = repo;
  return rest;
}

/** The root of a repository's fork network. */
export function networkRoot(ctx: TwinContext, repo: Json): Json {
  if (!repo.source) return repo;
  return findRepository(ctx, repo.source.owner.login, repo.source.name) ?? repo;
}

/** The repositories `repo` was forked from, nearest first (they may have been deleted since). */
export function forkAncestors(ctx: TwinContext, repo: Json): Json[] {
  const out: Json[] = [];
  let at = repo;
  while (at.parent && out.length < 64) {
    const parent = findRepository(ctx, at.parent.owner.login, at.parent.name);
    if (!parent || out.some((r) => r.id === parent.id)) break;
    out.push(parent);
    at = parent;
  }
  return out;
}

/** A repository `login` owns in `repo`'s fork network (the head repository of `login:branch`). */
export function repositoryInNetwork(ctx: TwinContext, login: string, repo: Json): Json | undefined {
  if (repo.owner.login.toLowerCase() === login.toLowerCase()) return repo;
  const root = networkRoot(ctx, repo);
  return repositoriesOwnedBy(ctx, login).find((r) => networkRoot(ctx, r).id === root.id);
}

export function listForks(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store.list<Json>('repository').filter((r) => r.parent?.id === repo.id);
}

export interface ForkInput {
  /** The account the fork belongs to (the viewer or an organization). */
  owner: Json;
  name?: string;
  defaultBranchOnly?: boolean;
}

/**
 * `POST /repos/{o}/{r}/forks`. An account that already has a fork of the network gets that fork
 * back (`created: false`), as GitHub answers; a name taken by another repository gets `-1`, `-2`…
 */
export function forkRepository(ctx: TwinContext, parent: Json, input: ForkInput): { repo: Json; created: boolean } {
  if (parent.allow_forking === false) throw new GitHubError(403, 'Forking is disabled for this repository.');
  if (parent.owner.login.toLowerCase() === input.owner.login.toLowerCase() && !input.name) {
    throw new GitHubError(422, 'Validation Failed', {
      errors: [{ resource: 'Repository', code: 'custom', message: 'A repository cannot be forked to its own owner.' }],
    });
  }
  const existing = repositoryInNetwork(ctx, input.owner.login, parent);
  if (existing && existing.id !== parent.id) return { repo: existing, created: false };
  return ctx.store.transaction(() => {
    const base = input.name ?? parent.name;
    let name = base;
    for (let n = 1; findRepository(ctx, input.owner.login, name); n++) name = `${base}-${n}`;
    const repo = createRepository(ctx, input.owner, {
      name,
      description: parent.description,
      homepage: parent.homepage,
      private: parent.private,
      has_issues: false,
      has_projects: parent.has_projects,
      has_wiki: parent.has_wiki,
    });
    const source = networkRoot(ctx, parent);
    repo.fork = true;
    repo.default_branch = parent.default_branch;
    repo.parent = embedded(parent);
    repo.source = embedded(source);
    repo.network_count = (source.network_count ?? 0) + 1;
    createDefaultLabels(ctx, repo);
    shareGitObjects(ctx, parent, repo);
    const prefix = input.defaultBranchOnly ? `refs/heads/${parent.default_branch}` : 'refs/';
    for (const ref of listRefs(ctx, parent, prefix)) {
      if (input.defaultBranchOnly ? ref.ref !== prefix : !/^refs\/(heads|tags)\//.test(ref.ref)) continue;
      // The ref's own body (an annotated tag's ref names a tag object), its URLs pointing at the fork.
      const moved = JSON.stringify(ref).split(`${API}/repos/${parent.full_name}/`).join(`${API}/repos/${repo.full_name}/`);
      ctx.store.put('ref', childKey(repo, ref.ref), JSON.parse(moved));
    }
    saveRepository(ctx, repo);
    const fresh = findRepository(ctx, parent.owner.login, parent.name)!;
    fresh.forks_count = fresh.forks = (fresh.forks_count ?? 0) + 1;
    fresh.network_count = repo.network_count;
    saveRepository(ctx, fresh);
    return { repo, created: true };
  });
}

// ---- syncing a fork ----------------------------------------------------------------------

/**
 * `POST /repos/{o}/{r}/merge-upstream`: bring the parent's branch of the same name into the fork's
 * branch — a fast-forward when the fork has nothing of its own, else a merge commit; 409 when the
 * two changed the same file differently. `push` is undefined when nothing moved.
 */
export function mergeUpstream(ctx: TwinContext, fork: Json, branch: string): { result: Json; push?: Push } {
  const parent = fork.parent ? findRepository(ctx, fork.parent.owner.login, fork.parent.name) : undefined;
  if (!fork.fork || !parent) throw new GitHubError(422, 'This repository is not a fork.');
  const ours = branchHead(ctx, fork, branch);
  const theirs = branchHead(ctx, parent, branch);
  if (!ours || !theirs) throw new GitHubError(422, `Branch ${branch} not found.`);
  const baseBranch = `${parent.owner.login}:${branch}`;
  shareGitObjects(ctx, parent, fork);
  if (ancestors(ctx, fork, ours).has(theirs)) {
    return { result: { message: 'This branch is not behind the upstream', merge_type: 'none', base_branch: baseBranch } };
  }
  let tip = theirs;
  let mergeType = 'fast-forward';
  let created: Json[] = commitsBetween(ctx, fork, ours, theirs);
  if (!ancestors(ctx, fork, theirs).has(ours)) {
    const mb = mergeBase(ctx, fork, ours, theirs);
    const merged = mb ? mergeFiles(commitFiles(ctx, fork, mb), commitFiles(ctx, fork, ours), commitFiles(ctx, fork, theirs)) : undefined;
    if (!merged) throw new GitHubError(409, 'There are merge conflicts');
    const modes = new Map([...commitModes(ctx, fork, ours), ...commitModes(ctx, fork, theirs)]);
    const commit = createCommit(ctx, fork, {
      message: `Merge branch '${branch}' of ${parent.full_name} into ${branch}`,
      tree: putTree(ctx, fork, merged, modes),
      parents: [ours, theirs],
      by: viewer(ctx),
    });
    tip = commit.sha;
    mergeType = 'merge';
    created = [...created, commit];
  }
  refuseRefUpdate(ctx, fork, { ref: `refs/heads/${branch}`, before: ours, after: tip }, 409);
  setRef(ctx, fork, `refs/heads/${branch}`, tip);
  return {
    result: {
      message: `Successfully fetched and ${mergeType === 'merge' ? 'merged' : 'fast-forwarded'} from upstream ${baseBranch}.`,
      merge_type: mergeType,
      base_branch: baseBranch,
    },
    push: { ref: `refs/heads/${branch}`, before: ours, after: tip, commits: created },
  };
}
