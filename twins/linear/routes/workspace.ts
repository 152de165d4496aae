// Organization, users, teams and workflow states: the `viewer`, `organization`, `users`/`user`,
// `teams`/`team`, `workflowStates`/`workflowState` queries, `teamCreate`, `workflowStateCreate`/
// `Update`/`Archive`, and their relations.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidInput, notFound } from '../wire/errors.js';
import type { Rec, TypeModels } from '../wire/types.js';
import { createTeamRecords, organization, viewer } from '../model/workspace.js';
import { defaultState, teamStates } from '../model/issues.js';
import { archiveState, createState, updateState, type StateInput } from '../model/states.js';
import type { Cycle, Team, User } from '../model/records.js';
import { actor, all, byId, input, payload, related, str } from './common.js';

function findTeam(ctx: TwinContext, idOrKey: string): Team {
  const team = ctx.store.get<Team>('team', idOrKey) ?? ctx.store.list<Team>('team').find((t) => t.key.toLowerCase() === idOrKey.toLowerCase());
  if (!team) throw notFound('Team');
  return team;
}

const initials = (name: string) =>
  name
    .split(/\s+/)
    .map((w) => w[0] ?? '')
    .join('')
    .slice(0, 2)
    .toUpperCase();

export const workspaceModels: TypeModels = {
  Query: {
    computed: {
      viewer: (_r, _a, ctx) => viewer(ctx),
      organization: (_r, _a, ctx) => organization(ctx),
      user: (_r, a, ctx) => byId(ctx, 'user', 'User', str(a, 'id')),
      team: (_r, a, ctx) => findTeam(ctx, str(a, 'id')),
      workflowState: (_r, a, ctx) => byId(ctx, 'workflow_state', 'WorkflowState', str(a, 'id')),
    },
    many: {
      users: (_r, ctx, a) => all(ctx, 'user').filter((u) => a.includeDisabled === true || u.active !== false),
      teams: (_r, ctx) => all(ctx, 'team'),
      workflowStates: (_r, ctx) => all(ctx, 'workflow_state'),
    },
  },
  Mutation: {
    computed: {
      workflowStateCreate: (_r, a, ctx) => payload(ctx, { workflowState: createState(ctx, input<StateInput>(a)) }),
      workflowStateUpdate: (_r, a, ctx) => payload(ctx, { workflowState: updateState(ctx, str(a, 'id'), input<StateInput>(a)) }),
      workflowStateArchive: (_r, a, ctx) => payload(ctx, { entity: archiveState(ctx, str(a, 'id')) }),
      teamCreate: (_r, a, ctx) => {
        const i = input<{ name?: string; key?: string; description?: string | null }>(a);
        if (!i.name || i.name.trim() === '') throw invalidInput('name should not be empty');
        const key = (i.key ?? i.name.replace(/[^A-Za-z]/g, '').slice(0, 3)).toUpperCase();
        if (!/^[A-Z0-9]{1,7}$/.test(key)) throw invalidInput('key must be 1 to 7 letters or digits');
        if (ctx.store.list<Team>('team').some((t) => t.key === key)) throw invalidInput('Key is already in use');
        const team = createTeamRecords(ctx, { name: i.name, key, description: i.description ?? null, memberIds: [actor(ctx).id] });
        return payload(ctx, { team });
      },
    },
  },
  Organization: {
    computed: { userCount: (_r, _a, ctx) => ctx.store.count('user'), createdIssueCount: (_r, _a, ctx) => ctx.store.count('issue') },
    many: {
      users: (_r, ctx) => all(ctx, 'user'),
      teams: (_r, ctx) => all(ctx, 'team'),
      labels: (_r, ctx) => all(ctx, 'issue_label'),
    },
  },
  User: {
    computed: {
      isMe: (u, _a, ctx) => u.id === viewer(ctx).id,
      url: (u, _a, ctx) => `https://linear.app/${organization(ctx).urlKey}/profiles/${String(u.displayName)}`,
      initials: (u) => initials(String(u.name)),
      avatarUrl: () => null,
    },
    one: { organization: (_u, ctx) => organization(ctx) },
    many: {
      assignedIssues: (u, ctx) => all(ctx, 'issue').filter((i) => i.assigneeId === u.id),
      createdIssues: (u, ctx) => all(ctx, 'issue').filter((i) => i.creatorId === u.id),
      teams: (u, ctx) => ctx.store.list<Team>('team').filter((t) => t.memberIds.includes(String(u.id))) as unknown as Rec[],
    },
  },
  Team: {
    computed: {
      issueCount: (t, _a, ctx) => all(ctx, 'issue').filter((i) => i.teamId === t.id && !i.archivedAt).length,
      displayName: (t) => t.name,
    },
    one: {
      organization: (_t, ctx) => organization(ctx),
      defaultIssueState: (t, ctx) => defaultState(ctx, String(t.id)) as unknown as Rec,
      activeCycle: (t, ctx) => {
        const now = ctx.clock.nowMs();
        const c = ctx.store
          .list<Cycle>('cycle')
          .find((c) => c.teamId === t.id && !c.completedAt && Date.parse(c.startsAt) <= now && now < Date.parse(c.endsAt));
        return (c as unknown as Rec) ?? null;
      },
    },
    many: {
      issues: (t, ctx) => all(ctx, 'issue').filter((i) => i.teamId === t.id),
      states: (t, ctx) => teamStates(ctx, String(t.id)) as unknown as Rec[],
      members: (t, ctx) => (t.memberIds as string[]).map((id) => ctx.store.get<User>('user', id)).filter(Boolean) as unknown as Rec[],
      labels: (t, ctx) => all(ctx, 'issue_label').filter((l) => l.teamId === null || l.teamId === t.id),
      projects: (t, ctx) => all(ctx, 'project').filter((p) => (p.teamIds as string[]).includes(String(t.id))),
      cycles: (t, ctx) => all(ctx, 'cycle').filter((c) => c.teamId === t.id),
    },
  },
  WorkflowState: {
    one: { team: (s, ctx) => related(ctx, 'team', s.teamId) },
    many: { issues: (s, ctx) => all(ctx, 'issue').filter((i) => i.stateId === s.id) },
  },
};
