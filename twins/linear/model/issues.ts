// Issues: created in a team (identifier `<KEY>-<n>`, numbered per team), in the team's default
// state unless told; updates move them between workflow states (stamping `startedAt`,
// `completedAt`, `canceledAt` as Linear does), assign, label, prioritise (0 none … 4 low),
// estimate, nest (parent/sub-issues, no cycles), and put them in projects and cycles. Every change
// sends the `Issue` webhook.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidInput, notFound } from '../wire/errors.js';
import { stamps, uuid, type Cycle, type Issue, type IssueLabel, type Project, type Team, type User, type WorkflowState } from './records.js';
import { emitWebhook, type WebhookAction } from './webhooks.js';
import { organization } from './workspace.js';

export const PRIORITY_LABELS = ['No priority', 'Urgent', 'High', 'Medium', 'Low'];

export interface IssueInput {
  title?: string;
  description?: string | null;
  teamId?: string;
  stateId?: string | null;
  assigneeId?: string | null;
  priority?: number | null;
  estimate?: number | null;
  labelIds?: string[];
  addedLabelIds?: string[];
  removedLabelIds?: string[];
  parentId?: string | null;
  projectId?: string | null;
  cycleId?: string | null;
  dueDate?: string | null;
  sortOrder?: number | null;
}

export function teamStates(ctx: TwinContext, teamId: string): WorkflowState[] {
  return ctx.store
    .list<WorkflowState>('workflow_state')
    .filter((s) => s.teamId === teamId && !s.archivedAt)
    .sort((a, b) => a.position - b.position);
}

/** The state new issues of a team start in: its first backlog state (else its first unstarted one). */
export function defaultState(ctx: TwinContext, teamId: string): WorkflowState {
  const states = teamStates(ctx, teamId);
  const state = states.find((s) => s.type === 'backlog') ?? states.find((s) => s.type === 'unstarted') ?? states[0];
  if (!state) throw invalidInput('The team has no workflow states');
  return state;
}

/** An issue by UUID or by identifier (`ENG-12`), as Linear's `issue(id:)` accepts both. */
export function findIssue(ctx: TwinContext, idOrIdentifier: string): Issue | undefined {
  const byId = ctx.store.get<Issue>('issue', idOrIdentifier);
  if (byId) return byId;
  const m = /^([A-Za-z0-9]+)-(\d+)$/.exec(idOrIdentifier);
  if (!m) return undefined;
  const key = m[1]!.toUpperCase();
  return ctx.store.list<Issue>('issue').find((i) => i.identifier.toUpperCase() === `${key}-${m[2]}`);
}

export function requireIssue(ctx: TwinContext, id: string): Issue {
  const issue = findIssue(ctx, id);
  if (!issue) throw notFound('Issue');
  return issue;
}

export function issueUrl(ctx: TwinContext, issue: Issue): string {
  const slug = issue.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
  return `https://linear.app/${organization(ctx).urlKey}/issue/${issue.identifier.toLowerCase()}/${slug}`;
}

function check(ctx: TwinContext, issue: Issue, input: IssueInput): void {
  if (input.title !== undefined && (typeof input.title !== 'string' || input.title.trim() === '')) throw invalidInput('title should not be empty');
  if (input.priority !== undefined && input.priority !== null && (!Number.isInteger(input.priority) || input.priority < 0 || input.priority > 4)) {
    throw invalidInput('priority must not be greater than 4');
  }
  if (input.stateId) {
    const state = ctx.store.get<WorkflowState>('workflow_state', input.stateId);
    if (!state || state.archivedAt) throw notFound('WorkflowState');
    if (state.teamId !== issue.teamId) throw invalidInput("Workflow state does not belong to the issue's team");
  }
  if (input.assigneeId && !ctx.store.has('user', input.assigneeId)) throw notFound('User');
  for (const id of [...(input.labelIds ?? []), ...(input.addedLabelIds ?? [])]) {
    const label = ctx.store.get<IssueLabel>('issue_label', id);
    if (!label) throw notFound('IssueLabel');
    if (label.teamId !== null && label.teamId !== issue.teamId) throw invalidInput("Label does not belong to the issue's team");
  }
  if (input.parentId) {
    const parent = findIssue(ctx, input.parentId);
    if (!parent) throw notFound('Issue');
    for (let p: Issue | undefined = parent, depth = 0; p; p = p.parentId ? ctx.store.get<Issue>('issue', p.parentId) : undefined, depth++) {
      if (p.id === issue.id || depth > 10) throw invalidInput('Cannot set parent: it would create a cycle in the issue hierarchy');
    }
  }
  if (input.projectId) {
    const project = ctx.store.get<Project>('project', input.projectId);
    if (!project) throw notFound('Project');
  }
  if (input.cycleId) {
    const cycle = ctx.store.get<Cycle>('cycle', input.cycleId);
    if (!cycle) throw notFound('Cycle');
    if (cycle.teamId !== issue.teamId) throw invalidInput("Cycle does not belong to the issue's team");
  }
}

