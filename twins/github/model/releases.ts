// Releases and their assets. Publishing a release makes its git tag (a lightweight `refs/tags/…` on
// the target commit, unless the tag already exists) and tells hooks and workflows, as GitHub does; a
// draft has no tag until it is published. One release per tag; the latest release is the one last
// published (or marked) as latest that is neither a draft nor a prerelease. Assets keep their bytes
// (uploaded through `upload_url`, the uploads host at `/api/uploads` on the twin), with a SHA-256
// digest and a download count. Generated notes list the pull requests merged since the previous
// release, as GitHub writes them.

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, UPLOADS, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, notFound, validationFailed } from '../wire/errors.js';
import { type Json, simpleAccount, viewer } from './accounts.js';
import { childKey } from './repositories.js';
import { ancestors, getRef, resolveCommitish, setRef, tagCommit } from './git.js';
import { validRefName } from './git-transfer.js';
import { afterPush } from './pushes.js';
import { emitEvent } from './webhooks.js';
import { listPulls } from './pulls.js';
import { refuseRefUpdate } from './protection.js';

/** Record kinds: a release (`<repo id>:<release id>`), an asset (`<repo id>:<asset id>`), an asset's bytes. */
export const RELEASE = 'release';
export const RELEASE_ASSET = 'release_asset';
export const RELEASE_ASSET_DATA = 'release_asset_data';

const pad = (id: number) => String(id).padStart(12, '0');

function releaseKey(repo: Json, id: number): string {
  return childKey(repo, pad(id));
}

function assetKey(repo: Json, id: number): string {
  return childKey(repo, pad(id));
}

export function listReleases(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store
    .listByPrefix<Json>(RELEASE, childKey(repo, ''))
    .map((r) => r.body)
    .reverse();
}

export function requireRelease(ctx: TwinContext, repo: Json, id: number): Json {
  const r = ctx.store.get<Json>(RELEASE, releaseKey(repo, id));
  if (!r) throw notFound();
  return r;
}

export function releaseByTag(ctx: TwinContext, repo: Json, tag: string): Json | undefined {
  return listReleases(ctx, repo).find((r) => r.tag_name === tag && !r.draft);
}

function saveRelease(ctx: TwinContext, repo: Json, r: Json): void {
  ctx.store.put(RELEASE, releaseKey(repo, r.id), r);
}

/** The latest release: last published or marked as latest, neither draft nor prerelease. */
export function latestRelease(ctx: TwinContext, repo: Json): Json | undefined {
  let best: Json | undefined;
  for (const r of listReleases(ctx, repo)) {
    if (r.draft || r.prerelease || r.make_latest === 'false') continue;
    if (!best || (r.latest_seq ?? 0) > (best.latest_seq ?? 0)) best = r;
  }
  return best;
}

// ---- shapes --------------------------------------------------------------------------------

function assetsOf(ctx: TwinContext, repo: Json, releaseId: number): Json[] {
  return ctx.store
    .listByPrefix<Json>(RELEASE_ASSET, childKey(repo, ''))
    .map((r) => r.body)
    .filter((a) => a.release_id === releaseId);
}

export function assetShape(a: Json): Json {
  const { release_id: _r, tag: _t, ...out } = a;
  return out;
}

/** A release as the API answers it (its assets listed, the twin-only bookkeeping left out). */
export function releaseShape(ctx: TwinContext, repo: Json, r: Json): Json {
  const { latest_seq: _s, make_latest: _m, ...rest } = r;
  return { ...rest, assets: assetsOf(ctx, repo, r.id).map(assetShape) };
}

/** Where a release and its assets live on the web: its tag, or `untagged-<hash>` while it is a draft. */
function webTag(r: Json): string {
  return r.draft ? `untagged-${createHash('sha1').update(String(r.id)).digest('hex').slice(0, 20)}` : r.tag_name;
}

function withUrls(repo: Json, r: Json): Json {
  const api = `${API}/repos/${repo.full_name}/releases/${r.id}`;
  const tag = webTag(r);
  r.url = api;
  r.assets_url = `${api}/assets`;
  r.upload_url = `${UPLOADS}/repos/${repo.full_name}/releases/${r.id}/assets{?name,label}`;
  r.html_url = `${WEB}/${repo.full_name}/releases/tag/${encodeURIComponent(tag)}`;
  r.tarball_url = r.draft ? null : `${API}/repos/${repo.full_name}/tarball/${encodeURIComponent(r.tag_name)}`;
  r.zipball_url = r.draft ? null : `${API}/repos/${repo.full_name}/zipball/${encodeURIComponent(r.tag_name)}`;
  return r;
}

