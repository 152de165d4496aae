// A team's workflow states: added (of one of Linear's six types, names unique in the team, placed
// last unless told), renamed, recoloured or moved, archived when no issue is in them and the team
// keeps another state of the kind new issues start in.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidInput, notFound } from '../wire/errors.js';
import { teamStates } from './issues.js';
import { stamps, uuid, type Issue, type StateType, type WorkflowState } from './records.js';

const TYPES = new Set<StateType>(['triage', 'backlog', 'unstarted', 'started', 'completed', 'canceled']);
const COLOR = /^#[0-9a-fA-F]{6}$/;

export interface StateInput {
  id?: string | null;
  teamId?: string;
  name?: string | null;
  type?: string;
  color?: string | null;
  description?: string | null;
  position?: number | null;
}

function requireState(ctx: TwinContext, id: string): WorkflowState {
  const s = ctx.store.get<WorkflowState>('workflow_state', id);
  if (!s || s.archivedAt) throw notFound('WorkflowState');
  return s;
}

function checkedName(ctx: TwinContext, teamId: string, name: unknown, self?: string): string {
  if (typeof name !== 'string' || name.trim() === '') throw invalidInput('name should not be empty');
  if (teamStates(ctx, teamId).some((s) => s.id !== self && s.name.toLowerCase() === name.toLowerCase()))
    throw invalidInput('A workflow state with this name already exists in the team');
  return name;
}

function checkedColor(color: unknown): string {
  if (typeof color !== 'string' || !COLOR.test(color)) throw invalidInput('color must be a hexadecimal color');
  return color;
}

export function createState(ctx: TwinContext, input: StateInput): WorkflowState {
  const teamId = String(input.teamId ?? '');
  if (!ctx.store.has('team', teamId)) throw notFound('Team');
  if (!TYPES.has(input.type as StateType)) throw invalidInput('type must be one of triage, backlog, unstarted, started, completed, canceled');
  const states = teamStates(ctx, teamId);
  const state: WorkflowState = {
    id: input.id || uuid(ctx),
    ...stamps(ctx),
    name: checkedName(ctx, teamId, input.name),
    type: input.type as StateType,
    color: checkedColor(input.color),
    position: typeof input.position === 'number' ? input.position : Math.max(-1, ...states.map((s) => s.position)) + 1,
    description: input.description ?? null,
    teamId,
  };
  ctx.store.put('workflow_state', state.id, state);
  return state;
}

export function updateState(ctx: TwinContext, id: string, input: StateInput): WorkflowState {
  const s = requireState(ctx, id);
  const next: WorkflowState = {
    ...s,
    name: input.name === undefined || input.name === null ? s.name : checkedName(ctx, s.teamId, input.name, s.id),
    color: input.color === undefined || input.color === null ? s.color : checkedColor(input.color),
    description: input.description === undefined ? s.description : input.description,
    position: typeof input.position === 'number' ? input.position : s.position,
    updatedAt: ctx.clock.now().toISOString(),
  };
  ctx.store.put('workflow_state', s.id, next);
  return next;
}

export function archiveState(ctx: TwinContext, id: string): WorkflowState {
  const s = requireState(ctx, id);
  if (ctx.store.list<Issue>('issue').some((i) => i.stateId === s.id && !i.trashed)) throw invalidInput('Cannot archive a workflow state that has issues');
  const starts = (type: StateType) => type === 'backlog' || type === 'unstarted';
  if (starts(s.type) && !teamStates(ctx, s.teamId).some((o) => o.id !== s.id && starts(o.type)))
    throw invalidInput('A team needs a backlog or unstarted state for new issues');
  const now = ctx.clock.now().toISOString();
  const next = { ...s, archivedAt: now, updatedAt: now };
  ctx.store.put('workflow_state', s.id, next);
  return next;
}