/** Stamp the state-change times of moving into `state`. */
function enterState(issue: Issue, state: WorkflowState, now: string): void {
  if (state.type === 'started' && !issue.startedAt) issue.startedAt = now;
  issue.completedAt = state.type === 'completed' ? (issue.completedAt ?? now) : null;
  issue.canceledAt = state.type === 'canceled' ? (issue.canceledAt ?? now) : null;
  if (state.type === 'backlog' || state.type === 'unstarted' || state.type === 'triage') issue.startedAt = null;
}

function apply(issue: Issue, input: IssueInput): void {
  if (input.title !== undefined) issue.title = input.title;
  if (input.description !== undefined) issue.description = input.description;
  if (input.assigneeId !== undefined) issue.assigneeId = input.assigneeId;
  if (input.priority !== undefined) issue.priority = input.priority ?? 0;
  if (input.estimate !== undefined) issue.estimate = input.estimate;
  if (input.labelIds !== undefined) issue.labelIds = [...new Set(input.labelIds)];
  if (input.addedLabelIds) issue.labelIds = [...new Set([...issue.labelIds, ...input.addedLabelIds])];
  if (input.removedLabelIds) issue.labelIds = issue.labelIds.filter((l) => !input.removedLabelIds!.includes(l));
  if (input.parentId !== undefined) issue.parentId = input.parentId;
  if (input.projectId !== undefined) issue.projectId = input.projectId;
  if (input.cycleId !== undefined) issue.cycleId = input.cycleId;
  if (input.dueDate !== undefined) issue.dueDate = input.dueDate;
  if (input.sortOrder !== undefined && input.sortOrder !== null) issue.sortOrder = input.sortOrder;
}

/** What Linear puts in an Issue webhook's `data`. */
export function issueWebhookData(ctx: TwinContext, issue: Issue): Record<string, unknown> {
  const state = ctx.store.get<WorkflowState>('workflow_state', issue.stateId);
  const team = ctx.store.get<Team>('team', issue.teamId);
  const assignee = issue.assigneeId ? ctx.store.get<User>('user', issue.assigneeId) : undefined;
  const labels = issue.labelIds.map((id) => ctx.store.get<IssueLabel>('issue_label', id)).filter((l): l is IssueLabel => !!l);
  return {
    ...issue,
    priorityLabel: PRIORITY_LABELS[issue.priority],
    url: issueUrl(ctx, issue),
    labels: labels.map((l) => ({ id: l.id, name: l.name, color: l.color })),
    ...(state ? { state: { id: state.id, name: state.name, color: state.color, type: state.type } } : {}),
    ...(team ? { team: { id: team.id, key: team.key, name: team.name } } : {}),
    ...(assignee ? { assignee: { id: assignee.id, name: assignee.name, email: assignee.email } } : {}),
  };
}

function notify(ctx: TwinContext, issue: Issue, action: WebhookAction, actor: User, updatedFrom?: Record<string, unknown>): void {
  emitWebhook(ctx, { type: 'Issue', action, data: issueWebhookData(ctx, issue), url: issueUrl(ctx, issue), teamIds: [issue.teamId], actor, updatedFrom });
}

