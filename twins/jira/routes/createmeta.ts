// Issue metadata: `GET /issue/{key}/editmeta` (the fields an edit may change), `GET
// /issue/createmeta` (projects, their issue types and, with `expand=projects.issuetypes.fields`,
// each type's fields) and the paged per-project routes `createmeta/{projectIdOrKey}/issuetypes`
// and `…/issuetypes/{issueTypeId}` jira.js calls.

import type { TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { createFields, createFieldView, editFields, projectIssueTypes, requireCreateProject, requireProjectIssueType } from '../model/createmeta.js';
import { findProject, liveProjects, requireIssue } from '../model/issues.js';
import type { IssueType, Project } from '../model/records.js';
import { issueTypeView, projectRef } from '../model/views.js';
import { intParam, listParam, offsetPage } from '../wire/params.js';

const json = (body: unknown): TwinResponse => ({ status: 200, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });
const P = '/rest/api/3/issue/createmeta';

/** `startAt`/`maxResults` (default 50, at most 200) over a list. */
function page<T>(req: TwinRequest, items: T[]) {
  return offsetPage(items, intParam(req, 'startAt', 0), intParam(req, 'maxResults', 50, 200) || 50);
}

export const createMetaRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/rest/api/3/issue/{issueIdOrKey}/editmeta',
    handler(req, ctx) {
      const issue = requireIssue(ctx, req.params.issueIdOrKey!);
      const project = ctx.store.get<Project>('project', issue.projectId)!;
      const type = ctx.store.get<IssueType>('issue_type', issue.issueTypeId)!;
      return json({ fields: Object.fromEntries(editFields(type).map((f) => [f.key, createFieldView(ctx, project, type, f)])) });
    },
  },
  {
    method: 'GET',
    path: P,
    handler: (req, ctx) => {
      // Unknown projects or issue types narrow the answer; they are not errors (as Jira documents).
      const ids = listParam(req, 'projectIds');
      const keys = listParam(req, 'projectKeys');
      const typeIds = listParam(req, 'issuetypeIds');
      const typeNames = listParam(req, 'issuetypeNames');
      const withFields = (listParam(req, 'expand') ?? []).includes('projects.issuetypes.fields');
      let projects = liveProjects(ctx);
      if (ids || keys) {
        const named = [...(ids ?? []), ...(keys ?? [])].map((k) => findProject(ctx, k)?.id);
        projects = projects.filter((p) => named.includes(p.id));
      }
      return json({
        expand: 'projects',
        projects: projects.map((p) => ({
          expand: 'issuetypes',
          ...projectRef(ctx, p),
          issuetypes: projectIssueTypes(ctx, p)
            .filter((t) => (!typeIds || typeIds.includes(t.id)) && (!typeNames || typeNames.some((n) => n.toLowerCase() === t.name.toLowerCase())))
            .map((t) => ({
              ...issueTypeView(ctx, t),
              expand: 'fields',
              ...(withFields ? { fields: Object.fromEntries(createFields(t).map((f) => [f.key, createFieldView(ctx, p, t, f)])) } : {}),
            })),
        })),
      });
    },
  },
  {
    method: 'GET',
    path: `${P}/{projectIdOrKey}/issuetypes`,
    handler: (req, ctx) => {
      const project = requireCreateProject(ctx, req.params.projectIdOrKey!);
      const p = page(req, projectIssueTypes(ctx, project));
      return json({ maxResults: p.maxResults, startAt: p.startAt, total: p.total, issueTypes: p.values.map((t) => issueTypeView(ctx, t)) });
    },
  },
  {
    method: 'GET',
    path: `${P}/{projectIdOrKey}/issuetypes/{issueTypeId}`,
    handler: (req, ctx) => {
      const project = requireCreateProject(ctx, req.params.projectIdOrKey!);
      const type = requireProjectIssueType(ctx, project, req.params.issueTypeId!);
      const p = page(req, createFields(type));
      return json({ maxResults: p.maxResults, startAt: p.startAt, total: p.total, fields: p.values.map((f) => createFieldView(ctx, project, type, f)) });
    },
  },
];
