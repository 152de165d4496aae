// Gists: files with a description, public or secret, owned by the viewer; each change is a revision
// (`history`, newest first, `GET /gists/{id}/{sha}`); a file's `raw_url` serves its bytes from the
// twin. `gh gist create|view|list|edit|delete` work on them. Ids are 32 hex characters, as GitHub's.

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { isForbiddenKey } from '../../../twin-runtime/safe-input.js';
import { notFound, validationFailed } from '../wire/errors.js';
import { type Json, getUser, simpleAccount, viewer } from './accounts.js';
import { API, WEB, nodeId, now } from './identity.js';

const GIST = 'gist';
/** Files of one gist, at most (GitHub's limit for one gist is 300 files). */
export const MAX_GIST_FILES = 300;
/** Bytes of one file's content the API answers inline (larger files are `truncated`). */
const INLINE_BYTES = 1024 * 1024;

interface Revision {
  version: string;
  committed_at: string;
  files: Record<string, string>;
  change_status: { total: number; additions: number; deletions: number };
}

interface StoredGist {
  id: string;
  numeric_id: number;
  owner: string;
  description: string | null;
  public: boolean;
  created_at: string;
  updated_at: string;
  /** Newest first. */
  history: Revision[];
}

export type FileChange = { content?: string; filename?: string } | null;

const lines = (s: string) => (s === '' ? 0 : s.split('\n').length - (s.endsWith('\n') ? 1 : 0));

/** A revision's sha: of its files and time, so two edits never share one. */
function revisionSha(gistId: string, files: Record<string, string>, at: string): string {
  return createHash('sha1')
    .update(JSON.stringify([gistId, at, Object.entries(files).sort()]))
    .digest('hex');
}

function changeStatus(before: Record<string, string>, after: Record<string, string>): Revision['change_status'] {
  let additions = 0;
  let deletions = 0;
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = lines(before[name] ?? '');
    const b = lines(after[name] ?? '');
    if (before[name] === after[name]) continue;
    additions += b;
    deletions += a;
  }
  return { total: additions + deletions, additions, deletions };
}

function checkedFiles(files: Record<string, string>): void {
  const names = Object.keys(files);
  if (names.length === 0) throw validationFailed({ resource: 'Gist', field: 'files', code: 'missing_field' });
  if (names.length > MAX_GIST_FILES) throw validationFailed({ resource: 'Gist', field: 'files', code: 'invalid', message: `at most ${MAX_GIST_FILES} files` });
  for (const [name, content] of Object.entries(files)) {
    if (!name.trim() || name.includes('/'))
      throw validationFailed({ resource: 'Gist', field: 'files', code: 'invalid', message: `filename ${JSON.stringify(name)} is invalid` });
    if (content === '') throw validationFailed({ resource: 'Gist', field: 'files', code: 'missing_field', message: "contents can't be blank" });
  }
}

export function createGist(ctx: TwinContext, input: { description?: string | null; public?: boolean; files: Record<string, string> }): StoredGist {
  checkedFiles(input.files);
  const at = now(ctx);
  const id = ctx.ids.bytes(16).toString('hex');
  const gist: StoredGist = {
    id,
    numeric_id: ctx.ids.sequence('github:id:gist'),
    owner: viewer(ctx).login,
    description: input.description ?? null,
    public: input.public ?? false,
    created_at: at,
    updated_at: at,
    history: [{ version: revisionSha(id, input.files, at), committed_at: at, files: input.files, change_status: changeStatus({}, input.files) }],
  };
  ctx.store.put(GIST, id, gist);
  return gist;
}

export function requireGist(ctx: TwinContext, id: string): StoredGist {
  const gist = ctx.store.get<StoredGist>(GIST, id);
  if (!gist) throw notFound();
  return gist;
}

