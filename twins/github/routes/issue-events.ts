// Issue events (one issue's, a repository's, one by id) and an issue's timeline.

import type { TwinContext, TwinRoute } from '../../../twin-runtime/contract.js';
import { notFound } from '../wire/errors.js';
import type { Json } from '../model/accounts.js';
import { eventsOfIssue, eventsOfRepository, findIssueEvent, presentIssueEvent } from '../model/issue-events.js';
import { getIssue, presentIssue, requireIssue } from '../model/issues.js';
import { timelineOf } from '../model/timeline.js';
import { numberParam, page, repoOf, routes } from '../wire/http.js';

/** The `issue-event` shape of the repository-wide lists: the event with its issue. */
function withIssue(ctx: TwinContext, repo: Json, e: Json): Json {
  const issue = getIssue(ctx, repo, e.issue_number);
  return { ...presentIssueEvent(e), issue: issue ? presentIssue(ctx, repo, issue) : null };
}

export const issueEventRoutes: TwinRoute[] = [
  ...routes('GET', '/repos/{owner}/{repo}/issues/events', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return page(
      req,
      ctx,
      eventsOfRepository(ctx, repo).map((e) => withIssue(ctx, repo, e)),
    );
  }),
  ...routes('GET', '/repos/{owner}/{repo}/issues/events/{event_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const e = findIssueEvent(ctx, repo, numberParam(req, 'event_id'));
    if (!e) throw notFound();
    return { body: withIssue(ctx, repo, e) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/issues/{issue_number}/events', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const issue = requireIssue(ctx, repo, numberParam(req, 'issue_number'));
    return page(req, ctx, eventsOfIssue(ctx, repo, issue.number));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/issues/{issue_number}/timeline', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const issue = requireIssue(ctx, repo, numberParam(req, 'issue_number'));
    return page(req, ctx, timelineOf(ctx, repo, issue));
  }),
];
