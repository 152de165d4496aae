// The site's fixed catalogue and what is derived from the model's records: the system fields, one issue type,
// priority, status or status category; priorities paged; a project's statuses per issue type;
// every user; the labels in use; JQL matched against given issues (`POST /jql/match`); and a
// project's name, description and lead changed (`PUT /project/{key}`).

import type { TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { projectIssueTypes, requireCreateProject } from '../model/createmeta.js';
import { SYSTEM_FIELDS } from '../model/fields.js';
import { isLive, subject } from '../model/issues.js';
import { evaluate, parseJql } from '../model/jql.js';
import { deleteProject, restoreProject } from '../model/projects.js';
import { PRIORITIES, type Issue, type IssueType, type Project, type Status, type User } from '../model/records.js';
import { CATEGORY, issueTypeView, projectView, statusView, userView } from '../model/views.js';
import { PROJECT_KEY_FORM, projectKeyProblem, projectNameTaken } from '../model/workspace.js';
import { JiraError } from '../wire/errors.js';
import { intParam, listParam, offsetPage } from '../wire/params.js';

const P = '/rest/api/3';
const json = (body: unknown): TwinResponse => ({ status: 200, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });
/** Jira's "No Category" sits beside the three a status can have. */
const NO_CATEGORY = { id: 1, key: 'undefined', colorName: 'medium-gray', name: 'No Category' };

function priorityView(base: string, p: (typeof PRIORITIES)[number]) {
  return {
    self: `${base}${P}/priority/${p.id}`,
    iconUrl: `${base}/images/icons/priorities/${p.name.toLowerCase()}.svg`,
    name: p.name,
    id: p.id,
    isDefault: p.id === '3',
  };
}

export const catalogueRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: `${P}/projectvalidate/key`,
    handler(req, ctx) {
      const problem = projectKeyProblem(ctx, String(req.query.key ?? ''));
      const errors: Record<string, string> = !problem
        ? {}
        : { projectKey: problem.kind === 'form' ? PROJECT_KEY_FORM : 'A project with that project key already exists.' };
      return json({ errorMessages: [], errors });
    },
  },
  {
    method: 'GET',
    path: `${P}/projectvalidate/validProjectKey`,
    handler(req, ctx) {
      // The key itself when usable; else one made from its letters, numbered until free.
      const asked = String(req.query.key ?? '');
      if (!projectKeyProblem(ctx, asked)) return json(asked);
      const stem = (
        asked
          .toUpperCase()
          .replace(/[^A-Z0-9]/g, '')
          .replace(/^[^A-Z]+/, '') || 'PRJ'
      )
        .slice(0, 8)
        .padEnd(2, 'X');
      for (let n = 0; n < 100; n++) {
        const candidate = n === 0 ? stem : `${stem.slice(0, 10 - String(n).length)}${n}`;
        if (!projectKeyProblem(ctx, candidate)) return json(candidate);
      }
      throw new JiraError(404, ['No valid project key could be generated.']);
    },
  },
  {
    method: 'GET',
    path: `${P}/projectvalidate/validProjectName`,
    handler(req, ctx) {
      const name = String(req.query.name ?? '').trim();
      if (name === '') throw new JiraError(400, ['The name query parameter is required.']);
      if (!projectNameTaken(ctx, name)) return json(name);
      for (let n = 1; n < 100; n++) if (!projectNameTaken(ctx, `${name} ${n}`)) return json(`${name} ${n}`);
      throw new JiraError(404, ['No valid project name could be generated.']);
    },
  },
  {
    method: 'GET',
    path: `${P}/field`,
    handler: () => json(SYSTEM_FIELDS.map((f) => ({ ...f, key: f.id, custom: false }))),
  },
  {
    method: 'GET',
    path: `${P}/issuetype/{id}`,
    handler(req, ctx) {
      const t = ctx.store.get<IssueType>('issue_type', req.params.id!);
      if (!t) throw new JiraError(404, [`Issue type with ID '${req.params.id}' does not exist.`]);
      return json(issueTypeView(ctx, t));
    },
  },
  {
    method: 'GET',
    path: `${P}/priority/search`,
    handler(req, ctx) {
      const ids = listParam(req, 'id');
      const onlyDefault = String(req.query.onlyDefault ?? '') === 'true';
      const all = PRIORITIES.filter((p) => (!ids || ids.includes(p.id)) && (!onlyDefault || p.id === '3'));
      const page = offsetPage(all, intParam(req, 'startAt', 0), intParam(req, 'maxResults', 50, 1000) || 50);
      return json({
        self: `${ctx.baseUrl}${P}/priority/search?maxResults=${page.maxResults}&startAt=${page.startAt}`,
        maxResults: page.maxResults,
        startAt: page.startAt,
        total: page.total,
        isLast: page.isLast,
        values: page.values.map((p) => priorityView(ctx.baseUrl, p)),
      });
    },
  },
  {
    method: 'GET',
    path: `${P}/priority/{id}`,
    handler(req, ctx) {
      const p = PRIORITIES.find((x) => x.id === req.params.id);
      if (!p) throw new JiraError(404, [`Priority with ID '${req.params.id}' does not exist.`]);
      return json(priorityView(ctx.baseUrl, p));
    },
  },
  {
    method: 'GET',
    path: `${P}/status/{idOrName}`,
    handler(req, ctx) {
      const wanted = req.params.idOrName!;
      const s = ctx.store.get<Status>('status', wanted) ?? ctx.store.list<Status>('status').find((x) => x.name.toLowerCase() === wanted.toLowerCase());
      if (!s) throw new JiraError(404, [`The status with ID or name '${wanted}' does not exist.`]);
      return json(statusView(ctx, s));
    },
  },
  {
    method: 'GET',
    path: `${P}/statuscategory`,
    handler: (_req, ctx) => json([NO_CATEGORY, ...Object.values(CATEGORY)].map((c) => ({ self: `${ctx.baseUrl}${P}/statuscategory/${c.id}`, ...c }))),
  },
  {
    method: 'GET',
    path: `${P}/statuscategory/{idOrKey}`,
    handler(req, ctx) {
      const wanted = req.params.idOrKey!;
      const c = [NO_CATEGORY, ...Object.values(CATEGORY)].find((x) => String(x.id) === wanted || x.key === wanted);
      if (!c) throw new JiraError(404, [`The status category with ID or key '${wanted}' does not exist.`]);
      return json({ self: `${ctx.baseUrl}${P}/statuscategory/${c.id}`, ...c });
    },
  },
  {
    method: 'GET',
    path: `${P}/project/{projectIdOrKey}/statuses`,
    handler(req, ctx) {
      const project = requireCreateProject(ctx, req.params.projectIdOrKey!);
      // One workflow for every issue type of the project.
      const statuses = ctx.store.list<Status>('status').map((s) => statusView(ctx, s));
      return json(
        projectIssueTypes(ctx, project).map((t) => ({ self: `${ctx.baseUrl}${P}/issuetype/${t.id}`, id: t.id, name: t.name, subtask: t.subtask, statuses })),
      );
    },
  },
  {
    method: 'DELETE',
    path: `${P}/project/{projectIdOrKey}`,
    handler(req, ctx) {
      deleteProject(ctx, req.params.projectIdOrKey!, String(req.query.enableUndo ?? 'true') !== 'false');
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: `${P}/project/{projectIdOrKey}/restore`,
    handler: (req, ctx) => json(projectView(ctx, restoreProject(ctx, req.params.projectIdOrKey!))),
  },
  {
    method: 'PUT',
    path: `${P}/project/{projectIdOrKey}`,
    handler(req, ctx) {
      const project = requireCreateProject(ctx, req.params.projectIdOrKey!);
      const b = req.body;
      if (b.key !== undefined && b.key !== project.key)
        throw new NotSimulated(
          'PUT /rest/api/3/project/{projectIdOrKey} with a new key',
          'Changing a project key renames its issues, which the twin does not simulate.',
        );
      const next: Project = { ...project };
      if (b.name !== undefined) {
        if (typeof b.name !== 'string' || b.name.trim() === '') throw new JiraError(400, [], { projectName: 'You must specify a valid project name.' });
        next.name = b.name;
      }
      if (b.description !== undefined) {
        if (typeof b.description !== 'string') throw new JiraError(400, [], { description: 'The description must be a string.' });
        next.description = b.description;
      }
      if (b.leadAccountId !== undefined) {
        if (typeof b.leadAccountId !== 'string' || !ctx.store.has('user', b.leadAccountId))
          throw new JiraError(400, [], { projectLead: 'The project lead you specified does not exist.' });
        next.leadAccountId = b.leadAccountId;
      }
      ctx.store.put('project', project.id, next);
      return json(projectView(ctx, next));
    },
  },
  {
    method: 'GET',
    path: `${P}/users`,
    handler(req, ctx) {
      const start = intParam(req, 'startAt', 0);
      const users = ctx.store.list<User>('user').slice(start, start + (intParam(req, 'maxResults', 50, 1000) || 50));
      return json(users.map((u) => userView(ctx, u)));
    },
  },
  {
    method: 'GET',
    path: `${P}/label`,
    handler(req, ctx) {
      const labels = [
        ...new Set(
          ctx.store
            .list<Issue>('issue')
            .filter((i) => isLive(ctx, i))
            .flatMap((i) => i.labels),
        ),
      ].sort();
      const page = offsetPage(labels, intParam(req, 'startAt', 0), intParam(req, 'maxResults', 1000, 1000) || 1000);
      return json({ maxResults: page.maxResults, startAt: page.startAt, total: page.total, isLast: page.isLast, values: page.values });
    },
  },
  {
    method: 'POST',
    path: `${P}/jql/match`,
    handler(req, ctx) {
      const { jqls, issueIds } = req.body;
      if (!Array.isArray(jqls) || jqls.length === 0 || jqls.length > 1000 || !jqls.every((q) => typeof q === 'string'))
        throw new JiraError(400, [], { jqls: 'Provide between 1 and 1000 JQL queries.' });
      if (!Array.isArray(issueIds) || issueIds.length > 1000 || !issueIds.every((id) => typeof id === 'number' && Number.isInteger(id)))
        throw new JiraError(400, [], { issueIds: 'Provide at most 1000 issue ids (integers).' });
      const issues = (issueIds as number[]).map((id) => ctx.store.get<Issue>('issue', String(id))).filter((i): i is Issue => !!i);
      return json({
        // Each query on its own: a query Jira cannot read reports its errors, the others still match.
        matches: (jqls as string[]).map((q) => {
          try {
            const where = parseJql(q).where;
            return { matchedIssues: issues.filter((i) => !where || evaluate(where, subject(ctx, i))).map((i) => Number(i.id)), errors: [] };
          } catch (e) {
            if (!(e instanceof JiraError)) throw e;
            return { matchedIssues: [], errors: e.errorMessages };
          }
        }),
      });
    },
  },
];
