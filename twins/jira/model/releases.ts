// Components and versions of a project: created, read, changed, deleted (issues that named them
// lose them, or move to another when asked), listed per project, and counted over the issues
// that use them. Issues name them in `components`, `fixVersions` and `versions` (model/issues.ts).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { fieldError, JiraError } from '../wire/errors.js';
import { findProject } from './issues.js';
import { numericId, type Component, type Issue, type Project, type Version } from './records.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const ASSIGNEE_TYPES = new Set(['PROJECT_DEFAULT', 'COMPONENT_LEAD', 'PROJECT_LEAD', 'UNASSIGNED']);

function projectOf(ctx: TwinContext, body: Record<string, unknown>): Project {
  const ref = body.projectId ?? body.project;
  const project = typeof ref === 'string' || typeof ref === 'number' ? findProject(ctx, String(ref)) : undefined;
  if (!project) throw fieldError('project', 'The project is not valid.');
  return project;
}

function text(body: Record<string, unknown>, field: string, fallback: string): string {
  const v = body[field];
  if (v === undefined) return fallback;
  if (typeof v !== 'string') throw fieldError(field, `The ${field} must be a string.`);
  return v;
}

function name(body: Record<string, unknown>, fallback?: string): string {
  const v = body.name ?? fallback;
  if (typeof v !== 'string' || v.trim() === '') throw fieldError('name', 'The name is required.');
  if (v.length > 255) throw fieldError('name', 'The name must not be longer than 255 characters.');
  return v;
}

function unique(existing: { id: string; projectId: string; name: string }[], projectId: string, wanted: string, self: string | undefined, what: string): void {
  if (existing.some((x) => x.projectId === projectId && x.id !== self && x.name.toLowerCase() === wanted.toLowerCase()))
    throw fieldError('name', `A ${what} with the name ${wanted} already exists in this project.`);
}

function date(body: Record<string, unknown>, field: string, fallback: string | null): string | null {
  const v = body[field];
  if (v === undefined) return fallback;
  if (v === null) return null;
  if (typeof v !== 'string' || !DATE.test(v) || !Number.isFinite(Date.parse(v))) throw fieldError(field, `The ${field} must be a date (yyyy-MM-dd).`);
  return v;
}

function lead(ctx: TwinContext, body: Record<string, unknown>, fallback: string | null): string | null {
  const v = body.leadAccountId;
  if (v === undefined) return fallback;
  if (v === null || v === '') return null;
  if (typeof v !== 'string' || !ctx.store.has('user', v)) throw fieldError('leadAccountId', 'The user does not exist.');
  return v;
}

export function requireComponent(ctx: TwinContext, id: string): Component {
  const c = ctx.store.get<Component>('component', id);
  if (!c) throw new JiraError(404, [`The component with id ${id} does not exist.`]);
  return c;
}

export function requireVersion(ctx: TwinContext, id: string): Version {
  const v = ctx.store.get<Version>('version', id);
  if (!v) throw new JiraError(404, [`Could not find version for id '${id}'`]);
  return v;
}

export function createComponent(ctx: TwinContext, body: Record<string, unknown>): Component {
  const project = projectOf(ctx, body);
  const n = name(body);
  unique(ctx.store.list<Component>('component'), project.id, n, undefined, 'component');
  const assigneeType = String(body.assigneeType ?? 'PROJECT_DEFAULT');
  if (!ASSIGNEE_TYPES.has(assigneeType)) throw fieldError('assigneeType', 'The assignee type is not valid.');
  const c: Component = {
    id: numericId(ctx, 'component'),
    projectId: project.id,
    name: n,
    description: text(body, 'description', ''),
    leadAccountId: lead(ctx, body, null),
    assigneeType: assigneeType as Component['assigneeType'],
  };
  ctx.store.put('component', c.id, c);
  return c;
}

