// Real git objects: how commits, trees and tags are written and read byte for byte, so every SHA the
// twin shows is the SHA `git` computes. Blobs keep their content in the `blob` record; trees are
// re-serialised from the `tree` record's entries (canonical modes only); commits and annotated tags
// keep their exact bytes in a `git_object` record beside the REST-shaped `commit` record, so a pushed
// commit (any time zone, signature or extra header) reads back unchanged.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, isoSeconds, sha1 } from './identity.js';
import type { Json } from './accounts.js';
import { childKey } from './repositories.js';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** Record kind holding the exact bytes of commits and annotated tags. */
export const GIT_OBJECT = 'git_object';

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** `<type> <size>\0<content>`, the bytes a git object's name is the SHA-1 of. */
export function wrapObject(type: ObjectType, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
}

export function objectName(type: ObjectType, content: Buffer): string {
  return sha1(wrapObject(type, content));
}

// ---- trees -------------------------------------------------------------------------------

/** Modes git writes (and fsck accepts) in a tree, as REST spells them. */
const TREE_MODES: Record<string, { raw: string; type: 'blob' | 'tree' | 'commit' }> = {
  '100644': { raw: '100644', type: 'blob' },
  '100755': { raw: '100755', type: 'blob' },
  '120000': { raw: '120000', type: 'blob' },
  '040000': { raw: '40000', type: 'tree' },
  '160000': { raw: '160000', type: 'commit' },
};

export interface TreeEntry {
  name: string;
  /** REST spelling: 100644, 100755, 120000, 040000, 160000. */
  mode: string;
  sha: string;
}

/** Git's entry order: byte order of names, a tree's name compared as if it ended in `/`. */
function entryOrder(a: TreeEntry, b: TreeEntry): number {
  const ka = Buffer.from(a.mode === '040000' ? `${a.name}/` : a.name);
  const kb = Buffer.from(b.mode === '040000' ? `${b.name}/` : b.name);
  return Buffer.compare(ka, kb);
}

export function serializeTree(entries: TreeEntry[]): Buffer {
  const sorted = [...entries].sort(entryOrder);
  return Buffer.concat(sorted.flatMap((e) => [Buffer.from(`${TREE_MODES[e.mode]!.raw} ${e.name}\0`), Buffer.from(e.sha, 'hex')]));
}

export class BadObject extends Error {}

function validName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && name.toLowerCase() !== '.git' && !name.includes('/') && !name.includes('\0');
}

/** A tree's entries; throws BadObject on anything git's fsck would refuse or we could not write back. */
export function parseTree(raw: Buffer): TreeEntry[] {
  const out: TreeEntry[] = [];
  let i = 0;
  while (i < raw.length) {
    const sp = raw.indexOf(0x20, i);
    const nul = sp < 0 ? -1 : raw.indexOf(0, sp);
    if (sp < 0 || nul < 0 || nul + 21 > raw.length) throw new BadObject('truncated tree entry');
    const rawMode = raw.toString('latin1', i, sp);
    const mode = rawMode === '40000' ? '040000' : rawMode;
    if (!TREE_MODES[mode] || TREE_MODES[mode]!.raw !== rawMode) throw new BadObject(`bad file mode ${rawMode}`);
    const name = raw.toString('utf8', sp + 1, nul);
    if (!validName(name)) throw new BadObject(`bad tree entry name ${JSON.stringify(name)}`);
    out.push({ name, mode, sha: raw.toString('hex', nul + 1, nul + 21) });
    i = nul + 21;
  }
  if (!serializeTree(out).equals(raw)) throw new BadObject('tree entries out of order or duplicated');
  return out;
}

/** Store one tree (its direct entries) as the REST `tree` record; returns its SHA. */
export function storeTree(ctx: TwinContext, repo: Json, entries: TreeEntry[], blobSize: (sha: string) => number | undefined): string {
  const raw = serializeTree(entries);
  const sha = objectName('tree', raw);
  const key = childKey(repo, sha);
  if (ctx.store.has('tree', key)) return sha;
  const sorted = [...entries].sort(entryOrder);
  ctx.store.put('tree', key, {
    sha,
    url: `${API}/repos/${repo.full_name}/git/trees/${sha}`,
    tree: sorted.map((e) => {
      const type = TREE_MODES[e.mode]!.type;
      const entry: Json = { path: e.name, mode: e.mode, type, sha: e.sha };
      if (type === 'blob') {
        entry.size = blobSize(e.sha) ?? 0;
        entry.url = `${API}/repos/${repo.full_name}/git/blobs/${e.sha}`;
      } else if (type === 'tree') {
        entry.url = `${API}/repos/${repo.full_name}/git/trees/${e.sha}`;
      }
      return entry;
    }),
    truncated: false,
  });
  return sha;
}

export function treeEntries(ctx: TwinContext, repo: Json, sha: string): TreeEntry[] | undefined {
  if (sha === EMPTY_TREE) return [];
  const t = ctx.store.get<Json>('tree', childKey(repo, sha));
  return t ? (t.tree as Json[]).map((e) => ({ name: e.path, mode: e.mode, sha: e.sha })) : undefined;
}

// ---- signatures and commits --------------------------------------------------------------

export interface GitSignature {
  name: string;
  email: string;
  /** ISO 8601 in UTC, as GitHub's REST shows it. */
  date: string;
}