// ---- create, update, delete ----------------------------------------------------------------

export interface ReleaseInput {
  tag_name?: string;
  target_commitish?: string;
  name?: string | null;
  body?: string | null;
  draft?: boolean;
  prerelease?: boolean;
  make_latest?: 'true' | 'false' | 'legacy';
  generate_release_notes?: boolean;
}

function checkTag(tag: string): void {
  if (!tag || !validRefName(`refs/tags/${tag}`)) throw validationFailed({ resource: 'Release', code: 'invalid', field: 'tag_name' });
}

/** Make the tag of a release being published, on its target, unless it exists; tell hooks and workflows. */
function ensureTag(ctx: TwinContext, repo: Json, r: Json): void {
  const ref = `refs/tags/${r.tag_name}`;
  if (getRef(ctx, repo, ref)) return;
  const sha = resolveCommitish(ctx, repo, r.target_commitish);
  if (!sha) throw validationFailed({ resource: 'Release', code: 'invalid', field: 'target_commitish' });
  refuseRefUpdate(ctx, repo, { ref, before: null, after: sha }, 422);
  setRef(ctx, repo, ref, sha);
  emitEvent(ctx, repo, 'create', { ref: r.tag_name, ref_type: 'tag', master_branch: repo.default_branch, description: repo.description, pusher_type: 'user' });
  afterPush(ctx, repo, { ref, before: null, after: sha, commits: [] });
}

function markLatest(ctx: TwinContext, r: Json): void {
  if (!r.draft && !r.prerelease && r.make_latest !== 'false') r.latest_seq = ctx.ids.sequence('github:release-latest');
}

/** `POST …/releases`. */
export function createRelease(ctx: TwinContext, repo: Json, input: ReleaseInput & { tag_name: string }): Json {
  checkTag(input.tag_name);
  if (listReleases(ctx, repo).some((r) => r.tag_name === input.tag_name)) {
    throw validationFailed({ resource: 'Release', code: 'already_exists', field: 'tag_name' });
  }
  const target = input.target_commitish || repo.default_branch;
  // The target must name a commit unless the tag exists already (it is then the tag's commit).
  if (!getRef(ctx, repo, `refs/tags/${input.tag_name}`) && !resolveCommitish(ctx, repo, target)) {
    throw validationFailed({ resource: 'Release', code: 'invalid', field: 'target_commitish' });
  }
  const id = nextId(ctx, 'release');
  const at = now(ctx);
  const draft = !!input.draft;
  let body = input.body ?? null;
  if (input.generate_release_notes) {
    const notes = generateNotes(ctx, repo, { tag_name: input.tag_name, target_commitish: target });
    body = body ? `${body}\n\n${notes.body}` : notes.body;
  }
  const r: Json = withUrls(repo, {
    id,
    node_id: nodeId('Release', id),
    tag_name: input.tag_name,
    target_commitish: target,
    name: input.name ?? null,
    draft,
    prerelease: !!input.prerelease,
    created_at: at,
    updated_at: at,
    published_at: draft ? null : at,
    author: simpleAccount(viewer(ctx)),
    body,
    immutable: false,
    make_latest: input.make_latest ?? 'true',
  });
  if (!draft) {
    ensureTag(ctx, repo, r);
    markLatest(ctx, r);
  }
  saveRelease(ctx, repo, r);
  emitEvent(ctx, repo, 'release', { action: 'created', release: releaseShape(ctx, repo, r) });
  if (!draft) publishedEvents(ctx, repo, r);
  return r;
}

function publishedEvents(ctx: TwinContext, repo: Json, r: Json): void {
  const release = releaseShape(ctx, repo, r);
  emitEvent(ctx, repo, 'release', { action: 'published', release });
  emitEvent(ctx, repo, 'release', { action: r.prerelease ? 'prereleased' : 'released', release });
}

