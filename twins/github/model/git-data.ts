// The Git Data API's writes over the repository's real object store: blobs, trees (nested paths,
// `base_tree`, deletions), commits (parents, author and committer with their zones, a signature)
// and annotated tags. Everything written here is an ordinary git object: `git clone` fetches it,
// the contents, commits and compare APIs read it, and what a push brought is readable here.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, nodeId } from './identity.js';
import { GitHubError, invalidRequest, validationFailed } from '../wire/errors.js';
import type { Json } from './accounts.js';
import {
  type ObjectType,
  type TreeEntry,
  EMPTY_TREE,
  hasObject,
  objectName,
  parseTag,
  putRawObject,
  readObject,
  storeTree,
  tagBytes,
  treeEntries,
} from './git-objects.js';
import { type Signature, createCommit, getBlob, getCommit, listRefs, putBlob, signatureOf } from './git.js';
import { now } from './identity.js';

/** GitHub refuses Git Data writes to a repository without a commit ("Git Repository is empty."). */
export function requireNotEmpty(ctx: TwinContext, repo: Json): void {
  if (listRefs(ctx, repo).length === 0) throw new GitHubError(409, 'Git Repository is empty.');
}

// ---- blobs -------------------------------------------------------------------------------

export function createBlob(ctx: TwinContext, repo: Json, content: string, encoding: 'utf-8' | 'base64'): Json {
  requireNotEmpty(ctx, repo);
  if (encoding === 'base64' && !/^[A-Za-z0-9+/=\r\n]*$/.test(content)) throw new GitHubError(422, 'content is not valid Base64');
  const sha = putBlob(ctx, repo, encoding === 'base64' ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8'));
  return { url: `${API}/repos/${repo.full_name}/git/blobs/${sha}`, sha };
}

// ---- trees -------------------------------------------------------------------------------

export interface TreeEdit {
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  /** `null` removes the path (from `base_tree`). */
  sha?: string | null;
  /** A new blob with this (UTF-8) content. */
  content?: string;
}

const MODE_TYPES: Record<string, TreeEdit['type']> = { '100644': 'blob', '100755': 'blob', '120000': 'blob', '040000': 'tree', '160000': 'commit' };
const SHA = /^[0-9a-f]{40}$/;
/** Entries one request may write (GitHub's own limit is on the request size; this bounds the work). */
const MAX_EDITS = 100_000;

/** GitHub's answer to a tree naming an object the repository does not have. */
const badObject = (): GitHubError => new GitHubError(422, 'GitRPC::BadObjectState');

function checkPath(path: string): string[] {
  const parts = path.split('/');
  if (!path || parts.some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git' || p.includes('\0'))) {
    throw validationFailed({ resource: 'Tree', field: 'path', code: 'invalid', message: `"${path}" is not a valid path` } as never);
  }
  return parts;
}

interface Dir {
  entries: Map<string, TreeEntry>;
  /** Subdirectories being edited (written before their parent). */
  subs: Map<string, Dir>;
}

export function normalizeMode(mode: string): string {
  return mode === '40000' ? '040000' : mode;
}

/**
 * `POST …/git/trees`: the tree of `base_tree` (or an empty one) with each entry written at its
 * path (directories made as needed), or removed where `sha` is null; directories left empty go.
 * Returns the new root tree's SHA.
 */
export function createTree(ctx: TwinContext, repo: Json, edits: TreeEdit[], baseTree?: string): string {
  requireNotEmpty(ctx, repo);
  if (edits.length > MAX_EDITS) throw invalidRequest(`A tree may have at most ${MAX_EDITS} entries per request.`);
  const load = (sha: string | undefined): Dir => {
    const entries = sha ? treeEntries(ctx, repo, sha) : [];
    if (!entries) throw badObject();
    return { entries: new Map(entries.map((e) => [e.name, e])), subs: new Map() };
  };
  const root = load(baseTree);
  for (const edit of edits) {
    const parts = checkPath(edit.path);
    const mode = normalizeMode(edit.mode);
    const kind = MODE_TYPES[mode];
    if (!kind) throw invalidRequest(`For 'properties/mode', ${JSON.stringify(edit.mode)} is not one of ["100644","100755","040000","160000","120000"].`);
    if (kind !== edit.type)
      throw validationFailed({ resource: 'Tree', field: 'type', code: 'invalid', message: `mode ${edit.mode} is not a ${edit.type}` } as never);
    const remove = edit.sha === null && edit.content === undefined;
    let sha: string | undefined;
    if (!remove) {
      if (edit.content !== undefined) {
        if (edit.sha) throw invalidRequest('Must supply either tree.sha or tree.content, not both.');
        if (kind !== 'blob') throw validationFailed({ resource: 'Tree', field: 'content', code: 'invalid', message: 'content is only for blobs' } as never);
        sha = putBlob(ctx, repo, Buffer.from(edit.content, 'utf8'));
      } else {
        if (typeof edit.sha !== 'string' || !SHA.test(edit.sha)) throw invalidRequest('Must supply either tree.sha or tree.content.');
        sha = edit.sha;
        // A submodule names a commit of another repository: it need not be here.
        if (kind === 'blob' && !getBlob(ctx, repo, sha)) throw badObject();
        if (kind === 'tree' && sha !== EMPTY_TREE && !treeEntries(ctx, repo, sha)) throw badObject();
      }
    }
    let dir = root;
    let gone = false;
    for (const name of parts.slice(0, -1)) {
      let sub = dir.subs.get(name);
      if (!sub) {
        const e = dir.entries.get(name);
        if (e?.mode === '040000') sub = load(e.sha);
        else if (remove) {
          gone = true; // nothing to remove below a file or a missing directory
          break;
        } else sub = { entries: new Map(), subs: new Map() };
        dir.entries.delete(name);
        dir.subs.set(name, sub);
      }
      dir = sub;
    }
    if (gone) continue;
    const name = parts[parts.length - 1]!;
    dir.subs.delete(name);
    if (remove) dir.entries.delete(name);
    else dir.entries.set(name, { name, mode, sha: sha! });
  }
  const size = (sha: string) => getBlob(ctx, repo, sha)?.size as number | undefined;
  const write = (dir: Dir): string => {
    for (const [name, sub] of dir.subs) {
      const sha = write(sub);
      if (sha === EMPTY_TREE) dir.entries.delete(name);
      else dir.entries.set(name, { name, mode: '040000', sha });
    }
    return storeTree(ctx, repo, [...dir.entries.values()], size);
  };
  return write(root);
}

// ---- commits -----------------------------------------------------------------------------

export interface GitCommitInput {
  message: string;
  tree: string;
  parents: string[];
  author?: Signature;
  committer?: Signature;
  signature?: string;
  by: Json;
}

/** `POST …/git/commits`: a commit of an existing tree on existing parents (no ref moves). */
export function createGitCommit(ctx: TwinContext, repo: Json, input: GitCommitInput): Json {
  requireNotEmpty(ctx, repo);
  if (input.tree !== EMPTY_TREE && !treeEntries(ctx, repo, input.tree)) throw new GitHubError(422, 'Tree SHA does not exist');
  for (const p of input.parents) {
    if (!getCommit(ctx, repo, p)) throw new GitHubError(422, 'Parent SHA does not exist or is not a commit object');
  }
  if (input.tree === EMPTY_TREE) storeTree(ctx, repo, [], () => 0);
  return createCommit(ctx, repo, input);
}

// ---- annotated tags ----------------------------------------------------------------------

/** The REST `git-tag` shape of a stored tag object. */
export function tagShape(repo: Json, sha: string, raw: Buffer): Json {
  const t = parseTag(raw);
  return {
    node_id: nodeId('Tag', parseInt(sha.slice(0, 8), 16)),
    tag: t.tag,
    sha,
    url: `${API}/repos/${repo.full_name}/git/tags/${sha}`,
    message: t.message,
    tagger: t.tagger ?? null,
    object: { type: t.type, sha: t.object, url: `${API}/repos/${repo.full_name}/git/${t.type}s/${t.object}` },
    verification: t.signed
      ? { verified: false, reason: 'unknown_key', signature: null, payload: null, verified_at: null }
      : { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
  };
}

export function getTag(ctx: TwinContext, repo: Json, sha: string): Json | undefined {
  const o = readObject(ctx, repo, sha, 'tag');
  return o?.type === 'tag' ? tagShape(repo, sha, o.content) : undefined;
}

/** `POST …/git/tags`: an annotated tag object (the `refs/tags/…` ref is made separately, as on GitHub). */
export function createTag(
  ctx: TwinContext,
  repo: Json,
  input: { tag: string; message: string; object: string; type: ObjectType; tagger?: Signature; by: Json },
): Json {
  requireNotEmpty(ctx, repo);
  const target = hasObject(ctx, repo, input.object) ? readObject(ctx, repo, input.object, input.type) : undefined;
  if (!target) throw validationFailed({ resource: 'Tag', field: 'object', code: 'invalid', message: 'Object does not exist' } as never);
  if (target.type !== input.type) throw validationFailed({ resource: 'Tag', field: 'type', code: 'invalid', message: `object is a ${target.type}` } as never);
  const at = now(ctx);
  const tagger = input.tagger
    ? { ...input.tagger, date: input.tagger.date && !Number.isNaN(Date.parse(input.tagger.date)) ? input.tagger.date : at }
    : signatureOf(input.by, at);
  const raw = tagBytes({ object: input.object, type: input.type, tag: input.tag, tagger, message: input.message });
  const sha = objectName('tag', raw);
  putRawObject(ctx, repo, 'tag', sha, raw);
  return tagShape(repo, sha, raw);
}
