// Site routes: `myself`, users (get, search, assignable), projects (search, get, create), issue
// types, statuses, priorities, and the admin webhooks of `/rest/webhooks/1.0/webhook`.

import type { TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { JiraError } from '../wire/errors.js';
import { intParam, listParam, offsetPage, param } from '../wire/params.js';
import { findProject, liveProjects } from '../model/issues.js';
import { trashedProjects } from '../model/projects.js';
import { PRIORITIES, type IssueType, type Status, type User, type Webhook } from '../model/records.js';
import { issueTypeView, projectView, statusView, userView } from '../model/views.js';
import { createWebhook, webhookView } from '../model/webhooks.js';
import { locale } from '../model/preferences.js';
import { createProjectRecord, PROJECT_KEY_FORM, projectKeyProblem, viewer } from '../model/workspace.js';

const json = (status: number, body: unknown): TwinResponse => ({ status, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });
const P = '/rest/api/3';

/** Users whose name or email matches `query` (or `username`), or the one `accountId` names. */
export function userSearch(req: TwinRequest, users: User[]): User[] {
  const q = String(param(req, 'query') ?? param(req, 'username') ?? '').toLowerCase();
  const accountId = param(req, 'accountId');
  return users.filter((u) =>
    typeof accountId === 'string'
      ? u.accountId === accountId
      : q === '' || u.displayName.toLowerCase().includes(q) || u.emailAddress.toLowerCase().startsWith(q),
  );
}

export const workspaceRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: `${P}/myself`,
    handler: (_req, ctx) =>
      json(200, { ...userView(ctx, viewer(ctx)), locale: locale(ctx), groups: { size: 1, items: [] }, applicationRoles: { size: 1, items: [] } }),
  },
  {
    method: 'GET',
    path: `${P}/user`,
    handler: (req, ctx) => {
      const u = ctx.store.get<User>('user', String(param(req, 'accountId') ?? ''));
      if (!u) throw new JiraError(404, [`Specified user does not exist or you do not have required permissions`]);
      return json(200, userView(ctx, u));
    },
  },
  {
    method: 'GET',
    path: `${P}/user/search`,
    handler: (req, ctx) =>
      json(
        200,
        userSearch(req, ctx.store.list<User>('user'))
          .slice(intParam(req, 'startAt', 0), intParam(req, 'startAt', 0) + intParam(req, 'maxResults', 50, 1000))
          .map((u) => userView(ctx, u)),
      ),
  },
  {
    method: 'GET',
    path: `${P}/user/assignable/search`,
    handler: (req, ctx) =>
      json(
        200,
        userSearch(req, ctx.store.list<User>('user')).map((u) => userView(ctx, u)),
      ),
  },
  {
    method: 'GET',
    path: `${P}/users/search`,
    handler: (_req, ctx) =>
      json(
        200,
        ctx.store.list<User>('user').map((u) => userView(ctx, u)),
      ),
  },
  {
    method: 'GET',
    path: `${P}/project/search`,
    handler: (req, ctx) => {
      const q = String(param(req, 'query') ?? '').toLowerCase();
      // `status=deleted` lists the recycle bin; the default (`live`) the others.
      const status = listParam(req, 'status') ?? ['live'];
      const pool = [...(status.includes('live') ? liveProjects(ctx) : []), ...(status.includes('deleted') ? trashedProjects(ctx) : [])];
      const all = pool.filter((p) => q === '' || p.key.toLowerCase().includes(q) || p.name.toLowerCase().includes(q));
      const page = offsetPage(all, intParam(req, 'startAt', 0), intParam(req, 'maxResults', 50, 100) || 50);
      return json(200, {
        self: `${ctx.baseUrl}${P}/project/search`,
        maxResults: page.maxResults,
        startAt: page.startAt,
        total: page.total,
        isLast: page.isLast,
        values: page.values.map((p) => projectView(ctx, p)),
      });
    },
  },
  {
    method: 'GET',
    path: `${P}/project`,
    handler: (_req, ctx) =>
      json(
        200,
        liveProjects(ctx).map((p) => projectView(ctx, p)),
      ),
  },
  {
    method: 'GET',
    path: `${P}/project/{projectIdOrKey}`,
    handler: (req, ctx) => {
      const p = findProject(ctx, req.params.projectIdOrKey!);
      if (!p) throw new JiraError(404, [`No project could be found with key '${req.params.projectIdOrKey}'.`]);
      return json(200, projectView(ctx, p));
    },
  },
  {
    method: 'POST',
    path: `${P}/project`,
    handler: (req, ctx) => {
      const key = String(req.body.key ?? '');
      const name = String(req.body.name ?? '');
      const problem = projectKeyProblem(ctx, key);
      if (problem?.kind === 'form') throw new JiraError(400, [], { projectKey: PROJECT_KEY_FORM });
      if (name.trim() === '') throw new JiraError(400, [], { projectName: 'You must specify a valid project name.' });
      if (problem?.kind === 'taken') throw new JiraError(400, [], { projectKey: `Project '${problem.project!.name}' uses this project key.` });
      const lead = typeof req.body.leadAccountId === 'string' && ctx.store.has('user', req.body.leadAccountId) ? req.body.leadAccountId : viewer(ctx).accountId;
      const p = createProjectRecord(ctx, { key, name, description: typeof req.body.description === 'string' ? req.body.description : '', leadAccountId: lead });
      return json(201, { self: `${ctx.baseUrl}${P}/project/${p.id}`, id: Number(p.id), key: p.key });
    },
  },
  {
    method: 'GET',
    path: `${P}/issuetype`,
    handler: (_req, ctx) =>
      json(
        200,
        ctx.store.list<IssueType>('issue_type').map((t) => issueTypeView(ctx, t)),
      ),
  },
  {
    method: 'GET',
    path: `${P}/issuetype/project`,
    handler: (req, ctx) => {
      const p = findProject(ctx, String(param(req, 'projectId') ?? ''));
      if (!p) throw new JiraError(404, ['No project could be found.']);
      return json(
        200,
        p.issueTypeIds.map((id) => ctx.store.get<IssueType>('issue_type', id)!).map((t) => issueTypeView(ctx, t)),
      );
    },
  },
  {
    method: 'GET',
    path: `${P}/status`,
    handler: (_req, ctx) =>
      json(
        200,
        ctx.store.list<Status>('status').map((s) => statusView(ctx, s)),
      ),
  },
  {
    method: 'GET',
    path: `${P}/priority`,
    handler: (_req, ctx) =>
      json(
        200,
        PRIORITIES.map((p) => ({ self: `${ctx.baseUrl}${P}/priority/${p.id}`, ...p })),
      ),
  },
  {
    method: 'GET',
    path: '/rest/webhooks/1.0/webhook',
    handler: (_req, ctx) =>
      json(
        200,
        ctx.store.list<Webhook>('webhook').map((h) => webhookView(ctx, h)),
      ),
  },
  { method: 'POST', path: '/rest/webhooks/1.0/webhook', handler: (req, ctx) => json(201, webhookView(ctx, createWebhook(ctx, req.body))) },
  {
    method: 'DELETE',
    path: '/rest/webhooks/1.0/webhook/{id}',
    handler: (req, ctx) => {
      if (!ctx.store.delete('webhook', req.params.id!)) throw new JiraError(404, ['Webhook not found.']);
      return { status: 204 };
    },
  },
];
