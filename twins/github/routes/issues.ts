// Issues, issue comments, an issue's labels and assignees, locks and issue search.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, validationFailed } from '../wire/errors.js';
import type { Json } from '../model/accounts.js';
import {
  createComment,
  createIssue,
  deleteComment,
  filterIssues,
  listComments,
  presentIssue,
  repoIssues,
  requireComment,
  requireIssue,
  requireIssuesEnabled,
  setLock,
  updateComment,
  updateIssue,
  viewerIssues,
  type IssuePatch,
} from '../model/issues.js';
import { syncPullFromIssue } from '../model/pulls.js';
import { repositoriesOfViewer } from '../model/repositories.js';
import { requireOrg, viewer } from '../model/accounts.js';
import { jsonBody, numberParam, optEnum, optString, optStringArray, page, queryString, repoOf, requiredString, routes } from '../wire/http.js';

function issueOf(req: TwinRequest, ctx: TwinContext): { repo: Json; issue: Json } {
  const repo = repoOf(req, ctx);
  return { repo, issue: requireIssue(ctx, repo, numberParam(req, 'issue_number')) };
}

function milestoneValue(b: Json): number | string | null | undefined {
  const v = b.milestone;
  if (v === undefined || v === null) return v;
  if (typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v))) return v;
  throw new GitHubError(422, `Invalid request.\n\nFor 'properties/milestone', ${JSON.stringify(v)} is not a integer or null.`);
}

/** Apply a change to an issue (or the issue half of a pull request) and answer it. */
function change(ctx: TwinContext, repo: Json, issue: Json, patch: IssuePatch): Json {
  const { issue: updated, events } = updateIssue(ctx, repo, issue, patch);
  syncPullFromIssue(ctx, repo, updated, events);
  return presentIssue(ctx, repo, updated);
}

const present = (ctx: TwinContext, repo: Json) => (i: Json) => presentIssue(ctx, repo, i);

