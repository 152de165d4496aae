// The Notion twin through @notionhq/client: time to a started twin with its starting workspace,
// pages.create, and a filtered, sorted data source query as the data source grows (500 → 2000
// pages), p50 of each side by side in one run (the ratio shows how a query scales with size).
//   node --import=tsx scripts/bench/notion.ts [pages=500,1000,2000]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@notionhq/client';
import { loadTwin } from '../../twin-runtime/registry.js';
import { TwinServer } from '../../twin-runtime/server.js';

const SIZES = (process.argv[2] ?? '500,1000,2000').split(',').map(Number);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const text = (content: string) => [{ type: 'text' as const, text: { content } }];

const dir = mkdtempSync(join(tmpdir(), 'bench-notion-'));
const t0 = performance.now();
const server = new TwinServer(await loadTwin('notion'), { dataFile: join(dir, 'notion.sqlite') });
const url = await server.listen(0, '127.0.0.1');
const notion = new Client({ auth: server.apiKey, baseUrl: url, retry: false });
await notion.users.me({});
console.log(`start to first answer (workspace created): ${(performance.now() - t0).toFixed(1)} ms`);
try {
  const ds = (await notion.search({ query: 'Tasks', filter: { property: 'object', value: 'data_source' } })).results[0]!.id;
  let made = 0;
  const creates: number[] = [];
  for (const size of SIZES) {
    while (made < size) {
      const c0 = performance.now();
      await notion.pages.create({
        parent: { data_source_id: ds },
        properties: { Name: { title: text(`Item ${made}`) }, Estimate: { number: made % 10 }, Done: { checkbox: made % 3 === 0 } } as any,
      });
      creates.push(performance.now() - c0);
      made++;
    }
    const queries: number[] = [];
    for (let i = 0; i < 20; i++) {
      const q0 = performance.now();
      const res = await notion.dataSources.query({
        data_source_id: ds,
        page_size: 100,
        filter: {
          and: [
            { property: 'Done', checkbox: { equals: true } },
            { property: 'Estimate', number: { greater_than: 4 } },
          ],
        } as any,
        sorts: [{ property: 'Estimate', direction: 'descending' }],
      });
      queries.push(performance.now() - q0);
      if (res.results.length === 0) throw new Error('the query matched nothing');
    }
    console.log(
      `${String(size).padStart(5)} pages: pages.create p50 ${p50(creates).toFixed(2)} ms, filtered+sorted query (100 results) p50 ${p50(queries).toFixed(2)} ms`,
    );
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