/** `PATCH …/releases/{id}`: publishing a draft makes its tag. */
export function updateRelease(ctx: TwinContext, repo: Json, r: Json, input: ReleaseInput): Json {
  const wasDraft = r.draft;
  if (input.tag_name !== undefined && input.tag_name !== r.tag_name) {
    checkTag(input.tag_name);
    if (listReleases(ctx, repo).some((x) => x.tag_name === input.tag_name && x.id !== r.id)) {
      throw validationFailed({ resource: 'Release', code: 'already_exists', field: 'tag_name' });
    }
    r.tag_name = input.tag_name;
  }
  if (input.target_commitish !== undefined) r.target_commitish = input.target_commitish;
  if (input.name !== undefined) r.name = input.name;
  if (input.body !== undefined) r.body = input.body;
  if (input.prerelease !== undefined) r.prerelease = input.prerelease;
  if (input.draft !== undefined) r.draft = input.draft;
  if (input.make_latest !== undefined) r.make_latest = input.make_latest;
  const at = now(ctx);
  r.updated_at = at;
  const publishing = wasDraft && !r.draft;
  if (!r.draft) ensureTag(ctx, repo, r);
  if (publishing) r.published_at = at;
  if (publishing || input.make_latest === 'true') markLatest(ctx, r);
  withUrls(repo, r);
  // An asset's download URL names the release's tag (or its untagged name while a draft).
  for (const a of assetsOf(ctx, repo, r.id)) {
    a.browser_download_url = `${WEB}/${repo.full_name}/releases/download/${encodeURIComponent(webTag(r))}/${encodeURIComponent(a.name)}`;
    a.tag = webTag(r);
    ctx.store.put(RELEASE_ASSET, assetKey(repo, a.id), a);
  }
  saveRelease(ctx, repo, r);
  emitEvent(ctx, repo, 'release', { action: 'edited', release: releaseShape(ctx, repo, r), changes: {} });
  if (publishing) publishedEvents(ctx, repo, r);
  return r;
}

/** `DELETE …/releases/{id}`: its assets go with it; the tag stays, as on GitHub. */
export function deleteRelease(ctx: TwinContext, repo: Json, r: Json): void {
  const release = releaseShape(ctx, repo, r);
  for (const a of assetsOf(ctx, repo, r.id)) deleteAsset(ctx, repo, a);
  ctx.store.delete(RELEASE, releaseKey(repo, r.id));
  emitEvent(ctx, repo, 'release', { action: 'deleted', release });
}

// ---- assets --------------------------------------------------------------------------------

export function requireAsset(ctx: TwinContext, repo: Json, id: number): Json {
  const a = ctx.store.get<Json>(RELEASE_ASSET, assetKey(repo, id));
  if (!a) throw notFound();
  return a;
}

export function listAssets(ctx: TwinContext, repo: Json, r: Json): Json[] {
  return assetsOf(ctx, repo, r.id);
}

/** GitHub's renaming of an uploaded file name: characters outside `[A-Za-z0-9._-]` become dots. */
function assetName(name: string): string {
  return name.replace(/[^A-Za-z0-9._+@-]/g, '.');
}

/** `POST {upload_url}?name=…&label=…` with the file as the body. */
export function uploadAsset(ctx: TwinContext, repo: Json, r: Json, input: { name: string; label?: string; contentType: string; data: Buffer }): Json {
  const name = assetName(input.name);
  if (!name) throw validationFailed({ resource: 'ReleaseAsset', code: 'missing_field', field: 'name' });
  if (assetsOf(ctx, repo, r.id).some((a) => a.name === name)) {
    throw validationFailed({ resource: 'ReleaseAsset', code: 'already_exists', field: 'name' });
  }
  const id = nextId(ctx, 'release_asset');
  const at = now(ctx);
  const a: Json = {
    url: `${API}/repos/${repo.full_name}/releases/assets/${id}`,
    browser_download_url: `${WEB}/${repo.full_name}/releases/download/${encodeURIComponent(webTag(r))}/${encodeURIComponent(name)}`,
    id,
    node_id: nodeId('ReleaseAsset', id),
    name,
    label: input.label ?? '',
    state: 'uploaded',
    content_type: input.contentType || 'application/octet-stream',
    size: input.data.length,
    digest: `sha256:${createHash('sha256').update(input.data).digest('hex')}`,
    download_count: 0,
    created_at: at,
    updated_at: at,
    uploader: simpleAccount(viewer(ctx)),
    release_id: r.id,
    tag: webTag(r),
  };
  ctx.store.put(RELEASE_ASSET, assetKey(repo, id), a);
  ctx.store.put(RELEASE_ASSET_DATA, assetKey(repo, id), { data: input.data.toString('base64') });
  return a;
}

