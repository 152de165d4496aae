// Seed vocabulary and suggested starting states of the Linear twin, and how a plan becomes Linear
// objects: through the twin's own GraphQL API, as the key's user would — create (or reuse) the
// team, its issues (in the asked workflow state, priority, with labels), sub-issues and comments,
// projects with their issues, and cycles. Slack-style: people come from the starting workspace.

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';

export const suggestions: SeedSuggestion[] = [
  { name: 'Engineering backlog', prompt: 'A team named Platform with 20 issues, 5 of them in progress, 4 of them done, and 3 of them urgent' },
  { name: 'Bugs with discussion', prompt: '8 issues labeled Bug, each with 3 comments' },
  { name: 'Epic with sub-issues', prompt: '3 issues each with 4 sub-issues' },
  { name: 'Project roadmap', prompt: '2 projects each with 6 issues' },
  { name: 'Sprint in flight', prompt: 'A cycle with 10 issues, 4 of them done, and 2 of them in progress' },
];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    team: ['team', 'teams'],
    issue: ['issue', 'issues', 'ticket', 'tickets', 'task', 'tasks'],
    sub_issue: ['sub-issue', 'sub-issues', 'subissue', 'subissues', 'sub issue', 'sub issues', 'subtask', 'subtasks'],
    comment: ['comment', 'comments'],
    project: ['project', 'projects'],
    cycle: ['cycle', 'cycles', 'sprint', 'sprints'],
  },
  states: {
    backlog: ['in backlog', 'in the backlog', 'backlog'],
    todo: ['todo', 'to do', 'to-do'],
    in_progress: ['in progress', 'in-progress', 'started'],
    in_review: ['in review'],
    done: ['done', 'completed', 'closed'],
    canceled: ['canceled', 'cancelled'],
    urgent: ['urgent'],
    high: ['high priority', 'high-priority'],
    unassigned: ['unassigned'],
    assigned: ['assigned'],
  },
  stateResources: {
    backlog: ['issue', 'sub_issue'],
    todo: ['issue', 'sub_issue'],
    in_progress: ['issue', 'sub_issue'],
    in_review: ['issue', 'sub_issue'],
    done: ['issue', 'sub_issue'],
    canceled: ['issue', 'sub_issue'],
    urgent: ['issue', 'sub_issue'],
    high: ['issue', 'sub_issue'],
    unassigned: ['issue', 'sub_issue'],
    assigned: ['issue', 'sub_issue'],
  },
  phrases: [{ pattern: /\b(?:labell?ed|tagged)\s+([a-z0-9][a-z0-9 _.-]*?)(?=,|$|\s+(?:and|with|each)\b)/, attribute: 'label', value: (g) => g[1]!.trim() }],
  ownedBy: { issue: 'team', sub_issue: 'issue', comment: 'issue' },
  fillers: ['linear', 'each', 'are', 'is', 'an', 'of'],
};

const STATE_NAMES: Record<string, string> = {
  backlog: 'Backlog',
  todo: 'Todo',
  in_progress: 'In Progress',
  in_review: 'In Review',
  done: 'Done',
  canceled: 'Canceled',
};

interface TeamInfo {
  id: string;
  states: Map<string, string>;
}

class LinearSeedSession {
  private people: string[] = [];
  private teams = new Map<string, TeamInfo>();
  private defaultTeam!: TeamInfo;
  private labels = new Map<string, string>();

  constructor(private readonly ctx: SeedExpansionContext) {}

  // biome-ignore lint/suspicious/noExplicitAny: the `data` of a GraphQL answer, shaped by the query the caller wrote
  private async gql(query: string, variables: Record<string, unknown> = {}): Promise<any> {
    const res = await this.ctx.api.call('POST', '/graphql', { query, variables }, { encoding: 'json' });
    if (res.body?.errors)
      throw new SeedExpansionError(`The Linear twin refused: ${res.body.errors[0]?.extensions?.userPresentableMessage ?? res.body.errors[0]?.message}.`);
    return res.body.data;
  }

  private async teamInfo(id: string): Promise<TeamInfo> {
    const data = await this.gql('query($id: String!) { team(id: $id) { id states { nodes { id name } } } }', { id });
    return { id, states: new Map((data.team.states.nodes as { id: string; name: string }[]).map((s) => [s.name, s.id])) };
  }

  async start(): Promise<void> {
    const data = await this.gql('{ users { nodes { id } } teams { nodes { id key name } } issueLabels { nodes { id name } } }');
    this.people = (data.users.nodes as { id: string }[]).map((u) => u.id);
    for (const t of data.teams.nodes as { id: string; name: string }[]) this.teams.set(t.name.toLowerCase(), await this.teamInfo(t.id));
    for (const l of data.issueLabels.nodes as { id: string; name: string }[]) this.labels.set(l.name.toLowerCase(), l.id);
    this.defaultTeam = this.teams.values().next().value!;
  }

  async team(e: SeedEntity): Promise<void> {
    const v = this.ctx.values;
    const name = e.attributes.name ?? `${v.pick(e.key, 'team.name', v.builtInPool('word'))} team`;
    let info = this.teams.get(name.toLowerCase());
    if (!info) {
      const key =
        (name
          .replace(/[^A-Za-z]/g, '')
          .slice(0, 3)
          .toUpperCase() || 'TM') + (this.teams.size > 0 ? String(this.teams.size) : '');
      const data = await this.gql('mutation($input: TeamCreateInput!) { teamCreate(input: $input) { team { id } } }', { input: { name, key } });
      info = await this.teamInfo(data.teamCreate.team.id as string);
      this.teams.set(name.toLowerCase(), info);
    }
    for (const c of e.children) await this.issue(info, c, {});
  }

