// Releases, their assets (uploaded through `upload_url`, downloaded through the API's octet-stream
// answer or `browser_download_url`), the latest release, releases by tag, generated notes, and the
// source archives (`tarball`/`zipball`) a release links to.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, notFound } from '../wire/errors.js';
import type { Json } from '../model/accounts.js';
import { findRepository, requireRepository } from '../model/repositories.js';
import {
  assetByDownloadPath,
  assetShape,
  createRelease,
  deleteAsset,
  deleteRelease,
  downloadAsset,
  generateNotes,
  latestRelease,
  listAssets,
  listReleases,
  releaseByTag,
  releaseShape,
  requireAsset,
  requireRelease,
  updateAsset,
  updateRelease,
  uploadAsset,
  type ReleaseInput,
} from '../model/releases.js';
import { archiveOf, type ArchiveFormat } from '../model/archives.js';
import { getCommit, resolveCommitish } from '../model/git.js';
import {
  jsonBody,
  numberParam,
  optBool,
  optEnum,
  optString,
  page,
  queryString,
  repoOf,
  reply,
  requiredString,
  routes,
  mayReadRepository,
  plainText,
} from '../wire/http.js';
import { checkSignature, signedUrl } from '../wire/signed-urls.js';

function releaseInput(b: Json): ReleaseInput {
  return {
    tag_name: optString(b, 'tag_name', false) ?? undefined,
    target_commitish: optString(b, 'target_commitish', false) ?? undefined,
    name: optString(b, 'name'),
    body: optString(b, 'body'),
    draft: optBool(b, 'draft'),
    prerelease: optBool(b, 'prerelease'),
    make_latest: optEnum(b, 'make_latest', ['true', 'false', 'legacy'] as const),
    generate_release_notes: optBool(b, 'generate_release_notes'),
  };
}

function releaseOf(req: TwinRequest, ctx: TwinContext): { repo: Json; release: Json } {
  const repo = repoOf(req, ctx);
  return { repo, release: requireRelease(ctx, repo, numberParam(req, 'release_id')) };
}

/** Whether the `Accept` header asks for the file itself rather than its JSON description. */
function wantsBytes(req: TwinRequest): boolean {
  return /application\/octet-stream/i.test(String(req.headers.accept ?? ''));
}

function fileAnswer(bytes: Buffer, name: string, contentType: string): TwinResponse {
  return {
    status: 200,
    headers: { 'content-type': contentType || 'application/octet-stream', 'content-disposition': `attachment; filename=${name}` },
    body: bytes,
  };
}

/** `POST …/releases/{id}/assets?name=…` on the uploads host (or the API host, as Octokit's `origin` sends it). */
const upload: TwinRoute['handler'] = reply((req, ctx) => {
  const { repo, release } = releaseOf(req, ctx);
  const name = queryString(req, 'name');
  if (!name) throw new GitHubError(422, 'Validation Failed', { errors: [{ resource: 'ReleaseAsset', code: 'missing_field', field: 'name' }] });
  if (req.rawBody.length === 0)
    throw new GitHubError(422, 'Validation Failed', {
      errors: [{ resource: 'ReleaseAsset', code: 'custom', field: 'size', message: 'size must be greater than or equal to 1' }],
    });
  const asset = uploadAsset(ctx, repo, release, {
    name,
    label: queryString(req, 'label'),
    contentType: String(req.headers['content-type'] ?? 'application/octet-stream'),
    data: req.rawBody,
  });
  return { status: 201, body: assetShape(asset) };
});

