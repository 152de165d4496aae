// Pull requests: create, get, list, update, commits, files, merge, reviews, review comments.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, notFound, validationFailed } from '../wire/errors.js';
import type { Json } from '../model/accounts.js';
import { restCommit } from '../model/git.js';
import {
  createPull,
  createReview,
  createReviewComment,
  deletePendingReview,
  deleteReviewComment,
  listPulls,
  listReviewComments,
  listReviews,
  mergePull,
  pullCommits,
  presentPull,
  pullFiles,
  removeRequestedReviewers,
  requestReviewers,
  requirePull,
  requireReview,
  requireReviewComment,
  simplePull,
  submitReview,
  updatePull,
  updateReviewComment,
  type ReviewCommentInput,
} from '../model/pulls.js';
import { afterPush } from '../model/pushes.js';
import { updatePullBranch } from '../model/merges.js';
import { jsonBody, numberParam, optBool, optEnum, optString, optStringArray, page, queryString, repoOf, requiredString, routes } from '../wire/http.js';

function pullOf(req: TwinRequest, ctx: TwinContext): { repo: Json; pr: Json } {
  const repo = repoOf(req, ctx);
  return { repo, pr: requirePull(ctx, repo, numberParam(req, 'pull_number')) };
}

function optInt(b: Json, field: string): number | undefined {
  const v = b[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new GitHubError(422, `Invalid request.\n\nFor 'properties/${field}', ${JSON.stringify(v)} is not an integer.`);
  return v;
}

function reviewCommentInput(b: Json): ReviewCommentInput {
  return {
    path: typeof b.path === 'string' ? b.path : '',
    body: requiredString(b, 'body'),
    line: optInt(b, 'line'),
    position: optInt(b, 'position'),
    side: optEnum(b, 'side', ['LEFT', 'RIGHT'] as const),
    start_line: optInt(b, 'start_line'),
    start_side: optEnum(b, 'start_side', ['LEFT', 'RIGHT'] as const),
    in_reply_to: optInt(b, 'in_reply_to'),
    commit_id: optString(b, 'commit_id', false) ?? undefined,
  };
}

export const pullRoutes: TwinRoute[] = [
  ...routes('GET', '/repos/{owner}/{repo}/pulls/comments', (req, ctx) => page(req, ctx, listReviewComments(ctx, repoOf(req, ctx)))),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/comments/{comment_id}', (req, ctx) => ({
    body: requireReviewComment(ctx, repoOf(req, ctx), numberParam(req, 'comment_id')),
  })),
  ...routes('PATCH', '/repos/{owner}/{repo}/pulls/comments/{comment_id}', (req, ctx) => ({
    body: updateReviewComment(ctx, repoOf(req, ctx), numberParam(req, 'comment_id'), requiredString(jsonBody(req), 'body')),
  })),
  ...routes('DELETE', '/repos/{owner}/{repo}/pulls/comments/{comment_id}', (req, ctx) => {
    deleteReviewComment(ctx, repoOf(req, ctx), numberParam(req, 'comment_id'));
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const state = queryString(req, 'state') ?? 'open';
    const head = queryString(req, 'head');
    const base = queryString(req, 'base');
    const sort = queryString(req, 'sort') ?? 'created';
    const direction = queryString(req, 'direction') ?? (sort === 'created' ? 'desc' : 'asc');
    let list = listPulls(ctx, repo).filter(
      (p) =>
        (state === 'all' || p.state === state) &&
        (!head || p.head.label.toLowerCase() === head.toLowerCase() || p.head.ref === head) &&
        (!base || p.base.ref === base),
    );
    const key = (p: Json): string => (sort === 'updated' ? p.updated_at : p.created_at);
    const sign = direction === 'asc' ? 1 : -1;
    list = [...list].sort((a, b) => (key(a) < key(b) ? -sign : key(a) > key(b) ? sign : (a.number - b.number) * sign));
    return page(req, ctx, list.map(simplePull));
  }),
  ...routes('POST', '/repos/{owner}/{repo}/pulls', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    if (b.issue !== undefined) throw new GitHubError(422, 'Converting an issue into a pull request is not supported by this twin.');
    const head = requiredString(b, 'head');
    const base = requiredString(b, 'base');
    const title = optString(b, 'title');
    if (!title) throw validationFailed({ resource: 'PullRequest', field: 'title', code: 'missing_field' });
    const pr = createPull(ctx, repo, {
      title,
      head,
      base,
      body: optString(b, 'body'),
      draft: optBool(b, 'draft'),
      maintainer_can_modify: optBool(b, 'maintainer_can_modify'),
    });
    return { status: 201, body: pr };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    return { body: presentPull(ctx, repo, pr) };
  }),
  ...routes('PATCH', '/repos/{owner}/{repo}/pulls/{pull_number}', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const b = jsonBody(req);
    return {
      body: updatePull(ctx, repo, pr, {
        title: optString(b, 'title', false) ?? undefined,
        body: optString(b, 'body'),
        state: optEnum(b, 'state', ['open', 'closed'] as const),
        base: optString(b, 'base', false) ?? undefined,
        maintainer_can_modify: optBool(b, 'maintainer_can_modify'),
      }),
    };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/commits', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    return page(
      req,
      ctx,
      pullCommits(ctx, repo, pr).map((c) => restCommit(ctx, repo, c)),
    );
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/files', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    return page(req, ctx, pullFiles(ctx, repo, pr));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/merge', (req, ctx) => {
    const { pr } = pullOf(req, ctx);
    if (!pr.merged) throw notFound();
    return { status: 204 };
  }),
  ...routes('PUT', '/repos/{owner}/{repo}/pulls/{pull_number}/merge', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const b = jsonBody(req);
    const { result, push } = mergePull(ctx, repo, pr, {
      merge_method: optEnum(b, 'merge_method', ['merge', 'squash', 'rebase'] as const),
      commit_title: optString(b, 'commit_title', false) ?? undefined,
      commit_message: optString(b, 'commit_message', false) ?? undefined,
      sha: optString(b, 'sha', false) ?? undefined,
    });
    afterPush(ctx, repo, push);
    return { body: result };
  }),
  ...routes('PUT', '/repos/{owner}/{repo}/pulls/{pull_number}/update-branch', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const b = req.rawBody.length ? jsonBody(req) : {};
    updatePullBranch(ctx, repo, pr, optString(b, 'expected_head_sha', false) ?? undefined);
    return { status: 202, body: { message: 'Updating pull request branch.', url: pr.html_url } };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers', (req, ctx) => {
    const { pr } = pullOf(req, ctx);
    return { body: { users: pr.requested_reviewers, teams: pr.requested_teams ?? [] } };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const b = jsonBody(req);
    const users = optStringArray(b, 'reviewers') ?? [];
    const teams = optStringArray(b, 'team_reviewers') ?? [];
    return { status: 201, body: simplePull(requestReviewers(ctx, repo, pr, users, teams)) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const b = jsonBody(req);
    const users = optStringArray(b, 'reviewers');
    if (users === undefined) throw new GitHubError(422, 'Invalid request.\n\n"reviewers" wasn\'t supplied.');
    return { body: simplePull(removeRequestedReviewers(ctx, repo, pr, users, optStringArray(b, 'team_reviewers') ?? [])) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    return page(req, ctx, listReviews(ctx, repo, pr));
  }),
  ...routes('POST', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const b = jsonBody(req);
    const comments = Array.isArray(b.comments) ? (b.comments as Json[]).map(reviewCommentInput) : undefined;
    const review = createReview(ctx, repo, pr, {
      event: optString(b, 'event', false) ?? undefined,
      body: optString(b, 'body'),
      commit_id: optString(b, 'commit_id', false) ?? undefined,
      comments,
    });
    return { body: review };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    return { body: requireReview(ctx, repo, pr, numberParam(req, 'review_id')) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    return { body: deletePendingReview(ctx, repo, pr, numberParam(req, 'review_id')) };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/events', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const b = jsonBody(req);
    return { body: submitReview(ctx, repo, pr, numberParam(req, 'review_id'), { event: requiredString(b, 'event'), body: optString(b, 'body') }) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const review = requireReview(ctx, repo, pr, numberParam(req, 'review_id'));
    return page(
      req,
      ctx,
      listReviewComments(ctx, repo, pr).filter((c) => c.pull_request_review_id === review.id),
    );
  }),
  ...routes('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/comments', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    return page(req, ctx, listReviewComments(ctx, repo, pr));
  }),
  ...routes('POST', '/repos/{owner}/{repo}/pulls/{pull_number}/comments', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const input = reviewCommentInput(jsonBody(req));
    if (!input.path && input.in_reply_to === undefined) throw new GitHubError(422, 'Invalid request.\n\n"path" wasn\'t supplied.');
    return { status: 201, body: createReviewComment(ctx, repo, pr, input) };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies', (req, ctx) => {
    const { repo, pr } = pullOf(req, ctx);
    const body = requiredString(jsonBody(req), 'body');
    return { status: 201, body: createReviewComment(ctx, repo, pr, { path: '', body, in_reply_to: numberParam(req, 'comment_id') }) };
  }),
];