  private async label(name: string, team: TeamInfo): Promise<string> {
    const known = this.labels.get(name.toLowerCase());
    if (known) return known;
    const data = await this.gql('mutation($input: IssueLabelCreateInput!) { issueLabelCreate(input: $input) { issueLabel { id } } }', {
      input: { name, teamId: team.id },
    });
    this.labels.set(name.toLowerCase(), data.issueLabelCreate.issueLabel.id as string);
    return data.issueLabelCreate.issueLabel.id as string;
  }

  async issue(team: TeamInfo, e: SeedEntity, extra: { parentId?: string; projectId?: string; cycleId?: string }): Promise<void> {
    const v = this.ctx.values;
    await this.ctx.api.advanceBy(v.int(e.key, 'delay', 60, 3600) * 1000);
    const title = e.attributes.name ?? v.pick(e.key, 'issue.title', v.builtInPool('sentence')).replace(/\.$/, '');
    const input: Record<string, unknown> = { teamId: team.id, title, description: v.pick(e.key, 'issue.description', v.builtInPool('sentence')), ...extra };
    const state = e.states.find((s) => STATE_NAMES[s]);
    if (state) input.stateId = team.states.get(STATE_NAMES[state]!);
    // Urgent (1) and High (2) only where the prompt asks for them, so counts of them hold.
    input.priority = e.states.includes('urgent') ? 1 : e.states.includes('high') ? 2 : [0, 3, 4][v.int(e.key, 'priority', 0, 2)];
    if (!e.states.includes('unassigned') && this.people.length > 0 && (e.states.includes('assigned') || v.int(e.key, 'assigned', 0, 3) > 0)) {
      input.assigneeId = this.people[v.number(e.key, 'assignee') % this.people.length];
    }
    input.estimate = [1, 2, 3, 5, 8][v.int(e.key, 'estimate', 0, 4)];
    if (e.attributes.label) input.labelIds = [await this.label(e.attributes.label, team)];
    const data = await this.gql('mutation($input: IssueCreateInput!) { issueCreate(input: $input) { issue { id } } }', { input });
    const id = data.issueCreate.issue.id as string;
    for (const c of e.children) {
      if (c.resource === 'sub_issue') await this.issue(team, c, { parentId: id, ...(extra.projectId ? { projectId: extra.projectId } : {}) });
      else if (c.resource === 'comment') {
        await this.ctx.api.advanceBy(v.int(c.key, 'delay', 60, 1800) * 1000);
        await this.gql('mutation($input: CommentCreateInput!) { commentCreate(input: $input) { comment { id } } }', {
          input: { issueId: id, body: v.pick(c.key, 'comment.body', v.builtInPool('sentence')) },
        });
      } else throw new SeedExpansionError(`A Linear issue holds sub-issues and comments, not ${c.resource} records.`);
    }
  }

  /** An issue named without a team: it goes to the workspace's first team. */
  async looseIssue(e: SeedEntity): Promise<void> {
    await this.issue(this.defaultTeam, e, {});
  }

  async project(e: SeedEntity): Promise<void> {
    const v = this.ctx.values;
    const name =
      e.attributes.name ??
      `${v.pick(e.key, 'project.name', v.builtInPool('word'))} ${v.pick(e.key, 'project.suffix', ['launch', 'migration', 'revamp', 'beta', 'cleanup'])}`;
    const data = await this.gql('mutation($input: ProjectCreateInput!) { projectCreate(input: $input) { project { id } } }', {
      input: { name, teamIds: [this.defaultTeam.id], leadId: this.people[v.number(e.key, 'lead') % Math.max(1, this.people.length)] },
    });
    for (const c of e.children) await this.issue(this.defaultTeam, c, { projectId: data.projectCreate.project.id as string });
  }

  async cycle(e: SeedEntity, index: number): Promise<void> {
    const now = this.ctx.api.clock.nowMs();
    const day = 86_400_000;
    const startsAt = new Date(now - day + index * 14 * day).toISOString();
    const endsAt = new Date(now + 13 * day + index * 14 * day).toISOString();
    const data = await this.gql('mutation($input: CycleCreateInput!) { cycleCreate(input: $input) { cycle { id } } }', {
      input: { teamId: this.defaultTeam.id, startsAt, endsAt, ...(e.attributes.name ? { name: e.attributes.name } : {}) },
    });
    for (const c of e.children) await this.issue(this.defaultTeam, c, { cycleId: data.cycleCreate.cycle.id as string });
  }
}

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  const session = new LinearSeedSession(ctx);
  await session.start();
  let cycles = 0;
  for (const e of entities) {
    if (e.resource === 'team') await session.team(e);
    else if (e.resource === 'project') await session.project(e);
    else if (e.resource === 'cycle') await session.cycle(e, cycles++);
    else if (e.resource === 'issue') await session.looseIssue(e);
    else throw new SeedExpansionError(`Linear ${e.resource} records belong to an issue; say which ("an issue with 3 comments").`);
  }
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'json', expand };
