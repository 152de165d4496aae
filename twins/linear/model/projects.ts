// Projects (across teams, with a lead and a state: backlog, planned, started, paused, completed,
// canceled) and cycles (numbered per team, with a start and an end). When the environment clock
// passes a cycle's end the cycle completes and its unfinished issues roll over to the team's next
// cycle, as Linear does.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidInput, notFound } from '../wire/errors.js';
import { isOpen, moveToCycle } from './issues.js';
import { stamps, uuid, type Cycle, type Issue, type Project, type User } from './records.js';
import { emitWebhook } from './webhooks.js';
import { organization } from './workspace.js';

export const PROJECT_STATES = ['backlog', 'planned', 'started', 'paused', 'completed', 'canceled'];

export interface ProjectInput {
  name?: string;
  description?: string | null;
  content?: string | null;
  teamIds?: string[];
  leadId?: string | null;
  memberIds?: string[];
  state?: string | null;
  priority?: number | null;
  startDate?: string | null;
  targetDate?: string | null;
  color?: string | null;
}

export function projectUrl(ctx: TwinContext, p: Project): string {
  return `https://linear.app/${organization(ctx).urlKey}/project/${p.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}-${p.id.slice(-12)}`;
}

function checkProject(ctx: TwinContext, input: ProjectInput): void {
  for (const t of input.teamIds ?? []) if (!ctx.store.has('team', t)) throw notFound('Team');
  if (input.leadId && !ctx.store.has('user', input.leadId)) throw notFound('User');
  if (input.state && !PROJECT_STATES.includes(input.state)) throw invalidInput(`state must be one of ${PROJECT_STATES.join(', ')}`);
}

function stateTimes(p: Project, now: string): void {
  if (p.state === 'started' && !p.startedAt) p.startedAt = now;
  p.completedAt = p.state === 'completed' ? (p.completedAt ?? now) : null;
  p.canceledAt = p.state === 'canceled' ? (p.canceledAt ?? now) : null;
}

export function createProject(ctx: TwinContext, actor: User, input: ProjectInput): Project {
  if (!input.name || input.name.trim() === '') throw invalidInput('name should not be empty');
  if (!input.teamIds || input.teamIds.length === 0) throw invalidInput('teamIds should not be empty');
  checkProject(ctx, input);
  const p: Project = {
    id: uuid(ctx),
    ...stamps(ctx),
    name: input.name,
    description: input.description ?? '',
    content: input.content ?? null,
    color: input.color ?? '#bec2c8',
    state: input.state ?? 'backlog',
    priority: input.priority ?? 0,
    teamIds: input.teamIds,
    leadId: input.leadId ?? null,
    memberIds: input.memberIds ?? [],
    startDate: input.startDate ?? null,
    targetDate: input.targetDate ?? null,
    startedAt: null,
    completedAt: null,
    canceledAt: null,
    sortOrder: ctx.store.count('project') * 1000,
  };
  stateTimes(p, p.createdAt);
  ctx.store.put('project', p.id, p);
  emitWebhook(ctx, { type: 'Project', action: 'create', data: { ...p }, url: projectUrl(ctx, p), teamIds: p.teamIds, actor });
  return p;
}

export function updateProject(ctx: TwinContext, actor: User, id: string, input: ProjectInput): Project {
  const p = ctx.store.get<Project>('project', id);
  if (!p) throw notFound('Project');
  checkProject(ctx, input);
  const before = { ...p };
  for (const k of ['name', 'description', 'content', 'teamIds', 'leadId', 'memberIds', 'state', 'priority', 'startDate', 'targetDate', 'color'] as const) {
    if (input[k] !== undefined && input[k] !== null) (p as Record<string, unknown>)[k] = input[k];
  }
  const now = ctx.clock.now().toISOString();
  stateTimes(p, now);
  p.updatedAt = now;
  ctx.store.put('project', p.id, p);
  const updatedFrom: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p))
    if (JSON.stringify((before as Record<string, unknown>)[k]) !== JSON.stringify(v)) updatedFrom[k] = (before as Record<string, unknown>)[k];
  emitWebhook(ctx, { type: 'Project', action: 'update', data: { ...p }, url: projectUrl(ctx, p), teamIds: p.teamIds, actor, updatedFrom });
  return p;
}