export const issueRoutes: TwinRoute[] = [
  ...routes('GET', '/repos/{owner}/{repo}/issues/comments', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireIssuesEnabled(repo);
    const since = sinceParam(req, 'IssueComment');
    let list = listComments(ctx, repo);
    if (since) list = list.filter((c) => Date.parse(c.updated_at) >= Date.parse(since));
    const sort = queryString(req, 'sort') === 'updated' ? 'updated_at' : 'created_at';
    const dir = queryString(req, 'direction') === 'desc' ? -1 : 1;
    list = [...list].sort((a, b) => (a[sort] < b[sort] ? -dir : a[sort] > b[sort] ? dir : (a.id - b.id) * dir));
    return page(req, ctx, list);
  }),
  ...routes('GET', '/repos/{owner}/{repo}/issues/comments/{comment_id}', (req, ctx) => ({
    body: requireComment(ctx, repoOf(req, ctx), numberParam(req, 'comment_id')),
  })),
  ...routes('PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { body: updateComment(ctx, repo, numberParam(req, 'comment_id'), requiredString(jsonBody(req), 'body')) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/issues/comments/{comment_id}', (req, ctx) => {
    deleteComment(ctx, repoOf(req, ctx), numberParam(req, 'comment_id'));
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/issues', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireIssuesEnabled(repo);
    const list = filterIssues(repoIssues(ctx, repo), {
      state: queryString(req, 'state'),
      labels: queryString(req, 'labels'),
      assignee: queryString(req, 'assignee'),
      creator: queryString(req, 'creator'),
      mentioned: queryString(req, 'mentioned'),
      milestone: queryString(req, 'milestone'),
      since: sinceParam(req, 'Issue'),
      sort: queryString(req, 'sort'),
      direction: queryString(req, 'direction'),
    });
    return page(req, ctx, list.map(present(ctx, repo)));
  }),
  // The viewer's issues and pull requests across repositories, each with its repository.
  // `/issues` spans every repository the viewer reaches (organizations' too); `/user/issues` those
  // it owns or collaborates on; `/orgs/{org}/issues` one organization's.
  ...routes('GET', '/issues', (req, ctx) => viewerIssuePage(req, ctx, repositoriesOfViewer(ctx))),
  ...routes('GET', '/user/issues', (req, ctx) => {
    const me = viewer(ctx).login;
    return viewerIssuePage(
      req,
      ctx,
      repositoriesOfViewer(ctx).filter((r) => r.owner.type !== 'Organization' || r.owner.login === me),
    );
  }),
  ...routes('GET', '/orgs/{org}/issues', (req, ctx) => {
    const org = requireOrg(ctx, req.params.org!);
    return viewerIssuePage(
      req,
      ctx,
      repositoriesOfViewer(ctx).filter((r) => r.owner.login === org.login),
    );
  }),
  ...routes('POST', '/repos/{owner}/{repo}/issues', (req, ctx) => {
    const repo = repoOf(req, ctx);
    requireIssuesEnabled(repo);
    const b = jsonBody(req);
    const title = b.title;
    if (title === undefined || title === null) throw new GitHubError(422, 'Invalid request.\n\n"title" wasn\'t supplied.');
    if (typeof title !== 'string' && typeof title !== 'number')
      throw new GitHubError(422, `Invalid request.\n\nFor 'properties/title', ${JSON.stringify(title)} is not a string or integer.`);
    if (String(title).trim() === '') throw validationFailed({ resource: 'Issue', field: 'title', code: 'missing_field' });
    const issue = createIssue(ctx, repo, {
      title: String(title),
      body: optString(b, 'body'),
      assignee: optString(b, 'assignee'),
      assignees: optStringArray(b, 'assignees'),
      labels: optStringArray(b, 'labels'),
      milestone: milestoneValue(b),
    });
    return { status: 201, body: presentIssue(ctx, repo, issue) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/issues/{issue_number}', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    return { body: presentIssue(ctx, repo, issue) };
  }),
  ...routes('PATCH', '/repos/{owner}/{repo}/issues/{issue_number}', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    const b = jsonBody(req);
    const title = b.title;
    if (title !== undefined && title !== null && typeof title !== 'string' && typeof title !== 'number') {
      throw new GitHubError(422, `Invalid request.\n\nFor 'properties/title', ${JSON.stringify(title)} is not a string or integer or null.`);
    }
    const patch: IssuePatch = {
      title: title === undefined || title === null ? undefined : String(title),
      body: optString(b, 'body'),
      state: optEnum(b, 'state', ['open', 'closed'] as const),
      state_reason: b.state_reason === null ? null : optEnum(b, 'state_reason', ['completed', 'not_planned', 'reopened', 'duplicate'] as const),
      assignee: optString(b, 'assignee'),
      assignees: optStringArray(b, 'assignees'),
      labels: optStringArray(b, 'labels'),
      milestone: milestoneValue(b),
    };
    return { body: change(ctx, repo, issue, patch) };
  }),
  ...routes('PUT', '/repos/{owner}/{repo}/issues/{issue_number}/lock', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    const b = jsonBody(req);
    setLock(ctx, repo, issue, true, optString(b, 'lock_reason'));
    return { status: 204 };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/issues/{issue_number}/lock', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    if (!issue.locked) throw new GitHubError(404, 'Not Found');
    setLock(ctx, repo, issue, false);
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/issues/{issue_number}/comments', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    const since = sinceParam(req, 'IssueComment');
    let list = listComments(ctx, repo, issue);
    if (since) list = list.filter((c) => Date.parse(c.updated_at) >= Date.parse(since));
    return page(req, ctx, list);
  }),
  ...routes('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    const body = requiredString(jsonBody(req), 'body');
    if (!body.trim()) throw validationFailed({ resource: 'IssueComment', field: 'body', code: 'missing_field' });
    const comment = createComment(ctx, repo, issue, body);
    syncPullFromIssue(ctx, repo, issue, []);
    return { status: 201, body: comment };
  }),
  // Labels on an issue.
  ...routes('GET', '/repos/{owner}/{repo}/issues/{issue_number}/labels', (req, ctx) => page(req, ctx, issueOf(req, ctx).issue.labels)),
  ...routes('POST', '/repos/{owner}/{repo}/issues/{issue_number}/labels', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    const names = labelNames(req);
    const merged = [...issue.labels.map((l: Json) => l.name), ...names];
    return { body: change(ctx, repo, issue, { labels: merged }).labels };
  }),
  ...routes('PUT', '/repos/{owner}/{repo}/issues/{issue_number}/labels', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    return { body: change(ctx, repo, issue, { labels: labelNames(req) }).labels };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/issues/{issue_number}/labels', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    change(ctx, repo, issue, { labels: [] });
    return { status: 204 };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    const name = req.params.name!.toLowerCase();
    if (!issue.labels.some((l: Json) => l.name.toLowerCase() === name)) throw new GitHubError(404, 'Label does not exist');
    const rest = issue.labels.filter((l: Json) => l.name.toLowerCase() !== name).map((l: Json) => l.name);
    return { body: change(ctx, repo, issue, { labels: rest }).labels };
  }),
  // Assignees on an issue.
  ...routes('POST', '/repos/{owner}/{repo}/issues/{issue_number}/assignees', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    const add = optStringArray(jsonBody(req), 'assignees') ?? [];
    return { status: 201, body: change(ctx, repo, issue, { assignees: [...issue.assignees.map((a: Json) => a.login), ...add] }) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/issues/{issue_number}/assignees', (req, ctx) => {
    const { repo, issue } = issueOf(req, ctx);
    const remove = new Set((optStringArray(jsonBody(req), 'assignees') ?? []).map((s) => s.toLowerCase()));
    return { body: change(ctx, repo, issue, { assignees: issue.assignees.map((a: Json) => a.login).filter((l: string) => !remove.has(l.toLowerCase())) }) };
  }),
];

