// Issue routes of REST v3: create, get, edit, delete, transitions, assignee, comments, and JQL
// search (the enhanced `/search/jql` with `nextPageToken`, and the offset `/search`).

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { JiraError } from '../wire/errors.js';
import { boolParam, decodeToken, encodeToken, intParam, listParam, offsetPage, param } from '../wire/params.js';
import { addComment, deleteComment, findComment, issueComments, updateComment } from '../model/comments.js';
import { availableTransitions, createIssue, deleteIssue, editIssue, findIssue, requireIssue, searchIssues, transitionIssue } from '../model/issues.js';
import { issueChangelog } from '../model/changelog.js';
import { changelogView, commentView, issueView, statusView } from '../model/views.js';

const json = (status: number, body: unknown): TwinResponse => ({ status, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });
const noContent = (): TwinResponse => ({ status: 204 });

function fieldsOf(req: TwinRequest): Record<string, unknown> {
  const f = req.body.fields;
  return f && typeof f === 'object' && !Array.isArray(f) ? (f as Record<string, unknown>) : {};
}

function created(ctx: TwinContext, issue: { id: string; key: string }): TwinResponse {
  return json(201, { id: issue.id, key: issue.key, self: `${ctx.baseUrl}/rest/api/3/issue/${issue.id}` });
}

function search(req: TwinRequest, ctx: TwinContext, enhanced: boolean): TwinResponse {
  const jql = String(param(req, 'jql') ?? '');
  const hits = searchIssues(ctx, jql);
  const maxResults = intParam(req, 'maxResults', 50, enhanced ? 5000 : 100) || 50;
  const fields = listParam(req, 'fields') ?? (enhanced ? ['id'] : ['*navigable']);
  if (enhanced) {
    const token = param(req, 'nextPageToken');
    const start = typeof token === 'string' && token !== '' ? decodeToken(token) : 0;
    const page = offsetPage(hits, start, maxResults);
    return json(200, {
      issues: page.values.map((i) => issueView(ctx, i, fields)),
      ...(page.isLast ? {} : { nextPageToken: encodeToken(start + page.values.length) }),
      isLast: page.isLast,
    });
  }
  const page = offsetPage(hits, intParam(req, 'startAt', 0), maxResults);
  return json(200, {
    expand: 'schema,names',
    startAt: page.startAt,
    maxResults: page.maxResults,
    total: page.total,
    issues: page.values.map((i) => issueView(ctx, i, fields)),
  });
}

const P = '/rest/api/3';

