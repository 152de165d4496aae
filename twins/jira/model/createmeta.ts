// Issue-creation metadata: which issue types a project offers and, for each, the fields
// `POST /issue` takes (required or not, allowed values, defaults, the operations an edit may use).
// The field list is what createIssue in model/issues.ts reads, so the metadata cannot promise a
// field the twin would refuse.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { JiraError } from '../wire/errors.js';
import { findProject } from './issues.js';
import { PRIORITIES, type IssueType, type Project } from './records.js';
import { issueTypeView, projectRef } from './views.js';

export interface CreateField {
  key: string;
  name: string;
  schema: { type: string; system: string; items?: string };
  required: boolean;
  operations: string[];
}

/** The fields createIssue reads, for one issue type (a sub-task needs its parent). */
export function createFields(type: IssueType): CreateField[] {
  const field = (key: string, name: string, type: string, required = false, operations = ['set'], items?: string): CreateField => ({
    key,
    name,
    schema: { type, system: key, ...(items ? { items } : {}) },
    required,
    operations,
  });
  return [
    field('summary', 'Summary', 'string', true),
    field('issuetype', 'Issue Type', 'issuetype', true, []),
    field('project', 'Project', 'project', true),
    ...(type.subtask ? [field('parent', 'Parent', 'issuelink', true)] : [field('parent', 'Parent', 'issuelink')]),
    field('description', 'Description', 'string'),
    field('reporter', 'Reporter', 'user'),
    field('assignee', 'Assignee', 'user'),
    field('priority', 'Priority', 'priority'),
    field('labels', 'Labels', 'array', false, ['add', 'set', 'remove'], 'string'),
    field('duedate', 'Due date', 'date'),
  ];
}

/** The fields `PUT /issue/{key}` changes (editIssue in model/issues.ts), as `editmeta` lists them. */
export function editFields(type: IssueType): CreateField[] {
  const keep = new Set(['summary', 'parent', 'description', 'assignee', 'priority', 'labels', 'duedate']);
  return createFields(type)
    .filter((f) => keep.has(f.key))
    .map((f) => (f.key === 'parent' ? { ...f, required: false } : f));
}

export function requireCreateProject(ctx: TwinContext, idOrKey: string): Project {
  const project = findProject(ctx, idOrKey);
  if (!project) throw new JiraError(404, [`No project could be found with key '${idOrKey}'.`]);
  return project;
}

export function projectIssueTypes(ctx: TwinContext, project: Project): IssueType[] {
  return project.issueTypeIds.map((id) => ctx.store.get<IssueType>('issue_type', id)).filter((t): t is IssueType => !!t);
}

export function requireProjectIssueType(ctx: TwinContext, project: Project, issueTypeId: string): IssueType {
  const type = projectIssueTypes(ctx, project).find((t) => t.id === issueTypeId);
  if (!type) throw new JiraError(404, [`Issue type with ID '${issueTypeId}' does not exist or is not available in project '${project.key}'.`]);
  return type;
}

/** One field's metadata as Jira shows it, with the values it allows and its default where it has them. */
export function createFieldView(ctx: TwinContext, project: Project, type: IssueType, f: CreateField): Record<string, unknown> {
  const api = `${ctx.baseUrl}/rest/api/3`;
  const extra: Record<string, unknown> = {};
  switch (f.key) {
    case 'issuetype':
      extra.allowedValues = [issueTypeView(ctx, type)];
      break;
    case 'project':
      extra.allowedValues = [projectRef(ctx, project)];
      break;
    case 'priority': {
      const view = (p: (typeof PRIORITIES)[number]) => ({ self: `${api}/priority/${p.id}`, ...p });
      extra.allowedValues = PRIORITIES.map(view);
      extra.defaultValue = view(PRIORITIES.find((p) => p.id === '3')!);
      break;
    }
    case 'assignee':
      extra.autoCompleteUrl = `${api}/user/assignable/search?project=${project.key}&query=`;
      break;
    case 'reporter':
      extra.autoCompleteUrl = `${api}/user/search?query=`;
      break;
  }
  return {
    required: f.required,
    schema: f.schema,
    name: f.name,
    key: f.key,
    ...(extra.autoCompleteUrl ? { autoCompleteUrl: extra.autoCompleteUrl } : {}),
    hasDefaultValue: extra.defaultValue !== undefined,
    operations: f.operations,
    ...(extra.allowedValues ? { allowedValues: extra.allowedValues } : {}),
    ...(extra.defaultValue ? { defaultValue: extra.defaultValue } : {}),
    fieldId: f.key,
  };
}