/** `Name <email> 1700000000 +0000` → REST signature (dates shown in UTC, as GitHub does). */
export function parseSignature(line: string): GitSignature {
  const m = /^(.*?) ?<([^<>]*)> (\d+) ([+-])(\d{2})(\d{2})$/.exec(line);
  if (!m) throw new BadObject(`bad signature "${line}"`);
  return { name: m[1]!, email: m[2]!, date: isoSeconds(Number(m[3]) * 1000) };
}

export function formatSignature(s: { name: string; email: string; date: string }): string {
  const ms = Date.parse(s.date);
  const seconds = Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
  const clean = (v: string) => v.replace(/[<>\n]/g, '');
  return `${clean(s.name)} <${clean(s.email)}> ${seconds} +0000`;
}

export interface ParsedCommit {
  tree: string;
  parents: string[];
  author: GitSignature;
  committer: GitSignature;
  /** The message as GitHub shows it (git's final newline dropped). */
  message: string;
  signed: boolean;
}

const HEX40 = /^[0-9a-f]{40}$/;

function splitHeaders(raw: Buffer): { headers: [string, string][]; message: string } {
  const text = raw.toString('utf8');
  const end = text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end);
  const message = end < 0 ? '' : text.slice(end + 2);
  const headers: [string, string][] = [];
  for (const line of head.split('\n')) {
    if (line.startsWith(' ') && headers.length) headers[headers.length - 1]![1] += `\n${line.slice(1)}`;
    else {
      const sp = line.indexOf(' ');
      if (sp <= 0) throw new BadObject(`bad header line "${line.slice(0, 40)}"`);
      headers.push([line.slice(0, sp), line.slice(sp + 1)]);
    }
  }
  return { headers, message };
}

export function parseCommit(raw: Buffer): ParsedCommit {
  const { headers, message } = splitHeaders(raw);
  const first = headers[0];
  if (first?.[0] !== 'tree' || !HEX40.test(first[1])) throw new BadObject('commit has no tree');
  const parents: string[] = [];
  let i = 1;
  for (; i < headers.length && headers[i]![0] === 'parent'; i++) {
    if (!HEX40.test(headers[i]![1])) throw new BadObject('bad parent');
    parents.push(headers[i]![1]);
  }
  const author = headers[i]?.[0] === 'author' ? parseSignature(headers[i]![1]) : undefined;
  const committer = headers[i + 1]?.[0] === 'committer' ? parseSignature(headers[i + 1]![1]) : undefined;
  if (!author || !committer) throw new BadObject('commit has no author or committer');
  return {
    tree: first[1],
    parents,
    author,
    committer,
    message: message.replace(/\n$/, ''),
    signed: headers.some(([k]) => k === 'gpgsig' || k === 'gpgsig-sha256'),
  };
}

/** The bytes of a commit the twin writes itself (contents API, merges). */
export function commitBytes(c: { tree: string; parents: string[]; author: GitSignature; committer: GitSignature; message: string }): Buffer {
  const message = c.message.endsWith('\n') ? c.message : `${c.message}\n`;
  return Buffer.from(
    [
      `tree ${c.tree}`,
      ...c.parents.map((p) => `parent ${p}`),
      `author ${formatSignature(c.author)}`,
      `committer ${formatSignature(c.committer)}`,
      '',
      message,
    ].join('\n'),
  );
}

export interface ParsedTag {
  object: string;
  type: ObjectType;
  tag: string;
}

export function parseTag(raw: Buffer): ParsedTag {
  const { headers } = splitHeaders(raw);
  const get = (k: string) => headers.find(([h]) => h === k)?.[1];
  const object = get('object');
  const type = get('type');
  const tag = get('tag');
  if (!object || !HEX40.test(object) || !type || !['blob', 'tree', 'commit', 'tag'].includes(type) || !tag) {
    throw new BadObject('malformed tag');
  }
  return { object, type: type as ObjectType, tag };
}

// ---- exact bytes -------------------------------------------------------------------------

export function putRawObject(ctx: TwinContext, repo: Json, type: 'commit' | 'tag', sha: string, raw: Buffer): void {
  const key = childKey(repo, sha);
  if (!ctx.store.has(GIT_OBJECT, key)) ctx.store.put(GIT_OBJECT, key, { type, data: raw.toString('base64') });
}

/** The content of any object the repository holds (undefined: it has none by that name). */
export function readObject(ctx: TwinContext, repo: Json, sha: string, hint?: ObjectType): { type: ObjectType; content: Buffer } | undefined {
  const order: ObjectType[] = hint
    ? [hint, ...(['blob', 'tree', 'commit', 'tag'] as ObjectType[]).filter((t) => t !== hint)]
    : ['commit', 'tree', 'blob', 'tag'];
  const key = childKey(repo, sha);
  for (const type of order) {
    if (type === 'blob') {
      const b = ctx.store.get<Json>('blob', key);
      if (b) return { type, content: Buffer.from(b.content, 'base64') };
    } else if (type === 'tree') {
      const entries = treeEntries(ctx, repo, sha);
      if (entries) return { type, content: serializeTree(entries) };
    } else {
      const o = ctx.store.get<Json>(GIT_OBJECT, key);
      if (o && o.type === type) return { type, content: Buffer.from(o.data, 'base64') };
    }
  }
  return undefined;
}

export function hasObject(ctx: TwinContext, repo: Json, sha: string): boolean {
  if (sha === EMPTY_TREE) return true;
  const key = childKey(repo, sha);
  return ctx.store.has('blob', key) || ctx.store.has('tree', key) || ctx.store.has(GIT_OBJECT, key);
}