export function createIssue(ctx: TwinContext, actor: User, input: IssueInput): Issue {
  if (!input.teamId) throw invalidInput('teamId must be a UUID');
  const team = ctx.store.get<Team>('team', input.teamId);
  if (!team) throw notFound('Team');
  const number = ctx.ids.sequence(`issue:${team.id}`);
  const draft: Issue = {
    id: uuid(ctx),
    ...stamps(ctx),
    number,
    identifier: `${team.key}-${number}`,
    title: '',
    description: null,
    priority: 0,
    estimate: null,
    dueDate: null,
    sortOrder: -number * 1000,
    teamId: team.id,
    stateId: '',
    assigneeId: null,
    creatorId: actor.id,
    parentId: null,
    projectId: null,
    cycleId: null,
    labelIds: [],
    startedAt: null,
    completedAt: null,
    canceledAt: null,
  };
  if (input.title === undefined) throw invalidInput('title should not be empty');
  check(ctx, draft, input);
  apply(draft, input);
  if (draft.parentId) draft.parentId = findIssue(ctx, draft.parentId)!.id;
  const state = input.stateId ? ctx.store.get<WorkflowState>('workflow_state', input.stateId)! : defaultState(ctx, team.id);
  draft.stateId = state.id;
  enterState(draft, state, draft.createdAt);
  ctx.store.put('issue', draft.id, draft);
  notify(ctx, draft, 'create', actor);
  return draft;
}

export function updateIssue(ctx: TwinContext, actor: User, id: string, input: IssueInput): Issue {
  const issue = requireIssue(ctx, id);
  if (input.teamId && input.teamId !== issue.teamId) throw invalidInput('Moving issues between teams is not supported by the twin');
  check(ctx, issue, input);
  const before: Record<string, unknown> = { ...issue };
  apply(issue, input);
  if (issue.parentId) issue.parentId = findIssue(ctx, issue.parentId)!.id;
  const now = ctx.clock.now().toISOString();
  if (input.stateId && input.stateId !== issue.stateId) {
    issue.stateId = input.stateId;
    enterState(issue, ctx.store.get<WorkflowState>('workflow_state', input.stateId)!, now);
  }
  const updatedFrom: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(issue)) if (JSON.stringify(before[k]) !== JSON.stringify(v)) updatedFrom[k] = before[k] ?? null;
  if (Object.keys(updatedFrom).length === 0) return issue;
  updatedFrom.updatedAt = issue.updatedAt;
  issue.updatedAt = now;
  ctx.store.put('issue', issue.id, issue);
  notify(ctx, issue, 'update', actor, updatedFrom);
  return issue;
}

export function archiveIssue(ctx: TwinContext, actor: User, id: string, archived: boolean): Issue {
  const issue = requireIssue(ctx, id);
  const now = ctx.clock.now().toISOString();
  issue.archivedAt = archived ? now : null;
  issue.updatedAt = now;
  ctx.store.put('issue', issue.id, issue);
  notify(ctx, issue, archived ? 'remove' : 'update', actor);
  return issue;
}

/** Delete an issue (Linear moves it to the trash: archived, `trashed`), its sub-issues with it. */
export function deleteIssue(ctx: TwinContext, actor: User, id: string): Issue {
  const issue = requireIssue(ctx, id);
  for (const child of ctx.store.list<Issue>('issue').filter((i) => i.parentId === issue.id)) deleteIssue(ctx, actor, child.id);
  const now = ctx.clock.now().toISOString();
  issue.archivedAt = now;
  issue.trashed = true;
  issue.updatedAt = now;
  ctx.store.put('issue', issue.id, issue);
  notify(ctx, issue, 'remove', actor);
  return issue;
}

/** Issues of the team(s) whose state is not finished (for cycle roll-over). */
export function isOpen(ctx: TwinContext, issue: Issue): boolean {
  const state = ctx.store.get<WorkflowState>('workflow_state', issue.stateId);
  return !!state && state.type !== 'completed' && state.type !== 'canceled';
}

/** Move an issue into another cycle (roll-over at a cycle's end) and tell the webhooks. */
export function moveToCycle(ctx: TwinContext, issue: Issue, cycleId: string | null): void {
  const from = issue.cycleId;
  issue.cycleId = cycleId;
  issue.updatedAt = ctx.clock.now().toISOString();
  ctx.store.put('issue', issue.id, issue);
  emitWebhook(ctx, {
    type: 'Issue',
    action: 'update',
    data: issueWebhookData(ctx, issue),
    url: issueUrl(ctx, issue),
    teamIds: [issue.teamId],
    updatedFrom: { cycleId: from },
  });
}
