// The git model behind branches, contents, pull requests and git over HTTP: real git objects
// (blobs, nested trees, commits; their bytes in git-objects.ts), refs, history walks and diffs.
// Most callers think in flat file maps (full path → blob SHA); putTree/treeFiles convert.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nodeId, now } from './identity.js';
import { type TreeEntry, commitBytes, objectName, parseCommit, parseTag, putRawObject, readObject, storeTree, treeEntries } from './git-objects.js';
import { GitHubError, notFound, validationFailed } from '../wire/errors.js';
import { type Json, getUser, simpleAccount, viewer } from './accounts.js';
import { childKey, createRepository, saveRepository, type RepositoryInput } from './repositories.js';
import { createDefaultLabels } from './labels.js';
import { branchProtectionSummary, refuseRefUpdate } from './protection.js';

export type FileMap = Map<string, string>; // path → blob sha

export interface Signature {
  name: string;
  email: string;
  date?: string;
}

export function noreplyEmail(user: Json): string {
  return `${user.id}+${user.login}@users.noreply.github.com`;
}

export function signatureOf(user: Json, date: string): Signature & { date: string } {
  return { name: user.name ?? user.login, email: user.email ?? noreplyEmail(user), date };
}

// ---- blobs and trees ---------------------------------------------------------------------

export function putBlob(ctx: TwinContext, repo: Json, content: Buffer): string {
  const sha = objectName('blob', content);
  const key = childKey(repo, sha);
  if (!ctx.store.has('blob', key)) {
    ctx.store.put('blob', key, {
      sha,
      node_id: nodeId('Blob', parseInt(sha.slice(0, 8), 16)),
      size: content.length,
      url: `${API}/repos/${repo.full_name}/git/blobs/${sha}`,
      content: content.toString('base64'),
      encoding: 'base64',
    });
  }
  return sha;
}

export function readBlob(ctx: TwinContext, repo: Json, sha: string): Buffer {
  const blob = ctx.store.get<Json>('blob', childKey(repo, sha));
  if (!blob) throw notFound();
  return Buffer.from(blob.content, 'base64');
}

export function getBlob(ctx: TwinContext, repo: Json, sha: string): Json | undefined {
  return ctx.store.get<Json>('blob', childKey(repo, sha));
}

/** Modes other than 100644 by path (executables, symlinks), so a rewritten tree keeps them. */
export type ModeMap = Map<string, string>;

/**
 * Write the nested git trees of a flat file map (full paths → blob SHA); returns the root tree's
 * SHA. `modes` gives paths whose mode is not 100644.
 */
export function putTree(ctx: TwinContext, repo: Json, files: FileMap, modes?: ModeMap): string {
  interface Dir {
    files: TreeEntry[];
    dirs: Map<string, Dir>;
  }
  const root: Dir = { files: [], dirs: new Map() };
  for (const [path, sha] of files) {
    const parts = path.split('/');
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part);
      if (!next) dir.dirs.set(part, (next = { files: [], dirs: new Map() }));
      dir = next;
    }
    dir.files.push({ name: parts[parts.length - 1]!, mode: modes?.get(path) ?? '100644', sha });
  }
  const size = (sha: string) => getBlob(ctx, repo, sha)?.size as number | undefined;
  const write = (dir: Dir): string => {
    const entries = [...dir.files];
    for (const [name, sub] of dir.dirs) entries.push({ name, mode: '040000', sha: write(sub) });
    return storeTree(ctx, repo, entries, size);
  };
  return write(root);
}

/** Every blob (and gitlink) under a tree by full path, with its mode. */
export function treeFileEntries(ctx: TwinContext, repo: Json, treeSha: string): Map<string, { sha: string; mode: string }> {
  const out = new Map<string, { sha: string; mode: string }>();
  const walk = (sha: string, prefix: string, depth: number) => {
    if (depth > 256) return;
    for (const e of treeEntries(ctx, repo, sha) ?? []) {
      if (e.mode === '040000') walk(e.sha, `${prefix}${e.name}/`, depth + 1);
      else if (e.mode !== '160000') out.set(prefix + e.name, { sha: e.sha, mode: e.mode });
    }
  };
  walk(treeSha, '', 0);
  return out;
}