export function updateComponent(ctx: TwinContext, id: string, body: Record<string, unknown>): Component {
  const c = requireComponent(ctx, id);
  const n = name(body, c.name);
  unique(ctx.store.list<Component>('component'), c.projectId, n, c.id, 'component');
  const assigneeType = String(body.assigneeType ?? c.assigneeType);
  if (!ASSIGNEE_TYPES.has(assigneeType)) throw fieldError('assigneeType', 'The assignee type is not valid.');
  const next: Component = {
    ...c,
    name: n,
    description: text(body, 'description', c.description),
    leadAccountId: lead(ctx, body, c.leadAccountId),
    assigneeType: assigneeType as Component['assigneeType'],
  };
  ctx.store.put('component', c.id, next);
  return next;
}

export function createVersion(ctx: TwinContext, body: Record<string, unknown>): Version {
  const project = projectOf(ctx, body);
  const n = name(body);
  unique(ctx.store.list<Version>('version'), project.id, n, undefined, 'version');
  const v: Version = {
    id: numericId(ctx, 'version'),
    projectId: project.id,
    name: n,
    description: text(body, 'description', ''),
    released: body.released === true,
    archived: body.archived === true,
    releaseDate: date(body, 'releaseDate', null),
    startDate: date(body, 'startDate', null),
  };
  ctx.store.put('version', v.id, v);
  return v;
}

export function updateVersion(ctx: TwinContext, id: string, body: Record<string, unknown>): Version {
  const v = requireVersion(ctx, id);
  const n = name(body, v.name);
  unique(ctx.store.list<Version>('version'), v.projectId, n, v.id, 'version');
  const flag = (field: 'released' | 'archived') => (body[field] === undefined ? v[field] : body[field] === true);
  const next: Version = {
    ...v,
    name: n,
    description: text(body, 'description', v.description),
    released: flag('released'),
    archived: flag('archived'),
    releaseDate: date(body, 'releaseDate', v.releaseDate),
    startDate: date(body, 'startDate', v.startDate),
  };
  ctx.store.put('version', v.id, next);
  return next;
}

type Slot = 'componentIds' | 'fixVersionIds' | 'versionIds';

/** Issues naming `id` in a slot: the id removed, or replaced by `moveTo` (which must be of the same project). */
function detach(ctx: TwinContext, slot: Slot, id: string, moveTo: string | undefined): void {
  for (const issue of ctx.store.list<Issue>('issue')) {
    const ids = issue[slot] ?? [];
    if (!ids.includes(id)) continue;
    const next = ids.filter((x) => x !== id);
    if (moveTo && !next.includes(moveTo)) next.push(moveTo);
    ctx.store.put('issue', issue.id, { ...issue, [slot]: next });
  }
}

export function deleteComponent(ctx: TwinContext, id: string, moveIssuesTo: string | undefined): void {
  const c = requireComponent(ctx, id);
  if (moveIssuesTo !== undefined && requireComponent(ctx, moveIssuesTo).projectId !== c.projectId)
    throw new JiraError(400, ['The component to move issues to must be in the same project.']);
  detach(ctx, 'componentIds', c.id, moveIssuesTo);
  ctx.store.delete('component', c.id);
}

export function deleteVersion(ctx: TwinContext, id: string, moveFixIssuesTo: string | undefined, moveAffectedIssuesTo: string | undefined): void {
  const v = requireVersion(ctx, id);
  for (const target of [moveFixIssuesTo, moveAffectedIssuesTo])
    if (target !== undefined && requireVersion(ctx, target).projectId !== v.projectId)
      throw new JiraError(400, ['The version to move issues to must be in the same project.']);
  detach(ctx, 'fixVersionIds', v.id, moveFixIssuesTo);
  detach(ctx, 'versionIds', v.id, moveAffectedIssuesTo);
  ctx.store.delete('version', v.id);
}

export function projectComponents(ctx: TwinContext, projectId: string): Component[] {
  return ctx.store.list<Component>('component').filter((c) => c.projectId === projectId);
}

export function projectVersions(ctx: TwinContext, projectId: string): Version[] {
  return ctx.store.list<Version>('version').filter((v) => v.projectId === projectId);
}

export function issuesWith(ctx: TwinContext, slot: Slot, id: string): Issue[] {
  return ctx.store.list<Issue>('issue').filter((i) => (i[slot] ?? []).includes(id));
}