export const issueRoutes: TwinRoute[] = [
  { method: 'POST', path: `${P}/issue`, handler: (req, ctx) => created(ctx, createIssue(ctx, fieldsOf(req))) },
  {
    method: 'POST',
    path: `${P}/issue/bulk`,
    handler: (req, ctx) => {
      const updates = Array.isArray(req.body.issueUpdates) ? (req.body.issueUpdates as Record<string, unknown>[]) : [];
      if (updates.length > 50) throw new JiraError(400, ['At most 50 issues can be created in one request.']);
      const issues = updates.map((u) => createIssue(ctx, (u.fields ?? {}) as Record<string, unknown>));
      return json(201, { issues: issues.map((i) => ({ id: i.id, key: i.key, self: `${ctx.baseUrl}${P}/issue/${i.id}` })), errors: [] });
    },
  },
  {
    method: 'GET',
    path: `${P}/issue/{issueIdOrKey}`,
    handler: (req, ctx) => {
      const issue = requireIssue(ctx, req.params.issueIdOrKey!);
      const view = issueView(ctx, issue, listParam(req, 'fields') ?? ['*all']);
      if ((listParam(req, 'expand') ?? []).includes('changelog')) {
        const history = issueChangelog(ctx, issue.id);
        view.changelog = { startAt: 0, maxResults: history.length, total: history.length, histories: history.map((c) => changelogView(ctx, c)) };
      }
      return json(200, view);
    },
  },
  {
    method: 'PUT',
    path: `${P}/issue/{issueIdOrKey}`,
    handler: (req, ctx) => {
      const update = req.body.update && typeof req.body.update === 'object' ? (req.body.update as Record<string, unknown>) : {};
      editIssue(ctx, req.params.issueIdOrKey!, fieldsOf(req), update);
      return noContent();
    },
  },
  {
    method: 'DELETE',
    path: `${P}/issue/{issueIdOrKey}`,
    handler: (req, ctx) => {
      deleteIssue(ctx, req.params.issueIdOrKey!, boolParam(req, 'deleteSubtasks'));
      return noContent();
    },
  },
  {
    method: 'GET',
    path: `${P}/issue/{issueIdOrKey}/transitions`,
    handler: (req, ctx) => {
      const issue = requireIssue(ctx, req.params.issueIdOrKey!);
      return json(200, {
        expand: 'transitions',
        transitions: availableTransitions(ctx, issue).map((s) => ({
          id: s.transitionId,
          name: s.transitionName,
          to: statusView(ctx, s),
          hasScreen: false,
          isGlobal: true,
          isInitial: false,
          isAvailable: true,
          isConditional: false,
          isLooped: false,
        })),
      });
    },
  },
  {
    method: 'POST',
    path: `${P}/issue/{issueIdOrKey}/transitions`,
    handler: (req, ctx) => {
      const t = req.body.transition as { id?: unknown } | undefined;
      if (!t || (typeof t.id !== 'string' && typeof t.id !== 'number')) throw new JiraError(400, ['Missing transition id.']);
      transitionIssue(ctx, req.params.issueIdOrKey!, String(t.id), fieldsOf(req));
      return noContent();
    },
  },
  {
    method: 'PUT',
    path: `${P}/issue/{issueIdOrKey}/assignee`,
    handler: (req, ctx) => {
      const accountId = req.body.accountId;
      editIssue(ctx, req.params.issueIdOrKey!, { assignee: accountId === null || accountId === undefined ? null : { accountId } });
      return noContent();
    },
  },
  {
    method: 'GET',
    path: `${P}/issue/{issueIdOrKey}/comment`,
    handler: (req, ctx) => {
      const all = issueComments(ctx, req.params.issueIdOrKey!);
      const page = offsetPage(all, intParam(req, 'startAt', 0), intParam(req, 'maxResults', 5000, 5000));
      return json(200, { comments: page.values.map((c) => commentView(ctx, c)), maxResults: page.maxResults, total: page.total, startAt: page.startAt });
    },
  },
  {
    method: 'POST',
    path: `${P}/issue/{issueIdOrKey}/comment`,
    handler: (req, ctx) => json(201, commentView(ctx, addComment(ctx, req.params.issueIdOrKey!, req.body.body))),
  },
  {
    method: 'GET',
    path: `${P}/issue/{issueIdOrKey}/comment/{id}`,
    handler: (req, ctx) => json(200, commentView(ctx, findComment(ctx, req.params.issueIdOrKey!, req.params.id!))),
  },
  {
    method: 'PUT',
    path: `${P}/issue/{issueIdOrKey}/comment/{id}`,
    handler: (req, ctx) => json(200, commentView(ctx, updateComment(ctx, req.params.issueIdOrKey!, req.params.id!, req.body.body))),
  },
  {
    method: 'DELETE',
    path: `${P}/issue/{issueIdOrKey}/comment/{id}`,
    handler: (req, ctx) => {
      deleteComment(ctx, req.params.issueIdOrKey!, req.params.id!);
      return noContent();
    },
  },
  // Newer than the pinned spec; jira.js calls them (countIssues, searchForIssuesIds, bulkFetchIssues).
  {
    method: 'POST',
    path: `${P}/search/approximate-count`,
    handler: (req, ctx) => json(200, { count: searchIssues(ctx, String(param(req, 'jql') ?? '')).length }),
  },
  {
    method: 'POST',
    path: `${P}/search/id`,
    handler(req, ctx) {
      const hits = searchIssues(ctx, String(param(req, 'jql') ?? ''));
      const token = param(req, 'nextPageToken');
      const start = typeof token === 'string' && token !== '' ? decodeToken(token) : 0;
      const page = offsetPage(hits, start, intParam(req, 'maxResults', 1000, 10000) || 1000);
      return json(200, {
        issueIds: page.values.map((i) => Number(i.id)),
        ...(page.isLast ? {} : { nextPageToken: encodeToken(start + page.values.length) }),
      });
    },
  },
  {
    method: 'POST',
    path: `${P}/issue/bulkfetch`,
    handler(req, ctx) {
      const wanted = req.body.issueIdsOrKeys;
      if (!Array.isArray(wanted) || wanted.length === 0 || wanted.length > 100 || !wanted.every((x) => typeof x === 'string'))
        throw new JiraError(400, [], { issueIdsOrKeys: 'Provide between 1 and 100 issue ids or keys.' });
      const fields = listParam(req, 'fields') ?? ['*navigable'];
      // Issues not found are left out, as Jira leaves out those the caller cannot see.
      const issues = (wanted as string[]).map((k) => findIssue(ctx, k)).filter((i): i is NonNullable<typeof i> => !!i);
      return json(200, { issues: issues.map((i) => issueView(ctx, i, fields)), issueErrors: [] });
    },
  },
  ...(['PUT /issue/archive', 'POST /issue/archive', 'PUT /issue/unarchive'] as const).map(
    (op): TwinRoute => ({
      method: op.split(' ')[0] as 'PUT' | 'POST',
      path: `${P}${op.split(' ')[1]}`,
      handler: () => {
        throw new NotSimulated(`${op.split(' ')[0]} ${P}${op.split(' ')[1]}`, 'Archiving issues is a Jira Premium feature the twin does not simulate.');
      },
      fidelity: 'unsupported',
    }),
  ),
  {
    method: 'GET',
    path: `${P}/issue/limit/report`,
    handler: () => {
      throw new NotSimulated(`GET ${P}/issue/limit/report`, 'The twin keeps no per-issue limits (comments, attachments, links) to report on.');
    },
    fidelity: 'unsupported',
  },
  { method: 'GET', path: `${P}/search/jql`, handler: (req, ctx) => search(req, ctx, true) },
  { method: 'POST', path: `${P}/search/jql`, handler: (req, ctx) => search(req, ctx, true) },
  { method: 'GET', path: `${P}/search`, handler: (req, ctx) => search(req, ctx, false) },
  { method: 'POST', path: `${P}/search`, handler: (req, ctx) => search(req, ctx, false) },
];