export function treeFiles(ctx: TwinContext, repo: Json, treeSha: string): FileMap {
  const files: FileMap = new Map();
  for (const [p, e] of treeFileEntries(ctx, repo, treeSha)) files.set(p, e.sha);
  return files;
}

/** The entries of the directory at `path` ("" for the root) in a commit, or undefined when there is none. */
export function directoryAt(ctx: TwinContext, repo: Json, commitSha: string, path: string): TreeEntry[] | undefined {
  const c = getCommit(ctx, repo, commitSha);
  if (!c) return undefined;
  let entries = treeEntries(ctx, repo, c.tree.sha);
  for (const part of path.split('/').filter(Boolean)) {
    const dir = entries?.find((e) => e.name === part && e.mode === '040000');
    entries = dir ? treeEntries(ctx, repo, dir.sha) : undefined;
  }
  return entries;
}

/** The non-default modes of a commit's files (see `putTree`). */
export function commitModes(ctx: TwinContext, repo: Json, sha: string | undefined): ModeMap {
  const modes: ModeMap = new Map();
  const c = sha ? getCommit(ctx, repo, sha) : undefined;
  if (!c) return modes;
  for (const [p, e] of treeFileEntries(ctx, repo, c.tree.sha)) if (e.mode !== '100644') modes.set(p, e.mode);
  return modes;
}

// ---- commits -----------------------------------------------------------------------------

export function getCommit(ctx: TwinContext, repo: Json, sha: string): Json | undefined {
  return ctx.store.get<Json>('commit', childKey(repo, sha));
}

export function commitFiles(ctx: TwinContext, repo: Json, sha: string | undefined): FileMap {
  if (!sha) return new Map();
  const c = getCommit(ctx, repo, sha);
  return c ? treeFiles(ctx, repo, c.tree.sha) : new Map();
}

/**
 * Keep a commit given as its exact bytes: the bytes in `git_object`, the REST git-commit shape in
 * `commit`. Returns the REST shape.
 */
export function storeCommit(ctx: TwinContext, repo: Json, raw: Buffer): Json {
  const sha = objectName('commit', raw);
  const existing = getCommit(ctx, repo, sha);
  if (existing) return existing;
  const parsed = parseCommit(raw);
  putRawObject(ctx, repo, 'commit', sha, raw);
  const commit = {
    sha,
    node_id: nodeId('Commit', parseInt(sha.slice(0, 8), 16)),
    url: `${API}/repos/${repo.full_name}/git/commits/${sha}`,
    html_url: `${WEB}/${repo.full_name}/commit/${sha}`,
    author: parsed.author,
    committer: parsed.committer,
    tree: { sha: parsed.tree, url: `${API}/repos/${repo.full_name}/git/trees/${parsed.tree}` },
    message: parsed.message,
    parents: parsed.parents.map((p) => ({
      sha: p,
      url: `${API}/repos/${repo.full_name}/git/commits/${p}`,
      html_url: `${WEB}/${repo.full_name}/commit/${p}`,
    })),
    verification: parsed.signed
      ? { verified: false, reason: 'unknown_key', signature: null, payload: null, verified_at: null }
      : { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
  };
  ctx.store.put('commit', childKey(repo, sha), commit);
  return commit;
}

/** A commit the twin writes itself (contents API, merges): real git bytes, real SHA. */
export function createCommit(
  ctx: TwinContext,
  repo: Json,
  input: { message: string; tree: string; parents: string[]; author?: Signature; committer?: Signature; signature?: string; by: Json },
): Json {
  const at = now(ctx);
  const author = { ...signatureOf(input.by, at), ...(input.author ?? {}) };
  if (!author.date || Number.isNaN(Date.parse(author.date))) author.date = at;
  const committer = input.committer
    ? { ...input.committer, date: input.committer.date && !Number.isNaN(Date.parse(input.committer.date)) ? input.committer.date : at }
    : { ...author, date: at };
  const raw = commitBytes({ tree: input.tree, parents: input.parents, author, committer, message: input.message, signature: input.signature });
  return storeCommit(ctx, repo, raw);
}

/** Resolve the GitHub account behind a commit signature (by email, including noreply emails). */
function accountForEmail(ctx: TwinContext, email: string): Json | null {
  const m = /^(?:\d+\+)?([A-Za-z0-9-]+)@users\.noreply\.github\.com$/.exec(email);
  if (m) {
    const u = getUser(ctx, m[1]!);
    if (u) return simpleAccount(u);
  }
  const u = ctx.store.list<Json>('user').find((x) => x.email && x.email === email);
  return u ? simpleAccount(u) : null;
}

/** The REST `commit` shape (`GET /repos/{o}/{r}/commits/{ref}`), from the stored git commit. */
export function restCommit(ctx: TwinContext, repo: Json, c: Json, withFiles = false): Json {
  const out: Json = {
    url: `${API}/repos/${repo.full_name}/commits/${c.sha}`,
    sha: c.sha,
    node_id: c.node_id,
    html_url: c.html_url,
    comments_url: `${API}/repos/${repo.full_name}/commits/${c.sha}/comments`,
    commit: {
      url: c.url,
      author: c.author,
      committer: c.committer,
      message: c.message,
      tree: c.tree,
      comment_count: 0,
      verification: c.verification,
    },
    author: accountForEmail(ctx, c.author.email),
    committer: accountForEmail(ctx, c.committer.email),
    parents: c.parents.map((p: Json) => ({
      sha: p.sha,
      url: `${API}/repos/${repo.full_name}/commits/${p.sha}`,
      html_url: p.html_url,
    })),
  };
  if (withFiles) {
    const parentFiles = commitFiles(ctx, repo, c.parents[0]?.sha);
    const files = diffFiles(ctx, repo, parentFiles, treeFiles(ctx, repo, c.tree.sha));
    const additions = files.reduce((n, f) => n + f.additions, 0);
    const deletions = files.reduce((n, f) => n + f.deletions, 0);
    out.stats = { total: additions + deletions, additions, deletions };
    out.files = files;
  }
  return out;
}

/** Every commit reachable from `sha` (including it). */
export function ancestors(ctx: TwinContext, repo: Json, sha: string | undefined): Set<string> {
  const seen = new Set<string>();
  const stack = sha ? [sha] : [];
  while (stack.length) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    const c = getCommit(ctx, repo, s);
    for (const p of c?.parents ?? []) stack.push(p.sha);
  }
  return seen;
}

