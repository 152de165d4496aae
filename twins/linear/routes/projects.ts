// Projects and cycles over GraphQL: `projects`/`project`/`searchProjects`/`projectCreate`/`projectUpdate`,
// `projectArchive`/`projectUnarchive`/`projectDelete`, `cycles`/`cycle`/`cycleCreate`/`cycleUpdate`,
// and their relations.

import type { TypeModel, TypeModels } from '../wire/types.js';
import { archiveProject, createCycle, createProject, cycleProgress, projectUrl, updateCycle, updateProject } from '../model/projects.js';
import type { Cycle, Project } from '../model/records.js';
import { actor, all, byId, input, payload, related, str } from './common.js';

const projectModel: TypeModel = {
  computed: {
    url: (p, _a, ctx) => projectUrl(ctx, p as unknown as Project),
    slugId: (p) => String(p.id).slice(-12),
  },
  one: { lead: (p, ctx) => related(ctx, 'user', p.leadId) },
  many: {
    teams: (p, ctx) => all(ctx, 'team').filter((t) => (p.teamIds as string[]).includes(String(t.id))),
    members: (p, ctx) => all(ctx, 'user').filter((u) => (p.memberIds as string[]).includes(String(u.id))),
    issues: (p, ctx) => all(ctx, 'issue').filter((i) => i.projectId === p.id),
  },
};

export const projectModels: TypeModels = {
  Query: {
    computed: {
      project: (_r, a, ctx) => byId(ctx, 'project', 'Project', str(a, 'id')),
      cycle: (_r, a, ctx) => byId(ctx, 'cycle', 'Cycle', str(a, 'id')),
    },
    many: {
      projects: (_r, ctx) => all(ctx, 'project'),
      // Every word of the term in the project's name or description (case-insensitive), as Linear's search.
      searchProjects: (_r, ctx, a) => {
        const words = str(a, 'term').toLowerCase().split(/\s+/).filter(Boolean);
        const teamId = str(a, 'teamId');
        return all(ctx, 'project').filter((p) => {
          const hay = `${String(p.name)} ${String(p.description ?? '')}`.toLowerCase();
          return (teamId === '' || (p.teamIds as string[]).includes(teamId)) && words.every((w) => hay.includes(w));
        });
      },
      cycles: (_r, ctx) => all(ctx, 'cycle'),
    },
  },
  Mutation: {
    computed: {
      projectCreate: (_r, a, ctx) => payload(ctx, { project: createProject(ctx, actor(ctx), input(a)) }),
      projectUpdate: (_r, a, ctx) => payload(ctx, { project: updateProject(ctx, actor(ctx), str(a, 'id'), input(a)) }),
      cycleCreate: (_r, a, ctx) => payload(ctx, { cycle: createCycle(ctx, actor(ctx), input(a)) }),
      cycleUpdate: (_r, a, ctx) => payload(ctx, { cycle: updateCycle(ctx, actor(ctx), str(a, 'id'), input(a)) }),
      projectArchive: (_r, a, ctx) => payload(ctx, { entity: archiveProject(ctx, actor(ctx), str(a, 'id'), a.trash === true ? 'trash' : 'archive') }),
      projectDelete: (_r, a, ctx) => payload(ctx, { entity: archiveProject(ctx, actor(ctx), str(a, 'id'), 'trash') }),
      projectUnarchive: (_r, a, ctx) => payload(ctx, { entity: archiveProject(ctx, actor(ctx), str(a, 'id'), 'restore') }),
    },
  },
  Project: projectModel,
  ProjectSearchResult: projectModel,
  Cycle: {
    computed: {
      progress: (c, _a, ctx) => cycleProgress(ctx, c as unknown as Cycle),
      isActive: (c, _a, ctx) => !c.completedAt && Date.parse(String(c.startsAt)) <= ctx.clock.nowMs() && ctx.clock.nowMs() < Date.parse(String(c.endsAt)),
      isPast: (c, _a, ctx) => Date.parse(String(c.endsAt)) <= ctx.clock.nowMs(),
      isFuture: (c, _a, ctx) => Date.parse(String(c.startsAt)) > ctx.clock.nowMs(),
      isNext: () => false,
      isPrevious: () => false,
    },
    one: { team: (c, ctx) => related(ctx, 'team', c.teamId) },
    many: { issues: (c, ctx) => all(ctx, 'issue').filter((i) => i.cycleId === c.id) },
  },
};
