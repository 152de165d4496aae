// Components and versions: `POST /component`, `GET|PUT|DELETE /component/{id}` (`moveIssuesTo`),
// its issue count; `POST /version`, `GET|PUT|DELETE /version/{id}` (`moveFixIssuesTo`,
// `moveAffectedIssuesTo`; or `POST …/removeAndSwap`), its issue counts; and each project's lists (`/project/{key}/components`
// and `/versions` whole, `/component` and `/version` paged with `query`).

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { requireCreateProject } from '../model/createmeta.js';
import type { Issue, Status } from '../model/records.js';
import {
  createComponent,
  createVersion,
  deleteComponent,
  deleteVersion,
  issuesWith,
  projectComponents,
  projectVersions,
  requireComponent,
  requireVersion,
  updateComponent,
  updateVersion,
} from '../model/releases.js';
import { componentView, versionView } from '../model/views.js';
import { intParam, listParam, offsetPage, param } from '../wire/params.js';

const P = '/rest/api/3';
const json = (status: number, body: unknown): TwinResponse => ({ status, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });
const optional = (req: TwinRequest, name: string) => {
  const v = param(req, name);
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** `{self, maxResults, startAt, total, isLast, values}` of the records whose name or description holds `query`. */
function paged<T extends { name: string; description: string }>(req: TwinRequest, ctx: TwinContext, items: T[], view: (x: T) => unknown) {
  const q = String(param(req, 'query') ?? '').toLowerCase();
  const hits = items.filter((x) => q === '' || x.name.toLowerCase().includes(q) || x.description.toLowerCase().includes(q));
  const page = offsetPage(hits, intParam(req, 'startAt', 0), intParam(req, 'maxResults', 50, 1000) || 50);
  return json(200, {
    self: `${ctx.baseUrl}${req.path}?maxResults=${page.maxResults}&startAt=${page.startAt}`,
    maxResults: page.maxResults,
    startAt: page.startAt,
    total: page.total,
    isLast: page.isLast,
    values: page.values.map(view),
  });
}

const done = (ctx: TwinContext, i: Issue) => ctx.store.get<Status>('status', i.statusId)?.category === 'done';

export const releaseRoutes: TwinRoute[] = [
  { method: 'POST', path: `${P}/component`, handler: (req, ctx) => json(201, componentView(ctx, createComponent(ctx, req.body))) },
  { method: 'GET', path: `${P}/component/{id}`, handler: (req, ctx) => json(200, componentView(ctx, requireComponent(ctx, req.params.id!))) },
  { method: 'PUT', path: `${P}/component/{id}`, handler: (req, ctx) => json(200, componentView(ctx, updateComponent(ctx, req.params.id!, req.body))) },
  {
    method: 'DELETE',
    path: `${P}/component/{id}`,
    handler(req, ctx) {
      deleteComponent(ctx, req.params.id!, optional(req, 'moveIssuesTo'));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: `${P}/component/{id}/relatedIssueCounts`,
    handler(req, ctx) {
      const c = requireComponent(ctx, req.params.id!);
      return json(200, { self: `${ctx.baseUrl}${P}/component/${c.id}`, issueCount: issuesWith(ctx, 'componentIds', c.id).length });
    },
  },
  {
    method: 'GET',
    path: `${P}/project/{projectIdOrKey}/components`,
    handler: (req, ctx) =>
      json(
        200,
        projectComponents(ctx, requireCreateProject(ctx, req.params.projectIdOrKey!).id).map((c) => componentView(ctx, c)),
      ),
  },
  {
    method: 'GET',
    path: `${P}/project/{projectIdOrKey}/component`,
    handler: (req, ctx) =>
      paged(req, ctx, projectComponents(ctx, requireCreateProject(ctx, req.params.projectIdOrKey!).id), (c) => ({
        ...componentView(ctx, c),
        issueCount: issuesWith(ctx, 'componentIds', c.id).length,
      })),
  },
  { method: 'POST', path: `${P}/version`, handler: (req, ctx) => json(201, versionView(ctx, createVersion(ctx, req.body))) },
  { method: 'GET', path: `${P}/version/{id}`, handler: (req, ctx) => json(200, versionView(ctx, requireVersion(ctx, req.params.id!))) },
  { method: 'PUT', path: `${P}/version/{id}`, handler: (req, ctx) => json(200, versionView(ctx, updateVersion(ctx, req.params.id!, req.body))) },
  {
    method: 'DELETE',
    path: `${P}/version/{id}`,
    handler(req, ctx) {
      deleteVersion(ctx, req.params.id!, optional(req, 'moveFixIssuesTo'), optional(req, 'moveAffectedIssuesTo'));
      return { status: 204 };
    },
  },
  {
    // What jira.js's deleteAndReplaceVersion calls: the same deletion, the targets in the body.
    method: 'POST',
    path: `${P}/version/{id}/removeAndSwap`,
    handler(req, ctx) {
      const target = (name: string) => {
        const v = req.body[name];
        return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
      };
      deleteVersion(ctx, req.params.id!, target('moveFixIssuesTo'), target('moveAffectedIssuesTo'));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: `${P}/version/{id}/relatedIssueCounts`,
    handler(req, ctx) {
      const v = requireVersion(ctx, req.params.id!);
      return json(200, {
        self: `${ctx.baseUrl}${P}/version/${v.id}`,
        issuesFixedCount: issuesWith(ctx, 'fixVersionIds', v.id).length,
        issuesAffectedCount: issuesWith(ctx, 'versionIds', v.id).length,
        issueCountWithCustomFieldsShowingVersion: 0,
        customFieldUsage: [],
      });
    },
  },
  {
    method: 'GET',
    path: `${P}/version/{id}/unresolvedIssueCount`,
    handler(req, ctx) {
      const v = requireVersion(ctx, req.params.id!);
      const fixed = issuesWith(ctx, 'fixVersionIds', v.id);
      return json(200, {
        self: `${ctx.baseUrl}${P}/version/${v.id}/unresolvedIssueCount`,
        issuesCount: fixed.length,
        issuesUnresolvedCount: fixed.filter((i) => !done(ctx, i)).length,
      });
    },
  },
  {
    method: 'GET',
    path: `${P}/project/{projectIdOrKey}/versions`,
    handler: (req, ctx) =>
      json(
        200,
        projectVersions(ctx, requireCreateProject(ctx, req.params.projectIdOrKey!).id).map((v) => versionView(ctx, v)),
      ),
  },
  {
    method: 'GET',
    path: `${P}/project/{projectIdOrKey}/version`,
    handler(req, ctx) {
      // `status`: released, unreleased, archived (any of them).
      const status = listParam(req, 'status');
      const versions = projectVersions(ctx, requireCreateProject(ctx, req.params.projectIdOrKey!).id).filter(
        (v) =>
          !status ||
          (status.includes('released') && v.released) ||
          (status.includes('unreleased') && !v.released) ||
          (status.includes('archived') && v.archived),
      );
      return paged(req, ctx, versions, (v) => versionView(ctx, v));
    },
  },
];