/** Commits reachable from `head` but not from `base`, oldest first (first-parent order). */
export function commitsBetween(ctx: TwinContext, repo: Json, base: string | undefined, head: string): Json[] {
  const exclude = ancestors(ctx, repo, base);
  const out: Json[] = [];
  const seen = new Set<string>();
  const stack = [head];
  while (stack.length) {
    const s = stack.pop()!;
    if (exclude.has(s) || seen.has(s)) continue;
    seen.add(s);
    const c = getCommit(ctx, repo, s);
    if (!c) continue;
    out.push(c);
    for (const p of [...c.parents].reverse()) stack.push(p.sha);
  }
  return out.reverse();
}

export function mergeBase(ctx: TwinContext, repo: Json, a: string, b: string): string | undefined {
  const fromA = ancestors(ctx, repo, a);
  const queue = [b];
  const seen = new Set<string>();
  while (queue.length) {
    const s = queue.shift()!;
    if (seen.has(s)) continue;
    seen.add(s);
    if (fromA.has(s)) return s;
    for (const p of getCommit(ctx, repo, s)?.parents ?? []) queue.push(p.sha);
  }
  return undefined;
}

/** The `log` of a ref, newest first (`GET /repos/{o}/{r}/commits`). */
export function history(ctx: TwinContext, repo: Json, head: string): Json[] {
  return commitsBetween(ctx, repo, undefined, head).reverse();
}

// ---- diffs -------------------------------------------------------------------------------

function splitLines(buf: Buffer): string[] {
  const s = buf.toString('utf8');
  if (s === '') return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Line diff by longest common subsequence; one hunk covering the file. */
export function lineDiff(before: Buffer, after: Buffer): { additions: number; deletions: number; patch: string } {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops: string[] = [];
  if (a.length * b.length > 4_000_000) {
    for (const l of a) ops.push(`-${l}`);
    for (const l of b) ops.push(`+${l}`);
  } else {
    const dp: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) {
        dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) {
        ops.push(` ${a[i]}`);
        i++;
        j++;
      } else if (j < b.length && (i >= a.length || dp[i]![j + 1]! >= dp[i + 1]![j]!)) {
        ops.push(`+${b[j]}`);
        j++;
      } else {
        ops.push(`-${a[i]}`);
        i++;
      }
    }
  }
  const additions = ops.filter((o) => o[0] === '+').length;
  const deletions = ops.filter((o) => o[0] === '-').length;
  const header = `@@ -${a.length ? 1 : 0},${a.length} +${b.length ? 1 : 0},${b.length} @@`;
  return { additions, deletions, patch: [header, ...ops].join('\n') };
}

