// Every Notion suggestion generates with the built-in planner, loads into a twin started on the
// seed file, and @notionhq/client reads the databases, pages, statuses, tags, paragraphs and
// comments it promised (through search and data source queries, as an integration would look).

import t from 'tap';
import { Client } from '@notionhq/client';
import { startTwin } from '../helpers/twin.js';
import { seedFixture } from './seed-fixture.js';

const { twin, seedFrom } = await seedFixture('notion', t.teardown.bind(t));

async function withNotion(file: string, fn: (client: Client) => Promise<void>): Promise<void> {
  const running = await startTwin('notion', { seedFile: file });
  try {
    await fn(new Client({ auth: running.server.host.credential().api_key, baseUrl: running.url, retry: false }));
  } finally {
    await running.close();
  }
}

async function dataSource(client: Client, title: string): Promise<string> {
  const found = (await client.search({ query: title, filter: { property: 'object', value: 'data_source' } })).results as any[];
  const exact = found.filter((d) => d.title.map((x: any) => x.plain_text).join('') === title);
  if (exact.length !== 1) throw new Error(`expected one data source named ${title}, found ${exact.length}`);
  return exact[0].id;
}

async function count(client: Client, id: string, filter?: object, inTrash = false): Promise<number> {
  return (await client.dataSources.query({ data_source_id: id, page_size: 100, in_trash: inTrash, ...(filter ? { filter: filter as any } : {}) } as any))
    .results.length;
}

t.ok(twin.suggestions.length >= 5, 'at least five Notion suggestions');

t.test('roadmap: database Roadmap, 20 pages, 5 in progress and 7 done', async (t) => {
  await withNotion(await seedFrom(twin.suggestions[0]!.prompt, 'roadmap'), async (client) => {
    const id = await dataSource(client, 'Roadmap');
    t.equal(await count(client, id), 20);
    t.equal(await count(client, id, { property: 'Status', status: { equals: 'In progress' } }), 5);
    t.equal(await count(client, id, { property: 'Status', status: { equals: 'Done' } }), 7);
  });
});

t.test('design review: 8 pages tagged design with 2 comments each', async (t) => {
  await withNotion(await seedFrom(twin.suggestions[1]!.prompt, 'design'), async (client) => {
    const id = await dataSource(client, 'Tasks');
    const pages = (await client.dataSources.query({ data_source_id: id, filter: { property: 'Tags', multi_select: { contains: 'design' } } as any })).results;
    t.equal(pages.length, 8);
    for (const p of pages) t.equal((await client.comments.list({ block_id: p.id })).results.length, 2);
  });
});

t.test('written pages: 6 pages with 4 paragraphs each', async (t) => {
  await withNotion(await seedFrom(twin.suggestions[2]!.prompt, 'written'), async (client) => {
    const pages = (await client.dataSources.query({ data_source_id: await dataSource(client, 'Tasks') })).results;
    t.equal(pages.length, 6);
    for (const p of pages) {
      const blocks = (await client.blocks.children.list({ block_id: p.id })).results as any[];
      t.equal(blocks.length, 4);
      t.ok(blocks.every((b) => b.type === 'paragraph' && b.paragraph.rich_text[0].plain_text.length > 0));
    }
  });
});

t.test('two databases with 5 pages each', async (t) => {
  await withNotion(await seedFrom(twin.suggestions[3]!.prompt, 'databases'), async (client) => {
    const all = (await client.search({ filter: { property: 'object', value: 'data_source' } })).results as any[];
    const made = all.filter((d) => d.title.map((x: any) => x.plain_text).join('') !== 'Tasks');
    t.equal(made.length, 2);
    for (const d of made) t.equal(await count(client, d.id), 5);
  });
});

t.test('cleanup: 12 pages, 3 archived and 4 done', async (t) => {
  await withNotion(await seedFrom(twin.suggestions[4]!.prompt, 'cleanup'), async (client) => {
    const id = await dataSource(client, 'Tasks');
    t.equal(await count(client, id), 9, 'archived pages are not in the live query');
    t.equal(await count(client, id, undefined, true), 3, 'three in the trash');
    t.equal(await count(client, id, { property: 'Status', status: { equals: 'Done' } }), 4);
  });
});
