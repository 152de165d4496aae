// Moving git objects in and out of a repository: which refs to advertise, which objects a fetch
// needs, and what a push brings. Packs are read by isomorphic-git, over a small in-memory file
// system whose loose objects are the repository's records; packs sent to clients are written
// here (whole objects, no deltas: the format's simplest form). A push is checked before anything
// is kept: the pack must index, every object must parse as git's fsck would want it, and every new
// tip must be connected (all it points to received or already here); otherwise the repository
// stays as it was.

import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { Json } from './accounts.js';
import { now } from './identity.js';
import {
  BadObject,
  type ObjectType,
  hasObject,
  objectName,
  parseCommit,
  parseTag,
  parseTree,
  putRawObject,
  readObject,
  storeTree,
  treeEntries,
  wrapObject,
} from './git-objects.js';
import { ancestors, commitsBetween, deleteRef, getCommit, getBlob, getRef, listRefs, putBlob, setRef, storeCommit, type Push } from './git.js';
import { childKey, findRepository, saveRepository } from './repositories.js';
import { afterPush, ZERO } from './pushes.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';

/** isomorphic-git, loaded with the first pack written or read (not at the twin's start). */
const isomorphicGit = loadOnce(() => import('isomorphic-git').then((m) => m.default));

// ---- the in-memory file system isomorphic-git works on ------------------------------------

const GITDIR = '/repo.git';
const LOOSE = /^\/repo\.git\/objects\/([0-9a-f]{2})\/([0-9a-f]{38})$/;

