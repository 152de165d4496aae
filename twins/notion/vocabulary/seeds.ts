// Seed vocabulary and suggested starting states of the Notion twin, and how a plan becomes Notion
// objects: through the twin's own API, as the integration would — create (or reuse) a database,
// its pages (rows) with a Status, Tags and an assignee, their paragraphs and comments.

import { SeedExpansionError, type SeedEntity, type SeedExpansionContext, type SeedSuggestion, type TwinSeeding } from '../../../twin-runtime/seeding.js';
import { TASKS_SCHEMA } from '../model/starter.js';
import { LATEST_VERSION } from '../wire/version.js';

export const suggestions: SeedSuggestion[] = [
  { name: 'Roadmap', prompt: 'A database named Roadmap with 20 pages, 5 of them in progress and 7 of them done' },
  { name: 'Design review', prompt: '8 pages tagged design, each with 2 comments' },
  { name: 'Written pages', prompt: '6 pages each with 4 paragraphs' },
  { name: 'Two databases', prompt: '2 databases each with 5 pages' },
  { name: 'Cleanup', prompt: '12 pages, 3 of them archived and 4 of them done' },
];

const vocabulary: TwinSeeding['vocabulary'] = {
  nouns: {
    database: ['database', 'databases'],
    page: ['page', 'pages', 'row', 'rows', 'task', 'tasks', 'entry', 'entries'],
    paragraph: ['paragraph', 'paragraphs', 'block', 'blocks'],
    comment: ['comment', 'comments'],
  },
  states: {
    not_started: ['not started', 'to do', 'todo'],
    in_progress: ['in progress', 'in-progress', 'started'],
    done: ['done', 'complete', 'completed'],
    archived: ['archived', 'trashed', 'deleted'],
    unassigned: ['unassigned'],
  },
  stateResources: Object.fromEntries(['not_started', 'in_progress', 'done', 'archived', 'unassigned'].map((s) => [s, ['page']])),
  phrases: [{ pattern: /\b(?:tagged|labell?ed)\s+([a-z0-9][a-z0-9_.-]*)/, attribute: 'tag', value: (g) => g[1]! }],
  ownedBy: { page: 'database', paragraph: 'page', comment: 'page' },
  fillers: ['notion', 'each', 'are', 'is', 'an', 'of'],
};

const STATUS: Record<string, string> = { not_started: 'Not started', in_progress: 'In progress', done: 'Done' };
const HEADERS = { 'notion-version': LATEST_VERSION };

class NotionSeedSession {
  private people: string[] = [];
  private tasks = '';
  constructor(private readonly ctx: SeedExpansionContext) {}

  private call(method: string, path: string, body?: unknown) {
    return this.ctx.api.call(method, path, body, { encoding: 'json', headers: HEADERS });
  }

  async start(): Promise<void> {
    this.people = ((await this.call('GET', '/v1/users')).body.results as { id: string; type: string }[]).filter((u) => u.type === 'person').map((u) => u.id);
    const found = (await this.call('POST', '/v1/search', { query: 'Tasks', filter: { property: 'object', value: 'data_source' } })).body.results as {
      id: string;
      database_parent?: { page_id?: string };
    }[];
    if (!found[0]) throw new SeedExpansionError('The Notion twin has no Tasks database to seed into.');
    this.tasks = found[0].id;
    this.homeId = found[0].database_parent?.page_id ?? '';
  }

  private homeId = '';

  async database(e: SeedEntity): Promise<void> {
    const v = this.ctx.values;
    const name = e.attributes.name ?? `${v.pick(e.key, 'database.name', v.builtInPool('word'))} tracker`;
    const db = (
      await this.call('POST', '/v1/databases', {
        parent: { type: 'page_id', page_id: this.homeId },
        title: [{ text: { content: name } }],
        initial_data_source: { properties: TASKS_SCHEMA },
      })
    ).body;
    const ds = db.data_sources[0].id as string;
    for (const c of e.children) await this.page(ds, c);
  }

  async page(dataSource: string, e: SeedEntity): Promise<void> {
    const v = this.ctx.values;
    if (e.resource !== 'page') throw new SeedExpansionError(`A Notion database holds pages, not ${e.resource} records.`);
    await this.ctx.api.advanceBy(v.int(e.key, 'delay', 60, 3600) * 1000);
    const title = e.attributes.name ?? v.pick(e.key, 'page.title', v.builtInPool('sentence')).replace(/\.$/, '');
    const state = e.states.find((s) => STATUS[s]);
    const properties: Record<string, unknown> = {
      Name: { title: [{ text: { content: title } }] },
      Status: { status: { name: STATUS[state ?? 'not_started'] } },
      Estimate: { number: v.int(e.key, 'estimate', 1, 8) },
    };
    if (state === 'done') properties.Done = { checkbox: true };
    if (e.attributes.tag) properties.Tags = { multi_select: [{ name: e.attributes.tag.replace(/,/g, ' ') }] };
    if (!e.states.includes('unassigned') && this.people.length)
      properties.Assignee = { people: [{ id: this.people[v.number(e.key, 'assignee') % this.people.length] }] };
    const page = (await this.call('POST', '/v1/pages', { parent: { type: 'data_source_id', data_source_id: dataSource }, properties })).body as { id: string };
    const paragraphs = e.children.filter((c) => c.resource === 'paragraph');
    if (paragraphs.length) {
      await this.call('PATCH', `/v1/blocks/${page.id}/children`, {
        children: paragraphs.map((c) => ({ paragraph: { rich_text: [{ text: { content: v.pick(c.key, 'paragraph.text', v.builtInPool('sentence')) } }] } })),
      });
    }
    for (const c of e.children) {
      if (c.resource === 'comment') {
        await this.ctx.api.advanceBy(v.int(c.key, 'delay', 60, 1800) * 1000);
        await this.call('POST', '/v1/comments', {
          parent: { page_id: page.id },
          rich_text: [{ text: { content: v.pick(c.key, 'comment.body', v.builtInPool('sentence')) } }],
        });
      } else if (c.resource !== 'paragraph') throw new SeedExpansionError(`A Notion page holds paragraphs and comments, not ${c.resource} records.`);
    }
    if (e.states.includes('archived')) await this.call('PATCH', `/v1/pages/${page.id}`, { in_trash: true });
  }

  async topLevel(e: SeedEntity): Promise<void> {
    if (e.resource === 'database') return this.database(e);
    if (e.resource === 'page') return this.page(this.tasks, e);
    throw new SeedExpansionError(`Notion ${e.resource} records belong to a page ("a page with 3 comments").`);
  }
}

async function expand(entities: SeedEntity[], ctx: SeedExpansionContext): Promise<void> {
  const session = new NotionSeedSession(ctx);
  await session.start();
  for (const e of entities) await session.topLevel(e);
}

export const seeding: TwinSeeding = { vocabulary, encoding: 'json', expand };
