// User lookups beyond search: several users by account id (`/user/bulk`, paged), and the users who
// may be assigned in projects, see an issue, or hold permissions. The twin keeps no permissions:
// every user of the site may do everything, as `/user/assignable/search` already answers.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { findIssue } from '../model/issues.js';
import type { User } from '../model/records.js';
import { userView } from '../model/views.js';
import { JiraError, issueNotFound } from '../wire/errors.js';
import { intParam, listParam, offsetPage, param } from '../wire/params.js';
import { requireCreateProject } from '../model/createmeta.js';
import { userSearch } from './workspace.js';

const P = '/rest/api/3/user';
const json = (body: unknown): TwinResponse => ({ status: 200, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });

/** Every value of a repeated query parameter (`accountId=a&accountId=b`, or `accountId[]=…`). */
function repeated(req: TwinRequest, name: string): string[] {
  const q = new URLSearchParams(req.queryString);
  return [...q.getAll(name), ...q.getAll(`${name}[]`)].flatMap((v) => v.split(',')).filter(Boolean);
}

function window(req: TwinRequest, users: User[], ctx: TwinContext): TwinResponse {
  const start = intParam(req, 'startAt', 0);
  return json(users.slice(start, start + (intParam(req, 'maxResults', 50, 1000) || 50)).map((u) => userView(ctx, u)));
}

export const userRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: `${P}/bulk`,
    handler(req, ctx) {
      const ids = repeated(req, 'accountId');
      if (ids.length === 0) throw new JiraError(400, ['You must specify at least one accountId.']);
      const found = ids.map((id) => ctx.store.get<User>('user', id)).filter((u): u is User => !!u);
      const page = offsetPage(found, intParam(req, 'startAt', 0), intParam(req, 'maxResults', 10, 200) || 10);
      return json({
        self: `${ctx.baseUrl}${P}/bulk?${req.queryString}`,
        maxResults: page.maxResults,
        startAt: page.startAt,
        total: page.total,
        isLast: page.isLast,
        values: page.values.map((u) => userView(ctx, u)),
      });
    },
  },
  {
    method: 'GET',
    path: `${P}/assignable/multiProjectSearch`,
    handler(req, ctx) {
      const keys = listParam(req, 'projectKeys');
      if (!keys?.length) throw new JiraError(400, ['The projectKeys parameter is required.']);
      for (const k of keys) requireCreateProject(ctx, k);
      return window(req, userSearch(req, ctx.store.list<User>('user')), ctx);
    },
  },
  {
    method: 'GET',
    path: `${P}/viewissue/search`,
    handler(req, ctx) {
      const key = param(req, 'issueKey');
      if (typeof key === 'string' && key !== '' && !findIssue(ctx, key)) throw issueNotFound();
      const project = param(req, 'projectKey');
      if (typeof project === 'string' && project !== '') requireCreateProject(ctx, project);
      return window(req, userSearch(req, ctx.store.list<User>('user')), ctx);
    },
  },
  {
    method: 'GET',
    path: `${P}/permission/search`,
    handler(req, ctx) {
      if (!listParam(req, 'permissions')?.length) throw new JiraError(400, ['The permissions parameter is required.']);
      return window(req, userSearch(req, ctx.store.list<User>('user')), ctx);
    },
  },
];
