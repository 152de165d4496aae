// Seed vocabulary and suggested starting states of the Jira twin, and how a plan becomes Jira
// objects: through the twin's own REST API, as the token's user would — create (or reuse) the
// project, its issues of the asked type (with ADF descriptions, labels, priorities, assignees),
// move them through the workflow, add sub-tasks and comments.

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';

export const suggestions: SeedSuggestion[] = [
  { name: 'Team backlog', prompt: 'A project named Payments with 25 issues, 6 of them in progress and 8 of them done' },
  { name: 'Bug triage', prompt: '10 bugs labeled regression, each with 2 comments' },
  { name: 'Stories with sub-tasks', prompt: '4 stories each with 3 subtasks' },
  { name: 'Two projects', prompt: '2 projects each with 8 issues' },
  { name: 'Urgent and unassigned', prompt: '12 issues, 4 of them highest priority and 5 of them unassigned' },
];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    project: ['project', 'projects'],
    issue: ['issue', 'issues', 'ticket', 'tickets', 'task', 'tasks'],
    bug: ['bug', 'bugs'],
    story: ['story', 'stories', 'user story', 'user stories'],
    subtask: ['subtask', 'subtasks', 'sub-task', 'sub-tasks'],
    comment: ['comment', 'comments'],
  },
  states: {
    todo: ['to do', 'todo', 'open'],
    in_progress: ['in progress', 'in-progress', 'started'],
    done: ['done', 'closed', 'resolved'],
    highest: ['highest priority', 'urgent', 'critical'],
    high: ['high priority'],
    unassigned: ['unassigned'],
  },
  stateResources: Object.fromEntries(['todo', 'in_progress', 'done', 'highest', 'high', 'unassigned'].map((s) => [s, ['issue', 'bug', 'story', 'subtask']])),
  phrases: [{ pattern: /\b(?:labell?ed|tagged)\s+([a-z0-9][a-z0-9_.-]*)/, attribute: 'label', value: (g) => g[1]! }],
  ownedBy: { issue: 'project', bug: 'project', story: 'project', subtask: 'issue', comment: 'issue' },
  fillers: ['jira', 'each', 'are', 'is', 'an', 'of'],
};

const TYPE = { issue: 'Task', bug: 'Bug', story: 'Story', subtask: 'Subtask' } as Record<string, string>;
const TRANSITION: Record<string, string> = { in_progress: '21', done: '31' };

class JiraSeedSession {
  private people: string[] = [];
  private projects = new Set<string>();
  constructor(private readonly ctx: SeedExpansionContext) {}

  async start(): Promise<void> {
    this.people = ((await this.ctx.api.call('GET', '/rest/api/3/users/search')).body as { accountId: string }[]).map((u) => u.accountId);
    for (const p of (await this.ctx.api.call('GET', '/rest/api/3/project')).body as { key: string }[]) this.projects.add(p.key);
  }

  async project(e: SeedEntity): Promise<string> {
    const v = this.ctx.values;
    const name = e.attributes.name ?? `${v.pick(e.key, 'project.name', v.builtInPool('word'))} project`;
    let key =
      name
        .replace(/[^A-Za-z]/g, '')
        .slice(0, 4)
        .toUpperCase() || 'PRJ';
    for (let i = 2; this.projects.has(key); i++) key = `${key.slice(0, 4)}${i}`;
    await this.ctx.api.call('POST', '/rest/api/3/project', { key, name, projectTypeKey: 'software' });
    this.projects.add(key);
    for (const c of e.children) await this.issue(key, c);
    return key;
  }

  async issue(project: string, e: SeedEntity, parent?: string): Promise<void> {
    const v = this.ctx.values;
    const type = TYPE[e.resource];
    if (!type) throw new SeedExpansionError(`A Jira project holds issues, bugs, stories and sub-tasks, not ${e.resource} records.`);
    await this.ctx.api.advanceBy(v.int(e.key, 'delay', 60, 3600) * 1000);
    const text = v.pick(e.key, 'issue.description', v.builtInPool('sentence'));
    const fields: Record<string, unknown> = {
      project: { key: project },
      issuetype: { name: type },
      summary: e.attributes.name ?? v.pick(e.key, 'issue.summary', v.builtInPool('sentence')).replace(/\.$/, ''),
      description: { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] },
      priority: { id: e.states.includes('highest') ? '1' : e.states.includes('high') ? '2' : String(v.int(e.key, 'priority', 2, 5)) },
    };
    if (parent) fields.parent = { key: parent };
    if (!e.states.includes('unassigned') && this.people.length > 0)
      fields.assignee = { accountId: this.people[v.number(e.key, 'assignee') % this.people.length] };
    if (e.attributes.label) fields.labels = [e.attributes.label.replace(/\s+/g, '-')];
    const created = (await this.ctx.api.call('POST', '/rest/api/3/issue', { fields })).body as { key: string };
    const state = e.states.find((s) => TRANSITION[s]);
    if (state) await this.ctx.api.call('POST', `/rest/api/3/issue/${created.key}/transitions`, { transition: { id: TRANSITION[state] } });
    for (const c of e.children) {
      if (c.resource === 'comment') {
        await this.ctx.api.advanceBy(v.int(c.key, 'delay', 60, 1800) * 1000);
        const body = v.pick(c.key, 'comment.body', v.builtInPool('sentence'));
        await this.ctx.api.call('POST', `/rest/api/3/issue/${created.key}/comment`, {
          body: { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: body }] }] },
        });
      } else if (c.resource === 'subtask') await this.issue(project, c, created.key);
      else throw new SeedExpansionError(`A Jira issue holds sub-tasks and comments, not ${c.resource} records.`);
    }
  }
}

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  const session = new JiraSeedSession(ctx);
  await session.start();
  for (const e of entities) {
    if (e.resource === 'project') await session.project(e);
    else if (e.resource === 'comment' || e.resource === 'subtask')
      throw new SeedExpansionError(`Jira ${e.resource} records belong to an issue ("a story with 3 subtasks").`);
    else await session.issue('DEMO', e);
  }
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'json', expand };