export function updateAsset(ctx: TwinContext, repo: Json, a: Json, patch: { name?: string; label?: string; state?: string }): Json {
  if (patch.name !== undefined) {
    const name = assetName(patch.name);
    if (assetsOf(ctx, repo, a.release_id).some((x) => x.name === name && x.id !== a.id)) {
      throw validationFailed({ resource: 'ReleaseAsset', code: 'already_exists', field: 'name' });
    }
    a.name = name;
    a.browser_download_url = `${WEB}/${repo.full_name}/releases/download/${encodeURIComponent(a.tag)}/${encodeURIComponent(name)}`;
  }
  if (patch.label !== undefined) a.label = patch.label;
  a.updated_at = now(ctx);
  ctx.store.put(RELEASE_ASSET, assetKey(repo, a.id), a);
  return a;
}

export function deleteAsset(ctx: TwinContext, repo: Json, a: Json): void {
  ctx.store.delete(RELEASE_ASSET, assetKey(repo, a.id));
  ctx.store.delete(RELEASE_ASSET_DATA, assetKey(repo, a.id));
}

/** An asset's bytes, counted as one download. */
export function downloadAsset(ctx: TwinContext, repo: Json, a: Json): Buffer {
  const data = ctx.store.get<Json>(RELEASE_ASSET_DATA, assetKey(repo, a.id));
  if (!data) throw notFound();
  a.download_count = (a.download_count ?? 0) + 1;
  ctx.store.put(RELEASE_ASSET, assetKey(repo, a.id), a);
  return Buffer.from(data.data, 'base64');
}

/** The asset `browser_download_url` names: `<tag or untagged name>/<file name>`. */
export function assetByDownloadPath(ctx: TwinContext, repo: Json, tag: string, name: string): Json | undefined {
  return ctx.store
    .listByPrefix<Json>(RELEASE_ASSET, childKey(repo, ''))
    .map((r) => r.body)
    .find((a) => a.tag === tag && a.name === name);
}

// ---- generated notes -----------------------------------------------------------------------

/**
 * `POST …/releases/generate-notes`: the pull requests merged between the previous release's tag
 * and the target, their authors' first contributions, and the full changelog link.
 */
export function generateNotes(
  ctx: TwinContext,
  repo: Json,
  input: { tag_name: string; target_commitish?: string; previous_tag_name?: string },
): { name: string; body: string } {
  const head = tagCommit(ctx, repo, input.tag_name) ?? resolveCommitish(ctx, repo, input.target_commitish);
  if (!head) throw validationFailed({ resource: 'Release', code: 'invalid', field: 'target_commitish' });
  let previous = input.previous_tag_name;
  if (previous !== undefined && !tagCommit(ctx, repo, previous)) throw new GitHubError(404, 'Not Found');
  if (previous === undefined) {
    const reachable = ancestors(ctx, repo, head);
    previous = listReleases(ctx, repo).find(
      (r) => !r.draft && r.tag_name !== input.tag_name && reachable.has(tagCommit(ctx, repo, r.tag_name) ?? ''),
    )?.tag_name;
  }
  const included = ancestors(ctx, repo, head);
  const before = previous ? ancestors(ctx, repo, tagCommit(ctx, repo, previous)) : new Set<string>();
  const merged = listPulls(ctx, repo)
    .filter((p) => p.merged && p.merge_commit_sha && included.has(p.merge_commit_sha) && !before.has(p.merge_commit_sha))
    .sort((a, b) => a.number - b.number);
  const earlier = listPulls(ctx, repo).filter((p) => p.merged && p.merge_commit_sha && before.has(p.merge_commit_sha));
  // The notes are text: their links name the twin's own web address (GitHub's for a record without one).
  const web = (ctx.baseUrl || WEB).replace(/\/$/, '');
  const lines: string[] = [];
  if (merged.length) {
    lines.push("## What's Changed");
    for (const p of merged) lines.push(`* ${p.title} by @${p.user.login} in ${web}/${repo.full_name}/pull/${p.number}`);
    const newcomers = [...new Map(merged.filter((p) => !earlier.some((e) => e.user.login === p.user.login)).map((p) => [p.user.login, p])).values()];
    // Everyone is new on a first release; GitHub lists newcomers only against an earlier one.
    if (previous && newcomers.length) {
      lines.push('', '## New Contributors');
      for (const p of newcomers) lines.push(`* @${p.user.login} made their first contribution in ${web}/${repo.full_name}/pull/${p.number}`);
    }
    lines.push('', '');
  }
  lines.push(
    previous
      ? `**Full Changelog**: ${web}/${repo.full_name}/compare/${previous}...${input.tag_name}`
      : `**Full Changelog**: ${web}/${repo.full_name}/commits/${input.tag_name}`,
  );
  return { name: input.tag_name, body: lines.join('\n') };
}
