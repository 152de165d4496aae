// The Notion twin's own MCP server, driven by the MCP SDK's Client over streamable HTTP with only
// the credential's `mcp_url` and key: its tools are @notionhq/notion-mcp-server's as published
// (names and input schemas, spec/mcp-tools.json), a page made with API-post-page reads back with
// @notionhq/client, and a Notion error is the tool's error in the server's own words.

import t from 'tap';
import { Client } from '@notionhq/client';
import published from '../../../twins/notion/spec/mcp-tools.json' with { type: 'json' };
import { startTwin } from '../../helpers/twin.js';
import { caller, checkPublishedTools, connectMcp } from '../../helpers/twin-mcp.js';

const twin = await startTwin('notion', { clockStart: new Date('2026-03-02T09:00:00Z') });
t.teardown(() => twin.close());
const notion = new Client({ auth: twin.apiKey, baseUrl: twin.url, retry: false });
const credential = (await (await fetch(`${twin.url}/_twin/credential`)).json()) as { api_key: string; mcp_url?: string };
const client = await connectMcp(credential.mcp_url!, credential.api_key);
t.teardown(() => client.close());
const { call, text, json } = caller(client);

t.test('the tool list is @notionhq/notion-mcp-server as published', async (t) => {
  t.equal(credential.mcp_url, `${twin.url}/mcp`);
  const matched = await checkPublishedTools(t, client, published.tools, `${published.package} ${published.version}`);
  t.equal(matched, published.tools.length);
  t.same(client.getServerVersion(), published.server, "the server's own serverInfo");
});

t.test('API-post-page makes a page the SDK reads back', async (t) => {
  const me = json(await call('API-get-self', {}));
  t.equal(me.type, 'bot');
  const found = json(await call('API-post-search', { query: 'Tasks', filter: { property: 'object', value: 'data_source' } }));
  t.ok(found.results.length > 0, 'search through the tool finds the starting data source');
  const dataSource = found.results[0];
  const title = Object.entries(dataSource.properties as Record<string, { type: string }>).find(([, p]) => p.type === 'title')![0];
  // Agents often send nested arguments as JSON text: the server decodes them, so does the twin.
  const made = await call('API-post-page', {
    parent: { database_id: dataSource.parent.database_id },
    properties: JSON.stringify({ [title]: { title: [{ type: 'text', text: { content: 'Written by an agent' } }] } }),
  });
  t.notOk(made.isError, text(made));
  const page = json(made);
  t.equal(page.object, 'page');
  const read = (await notion.pages.retrieve({ page_id: page.id })) as any;
  t.equal(read.properties[title].title[0].plain_text, 'Written by an agent');
  const viaTool = json(await call('API-retrieve-a-page', { page_id: page.id }));
  t.equal(viaTool.id, read.id);
});

t.test("a Notion error is the tool's error, in the server's words", async (t) => {
  const missing = await call('API-retrieve-a-page', { page_id: '00000000-0000-4000-8000-000000000000' });
  t.equal(missing.isError, true);
  // The server spreads Notion's error body over {status: 'error'}, so Notion's own status wins.
  t.match(JSON.parse(text(missing)), { status: 404, object: 'error', code: 'object_not_found' });
});
