// The starting site: `twin-works.atlassian.net`, the token's user and two teammates, project
// `DEMO` ("Demo project", software) with Epic, Story, Task, Bug and Subtask, and the simplified
// workflow To Do → In Progress → Done (every status reachable by its transition: 11, 21, 31).

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { IssueType, Project, Status, User } from './records.js';

const PEOPLE = [
  { displayName: 'Ada Lovelace', email: 'ada@example.com', viewer: true },
  { displayName: 'Grace Hopper', email: 'grace@example.com' },
  { displayName: 'Alan Turing', email: 'alan@example.com' },
];

export const ISSUE_TYPES: IssueType[] = [
  { id: '10000', name: 'Epic', description: 'A big user story that needs to be broken down.', subtask: false, hierarchyLevel: 1 },
  { id: '10001', name: 'Story', description: 'Functionality or a feature expressed as a user goal.', subtask: false, hierarchyLevel: 0 },
  { id: '10002', name: 'Task', description: 'A small, distinct piece of work.', subtask: false, hierarchyLevel: 0 },
  { id: '10003', name: 'Bug', description: 'A problem or error.', subtask: false, hierarchyLevel: 0 },
  { id: '10004', name: 'Subtask', description: "A small piece of work that's part of a larger task.", subtask: true, hierarchyLevel: -1 },
];

export const STATUSES: Status[] = [
  { id: '10000', name: 'To Do', category: 'new', transitionId: '11', transitionName: 'To Do' },
  { id: '3', name: 'In Progress', category: 'indeterminate', transitionId: '21', transitionName: 'In Progress' },
  { id: '10001', name: 'Done', category: 'done', transitionId: '31', transitionName: 'Done' },
];

/** Atlassian account ids look like `5b10ac8d82e05b22cc7d4ef5` (24 hex). */
function accountId(email: string): string {
  return createHash('sha256').update(`jira-account:${email}`).digest('hex').slice(0, 24);
}

export function viewer(ctx: TwinContext): User {
  const users = ctx.store.list<User>('user');
  return users.find((u) => u.viewer) ?? users[0]!;
}

export function createProjectRecord(ctx: TwinContext, input: { key: string; name: string; description?: string; leadAccountId: string }): Project {
  const project: Project = {
    id: String(10000 + ctx.ids.sequence('id:project') - 1),
    key: input.key,
    name: input.name,
    description: input.description ?? '',
    leadAccountId: input.leadAccountId,
    projectTypeKey: 'software',
    issueTypeIds: ISSUE_TYPES.map((t) => t.id),
  };
  ctx.store.put('project', project.id, project);
  return project;
}

export function ensureSite(ctx: TwinContext): void {
  if (ctx.store.count('user') > 0) return;
  for (const p of PEOPLE) {
    const user: User = {
      accountId: accountId(p.email),
      emailAddress: p.email,
      displayName: p.displayName,
      active: true,
      timeZone: 'UTC',
      ...(p.viewer ? { viewer: true } : {}),
    };
    ctx.store.put('user', user.accountId, user);
  }
  for (const t of ISSUE_TYPES) ctx.store.put('issue_type', t.id, t);
  for (const s of STATUSES) ctx.store.put('status', s.id, s);
  createProjectRecord(ctx, { key: 'DEMO', name: 'Demo project', description: "The twin's starting project", leadAccountId: viewer(ctx).accountId });
}

/** Why a project key cannot be used (its form, or a project that has it), or undefined. */
export function projectKeyProblem(ctx: TwinContext, key: string): { kind: 'form' | 'taken'; project?: Project } | undefined {
  if (!/^[A-Z][A-Z0-9]{1,9}$/.test(key)) return { kind: 'form' };
  const project = ctx.store.list<Project>('project').find((p) => p.key === key);
  return project ? { kind: 'taken', project } : undefined;
}

export const PROJECT_KEY_FORM = 'Project keys must start with an uppercase letter, followed by one or more uppercase alphanumeric characters.';

export function projectNameTaken(ctx: TwinContext, name: string): boolean {
  return ctx.store.list<Project>('project').some((p) => p.name.toLowerCase() === name.toLowerCase());
}
