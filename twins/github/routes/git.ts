// Branches, refs, commits, blobs/trees and the contents API (the way integrations write files).

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, invalidRequest, notFound, validationFailed } from '../wire/errors.js';
import { type Json, viewer } from '../model/accounts.js';
import {
  branchHead,
  branchShape,
  commitFileChange,
  commitFiles,
  commitsBetween,
  contentShape,
  deleteRef,
  directoryAt,
  diffFiles,
  getBlob,
  getCommit,
  getRef,
  history,
  listRefs,
  mergeBase,
  readBlob,
  readmeOf,
  resolveCommitish,
  restCommit,
  setRef,
  validateNewRef,
  ancestors,
  type RefTarget,
  type Signature,
} from '../model/git.js';
import { readObject } from '../model/git-objects.js';
import { findRepository } from '../model/repositories.js';
import { type TreeEdit, createBlob, createGitCommit, createTag, createTree, getTag, normalizeMode } from '../model/git-data.js';
import { validRefName } from '../model/git-transfer.js';
import { refuseRefUpdate } from '../model/protection.js';
import { mergeIntoBranch } from '../model/merges.js';
import { API, WEB } from '../model/identity.js';
import { afterPush, ZERO } from '../model/pushes.js';
import {
  jsonBody,
  mayReadRepository,
  optBool,
  optEnum,
  optString,
  optStringArray,
  page,
  plainText,
  queryString,
  repoOf,
  requiredString,
  routes,
  type Reply,
} from '../wire/http.js';

function signature(v: unknown, field: string): Signature | undefined {
  if (v === undefined) return undefined;
  const s = v as Json;
  if (!s || typeof s.name !== 'string' || typeof s.email !== 'string') {
    throw new GitHubError(422, `Invalid request.\n\n"name" and "email" weren't supplied in "${field}".`);
  }
  return { name: s.name, email: s.email, ...(typeof s.date === 'string' ? { date: s.date } : {}) };
}

function fullRef(ref: string): string {
  return ref.startsWith('refs/') ? ref : `refs/${ref}`;
}

/** What a new ref value names: a branch needs a commit; other refs any object the repository has. */
function refTarget(ctx: TwinContext, repo: Json, ref: string, sha: string): RefTarget {
  const o = /^[0-9a-f]{40}$/.test(sha) ? readObject(ctx, repo, sha, 'commit') : undefined;
  if (!o || (ref.startsWith('refs/heads/') && o.type !== 'commit')) {
    throw validationFailed({ resource: 'Reference', field: 'sha', code: 'custom', message: 'Object does not exist' } as never);
  }
  return o.type;
}

/** `refs/pull/…` are GitHub's own (hidden) refs: no API or push moves them. */
function refuseHidden(ref: string): void {
  if (ref.startsWith('refs/pull/')) throw new GitHubError(422, 'Reference update failed');
}

/** Commits a new branch brings that no other branch has (the `commits` of its push). */
function newOnBranch(ctx: TwinContext, repo: Json, ref: string, sha: string): Json[] {
  const others = listRefs(ctx, repo, 'refs/heads/').filter((r) => r.ref !== ref);
  const known = new Set<string>();
  for (const r of others) for (const a of ancestors(ctx, repo, r.object.sha)) known.add(a);
  return commitsBetween(ctx, repo, undefined, sha).filter((c) => !known.has(c.sha));
}

function writeContents(req: TwinRequest, ctx: TwinContext, remove: boolean) {
  const repo = repoOf(req, ctx);
  const b = jsonBody(req);
  const message = requiredString(b, 'message');
  let content: Buffer | undefined;
  if (!remove) {
    const raw = requiredString(b, 'content');
    if (!/^[A-Za-z0-9+/=\r\n]*$/.test(raw)) throw new GitHubError(422, 'content is not valid Base64');
    content = Buffer.from(raw, 'base64');
  }
  const path = req.params.path!;
  const result = commitFileChange(ctx, repo, {
    path,
    content,
    message,
    branch: optString(b, 'branch', false) ?? undefined,
    sha: optString(b, 'sha', false) ?? undefined,
    author: signature(b.author, 'author'),
    committer: signature(b.committer, 'committer'),
    by: viewer(ctx),
  });
  afterPush(ctx, repo, result.push);
  const commit = {
    sha: result.commit.sha,
    node_id: result.commit.node_id,
    url: result.commit.url,
    html_url: result.commit.html_url,
    author: result.commit.author,
    committer: result.commit.committer,
    message: result.commit.message,
    tree: result.commit.tree,
    parents: result.commit.parents,
    verification: result.commit.verification,
  };
  const branch = result.push.ref.replace('refs/heads/', '');
  return {
    status: remove ? 200 : result.created ? 201 : 200,
    body: { content: result.blob ? contentShape(repo, path, result.blob, branch === repo.default_branch ? undefined : branch) : null, commit },
  };
}