function notFound(path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, '${path}'`), { code: 'ENOENT' });
}

function statOf(kind: 'file' | 'dir', size: number) {
  return {
    isFile: () => kind === 'file',
    isDirectory: () => kind === 'dir',
    isSymbolicLink: () => false,
    size,
    mode: kind === 'file' ? 0o100644 : 0o40000,
    mtimeMs: 0,
    ctimeMs: 0,
    uid: 0,
    gid: 0,
    ino: 0,
    dev: 0,
  };
}

/** Files written by isomorphic-git kept in memory; loose objects read from the repository. */
class ObjectFs {
  private readonly files = new Map<string, Buffer>();

  constructor(private readonly loose: (sha: string) => { type: ObjectType; content: Buffer } | undefined) {}

  private read(path: string): Buffer | undefined {
    const f = this.files.get(path);
    if (f) return f;
    const m = LOOSE.exec(path);
    if (!m) return undefined;
    const o = this.loose(m[1]! + m[2]!);
    // Stored, not compressed (level 0): isomorphic-git inflates it again at once.
    return o && deflateSync(wrapObject(o.type, o.content), { level: 0 });
  }

  private children(dir: string): string[] {
    const prefix = dir.endsWith('/') ? dir : `${dir}/`;
    const names = new Set<string>();
    for (const p of this.files.keys()) if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split('/')[0]!);
    return [...names];
  }

  readonly promises = {
    readFile: async (path: string, opts?: string | { encoding?: string }) => {
      const b = this.read(path);
      if (!b) throw notFound(path);
      const enc = typeof opts === 'string' ? opts : opts?.encoding;
      return enc ? b.toString(enc as BufferEncoding) : b;
    },
    writeFile: async (path: string, data: Uint8Array | string) => {
      this.files.set(path, Buffer.from(data as Uint8Array));
    },
    mkdir: async () => {},
    rmdir: async () => {},
    unlink: async (path: string) => {
      this.files.delete(path);
    },
    stat: async (path: string) => this.stat(path),
    lstat: async (path: string) => this.stat(path),
    readdir: async (path: string) => this.children(path),
    readlink: async (path: string) => {
      throw notFound(path);
    },
    symlink: async () => {},
  };

  private stat(path: string) {
    const b = this.read(path);
    if (b) return statOf('file', b.length);
    if (path === GITDIR || this.children(path).length) return statOf('dir', 0);
    throw notFound(path);
  }
}

function repoFs(ctx: TwinContext, repo: Json): ObjectFs {
  return new ObjectFs((sha) => readObject(ctx, repo, sha));
}

// ---- advertisement -----------------------------------------------------------------------

export interface AdvertisedRef {
  name: string;
  sha: string;
  /** The commit an annotated tag points to. */
  peeled?: string;
}

/** HEAD (when the default branch exists) and every ref, as git lists them. */
export function advertisedRefs(ctx: TwinContext, repo: Json): { head?: string; refs: AdvertisedRef[] } {
  const refs: AdvertisedRef[] = listRefs(ctx, repo).map((r) => {
    const out: AdvertisedRef = { name: r.ref, sha: r.object.sha };
    if (r.object.type === 'tag') out.peeled = peel(ctx, repo, r.object.sha);
    return out;
  });
  const headRef = `refs/heads/${repo.default_branch}`;
  return { head: refs.some((r) => r.name === headRef) ? headRef : undefined, refs };
}

function peel(ctx: TwinContext, repo: Json, sha: string): string {
  let at = sha;
  for (let i = 0; i < 16; i++) {
    const o = readObject(ctx, repo, at, 'tag');
    if (o?.type !== 'tag') return at;
    at = parseTag(o.content).object;
  }
  return at;
}

// ---- fetch -------------------------------------------------------------------------------

/** Which of `haves` this repository has as commits (the common base of a fetch). */
export function commonCommits(ctx: TwinContext, repo: Json, haves: string[]): string[] {
  return haves.filter((h) => !!getCommit(ctx, repo, h));
}

/** Whether every want names an object the repository holds. */
export function missingWant(ctx: TwinContext, repo: Json, wants: string[]): string | undefined {
  return wants.find((w) => !hasObject(ctx, repo, w));
}

/** An object a fetch sends, with its type (so reading it takes one lookup). */
export interface WantedObject {
  sha: string;
  type: ObjectType;
}

/**
 * Every object a client holding `common` needs to have `wants`: commits not reachable from the
 * common ones, and the trees and blobs under them the common tips do not already have.
 */
export function objectsFor(ctx: TwinContext, repo: Json, wants: string[], common: string[], includeTags: boolean, shallow?: Set<string>): WantedObject[] {
  const haveCommits = new Set<string>();
  for (const c of common) for (const a of ancestors(ctx, repo, c)) haveCommits.add(a);
  const haveTrees = new Set<string>();
  const markTree = (sha: string) => {
    if (haveTrees.has(sha)) return;
    haveTrees.add(sha);
    for (const e of treeEntries(ctx, repo, sha) ?? []) {
      if (e.mode === '040000') markTree(e.sha);
      else haveTrees.add(e.sha);
    }
  };
  for (const c of common) {
    const commit = getCommit(ctx, repo, c);
    if (commit) markTree(commit.tree.sha);
  }
  const out: WantedObject[] = [];
  const sent = new Set<string>();
  const addTree = (sha: string) => {
    if (sent.has(sha) || haveTrees.has(sha)) return;
    sent.add(sha);
    out.push({ sha, type: 'tree' });
    for (const e of treeEntries(ctx, repo, sha) ?? []) {
      if (e.mode === '040000') addTree(e.sha);
      else if (e.mode !== '160000' && !sent.has(e.sha) && !haveTrees.has(e.sha)) {
        sent.add(e.sha);
        out.push({ sha: e.sha, type: 'blob' });
      }
    }
  };
  const stack: string[] = [];
  const wantObject = (sha: string) => {
    const o = readObject(ctx, repo, sha, 'commit');
    if (!o) return;
    if (o.type === 'tag') {
      if (!sent.has(sha)) {
        sent.add(sha);
        out.push({ sha, type: 'tag' });
      }
      wantObject(parseTag(o.content).object);
    } else if (o.type === 'commit') stack.push(sha);
    else if (o.type === 'tree') addTree(sha);
    else if (!sent.has(sha)) {
      sent.add(sha);
      out.push({ sha, type: 'blob' });
    }
  };
  for (const w of wants) wantObject(w);
  while (stack.length) {
    const sha = stack.pop()!;
    if (sent.has(sha) || haveCommits.has(sha)) continue;
    const c = getCommit(ctx, repo, sha);
    if (!c) continue;
    sent.add(sha);
    out.push({ sha, type: 'commit' });
    addTree(c.tree.sha);
    if (!shallow?.has(sha)) for (const p of c.parents) stack.push(p.sha);
  }
  if (includeTags) {
    for (const r of listRefs(ctx, repo, 'refs/tags/')) {
      if (r.object.type !== 'tag' || sent.has(r.object.sha)) continue;
      if (sent.has(peel(ctx, repo, r.object.sha))) {
        sent.add(r.object.sha);
        out.push({ sha: r.object.sha, type: 'tag' });
      }
    }
  }
  return out;
}

/** The commits a `deepen <depth>` fetch stops at (they are sent without their parents). */
export function shallowBoundary(ctx: TwinContext, repo: Json, wants: string[], depth: number): Set<string> {
  const boundary = new Set<string>();
  let level = wants.filter((w) => !!getCommit(ctx, repo, w));
  const seen = new Set(level);
  for (let d = 1; d < depth && level.length; d++) {
    const next: string[] = [];
    for (const sha of level) {
      for (const p of getCommit(ctx, repo, sha)?.parents ?? []) {
        if (!seen.has(p.sha) && getCommit(ctx, repo, p.sha)) {
          seen.add(p.sha);
          next.push(p.sha);
        }
      }
    }
    level = next;
  }
  for (const sha of level) if ((getCommit(ctx, repo, sha)?.parents.length ?? 0) > 0) boundary.add(sha);
  return boundary;
}

const PACK_TYPE: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

/**
 * A pack of `objects`, each whole (no deltas), as git's pack format v2 lays it out: "PACK",
 * version, count; per object a type-and-size header and its zlib stream; the SHA-1 of it all.
 * Written here with node's zlib and crypto rather than isomorphic-git's packObjects, which
 * inflates, re-hashes and deflates each object through web streams: 2.6–2.9 s of a 1,000-file,
 * 10 MB clone against ~0.1 s this way (scripts/bench/git-clone.ts). Reading packs (deltas, thin
 * packs) stays with isomorphic-git.
 */
export function packOf(ctx: TwinContext, repo: Json, objects: WantedObject[]): Buffer[] {
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(objects.length, 8);
  // Level 1: a faster pack beats a smaller one on the links twins are reached over. Synchronous:
  // zlib's asynchronous calls, one per object, were 4–8× slower in total (a stream per object).
  const entries = objects.map(({ sha, type }) => {
    const o = readObject(ctx, repo, sha, type);
    if (!o) throw new Error(`object ${sha} is missing from ${String(repo.full_name)}`);
    return [packedObjectHeader(PACK_TYPE[o.type], o.content.length), deflateSync(o.content, { level: 1 })];
  });
  const parts = [head, ...entries.flat()];
  const hash = createHash('sha1');
  for (const p of parts) hash.update(p);
  parts.push(hash.digest());
  return parts;
}

/** Type in bits 6–4 of the first byte, the size in 4 bits there and 7 bits per byte after. */
function packedObjectHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

// ---- push --------------------------------------------------------------------------------

export interface RefCommand {
  old: string;
  new: string;
  ref: string;
}

export interface PushOutcome {
  /** `ok`, or why the pack was refused (then every ref is refused too and nothing was kept). */
  unpack: string;
  refs: { ref: string; error?: string }[];
}

interface Incoming {
  type: ObjectType;
  content: Buffer;
}

/** Read a pack with isomorphic-git (thin packs complete from the repository). */
async function unpack(ctx: TwinContext, repo: Json, pack: Buffer): Promise<Map<string, Incoming>> {
  const fs = repoFs(ctx, repo);
  const path = 'objects/pack/pack-incoming.pack';
  await fs.promises.writeFile(`${GITDIR}/${path}`, pack);
  const cache = {};
  const git = await isomorphicGit();
  const { oids } = await git.indexPack({ fs, dir: GITDIR, gitdir: GITDIR, filepath: path, cache });
  const out = new Map<string, Incoming>();
  for (const oid of oids) {
    const o = await git.readObject({ fs, gitdir: GITDIR, oid, format: 'content', cache });
    const bytes = o.object as Uint8Array;
    const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // isomorphic-git names objects itself; check the name against the bytes all the same.
    if (objectName(o.type as ObjectType, content) !== oid) throw new BadObject(`object ${oid} does not hash to its name`);
    out.set(oid, { type: o.type as ObjectType, content });
  }
  return out;
}

/**
 * Every object `tip` reaches is received or already here (git's connectivity check): the received
 * objects it reaches, or undefined when something is missing.
 */
function connected(ctx: TwinContext, repo: Json, incoming: Map<string, Incoming>, tip: string): Set<string> | undefined {
  const seen = new Set<string>();
  const reached = new Set<string>();
  const stack = [tip];
  while (stack.length) {
    const sha = stack.pop()!;
    if (seen.has(sha)) continue;
    seen.add(sha);
    const o = incoming.get(sha);
    if (!o) {
      if (!hasObject(ctx, repo, sha)) return undefined;
      continue; // already here, hence already connected
    }
    reached.add(sha);
    if (o.type === 'commit') {
      const text = o.content.toString('utf8', 0, Math.min(o.content.length, 64 * 1024));
      for (const m of text.slice(0, text.indexOf('\n\n') < 0 ? undefined : text.indexOf('\n\n')).matchAll(/^(?:tree|parent) ([0-9a-f]{40})$/gm))
        stack.push(m[1]!);
    } else if (o.type === 'tree') {
      for (const e of parseTree(o.content)) if (e.mode !== '160000') stack.push(e.sha);
    } else if (o.type === 'tag') stack.push(parseTag(o.content).object);
  }
  return reached;
}

/** `check-ref-format`, as receive-pack applies it. */
export function validRefName(ref: string): boolean {
  if (!ref.startsWith('refs/') || ref.length > 1024) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses control characters in ref names
  if (/(^|\/)\.|\.\.|[\x00-\x20\x7f~^:?*[\\]|@\{|\/\/|\/$|\.lock(\/|$)|\.$/.test(ref)) return false;
  return ref.split('/').length >= 3;
}

/**
 * Keep the received objects an accepted ref reaches (nothing unconnected is ever stored): blobs,
 * then trees, then commits and tags.
 */
function keep(ctx: TwinContext, repo: Json, incoming: Map<string, Incoming>, reached: Set<string>): void {
  const order: ObjectType[] = ['blob', 'tree', 'commit', 'tag'];
  for (const type of order) {
    for (const [sha, o] of incoming) {
      if (o.type !== type || !reached.has(sha)) continue;
      if (type === 'blob') putBlob(ctx, repo, o.content);
      else if (type === 'tree') storeTree(ctx, repo, parseTree(o.content), (s) => getBlob(ctx, repo, s)?.size ?? incoming.get(s)?.content.length);
      else if (type === 'commit') storeCommit(ctx, repo, o.content);
      else putRawObject(ctx, repo, 'tag', sha, o.content);
    }
  }
}

/** Deepest directory nesting a push may bring (walks over trees are recursive). */
const MAX_TREE_DEPTH = 2048;

/** How deeply the received trees nest (trees already here count as leaves). */
function treeDepth(trees: Map<string, string[]>): number {
  const depth = new Map<string, number>();
  let deepest = 0;
  for (const root of trees.keys()) {
    const stack: [string, boolean][] = [[root, false]];
    while (stack.length) {
      const [sha, expanded] = stack.pop()!;
      if (depth.has(sha)) continue;
      const subs = trees.get(sha) ?? [];
      if (!expanded) {
        stack.push([sha, true]);
        for (const s of subs) if (trees.has(s) && !depth.has(s)) stack.push([s, false]);
      } else {
        const d = 1 + subs.reduce((m, s) => Math.max(m, depth.get(s) ?? 0), 0);
        depth.set(sha, d);
        deepest = Math.max(deepest, d);
      }
    }
  }
  return deepest;
}

/** Parse every received object first: one bad object refuses the whole pack. */
function fsck(incoming: Map<string, Incoming>): void {
  const trees = new Map<string, string[]>();
  for (const [sha, o] of incoming) {
    if (o.type === 'tree')
      trees.set(
        sha,
        parseTree(o.content)
          .filter((e) => e.mode === '040000')
          .map((e) => e.sha),
      );
  }
  if (treeDepth(trees) > MAX_TREE_DEPTH) throw new BadObject(`trees nested deeper than ${MAX_TREE_DEPTH} levels`);
  for (const [, o] of incoming) {
    if (o.type === 'tree') continue;
    else if (o.type === 'tag') parseTag(o.content);
    else if (o.type === 'commit') parseCommit(o.content);
  }
}

function objectType(ctx: TwinContext, repo: Json, sha: string): ObjectType | undefined {
  return readObject(ctx, repo, sha, 'commit')?.type;
}

/**
 * Apply a push: unpack, check, keep the objects, move the refs whose old value still holds, and
 * run what follows every push (webhooks, pull requests, closing keywords, `onPush`).
 */
export async function receivePush(ctx: TwinContext, repo: Json, commands: RefCommand[], pack: Buffer | undefined, atomic: boolean): Promise<PushOutcome> {
  const needsPack = commands.some((c) => c.new !== ZERO);
  let incoming = new Map<string, Incoming>();
  try {
    if (pack?.length) incoming = await unpack(ctx, repo, pack);
    else if (needsPack && commands.some((c) => c.new !== ZERO && !hasObject(ctx, repo, c.new))) throw new BadObject('no pack data');
    fsck(incoming);
  } catch (e) {
    const why = e instanceof BadObject ? e.message : `index-pack failed: ${(e as Error).message.split('\n')[0]}`;
    return { unpack: why, refs: commands.map((c) => ({ ref: c.ref, error: 'unpacker error' })) };
  }
  const refs: PushOutcome['refs'] = [];
  const reached = new Set<string>();
  for (const c of commands) {
    const current = getRef(ctx, repo, c.ref)?.object.sha ?? ZERO;
    let error: string | undefined;
    if (!validRefName(c.ref)) error = 'funny refname';
    else if (c.old !== current) error = 'failed to update ref';
    else if (c.new === ZERO) {
      if (c.ref === `refs/heads/${repo.default_branch}` && current !== ZERO) error = `refusing to delete the current branch: ${c.ref}`;
    } else if (!incoming.has(c.new) && !hasObject(ctx, repo, c.new)) error = 'missing necessary objects';
    else {
      const objects = connected(ctx, repo, incoming, c.new);
      const type = incoming.get(c.new)?.type ?? objectType(ctx, repo, c.new);
      if (!objects) error = 'missing necessary objects';
      else if (c.ref.startsWith('refs/heads/') && type !== 'commit') error = 'not a commit';
      else for (const o of objects) reached.add(o);
    }
    refs.push({ ref: c.ref, ...(error ? { error } : {}) });
  }
  if (atomic && refs.some((r) => r.error)) {
    return { unpack: 'ok', refs: refs.map((r) => ({ ref: r.ref, error: r.error ?? 'atomic push failed' })) };
  }
  keep(ctx, repo, incoming, reached);
  const hadBranches = listRefs(ctx, repo, 'refs/heads/').length > 0;
  const pushes: Push[] = [];
  for (const [i, c] of commands.entries()) {
    if (refs[i]!.error) continue;
    if (c.new === ZERO) {
      if (c.old !== ZERO) deleteRef(ctx, repo, c.ref);
    } else {
      setRef(ctx, repo, c.ref, c.new);
      const type = objectType(ctx, repo, c.new);
      if (type && type !== 'commit') {
        const r = getRef(ctx, repo, c.ref)!;
        r.object = { ...r.object, type, url: String(r.object.url).replace(/\/git\/commits\//, `/git/${type}s/`) };
        ctx.store.put('ref', childKey(repo, c.ref), r);
      }
    }
    if (!c.ref.startsWith('refs/heads/') && !c.ref.startsWith('refs/tags/')) continue;
    const created = c.old === ZERO;
    const isCommit = c.new !== ZERO && !!getCommit(ctx, repo, c.new);
    // A new branch lists the commits no other branch had; an update those since the old tip.
    const base = created ? otherBranchTips(ctx, repo, c.ref) : [c.old];
    const commits = isCommit ? newCommits(ctx, repo, base, c.new) : [];
    const forced = !created && c.new !== ZERO && !ancestors(ctx, repo, c.new).has(c.old);
    pushes.push({ ref: c.ref, before: created ? null : c.old, after: c.new, commits, forced });
  }
  const fresh = findRepository(ctx, repo.owner.login, repo.name) ?? repo;
  if (!hadBranches) {
    const first = commands.find((c, i) => !refs[i]!.error && c.new !== ZERO && c.ref.startsWith('refs/heads/'));
    const branches = commands.filter((c, i) => !refs[i]!.error && c.new !== ZERO).map((c) => c.ref);
    if (first && !branches.includes(`refs/heads/${fresh.default_branch}`)) fresh.default_branch = first.ref.slice('refs/heads/'.length);
  }
  if (pushes.length) fresh.pushed_at = now(ctx);
  saveRepository(ctx, fresh);
  repo.default_branch = fresh.default_branch;
  repo.pushed_at = fresh.pushed_at;
  for (const p of pushes) afterPush(ctx, fresh, p);
  return { unpack: 'ok', refs };
}

function otherBranchTips(ctx: TwinContext, repo: Json, except: string): string[] {
  return listRefs(ctx, repo, 'refs/heads/')
    .filter((r) => r.ref !== except)
    .map((r) => r.object.sha);
}

/** Commits reachable from `tip` but from none of `bases`, oldest first. */
function newCommits(ctx: TwinContext, repo: Json, bases: string[], tip: string): Json[] {
  if (bases.length <= 1) return commitsBetween(ctx, repo, bases[0], tip);
  const exclude = new Set<string>();
  for (const b of bases) for (const a of ancestors(ctx, repo, b)) exclude.add(a);
  return commitsBetween(ctx, repo, undefined, tip).filter((c) => !exclude.has(c.sha));
}