function viewerIssuePage(req: TwinRequest, ctx: TwinContext, repos: Json[]) {
  const filter =
    optEnum({ filter: queryString(req, 'filter') }, 'filter', ['assigned', 'created', 'mentioned', 'subscribed', 'repos', 'all'] as const) ?? 'assigned';
  const found = viewerIssues(ctx, repos, filter, {
    state: queryString(req, 'state'),
    labels: queryString(req, 'labels'),
    since: sinceParam(req, 'Issue'),
    sort: queryString(req, 'sort'),
    direction: queryString(req, 'direction'),
  });
  return page(
    req,
    ctx,
    found.map(({ repo, issue }) => ({ ...presentIssue(ctx, repo, issue), repository: repo })),
  );
}

/** `since`: an ISO 8601 timestamp; anything else is a 422 as on GitHub. */
function sinceParam(req: TwinRequest, resource: string): string | undefined {
  const v = queryString(req, 'since');
  if (v !== undefined && Number.isNaN(Date.parse(v))) throw validationFailed({ resource, field: 'since', code: 'invalid', value: v });
  return v;
}

function labelNames(req: TwinRequest): string[] {
  const b = req.rawBody.length ? (req.bodyKind === 'json' ? req.body : jsonBody(req)) : {};
  // The endpoint takes `{labels: [...]}`, a bare array, or `[{name}]`.
  if (Array.isArray(b)) return optStringArray({ labels: b }, 'labels') ?? [];
  if (Array.isArray((b as Json).value)) return optStringArray({ labels: (b as Json).value }, 'labels') ?? [];
  const names = optStringArray(b as Json, 'labels');
  if (names === undefined) throw new GitHubError(422, 'Invalid request.\n\n"labels" wasn\'t supplied.');
  return names;
}