/** `GET …/compare/{base}...{head}`: the commits and file changes from `base` to `head`. */
function compare(req: TwinRequest, ctx: TwinContext, spec: string): Reply {
  const repo = repoOf(req, ctx);
  const dots = spec.indexOf('...');
  if (dots < 0) throw notFound();
  const baseName = spec.slice(0, dots);
  const headName = spec.slice(dots + 3);
  const base = resolveCommitish(ctx, repo, baseName);
  const head = resolveCommitish(ctx, repo, headName);
  if (!base || !head) throw notFound();
  const mb = mergeBase(ctx, repo, base, head);
  const ahead = commitsBetween(ctx, repo, base, head);
  const behind = commitsBetween(ctx, repo, head, base);
  const status = base === head ? 'identical' : !behind.length ? 'ahead' : !ahead.length ? 'behind' : 'diverged';
  const baseCommit = getCommit(ctx, repo, base)!;
  return {
    body: {
      url: `${API}/repos/${repo.full_name}/compare/${spec}`,
      html_url: `${WEB}/${repo.full_name}/compare/${spec}`,
      permalink_url: `${WEB}/${repo.full_name}/compare/${repo.owner.login}:${base.slice(0, 7)}...${repo.owner.login}:${head.slice(0, 7)}`,
      diff_url: `${WEB}/${repo.full_name}/compare/${spec}.diff`,
      patch_url: `${WEB}/${repo.full_name}/compare/${spec}.patch`,
      base_commit: restCommit(ctx, repo, baseCommit),
      merge_base_commit: restCommit(ctx, repo, getCommit(ctx, repo, mb ?? base)!),
      status,
      ahead_by: ahead.length,
      behind_by: behind.length,
      total_commits: ahead.length,
      commits: ahead.map((c) => restCommit(ctx, repo, c)),
      files: diffFiles(ctx, repo, commitFiles(ctx, repo, mb), commitFiles(ctx, repo, head)),
    },
  };
}

/** A directory of the contents API: its direct entries (files, dirs with their tree SHA, symlinks, submodules). */
function directoryListing(ctx: TwinContext, repo: Json, head: string, path: string, ref: string | undefined): Json[] {
  const entries = directoryAt(ctx, repo, head, path);
  if (!entries) throw notFound();
  return entries.map((e) => {
    const full = path ? `${path}/${e.name}` : e.name;
    if (e.mode === '040000') return { ...contentShape(repo, full, { sha: e.sha, size: 0 }, ref), type: 'dir', download_url: null };
    if (e.mode === '160000') return { ...contentShape(repo, full, { sha: e.sha, size: 0 }, ref), type: 'submodule', download_url: null };
    const blob = getBlob(ctx, repo, e.sha) ?? { sha: e.sha, size: 0 };
    return { ...contentShape(repo, full, blob, ref), ...(e.mode === '120000' ? { type: 'symlink' } : {}) };
  });
}

/** `GET …/readme[/{dir}]`: the README of a directory (for the root: `.github/`, the root, then `docs/`). */
function readme(req: TwinRequest, ctx: TwinContext, dir: string): Reply {
  const repo = repoOf(req, ctx);
  const ref = queryString(req, 'ref');
  const head = resolveCommitish(ctx, repo, ref);
  const found = head ? readmeOf(ctx, repo, head, dir) : undefined;
  if (!found) throw notFound();
  return { body: { ...contentShape(repo, found.path, found.blob, ref), content: found.blob.content.replace(/(.{60})/g, '$1\n'), encoding: 'base64' } };
}

/**
 * A file's bytes at a ref (`download_url`: github.com's `/{owner}/{repo}/raw/{ref}/{path}`): no key
 * for a public repository, the twin key or an installation token for a private one.
 */
