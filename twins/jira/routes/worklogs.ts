// Worklogs: `GET|POST /issue/{key}/worklog` (offset pages, oldest first), `GET|PUT|DELETE
// /issue/{key}/worklog/{id}`, and `POST /worklog/list` (worklogs by id, at most 1000).

import type { TwinContext, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { requireIssue } from '../model/issues.js';
import type { User, Worklog } from '../model/records.js';
import { userView } from '../model/views.js';
import { addWorklog, deleteWorklog, durationText, issueWorklogs, requireWorklog, updateWorklog } from '../model/worklogs.js';
import { JiraError } from '../wire/errors.js';
import { intParam, offsetPage } from '../wire/params.js';

const P = '/rest/api/3/issue/{issueIdOrKey}/worklog';
const json = (status: number, body: unknown): TwinResponse => ({ status, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });

export function worklogView(ctx: TwinContext, w: Worklog): Record<string, unknown> {
  const person = (id: string) => {
    const u = ctx.store.get<User>('user', id);
    return u ? userView(ctx, u) : null;
  };
  return {
    self: `${ctx.baseUrl}/rest/api/3/issue/${w.issueId}/worklog/${w.id}`,
    author: person(w.authorId),
    updateAuthor: person(w.updateAuthorId),
    ...(w.comment ? { comment: w.comment } : {}),
    created: w.created,
    updated: w.updated,
    started: w.started,
    timeSpent: durationText(w.timeSpentSeconds),
    timeSpentSeconds: w.timeSpentSeconds,
    id: w.id,
    issueId: w.issueId,
  };
}

export const worklogRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: P,
    handler(req, ctx) {
      const issue = requireIssue(ctx, req.params.issueIdOrKey!);
      const page = offsetPage(issueWorklogs(ctx, issue.id), intParam(req, 'startAt', 0), intParam(req, 'maxResults', 5000, 5000) || 5000);
      return json(200, { startAt: page.startAt, maxResults: page.maxResults, total: page.total, worklogs: page.values.map((w) => worklogView(ctx, w)) });
    },
  },
  { method: 'POST', path: P, handler: (req, ctx) => json(201, worklogView(ctx, addWorklog(ctx, req.params.issueIdOrKey!, req.body))) },
  { method: 'GET', path: `${P}/{id}`, handler: (req, ctx) => json(200, worklogView(ctx, requireWorklog(ctx, req.params.issueIdOrKey!, req.params.id!))) },
  {
    method: 'PUT',
    path: `${P}/{id}`,
    handler: (req, ctx) => json(200, worklogView(ctx, updateWorklog(ctx, req.params.issueIdOrKey!, req.params.id!, req.body))),
  },
  {
    method: 'DELETE',
    path: `${P}/{id}`,
    handler(req, ctx) {
      deleteWorklog(ctx, req.params.issueIdOrKey!, req.params.id!);
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/rest/api/3/worklog/list',
    handler(req, ctx) {
      const ids = req.body.ids;
      if (!Array.isArray(ids) || ids.length > 1000 || !ids.every((x) => typeof x === 'number' && Number.isInteger(x)))
        throw new JiraError(400, [], { ids: 'Provide at most 1000 worklog ids (integers).' });
      const found = (ids as number[]).map((id) => ctx.store.get<Worklog>('worklog', String(id))).filter((w): w is Worklog => !!w);
      return json(
        200,
        found.map((w) => worklogView(ctx, w)),
      );
    },
  },
];
