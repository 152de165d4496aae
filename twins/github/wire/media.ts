// `Accept` media types (`application/vnd.github[.v3].diff|patch|raw|sha`): a pull request, a commit
// or a comparison as a unified diff or as mail-formatted patches, a file's raw bytes, a commit's
// SHA. `gh pr diff` and agents applying patches read these. The JSON answers stay with the routes;
// this wraps the few routes that have other representations.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import type { Json } from '../model/accounts.js';
import { type FileMap, commitFiles, lineDiff, readBlob, readmeOf, resolveCommitish, getCommit, mergeBase, commitsBetween } from '../model/git.js';
import { requirePull, pullCommits } from '../model/pulls.js';
import { requireRepository } from '../model/repositories.js';
import { GitHubError } from './errors.js';

type Media = 'diff' | 'patch' | 'raw' | 'sha';

/** The non-JSON representation the `Accept` header asks for, if any. */
export function requestedMedia(req: TwinRequest): Media | undefined {
  const accept = String(req.headers.accept ?? '');
  const m = /application\/vnd\.github(?:\.v3)?\.(diff|patch|raw|sha)\b|application\/vnd\.github\.(raw)(?:\+json)?\b/.exec(accept);
  return (m?.[1] ?? m?.[2]) as Media | undefined;
}

const ZERO7 = '0000000';