export const rawFileRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/{owner}/{repo}/raw/{ref}/{+path}',
    public: true,
    handler: (req, ctx) => {
      const missing = plainText(404, '404: Not Found');
      const repo = findRepository(ctx, req.params.owner!, req.params.repo!);
      if (!repo || !mayReadRepository(req, ctx, repo)) return missing;
      const head = resolveCommitish(ctx, repo, req.params.ref!);
      const sha = head ? commitFiles(ctx, repo, head).get(req.params.path!) : undefined;
      if (!sha) return missing;
      return plainText(200, readBlob(ctx, repo, sha));
    },
  },
];

export const gitRoutes: TwinRoute[] = [
  ...routes('GET', '/repos/{owner}/{repo}/branches', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const only = queryString(req, 'protected');
    const list = listRefs(ctx, repo, 'refs/heads/')
      .map((r) => branchShape(ctx, repo, r.ref.slice('refs/heads/'.length), r.object.sha, false))
      .filter((b) => only === undefined || (only === 'true' ? b.protected : only === 'false' ? !b.protected : true));
    return page(req, ctx, list);
  }),
  ...routes('GET', '/repos/{owner}/{repo}/branches/{branch}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const sha = branchHead(ctx, repo, req.params.branch!);
    if (!sha) throw new GitHubError(404, 'Branch not found');
    return { body: branchShape(ctx, repo, req.params.branch!, sha, true) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/git/ref/{+ref}', (req, ctx) => {
    const r = getRef(ctx, repoOf(req, ctx), fullRef(req.params.ref!));
    if (!r) throw notFound();
    return { body: r };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/git/matching-refs/{+ref}', (req, ctx) => ({
    body: listRefs(ctx, repoOf(req, ctx), fullRef(req.params.ref!)),
  })),
  ...routes('GET', '/repos/{owner}/{repo}/git/refs', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const refs = listRefs(ctx, repo);
    if (!refs.length) throw new GitHubError(409, 'Git Repository is empty.');
    return page(req, ctx, refs);
  }),
  ...routes('GET', '/repos/{owner}/{repo}/git/refs/{+ref}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const ref = fullRef(req.params.ref!);
    const exact = getRef(ctx, repo, ref);
    if (exact) return { body: exact };
    const list = listRefs(ctx, repo, ref);
    if (!list.length) throw notFound();
    return { body: list };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/git/refs', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const ref = validateNewRef(requiredString(b, 'ref'));
    const sha = requiredString(b, 'sha');
    if (getRef(ctx, repo, ref)) throw validationFailed({ resource: 'Reference', field: 'ref', code: 'custom', message: 'Reference already exists' } as never);
    const type = refTarget(ctx, repo, ref, sha);
    refuseHidden(ref);
    refuseRefUpdate(ctx, repo, { ref, before: null, after: sha }, 422);
    const created = setRef(ctx, repo, ref, sha, type);
    if (ref.startsWith('refs/heads/') || ref.startsWith('refs/tags/')) {
      afterPush(ctx, repo, {
        ref,
        before: null,
        after: sha,
        commits: type === 'commit' && ref.startsWith('refs/heads/') ? newOnBranch(ctx, repo, ref, sha) : [],
      });
    }
    return { status: 201, body: created };
  }),
  ...routes('PATCH', '/repos/{owner}/{repo}/git/refs/{+ref}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const ref = fullRef(req.params.ref!);
    const b = jsonBody(req);
    const sha = requiredString(b, 'sha');
    const force = optBool(b, 'force') ?? false;
    const current = getRef(ctx, repo, ref);
    if (!current) throw validationFailed({ resource: 'Reference', field: 'ref', code: 'custom', message: 'Reference does not exist' } as never);
    refuseHidden(ref);
    const type = refTarget(ctx, repo, ref, sha);
    const before = current.object.sha;
    const fastForward = type === 'commit' && ancestors(ctx, repo, sha).has(before);
    if (!force && !fastForward)
      throw validationFailed({ resource: 'Reference', field: 'sha', code: 'custom', message: 'Update is not a fast forward' } as never);
    refuseRefUpdate(ctx, repo, { ref, before, after: sha }, 422);
    const updated = setRef(ctx, repo, ref, sha, type);
    if (ref.startsWith('refs/heads/') || ref.startsWith('refs/tags/')) {
      const commits = type === 'commit' ? commitsBetween(ctx, repo, before, sha) : [];
      afterPush(ctx, repo, { ref, before, after: sha, commits, forced: !fastForward });
    }
    return { body: updated };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/git/refs/{+ref}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const ref = fullRef(req.params.ref!);
    const current = getRef(ctx, repo, ref);
    if (!current) throw new GitHubError(422, 'Reference does not exist');
    refuseHidden(ref);
    refuseRefUpdate(ctx, repo, { ref, before: current.object.sha, after: null }, 422);
    deleteRef(ctx, repo, ref);
    if (ref.startsWith('refs/heads/') || ref.startsWith('refs/tags/')) afterPush(ctx, repo, { ref, before: current.object.sha, after: ZERO, commits: [] });
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/git/commits/{sha}', (req, ctx) => {
    const c = getCommit(ctx, repoOf(req, ctx), req.params.sha!);
    if (!c) throw notFound();
    return { body: c };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/git/commits', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const message = requiredString(b, 'message');
    const tree = requiredString(b, 'tree');
    const parents = optStringArray(b, 'parents') ?? [];
    const commit = createGitCommit(ctx, repo, {
      message,
      tree,
      parents,
      author: signature(b.author, 'author'),
      committer: signature(b.committer, 'committer'),
      signature: optString(b, 'signature', false) ?? undefined,
      by: viewer(ctx),
    });
    return { status: 201, body: commit };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/git/blobs/{sha}', (req, ctx) => {
    const b = getBlob(ctx, repoOf(req, ctx), req.params.sha!);
    if (!b) throw notFound();
    return { body: b };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/git/blobs', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const content = requiredString(b, 'content');
    const encoding = optEnum(b, 'encoding', ['utf-8', 'utf8', 'base64'] as const) ?? 'utf-8';
    return { status: 201, body: createBlob(ctx, repo, content, encoding === 'base64' ? 'base64' : 'utf-8') };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/git/trees', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    if (!Array.isArray(b.tree)) {
      if (b.tree === undefined) throw invalidRequest('"tree" wasn\'t supplied.');
      throw invalidRequest(`For 'properties/tree', ${JSON.stringify(b.tree)} is not an array.`);
    }
    const edits: TreeEdit[] = (b.tree as Json[]).map((e) => {
      if (!e || typeof e !== 'object' || Array.isArray(e)) throw invalidRequest(`For 'items', ${JSON.stringify(e)} is not an object.`);
      return {
        path: requiredString(e, 'path'),
        mode: requiredString(e, 'mode'),
        type:
          optEnum(e, 'type', ['blob', 'tree', 'commit'] as const) ??
          (normalizeMode(String(e.mode)) === '040000' ? 'tree' : normalizeMode(String(e.mode)) === '160000' ? 'commit' : 'blob'),
        sha: e.sha === null ? null : (optString(e, 'sha', false) ?? undefined),
        content: optString(e, 'content', false) ?? undefined,
      };
    });
    const sha = createTree(ctx, repo, edits, optString(b, 'base_tree', false) ?? undefined);
    const tree = ctx.store.get<Json>('tree', `${repo.id}:${sha}`) ?? {
      sha,
      url: `${API}/repos/${repo.full_name}/git/trees/${sha}`,
      tree: [],
      truncated: false,
    };
    return { status: 201, body: tree };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/git/tags', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const tag = requiredString(b, 'tag');
    const message = requiredString(b, 'message');
    const object = requiredString(b, 'object');
    const type = optEnum(b, 'type', ['commit', 'tree', 'blob'] as const);
    if (!type) throw invalidRequest('"type" wasn\'t supplied.');
    if (!validRefName(`refs/tags/${tag}`)) throw validationFailed({ resource: 'Tag', field: 'tag', code: 'invalid' });
    return { status: 201, body: createTag(ctx, repo, { tag, message, object, type, tagger: signature(b.tagger, 'tagger'), by: viewer(ctx) }) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/git/tags/{tag_sha}', (req, ctx) => {
    const t = getTag(ctx, repoOf(req, ctx), req.params.tag_sha!);
    if (!t) throw notFound();
    return { body: t };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/git/trees/{sha}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const sha = getCommit(ctx, repo, req.params.sha!)?.tree.sha ?? resolveCommitish(ctx, repo, req.params.sha!) ?? req.params.sha!;
    const treeSha = getCommit(ctx, repo, sha)?.tree.sha ?? sha;
    const t = ctx.store.get<Json>('tree', `${repo.id}:${treeSha}`);
    if (!t) throw notFound();
    const recursive = queryString(req, 'recursive');
    if (recursive === undefined || recursive === '' || recursive === '0' || recursive === 'false') return { body: t };
    // `recursive`: every entry below, paths from the root, trees before their contents (as GitHub lists them).
    const entries: Json[] = [];
    const walk = (tree: Json, prefix: string, depth: number) => {
      for (const e of tree.tree as Json[]) {
        entries.push({ ...e, path: prefix + e.path });
        if (e.type !== 'tree' || depth >= 64) continue;
        const sub = ctx.store.get<Json>('tree', `${repo.id}:${e.sha}`);
        if (sub) walk(sub, `${prefix}${e.path}/`, depth + 1);
      }
    };
    walk(t, '', 0);
    // GitHub caps a recursive listing (100,000 entries) and says so with `truncated`.
    const truncated = entries.length > 100_000;
    return { body: { ...t, tree: truncated ? entries.slice(0, 100_000) : entries, truncated } };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/commits', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const head = resolveCommitish(ctx, repo, queryString(req, 'sha'));
    if (!head) {
      if (!listRefs(ctx, repo, 'refs/heads/').length) throw new GitHubError(409, 'Git Repository is empty.');
      throw notFound();
    }
    const path = queryString(req, 'path');
    let list = history(ctx, repo, head);
    if (path) {
      list = list.filter((c) => commitFiles(ctx, repo, c.sha).get(path) !== commitFiles(ctx, repo, c.parents[0]?.sha).get(path));
    }
    return page(
      req,
      ctx,
      list.map((c) => restCommit(ctx, repo, c)),
    );
  }),
  ...routes('GET', '/repos/{owner}/{repo}/commits/{ref}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const sha = resolveCommitish(ctx, repo, req.params.ref!);
    if (!sha) throw new GitHubError(422, `No commit found for SHA: ${req.params.ref}`);
    return { body: restCommit(ctx, repo, getCommit(ctx, repo, sha)!, true) };
  }),
  // Octokit spells it both ways: `compareCommitsWithBasehead` (one `{basehead}`) and `compareCommits`.
  ...routes('GET', '/repos/{owner}/{repo}/compare/{+basehead}', (req, ctx) => compare(req, ctx, req.params.basehead!)),
  ...routes('GET', '/repos/{owner}/{repo}/compare/{base}...{head}', (req, ctx) => compare(req, ctx, `${req.params.base}...${req.params.head}`)),
  ...routes('GET', '/repos/{owner}/{repo}/contents/{+path}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const ref = queryString(req, 'ref');
    const head = resolveCommitish(ctx, repo, ref);
    if (!head) throw new GitHubError(404, ref ? `No commit found for the ref ${ref}` : 'This repository is empty.');
    const files = commitFiles(ctx, repo, head);
    const path = req.params.path!.replace(/\/$/, '');
    const blobSha = files.get(path);
    if (blobSha) {
      const blob = getBlob(ctx, repo, blobSha)!;
      return { body: { ...contentShape(repo, path, blob, ref), content: blob.content.replace(/(.{60})/g, '$1\n'), encoding: 'base64' } };
    }
    return { body: directoryListing(ctx, repo, head, path, ref) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/contents', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const ref = queryString(req, 'ref');
    const head = resolveCommitish(ctx, repo, ref);
    if (!head) throw new GitHubError(404, 'This repository is empty.');
    return { body: directoryListing(ctx, repo, head, '', ref) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/readme', (req, ctx) => readme(req, ctx, '')),
  ...routes('GET', '/repos/{owner}/{repo}/readme/{+dir}', (req, ctx) => readme(req, ctx, req.params.dir!.replace(/\/$/, ''))),
  ...routes('POST', '/repos/{owner}/{repo}/merges', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const merge = mergeIntoBranch(ctx, repo, {
      base: requiredString(b, 'base'),
      head: requiredString(b, 'head'),
      commit_message: optString(b, 'commit_message', false) ?? undefined,
    });
    if (!merge) return { status: 204 };
    return { status: 201, body: restCommit(ctx, repo, merge, true) };
  }),
  ...routes('PUT', '/repos/{owner}/{repo}/contents/{+path}', (req, ctx) => writeContents(req, ctx, false)),
  ...routes('DELETE', '/repos/{owner}/{repo}/contents/{+path}', (req, ctx) => writeContents(req, ctx, true)),
];