/** `diff-entry` objects between two file maps (PR files, commit files). */
export function diffFiles(ctx: TwinContext, repo: Json, before: FileMap, after: FileMap): Json[] {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const out: Json[] = [];
  for (const path of paths) {
    const a = before.get(path);
    const b = after.get(path);
    if (a === b) continue;
    const status = a === undefined ? 'added' : b === undefined ? 'removed' : 'modified';
    const d = lineDiff(a ? readBlob(ctx, repo, a) : Buffer.alloc(0), b ? readBlob(ctx, repo, b) : Buffer.alloc(0));
    const sha = (b ?? a)!;
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    out.push({
      sha,
      filename: path,
      status,
      additions: d.additions,
      deletions: d.deletions,
      changes: d.additions + d.deletions,
      blob_url: `${WEB}/${repo.full_name}/blob/${sha}/${encoded}`,
      raw_url: `${WEB}/${repo.full_name}/raw/${sha}/${encoded}`,
      contents_url: `${API}/repos/${repo.full_name}/contents/${encoded}?ref=${sha}`,
      patch: d.patch,
    });
  }
  return out;
}

/**
 * Three-way merge of flat trees: take `ours` and apply every path `theirs` changed since `base`.
 * Returns undefined on a conflict (both sides changed a path differently).
 */
export function mergeFiles(base: FileMap, ours: FileMap, theirs: FileMap): FileMap | undefined {
  const out = new Map(ours);
  for (const path of new Set([...base.keys(), ...theirs.keys()])) {
    const b = base.get(path);
    const t = theirs.get(path);
    if (b === t) continue;
    const o = ours.get(path);
    if (o !== b && o !== t) return undefined;
    if (t === undefined) out.delete(path);
    else out.set(path, t);
  }
  return out;
}

/**
 * The tree of merging commit `theirs` into commit `ours` (three-way on paths from their merge base,
 * modes kept), or undefined on a conflict.
 */
export function mergedTree(ctx: TwinContext, repo: Json, ours: string, theirs: string): string | undefined {
  const mb = mergeBase(ctx, repo, ours, theirs);
  const merged = mergeFiles(commitFiles(ctx, repo, mb), commitFiles(ctx, repo, ours), commitFiles(ctx, repo, theirs));
  if (!merged) return undefined;
  const modes = new Map([...commitModes(ctx, repo, ours), ...commitModes(ctx, repo, theirs)]);
  return putTree(ctx, repo, merged, modes);
}

// ---- refs --------------------------------------------------------------------------------

export type RefTarget = 'commit' | 'tag' | 'tree' | 'blob';

export function refObject(repo: Json, ref: string, sha: string, type: RefTarget = 'commit'): Json {
  return {
    ref,
    node_id: nodeId('Ref', parseInt(sha.slice(0, 8), 16)),
    url: `${API}/repos/${repo.full_name}/git/${ref}`,
    object: { sha, type, url: `${API}/repos/${repo.full_name}/git/${type}s/${sha}` },
  };
}

export function getRef(ctx: TwinContext, repo: Json, ref: string): Json | undefined {
  return ctx.store.get<Json>('ref', childKey(repo, ref));
}

export function setRef(ctx: TwinContext, repo: Json, ref: string, sha: string, type: RefTarget = 'commit'): Json {
  const r = refObject(repo, ref, sha, type);
  ctx.store.put('ref', childKey(repo, ref), r);
  return r;
}

export function deleteRef(ctx: TwinContext, repo: Json, ref: string): boolean {
  return ctx.store.delete('ref', childKey(repo, ref));
}