export function createCycle(
  ctx: TwinContext,
  actor: User,
  input: { teamId?: string; name?: string | null; description?: string | null; startsAt?: string; endsAt?: string },
): Cycle {
  if (!input.teamId || !ctx.store.has('team', input.teamId)) throw notFound('Team');
  const starts = Date.parse(input.startsAt ?? '');
  const ends = Date.parse(input.endsAt ?? '');
  if (!Number.isFinite(starts) || !Number.isFinite(ends)) throw invalidInput('startsAt and endsAt must be dates');
  if (ends <= starts) throw invalidInput('endsAt must be after startsAt');
  const number = ctx.ids.sequence(`cycle:${input.teamId}`);
  const c: Cycle = {
    id: uuid(ctx),
    ...stamps(ctx),
    number,
    name: input.name ?? null,
    description: input.description ?? null,
    startsAt: new Date(starts).toISOString(),
    endsAt: new Date(ends).toISOString(),
    completedAt: null,
    teamId: input.teamId,
  };
  ctx.store.put('cycle', c.id, c);
  emitWebhook(ctx, { type: 'Cycle', action: 'create', data: { ...c }, url: '', teamIds: [c.teamId], actor });
  return c;
}

/** Cycle progress (0…1): the share of its issues' estimate (or count) that is completed. */
export function cycleProgress(ctx: TwinContext, cycle: Cycle): number {
  const issues = ctx.store.list<Issue>('issue').filter((i) => i.cycleId === cycle.id && !i.archivedAt);
  if (issues.length === 0) return 0;
  const done = issues.filter((i) => !isOpen(ctx, i)).length;
  return done / issues.length;
}

/** Complete every cycle that ends by `to` (earliest first), rolling unfinished issues over. */
export function completeDueCycles(ctx: TwinContext, to: Date): void {
  const due = ctx.store
    .list<Cycle>('cycle')
    .filter((c) => !c.completedAt && Date.parse(c.endsAt) <= to.getTime())
    .sort((a, b) => a.endsAt.localeCompare(b.endsAt));
  for (const cycle of due) {
    ctx.clock.advanceTo(new Date(cycle.endsAt));
    cycle.completedAt = cycle.endsAt;
    cycle.updatedAt = cycle.endsAt;
    ctx.store.put('cycle', cycle.id, cycle);
    const next = ctx.store
      .list<Cycle>('cycle')
      .filter((c) => c.teamId === cycle.teamId && !c.completedAt && c.startsAt >= cycle.endsAt)
      .sort((a, b) => a.startsAt.localeCompare(b.startsAt))[0];
    for (const issue of ctx.store.list<Issue>('issue').filter((i) => i.cycleId === cycle.id && isOpen(ctx, i))) {
      moveToCycle(ctx, issue, next?.id ?? null);
    }
    emitWebhook(ctx, { type: 'Cycle', action: 'update', data: { ...cycle }, url: '', teamIds: [cycle.teamId], updatedFrom: { completedAt: null } });
  }
}

/** A project archived (or, deleting it, trashed too) or brought back, as issues are. */
export function archiveProject(ctx: TwinContext, actor: User, id: string, how: 'archive' | 'trash' | 'restore'): Project {
  const p = ctx.store.get<Project>('project', id);
  if (!p) throw notFound('Project');
  const now = ctx.clock.now().toISOString();
  const next: Project = { ...p, archivedAt: how === 'restore' ? null : now, updatedAt: now };
  if (how === 'trash') next.trashed = true;
  else if (how === 'restore') delete next.trashed;
  ctx.store.put('project', p.id, next);
  emitWebhook(ctx, {
    type: 'Project',
    action: how === 'restore' ? 'update' : 'remove',
    data: { ...next },
    url: projectUrl(ctx, next),
    teamIds: next.teamIds,
    actor,
  });
  return next;
}

export function updateCycle(
  ctx: TwinContext,
  actor: User,
  id: string,
  input: { name?: string | null; description?: string | null; startsAt?: string | null; endsAt?: string | null; completedAt?: string | null },
): Cycle {
  const c = ctx.store.get<Cycle>('cycle', id);
  if (!c) throw notFound('Cycle');
  const date = (v: string | null | undefined, current: string) => {
    if (v === undefined || v === null) return current;
    const ms = Date.parse(v);
    if (!Number.isFinite(ms)) throw invalidInput('startsAt and endsAt must be dates');
    return new Date(ms).toISOString();
  };
  const next: Cycle = {
    ...c,
    name: input.name === undefined ? c.name : input.name,
    description: input.description === undefined ? c.description : input.description,
    startsAt: date(input.startsAt, c.startsAt),
    endsAt: date(input.endsAt, c.endsAt),
    completedAt: input.completedAt === undefined ? c.completedAt : input.completedAt === null ? null : date(input.completedAt, c.endsAt),
    updatedAt: ctx.clock.now().toISOString(),
  };
  if (Date.parse(next.endsAt) <= Date.parse(next.startsAt)) throw invalidInput('endsAt must be after startsAt');
  ctx.store.put('cycle', c.id, next);
  emitWebhook(ctx, { type: 'Cycle', action: 'update', data: { ...next }, url: '', teamIds: [next.teamId], actor });
  return next;
}