/** The twin key, an installation token, or nothing (a public repository's downloads need no credentials). */
export const releaseRoutes: TwinRoute[] = [
  ...routes('GET', '/repos/{owner}/{repo}/releases', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return page(
      req,
      ctx,
      listReleases(ctx, repo).map((r) => releaseShape(ctx, repo, r)),
    );
  }),
  ...routes('POST', '/repos/{owner}/{repo}/releases', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const tag = requiredString(b, 'tag_name');
    return { status: 201, body: releaseShape(ctx, repo, createRelease(ctx, repo, { ...releaseInput(b), tag_name: tag })) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/releases/latest', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const r = latestRelease(ctx, repo);
    if (!r) throw notFound();
    return { body: releaseShape(ctx, repo, r) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/releases/tags/{tag}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const r = releaseByTag(ctx, repo, req.params.tag!);
    if (!r) throw notFound();
    return { body: releaseShape(ctx, repo, r) };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/releases/generate-notes', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    return {
      body: generateNotes(ctx, repo, {
        tag_name: requiredString(b, 'tag_name'),
        target_commitish: optString(b, 'target_commitish', false) ?? undefined,
        previous_tag_name: optString(b, 'previous_tag_name', false) ?? undefined,
      }),
    };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/releases/{release_id}', (req, ctx) => {
    const { repo, release } = releaseOf(req, ctx);
    return { body: releaseShape(ctx, repo, release) };
  }),
  ...routes('PATCH', '/repos/{owner}/{repo}/releases/{release_id}', (req, ctx) => {
    const { repo, release } = releaseOf(req, ctx);
    return { body: releaseShape(ctx, repo, updateRelease(ctx, repo, release, releaseInput(jsonBody(req)))) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/releases/{release_id}', (req, ctx) => {
    const { repo, release } = releaseOf(req, ctx);
    deleteRelease(ctx, repo, release);
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/releases/{release_id}/assets', (req, ctx) => {
    const { repo, release } = releaseOf(req, ctx);
    return page(req, ctx, listAssets(ctx, repo, release).map(assetShape));
  }),
  { method: 'POST', path: '/repos/{owner}/{repo}/releases/{release_id}/assets', handler: upload },
  ...routes('GET', '/repos/{owner}/{repo}/releases/assets/{asset_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const asset = requireAsset(ctx, repo, numberParam(req, 'asset_id'));
    // The file itself: a 302 to a short-lived download URL, as GitHub answers.
    if (wantsBytes(req)) return { status: 302, headers: { location: signedUrl(ctx, `/_twin-assets/${repo.full_name}/${asset.id}`) } };
    return { body: assetShape(asset) };
  }),
  ...routes('PATCH', '/repos/{owner}/{repo}/releases/assets/{asset_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const asset = requireAsset(ctx, repo, numberParam(req, 'asset_id'));
    return {
      body: assetShape(updateAsset(ctx, repo, asset, { name: optString(b, 'name', false) ?? undefined, label: optString(b, 'label', false) ?? undefined })),
    };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/releases/assets/{asset_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    deleteAsset(ctx, repo, requireAsset(ctx, repo, numberParam(req, 'asset_id')));
    return { status: 204 };
  }),
  // Source archives: a 302 to a short-lived URL of the archive (GitHub's codeload host).
  ...(['tarball', 'zipball'] as const).flatMap((format) =>
    routes('GET', `/repos/{owner}/{repo}/${format}/{ref}`, (req, ctx) => {
      const repo = repoOf(req, ctx);
      const sha = resolveCommitish(ctx, repo, req.params.ref!);
      if (!sha || !getCommit(ctx, repo, sha)) throw notFound();
      return { status: 302, headers: { location: signedUrl(ctx, `/_twin-archives/${repo.full_name}/${format}/${sha}`) } };
    }),
  ),
];

/**
 * Routes outside the API prefix: the uploads host (`/api/uploads/…`, where `upload_url` points),
 * `browser_download_url` (`/{owner}/{repo}/releases/download/{tag}/{name}`), and the signed
 * downloads the API redirects to.
 */
export const releaseDownloadRoutes: TwinRoute[] = [
  { method: 'POST', path: '/api/uploads/repos/{owner}/{repo}/releases/{release_id}/assets', handler: upload },
  {
    method: 'GET',
    path: '/{owner}/{repo}/releases/download/{tag}/{name}',
    public: true,
    handler: (req, ctx) => {
      const repo = findRepository(ctx, req.params.owner!, req.params.repo!);
      if (!repo || !mayReadRepository(req, ctx, repo)) return plainText(404, 'Not Found');
      const asset = assetByDownloadPath(ctx, repo, req.params.tag!, req.params.name!);
      if (!asset) return plainText(404, 'Not Found');
      return fileAnswer(downloadAsset(ctx, repo, asset), asset.name, asset.content_type);
    },
  },
  {
    method: 'GET',
    path: '/_twin-assets/{owner}/{repo}/{asset_id}',
    public: true,
    unmetered: true,
    handler: (req, ctx) => {
      checkSignature(req, ctx);
      const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
      const asset = requireAsset(ctx, repo, numberParam(req, 'asset_id'));
      return fileAnswer(downloadAsset(ctx, repo, asset), asset.name, asset.content_type);
    },
  },
  {
    method: 'GET',
    path: '/_twin-archives/{owner}/{repo}/{format}/{sha}',
    public: true,
    unmetered: true,
    handler: async (req, ctx) => {
      checkSignature(req, ctx);
      const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
      const format = req.params.format as ArchiveFormat;
      if (format !== 'tarball' && format !== 'zipball') throw notFound();
      const { name, body } = await archiveOf(ctx, repo, req.params.sha!, format);
      return {
        status: 200,
        headers: { 'content-type': format === 'tarball' ? 'application/x-gzip' : 'application/zip', 'content-disposition': `attachment; filename=${name}` },
        body,
      };
    },
  },
];