/** An edit: `files` maps a name to new content, a new name, or null (removed). */
export function updateGist(ctx: TwinContext, id: string, input: { description?: string | null; files?: Record<string, FileChange> }): StoredGist {
  const gist = requireGist(ctx, id);
  const before = gist.history[0]!.files;
  const files = { ...before };
  for (const [name, change] of Object.entries(input.files ?? {})) {
    if (change === null) {
      delete files[name];
      continue;
    }
    const content = change.content ?? files[name];
    if (content === undefined) throw validationFailed({ resource: 'Gist', field: 'files', code: 'missing_field', message: `${name} has no content` });
    // A name no request may give a property (`__proto__`) would vanish on assignment: refused instead.
    if (change.filename && isForbiddenKey(change.filename)) {
      throw validationFailed({ resource: 'Gist', field: 'files', code: 'invalid', message: `filename ${JSON.stringify(change.filename)} is invalid` });
    }
    if (change.filename && change.filename !== name) delete files[name];
    files[change.filename ?? name] = content;
  }
  checkedFiles(files);
  if (input.description !== undefined) gist.description = input.description;
  const changed = JSON.stringify(Object.entries(files).sort()) !== JSON.stringify(Object.entries(before).sort());
  const at = now(ctx);
  if (changed) gist.history.unshift({ version: revisionSha(id, files, at), committed_at: at, files, change_status: changeStatus(before, files) });
  gist.updated_at = at;
  ctx.store.put(GIST, id, gist);
  return gist;
}

export function deleteGist(ctx: TwinContext, id: string): void {
  requireGist(ctx, id);
  ctx.store.delete(GIST, id);
}

/** The viewer's gists, one user's (their public ones unless it is the viewer), or every public one; newest first. */
export function listGists(ctx: TwinContext, filter: { owner?: string; publicOnly?: boolean; since?: string }): StoredGist[] {
  const me = viewer(ctx).login;
  return ctx.store
    .list<StoredGist>(GIST)
    .filter((g) => (filter.owner === undefined || g.owner.toLowerCase() === filter.owner.toLowerCase()) && (g.public || (!filter.publicOnly && g.owner === me)))
    .filter((g) => !filter.since || g.updated_at >= filter.since)
    .sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : b.numeric_id - a.numeric_id));
}

/** A revision's file, for its raw URL. */
export function rawFile(ctx: TwinContext, id: string, version: string, filename: string): string | undefined {
  const gist = ctx.store.get<StoredGist>(GIST, id);
  return gist?.history.find((r) => r.version === version)?.files[filename];
}

export function revisionOf(gist: StoredGist, sha: string): Revision {
  const revision = gist.history.find((r) => r.version === sha);
  if (!revision) throw notFound();
  return revision;
}

/**
 * The gist as GitHub answers it; `revision` picks a past version (default: the latest), `full`
 * adds the files' content and the history (a single gist; lists leave them out).
 */
export function presentGist(
  ctx: TwinContext,
  gist: StoredGist,
  languageOf: (name: string) => string | null,
  opts: { revision?: Revision; full?: boolean } = {},
): Json {
  const revision = opts.revision ?? gist.history[0]!;
  const owner = getUser(ctx, gist.owner) ?? viewer(ctx);
  const files: Record<string, Json> = {};
  for (const [filename, content] of Object.entries(revision.files).sort(([a], [b]) => a.localeCompare(b))) {
    const size = Buffer.byteLength(content);
    files[filename] = {
      filename,
      type: filename.endsWith('.md') ? 'text/markdown' : 'text/plain',
      language: languageOf(filename),
      raw_url: `${API}/_twin-gists/${gist.id}/${revision.version}/${encodeURIComponent(filename)}`,
      size,
      ...(opts.full ? { truncated: size > INLINE_BYTES, content: size > INLINE_BYTES ? content.slice(0, INLINE_BYTES) : content } : {}),
    };
  }
  const url = `${API}/gists/${gist.id}`;
  return {
    url,
    forks_url: `${url}/forks`,
    commits_url: `${url}/commits`,
    id: gist.id,
    node_id: nodeId('Gist', gist.numeric_id),
    git_pull_url: `${WEB}/gist/${gist.id}.git`,
    git_push_url: `${WEB}/gist/${gist.id}.git`,
    html_url: `${WEB}/gist/${gist.owner}/${gist.id}`,
    files,
    public: gist.public,
    created_at: gist.created_at,
    updated_at: gist.updated_at,
    description: gist.description,
    comments: 0,
    comments_enabled: true,
    user: null,
    comments_url: `${url}/comments`,
    owner: simpleAccount(owner),
    truncated: false,
    ...(opts.full
      ? {
          forks: [],
          history: gist.history.map((r) => ({
            user: simpleAccount(owner),
            version: r.version,
            committed_at: r.committed_at,
            change_status: r.change_status,
            url: `${url}/${r.version}`,
          })),
        }
      : {}),
  };
}
