// A project deleted: into the recycle bin by default (its issues out of reach, its key still
// taken, restorable), or for good with `enableUndo=false` (its issues, components and versions
// with it). Restoring brings it and its issues back.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { JiraError } from '../wire/errors.js';
import { findAnyProject, findProject, purgeIssue } from './issues.js';
import { jiraTime, type Component, type Issue, type Project, type Version } from './records.js';
import { viewer } from './workspace.js';

export function deleteProject(ctx: TwinContext, idOrKey: string, enableUndo: boolean): void {
  const project = findProject(ctx, idOrKey);
  if (!project) throw new JiraError(404, [`No project could be found with key '${idOrKey}'.`]);
  if (enableUndo) {
    ctx.store.put('project', project.id, { ...project, deleted: { at: jiraTime(ctx), byAccountId: viewer(ctx).accountId } });
    return;
  }
  for (const issue of ctx.store.list<Issue>('issue').filter((i) => i.projectId === project.id)) purgeIssue(ctx, issue);
  for (const c of ctx.store.list<Component>('component').filter((c) => c.projectId === project.id)) ctx.store.delete('component', c.id);
  for (const v of ctx.store.list<Version>('version').filter((v) => v.projectId === project.id)) ctx.store.delete('version', v.id);
  ctx.store.delete('project', project.id);
}

export function restoreProject(ctx: TwinContext, idOrKey: string): Project {
  const project = findAnyProject(ctx, idOrKey);
  if (!project) throw new JiraError(404, [`No project could be found with key '${idOrKey}'.`]);
  if (!project.deleted) throw new JiraError(400, [`The project '${project.key}' is not in the recycle bin.`]);
  const { deleted: _deleted, ...live } = project;
  ctx.store.put('project', project.id, live);
  return live;
}

/** Projects in the recycle bin. */
export function trashedProjects(ctx: TwinContext): Project[] {
  return ctx.store.list<Project>('project').filter((p) => p.deleted);
}
