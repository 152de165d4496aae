// The starting workspace: one organization, the key's user and three teammates, a team `ENG`
// ("Engineering") with Linear's default workflow (Backlog, Todo, In Progress, In Review, Done,
// Canceled, Duplicate) and default labels (Bug, Feature, Improvement). Made on the first request
// into an empty store, with deterministic ids.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { stamps, uuid, type IssueLabel, type Organization, type StateType, type Team, type User, type WorkflowState } from './records.js';

const PEOPLE = [
  { name: 'Ada Lovelace', displayName: 'ada', admin: true, viewer: true },
  { name: 'Grace Hopper', displayName: 'grace', admin: true },
  { name: 'Alan Turing', displayName: 'alan', admin: false },
  { name: 'Katherine Johnson', displayName: 'katherine', admin: false },
];

export const DEFAULT_STATES: { name: string; type: StateType; color: string }[] = [
  { name: 'Backlog', type: 'backlog', color: '#bec2c8' },
  { name: 'Todo', type: 'unstarted', color: '#e2e2e2' },
  { name: 'In Progress', type: 'started', color: '#f2c94c' },
  { name: 'In Review', type: 'started', color: '#0f783c' },
  { name: 'Done', type: 'completed', color: '#5e6ad2' },
  { name: 'Canceled', type: 'canceled', color: '#95a2b3' },
  { name: 'Duplicate', type: 'canceled', color: '#95a2b3' },
];

const DEFAULT_LABELS = [
  { name: 'Bug', color: '#eb5757' },
  { name: 'Feature', color: '#bb87fc' },
  { name: 'Improvement', color: '#4ea7fc' },
];

export function organization(ctx: TwinContext): Organization {
  const org = ctx.store.list<Organization>('organization')[0];
  if (!org) throw new Error('the Linear workspace is not initialised');
  return org;
}

export function viewer(ctx: TwinContext): User {
  const users = ctx.store.list<User>('user');
  return users.find((u) => u.viewer) ?? users[0]!;
}

/** A team with its default workflow states and labels (also used by `teamCreate`). */
export function createTeamRecords(ctx: TwinContext, input: { name: string; key: string; description?: string | null; memberIds: string[] }): Team {
  const team: Team = {
    id: uuid(ctx),
    ...stamps(ctx),
    name: input.name,
    key: input.key,
    description: input.description ?? null,
    cyclesEnabled: true,
    issueEstimationType: 'fibonacci',
    memberIds: input.memberIds,
    private: false,
  };
  ctx.store.put('team', team.id, team);
  DEFAULT_STATES.forEach((s, i) => {
    const state: WorkflowState = { id: uuid(ctx), ...stamps(ctx), ...s, position: i, description: null, teamId: team.id };
    ctx.store.put('workflow_state', state.id, state);
  });
  return team;
}

export function ensureWorkspace(ctx: TwinContext): void {
  if (ctx.store.count('organization') > 0) return;
  const org: Organization = { id: uuid(ctx), ...stamps(ctx), name: 'Twin Works', urlKey: 'twin-works' };
  ctx.store.put('organization', org.id, org);
  const ids: string[] = [];
  for (const p of PEOPLE) {
    const user: User = {
      id: uuid(ctx),
      ...stamps(ctx),
      name: p.name,
      displayName: p.displayName,
      email: `${p.displayName}@example.com`,
      active: true,
      admin: p.admin,
      guest: false,
      ...(p.viewer ? { viewer: true } : {}),
    };
    ctx.store.put('user', user.id, user);
    ids.push(user.id);
  }
  createTeamRecords(ctx, { name: 'Engineering', key: 'ENG', memberIds: ids });
  for (const l of DEFAULT_LABELS) {
    const label: IssueLabel = { id: uuid(ctx), ...stamps(ctx), ...l, description: null, teamId: null, isGroup: false };
    ctx.store.put('issue_label', label.id, label);
  }
}