export function listRefs(ctx: TwinContext, repo: Json, prefix = 'refs/'): Json[] {
  const p = childKey(repo, prefix);
  return ctx.store
    .listByPrefix<Json>('ref', p)
    .map((r) => r.body)
    .sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

export function branchHead(ctx: TwinContext, repo: Json, branch: string): string | undefined {
  return getRef(ctx, repo, `refs/heads/${branch}`)?.object.sha;
}

/** The commit a tag names (annotated tags peeled), if the tag exists. */
export function tagCommit(ctx: TwinContext, repo: Json, tag: string): string | undefined {
  let sha = getRef(ctx, repo, `refs/tags/${tag}`)?.object.sha as string | undefined;
  for (let i = 0; sha && i < 16; i++) {
    const o = readObject(ctx, repo, sha, 'tag');
    if (o?.type !== 'tag') break;
    sha = parseTag(o.content).object;
  }
  return sha && getCommit(ctx, repo, sha) ? sha : undefined;
}

/** Resolve a branch name, a tag name (`v1`, `tags/v1`, `refs/tags/v1`) or a commit SHA to a commit SHA. */
export function resolveCommitish(ctx: TwinContext, repo: Json, refish: string | undefined): string | undefined {
  const name = refish ?? repo.default_branch;
  const byBranch = branchHead(ctx, repo, name.replace(/^refs\/heads\//, '').replace(/^heads\//, ''));
  if (byBranch) return byBranch;
  const byTag = tagCommit(ctx, repo, name.replace(/^(refs\/)?tags\//, ''));
  if (byTag) return byTag;
  if (/^[0-9a-f]{40}$/.test(name) && getCommit(ctx, repo, name)) return name;
  if (/^[0-9a-f]{4,39}$/.test(name)) {
    const prefix = childKey(repo, name);
    const hit = ctx.store.listByPrefix<Json>('commit', prefix)[0];
    if (hit) return hit.body.sha;
  }
  return undefined;
}

export function branchShape(ctx: TwinContext, repo: Json, name: string, sha: string, full: boolean): Json {
  const commitUrl = `${API}/repos/${repo.full_name}/commits/${sha}`;
  const summary = branchProtectionSummary(ctx, repo, name);
  if (!full) return { name, commit: { sha, url: commitUrl }, protected: summary.protected };
  const c = getCommit(ctx, repo, sha);
  return {
    name,
    commit: c ? restCommit(ctx, repo, c) : { sha, url: commitUrl },
    _links: {
      self: `${API}/repos/${repo.full_name}/branches/${name}`,
      html: `${WEB}/${repo.full_name}/tree/${name}`,
    },
    protected: summary.protected,
    protection: summary.protection,
    protection_url: `${API}/repos/${repo.full_name}/branches/${name}/protection`,
  };
}

export function validateNewRef(ref: unknown): string {
  if (typeof ref !== 'string' || !ref.startsWith('refs/') || ref.split('/').length < 3) {
    throw validationFailed({
      resource: 'Reference',
      field: 'ref',
      code: 'invalid',
      message: 'Reference name must start with refs/ and have at least two slashes.',
    } as never);
  }
  return ref;
}

/** README names GitHub recognises (any extension), markdown first. */
function readmeIn(entries: TreeEntry[]): TreeEntry | undefined {
  const candidates = entries.filter((e) => e.mode !== '040000' && e.mode !== '160000' && /^readme(\.[^/]*)?$/i.test(e.name));
  const rank = (n: string) => (/\.(md|markdown)$/i.test(n) ? 0 : /\.[^.]+$/.test(n) ? 2 : 1);
  return candidates.sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : 1))[0];
}

/** The README of directory `dir` of a commit; for the root GitHub looks in `.github/`, the root, then `docs/`. */
export function readmeOf(ctx: TwinContext, repo: Json, commitSha: string, dir: string): { path: string; blob: Json } | undefined {
  for (const place of dir ? [dir] : ['.github', '', 'docs']) {
    const found = readmeIn(directoryAt(ctx, repo, commitSha, place) ?? []);
    const blob = found && getBlob(ctx, repo, found.sha);
    if (found && blob) return { path: place ? `${place}/${found.name}` : found.name, blob };
  }
  return undefined;
}

// ---- contents ----------------------------------------------------------------------------

export function contentShape(repo: Json, path: string, blob: Json, ref?: string): Json {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  const q = ref ? `?ref=${encodeURIComponent(ref)}` : '';
  const self = `${API}/repos/${repo.full_name}/contents/${encoded}${q}`;
  const gitUrl = `${API}/repos/${repo.full_name}/git/blobs/${blob.sha}`;
  const html = `${WEB}/${repo.full_name}/blob/${ref ?? repo.default_branch}/${encoded}`;
  return {
    name: path.split('/').pop(),
    path,
    sha: blob.sha,
    size: blob.size,
    url: self,
    html_url: html,
    git_url: gitUrl,
    // github.com's own raw path (it redirects to raw.githubusercontent.com there); the twin serves it.
    download_url: `${WEB}/${repo.full_name}/raw/${ref ?? repo.default_branch}/${encoded}`,
    type: 'file',
    _links: { self, git: gitUrl, html },
  };
}

export interface FileChange {
  branch?: string;
  path: string;
  /** New content; undefined deletes the file. */
  content?: Buffer;
  message: string;
  sha?: string;
  author?: Signature;
  committer?: Signature;
  by: Json;
}

export interface Push {
  ref: string;
  before: string | null;
  after: string;
  commits: Json[];
  /** The new tip does not descend from the old one (a force push). */
  forced?: boolean;
}

/** `PUT|DELETE /repos/{o}/{r}/contents/{path}`: one commit on a branch changing one file. */
export function commitFileChange(ctx: TwinContext, repo: Json, change: FileChange): { commit: Json; blob?: Json; created: boolean; push: Push } {
  const branch = change.branch ?? repo.default_branch;
  const head = branchHead(ctx, repo, branch);
  if (!head && change.branch && change.branch !== repo.default_branch && listRefs(ctx, repo, 'refs/heads/').length > 0) {
    throw new GitHubError(404, `Branch ${branch} not found`);
  }
  const files = commitFiles(ctx, repo, head);
  const existing = files.get(change.path);
  if (change.content === undefined) {
    if (!existing) throw notFound();
    if (!change.sha) throw new GitHubError(422, 'Invalid request.\n\n"sha" wasn\'t supplied.');
    if (change.sha !== existing) throw new GitHubError(409, `${change.path} does not match ${change.sha}`);
    files.delete(change.path);
  } else {
    if (existing && !change.sha) throw new GitHubError(422, 'Invalid request.\n\n"sha" wasn\'t supplied.');
    if (existing && change.sha !== existing) throw new GitHubError(409, `${change.path} does not match ${change.sha}`);
    files.set(change.path, putBlob(ctx, repo, change.content));
  }
  const tree = putTree(ctx, repo, files, commitModes(ctx, repo, head));
  const commit = createCommit(ctx, repo, {
    message: change.message,
    tree,
    parents: head ? [head] : [],
    author: change.author,
    committer: change.committer,
    by: change.by,
  });
  // A protected branch takes no direct commits where its rules forbid them (409, as GitHub answers).
  refuseRefUpdate(ctx, repo, { ref: `refs/heads/${branch}`, before: head ?? null, after: commit.sha }, 409);
  setRef(ctx, repo, `refs/heads/${branch}`, commit.sha);
  repo.pushed_at = now(ctx);
  saveRepository(ctx, repo);
  const blobSha = files.get(change.path);
  return {
    commit,
    blob: blobSha ? getBlob(ctx, repo, blobSha) : undefined,
    created: !existing,
    push: { ref: `refs/heads/${branch}`, before: head ?? null, after: commit.sha, commits: [commit] },
  };
}

/** `auto_init`: the first commit with a README on the default branch. */
export function initialCommit(ctx: TwinContext, repo: Json, by: Json): Json {
  const readme = Buffer.from(`# ${repo.name}\n${repo.description ? `\n${repo.description}\n` : ''}`);
  return commitFileChange(ctx, repo, { path: 'README.md', content: readme, message: 'Initial commit', by }).commit;
}

/** A new repository as GitHub opens one: the record, the default labels, the first commit when `auto_init`. */
export function openRepository(ctx: TwinContext, owner: Json, input: RepositoryInput): Json {
  return ctx.store.transaction(() => {
    const repo = createRepository(ctx, owner, input);
    createDefaultLabels(ctx, repo);
    if (input.auto_init) initialCommit(ctx, repo, viewer(ctx));
    return ctx.store.get<Json>('repository', `${owner.login}/${repo.name}`.toLowerCase())!;
  });
}