/** `git diff` text between two trees. */
export function unifiedDiff(ctx: TwinContext, repo: Json, before: FileMap, after: FileMap): string {
  const out: string[] = [];
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const a = before.get(path);
    const b = after.get(path);
    if (a === b) continue;
    const d = lineDiff(a ? readBlob(ctx, repo, a) : Buffer.alloc(0), b ? readBlob(ctx, repo, b) : Buffer.alloc(0));
    out.push(`diff --git a/${path} b/${path}`);
    if (!a) out.push('new file mode 100644', `index ${ZERO7}..${b!.slice(0, 7)}`, '--- /dev/null', `+++ b/${path}`);
    else if (!b) out.push('deleted file mode 100644', `index ${a.slice(0, 7)}..${ZERO7}`, `--- a/${path}`, '+++ /dev/null');
    else out.push(`index ${a.slice(0, 7)}..${b.slice(0, 7)} 100644`, `--- a/${path}`, `+++ b/${path}`);
    out.push(d.patch);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

function rfc2822(iso: string): string {
  return new Date(iso).toUTCString().replace('GMT', '+0000');
}

/** `git format-patch` text of commits, oldest first. */
function formatPatch(ctx: TwinContext, repo: Json, commits: Json[]): string {
  return commits
    .map((c, i) => {
      const [subject, ...body] = String(c.message).split('\n');
      const n = commits.length > 1 ? `[PATCH ${i + 1}/${commits.length}]` : '[PATCH]';
      const diff = unifiedDiff(ctx, repo, commitFiles(ctx, repo, c.parents[0]?.sha), commitFiles(ctx, repo, c.sha));
      const text = body.join('\n').replace(/^\n+/, '');
      return [
        `From ${c.sha} Mon Sep 17 00:00:00 2001`,
        `From: ${c.author.name} <${c.author.email}>`,
        `Date: ${rfc2822(c.author.date)}`,
        `Subject: ${n} ${subject}`,
        '',
        ...(text ? [text, ''] : []),
        '---',
        diff,
      ].join('\n');
    })
    .join('\n');
}

function text(media: Media, body: string | Buffer): TwinResponse {
  return {
    status: 200,
    headers: { 'content-type': `application/vnd.github.${media}; charset=utf-8`, 'x-github-media-type': `github.v3; param=${media}; format=${media}` },
    body,
  };
}

type Render = (req: TwinRequest, ctx: TwinContext, media: Media) => TwinResponse | undefined;

const pull: Render = (req, ctx, media) => {
  if (media !== 'diff' && media !== 'patch') return undefined;
  const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
  const pr = requirePull(ctx, repo, Number(req.params.pull_number));
  if (media === 'patch') return text(media, formatPatch(ctx, repo, pullCommits(ctx, repo, pr)));
  const mb = mergeBase(ctx, repo, pr.base.sha, pr.head.sha);
  return text(media, unifiedDiff(ctx, repo, commitFiles(ctx, repo, mb), commitFiles(ctx, repo, pr.head.sha)));
};

const commit: Render = (req, ctx, media) => {
  const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
  const sha = resolveCommitish(ctx, repo, req.params.ref);
  const c = sha && getCommit(ctx, repo, sha);
  if (!c) throw new GitHubError(422, `No commit found for SHA: ${req.params.ref}`);
  if (media === 'sha') return text(media, c.sha);
  if (media === 'patch') return text(media, formatPatch(ctx, repo, [c]));
  if (media === 'diff') return text(media, unifiedDiff(ctx, repo, commitFiles(ctx, repo, c.parents[0]?.sha), commitFiles(ctx, repo, c.sha)));
  return undefined;
};

const compare: Render = (req, ctx, media) => {
  if (media !== 'diff' && media !== 'patch') return undefined;
  const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
  const [base, head] = req.params.basehead !== undefined ? req.params.basehead.split('...') : [req.params.base, req.params.head];
  const b = resolveCommitish(ctx, repo, base);
  const h = resolveCommitish(ctx, repo, head);
  if (!b || !h) return undefined;
  const mb = mergeBase(ctx, repo, b, h) ?? b;
  if (media === 'patch') return text(media, formatPatch(ctx, repo, commitsBetween(ctx, repo, mb, h)));
  return text(media, unifiedDiff(ctx, repo, commitFiles(ctx, repo, mb), commitFiles(ctx, repo, h)));
};

const contents: Render = (req, ctx, media) => {
  if (media !== 'raw') return undefined;
  const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
  const ref = typeof req.query.ref === 'string' ? req.query.ref : undefined;
  const sha = resolveCommitish(ctx, repo, ref);
  const blob = sha ? commitFiles(ctx, repo, sha).get(String(req.params.path)) : undefined;
  if (!blob) return undefined; // directories and misses: the JSON route answers
  return text(media, readBlob(ctx, repo, blob));
};

const readme: Render = (req, ctx, media) => {
  if (media !== 'raw') return undefined;
  const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
  const sha = resolveCommitish(ctx, repo, typeof req.query.ref === 'string' ? req.query.ref : undefined);
  const found = sha ? readmeOf(ctx, repo, sha, (req.params.dir ?? '').replace(/\/$/, '')) : undefined;
  return found ? text(media, readBlob(ctx, repo, found.blob.sha)) : undefined;
};

const RENDERS: Record<string, Render> = {
  'GET /repos/{owner}/{repo}/readme': readme,
  'GET /repos/{owner}/{repo}/readme/{+dir}': readme,
  'GET /repos/{owner}/{repo}/pulls/{pull_number}': pull,
  'GET /repos/{owner}/{repo}/commits/{ref}': commit,
  'GET /repos/{owner}/{repo}/compare/{+basehead}': compare,
  'GET /repos/{owner}/{repo}/compare/{base}...{head}': compare,
  'GET /repos/{owner}/{repo}/contents/{+path}': contents,
};

/** The routes, the few with other representations answering them when `Accept` asks. */
export function withMediaTypes(list: TwinRoute[]): TwinRoute[] {
  return list.map((route) => {
    const key = `${route.method} ${route.path}`;
    const render = Object.hasOwn(RENDERS, key) ? RENDERS[key] : undefined;
    if (!render) return route;
    return {
      ...route,
      handler: (req, ctx) => {
        const media = requestedMedia(req);
        return (media && render(req, ctx, media)) || route.handler(req, ctx);
      },
    };
  });
}
