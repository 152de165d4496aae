// The Notion twin through the recording gateway, driven by @notionhq/client (API 2025-09-03, and
// 2022-06-28 for the earlier database model): users, pages in a data source and under a page,
// property values of every common type, blocks and children, data source queries with compound
// filters and sorts, search, comments, cursor pagination, Notion's errors, and an integration
// webhook verified with the SDK's own verifyWebhookSignature (X-Notion-Signature).

import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIErrorCode, Client, isFullPage, iteratePaginatedAPI, APIResponseError, verifyWebhookSignature } from '@notionhq/client';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';

const gw = await startGatewayTwin('notion', { clockStart: new Date('2026-03-02T09:00:00Z') });
t.teardown(() => gw.close());
const notion = new Client({ auth: gw.apiKey, baseUrl: gw.url, retry: false });
const text = (content: string) => [{ type: 'text' as const, text: { content } }];

async function tasks() {
  const found = await notion.search({ query: 'Tasks', filter: { property: 'object', value: 'data_source' } });
  t.equal(found.results.length, 1);
  return found.results[0] as any;
}

t.test('users: list, me (the bot), retrieve', async (t) => {
  const users = await notion.users.list({});
  t.equal(users.object, 'list');
  t.equal(users.type, 'user');
  t.same(
    users.results.map((u) => u.name),
    ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Twins integration'],
  );
  const me = await notion.users.me({});
  t.equal(me.type, 'bot');
  t.equal((me as any).bot.workspace_name, 'Twin Works');
  const ada = await notion.users.retrieve({ user_id: users.results[0]!.id.replace(/-/g, '') });
  t.equal((ada as any).person.email, 'ada@example.com');
  const paged = await notion.users.list({ page_size: 2 });
  t.equal(paged.results.length, 2);
  t.equal(paged.has_more, true);
  t.equal(paged.next_cursor, users.results[2]!.id);
  const rest = await notion.users.list({ page_size: 2, start_cursor: paged.next_cursor! });
  t.same(
    rest.results.map((u) => u.name),
    ['Alan Turing', 'Twins integration'],
  );
  t.equal(rest.has_more, false);
  t.equal(rest.next_cursor, null);
});

t.test('starting workspace: database with one data source, schema of every type', async (t) => {
  const ds = await tasks();
  t.equal(ds.object, 'data_source');
  const db = await notion.databases.retrieve({ database_id: ds.parent.database_id });
  t.equal((db as any).data_sources.length, 1);
  t.equal((db as any).data_sources[0].id, ds.id);
  const full = await notion.dataSources.retrieve({ data_source_id: ds.id });
  t.same(Object.keys(full.properties).sort(), ['Assignee', 'Done', 'Due', 'Estimate', 'Name', 'Status', 'Tags']);
  t.equal((full.properties.Name as any).id, 'title');
  t.same(
    ((full.properties.Status as any).status.options as any[]).map((o) => o.name),
    ['Not started', 'In progress', 'Done'],
  );
  const home = await notion.blocks.children.list({ block_id: (db as any).parent.page_id });
  t.same(
    home.results.map((b: any) => b.type),
    ['paragraph', 'child_database'],
  );
});

t.test('pages in a data source: every property type, update, formula, retrieve property', async (t) => {
  const ds = await tasks();
  const users = await notion.users.list({});
  const ada = users.results[0]!.id;
  await notion.dataSources.update({
    data_source_id: ds.id,
    properties: {
      Link: { url: {} },
      Mail: { email: {} },
      Phone: { phone_number: {} },
      Notes: { rich_text: {} },
      Kind: { select: { options: [{ name: 'Feature', color: 'green' }] } },
      Score: { formula: { expression: 'prop("Estimate") * 2' } },
      Label: { formula: { expression: 'concat(prop("Name"), " / ", prop("Status"))' } },
      Created: { created_time: {} },
      Edited: { last_edited_time: {} },
      Related: { relation: { data_source_id: ds.id, single_property: {} } },
    } as any,
  });
  const first = await notion.pages.create({ parent: { data_source_id: ds.id }, properties: { Name: { title: text('Write docs') } } });
  const page = await notion.pages.create({
    parent: { type: 'data_source_id', data_source_id: ds.id },
    properties: {
      Name: { title: text('Ship twin') },
      Status: { status: { name: 'In progress' } },
      Tags: { multi_select: [{ name: 'backend' }, { name: 'new-tag' }] },
      Assignee: { people: [{ id: ada }] },
      Due: { date: { start: '2026-03-10' } },
      Done: { checkbox: false },
      Estimate: { number: 3 },
      Link: { url: 'https://example.com' },
      Mail: { email: 'ada@example.com' },
      Phone: { phone_number: '+1 555 0100' },
      Notes: { rich_text: [{ type: 'text', text: { content: 'bold', link: null }, annotations: { bold: true } }] },
      Kind: { select: { name: 'Feature' } },
      Related: { relation: [{ id: first.id }] },
    } as any,
  });
  t.ok(isFullPage(page));
  if (!isFullPage(page)) return;
  t.equal(page.parent.type, 'data_source_id');
  const p = page.properties as any;
  t.equal(p.Name.title[0].plain_text, 'Ship twin');
  t.same(p.Name.title[0].annotations, { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' });
  t.equal(p.Status.status.name, 'In progress');
  t.same(
    p.Tags.multi_select.map((o: any) => o.name),
    ['backend', 'new-tag'],
  );
  t.equal(p.Assignee.people[0].name, 'Ada Lovelace');
  t.same(p.Due.date, { start: '2026-03-10', end: null, time_zone: null });
  t.equal(p.Estimate.number, 3);
  t.equal(p.Notes.rich_text[0].annotations.bold, true);
  t.same(p.Score.formula, { type: 'number', number: 6 });
  t.same(p.Label.formula, { type: 'string', string: 'Ship twin / In progress' });
  t.equal(p.Created.created_time, '2026-03-02T09:00:00.000Z');
  t.same(p.Related.relation, [{ id: first.id }]);
  t.equal(p.Related.has_more, false);
  const schema = await notion.dataSources.retrieve({ data_source_id: ds.id });
  t.ok(
    ((schema.properties.Tags as any).multi_select.options as any[]).some((o) => o.name === 'new-tag'),
    'a new option joins the schema',
  );

  await gw.twin.advance(new Date('2026-03-02T10:00:00Z'));
  const updated = await notion.pages.update({ page_id: page.id, properties: { Status: { status: { name: 'Done' } }, Estimate: { number: 5 } } as any });
  const u = (updated as any).properties;
  t.equal(u.Status.status.name, 'Done');
  t.same(u.Score.formula, { type: 'number', number: 10 });
  t.equal(u.Edited.last_edited_time, '2026-03-02T10:00:00.000Z');
  const title = await notion.pages.properties.retrieve({ page_id: page.id, property_id: 'title' });
  t.equal(title.object, 'list');
  t.equal((title as any).results[0].title.plain_text, 'Ship twin');
  const est = await notion.pages.properties.retrieve({ page_id: page.id, property_id: encodeURIComponent(decodeURIComponent(u.Estimate.id)) });
  t.same(est, { object: 'property_item', id: u.Estimate.id, type: 'number', number: 5, request_id: (est as any).request_id });

  const trashed = await notion.pages.update({ page_id: page.id, in_trash: true });
  t.equal((trashed as any).in_trash, true);
  const refused = await notion.pages.update({ page_id: page.id, properties: { Estimate: { number: 1 } } as any }).catch((e) => e);
  t.ok(APIResponseError.isAPIResponseError(refused));
  t.equal(refused.code, APIErrorCode.ValidationError);
  await notion.pages.update({ page_id: page.id, in_trash: false });
});

t.test('data source queries: compound filters, sorts, pagination', async (t) => {
  const ds = await tasks();
  for (let i = 0; i < 6; i++) {
    await notion.pages.create({
      parent: { data_source_id: ds.id },
      properties: {
        Name: { title: text(`Query item ${i}`) },
        Estimate: { number: i },
        Done: { checkbox: i % 2 === 0 },
        Tags: { multi_select: [{ name: i < 3 ? 'design' : 'urgent' }] },
        Status: { status: { name: i < 2 ? 'Done' : 'Not started' } },
      } as any,
    });
  }
  const done = await notion.dataSources.query({
    data_source_id: ds.id,
    filter: {
      and: [
        { property: 'Name', title: { starts_with: 'Query item' } },
        { property: 'Done', checkbox: { equals: true } },
      ],
    } as any,
  });
  t.equal(done.type, 'page_or_data_source');
  t.same(done.results.map((p: any) => p.properties.Name.title[0].plain_text).sort(), ['Query item 0', 'Query item 2', 'Query item 4']);
  const either = await notion.dataSources.query({
    data_source_id: ds.id,
    filter: {
      and: [
        { property: 'Name', title: { starts_with: 'Query item' } },
        {
          or: [
            { property: 'Estimate', number: { greater_than_or_equal_to: 4 } },
            {
              and: [
                { property: 'Tags', multi_select: { contains: 'design' } },
                { property: 'Status', status: { equals: 'Done' } },
              ],
            },
          ],
        },
      ],
    } as any,
    sorts: [{ property: 'Estimate', direction: 'descending' }],
  });
  t.same(
    either.results.map((p: any) => p.properties.Estimate.number),
    [5, 4, 1, 0],
  );
  const pages: string[] = [];
  for await (const p of iteratePaginatedAPI(notion.dataSources.query, {
    data_source_id: ds.id,
    page_size: 2,
    filter: { property: 'Name', rich_text: { contains: 'query item' } } as any,
    sorts: [{ property: 'Name', direction: 'ascending' }],
  })) {
    pages.push((p as any).properties.Name.title[0].plain_text);
  }
  t.same(
    pages,
    [0, 1, 2, 3, 4, 5].map((i) => `Query item ${i}`),
  );
  const bad = await notion.dataSources.query({ data_source_id: ds.id, filter: { property: 'Nope', checkbox: { equals: true } } as any }).catch((e) => e);
  t.equal(bad.code, 'validation_error');
  t.equal(bad.status, 400);
});

t.test('pages under a page, blocks and children', async (t) => {
  const ds = await tasks();
  const homeId = ((await notion.databases.retrieve({ database_id: ds.parent.database_id })) as any).parent.page_id;
  const page = await notion.pages.create({
    parent: { page_id: homeId },
    properties: { title: { title: text('Runbook') } },
    children: [{ heading_1: { rich_text: text('Steps') } }, { to_do: { rich_text: text('Deploy'), checked: false } }],
  } as any);
  t.same(Object.keys((page as any).properties), ['title']);
  const appended = await notion.blocks.children.append({
    block_id: page.id,
    children: [{ toggle: { rich_text: text('More'), children: [{ paragraph: { rich_text: text('Hidden') } }] } }] as any,
  });
  t.equal(appended.results.length, 1);
  const toggle = appended.results[0] as any;
  t.equal(toggle.has_children, true);
  const listed = await notion.blocks.children.list({ block_id: page.id });
  t.same(
    listed.results.map((b: any) => b.type),
    ['heading_1', 'to_do', 'toggle'],
  );
  const todo = listed.results[1] as any;
  const checked = await notion.blocks.update({ block_id: todo.id, to_do: { checked: true } } as any);
  t.equal((checked as any).to_do.checked, true);
  t.equal((checked as any).to_do.rich_text[0].plain_text, 'Deploy');
  const inner = await notion.blocks.children.list({ block_id: toggle.id });
  t.equal((inner.results[0] as any).paragraph.rich_text[0].plain_text, 'Hidden');
  await notion.blocks.delete({ block_id: todo.id });
  t.equal(((await notion.blocks.retrieve({ block_id: todo.id })) as any).in_trash, true);
  t.same(
    (await notion.blocks.children.list({ block_id: page.id })).results.map((b: any) => b.type),
    ['heading_1', 'toggle'],
  );
  const asBlock = await notion.blocks.retrieve({ block_id: page.id });
  t.equal((asBlock as any).type, 'child_page');
  t.equal((asBlock as any).child_page.title, 'Runbook');
  t.ok((await notion.blocks.children.list({ block_id: homeId })).results.some((b: any) => b.id === page.id));
});

t.test('search, comments', async (t) => {
  const hits = await notion.search({ query: 'ship', filter: { property: 'object', value: 'page' } });
  t.ok(hits.results.length > 0);
  t.ok(hits.results.every((r: any) => r.object === 'page'));
  t.equal(hits.type, 'page_or_data_source');
  const page = hits.results[0]!;
  const c1 = await notion.comments.create({ parent: { page_id: page.id }, rich_text: text('Looks good') });
  t.equal(c1.object, 'comment');
  await notion.comments.create({ discussion_id: (c1 as any).discussion_id, rich_text: text('Agreed') });
  const comments = await notion.comments.list({ block_id: page.id });
  t.equal(comments.type, 'comment');
  t.same(
    comments.results.map((c: any) => c.rich_text[0].plain_text),
    ['Looks good', 'Agreed'],
  );
  t.equal((comments.results[1] as any).discussion_id, (c1 as any).discussion_id);
});

t.test('errors: unknown ids, bad auth, missing Notion-Version, bad body', async (t) => {
  const missing = await notion.pages.retrieve({ page_id: '00000000-0000-4000-8000-000000000000' }).catch((e) => e);
  t.equal(missing.code, APIErrorCode.ObjectNotFound);
  t.equal(missing.status, 404);
  t.match(missing.message, /Could not find page with ID: 00000000-0000-4000-8000-000000000000/);
  const badAuth = await new Client({ auth: 'ntn_wrong', baseUrl: gw.url, retry: false }).users.me({}).catch((e) => e);
  t.equal(badAuth.code, APIErrorCode.Unauthorized);
  t.equal(badAuth.status, 401);
  const raw = await fetch(`${gw.url}/v1/users/me`, { headers: { authorization: `Bearer ${gw.apiKey}` } });
  const body = await raw.json();
  t.equal(raw.status, 400);
  t.equal(body.object, 'error');
  t.equal(body.code, 'missing_version');
  const badId = await notion.pages.retrieve({ page_id: 'not-a-uuid' }).catch((e) => e);
  t.equal(badId.code, 'validation_error');
  const noParent = await notion.pages.create({ properties: {} } as any).catch((e) => e);
  t.equal(noParent.code, 'validation_error');
  t.match(noParent.message, /body\.parent should be defined/);
  const unknown = await fetch(`${gw.url}/v1/nowhere`, { headers: { authorization: `Bearer ${gw.apiKey}`, 'notion-version': '2025-09-03' } });
  t.equal(unknown.status, 400);
  t.equal((await unknown.json()).code, 'invalid_request_url');
  const badJson = await fetch(`${gw.url}/v1/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'notion-version': '2025-09-03', 'content-type': 'application/json' },
    body: '{"query":',
  });
  t.equal(badJson.status, 400);
  t.equal((await badJson.json()).code, 'invalid_json');
  const logged = await gw.logged();
  t.ok(
    logged.some((l) => l.status_code === 404 && l.path.startsWith('/v1/pages/')),
    'the gateway recorded the 404',
  );
});

t.test('the 2022-06-28 model: database properties, databases query, database parent', async (t) => {
  const old = new Client({ auth: gw.apiKey, baseUrl: gw.url, notionVersion: '2022-06-28', retry: false });
  const found = await old.search({ query: 'Tasks', filter: { property: 'object', value: 'database' as any } });
  t.equal((found.results[0] as any).object, 'database');
  const db = found.results[0] as any;
  t.ok(db.properties.Status, 'a database shows its schema before 2025-09-03');
  const page = await old.pages.create({ parent: { database_id: db.id }, properties: { Name: { title: text('Old style') } } } as any);
  t.same((page as any).parent, { type: 'database_id', database_id: db.id });
  const res = await old.request<any>({
    path: `databases/${db.id}/query`,
    method: 'post',
    body: { filter: { property: 'Name', title: { equals: 'Old style' } } },
  });
  t.equal(res.type, 'page_or_database');
  t.equal(res.results.length, 1);
});

t.test('webhook: verification token, then X-Notion-Signature verified with the SDK', async (t) => {
  const received: { body: string; signature: string | undefined }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const sig = req.headers['x-notion-signature'];
      received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: typeof sig === 'string' ? sig : undefined });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notion`;
  const sub = await (
    await fetch(`${gw.url}/v1/twin/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, event_types: ['page.created', 'page.properties_updated', 'comment.created'] }),
    })
  ).json();
  const wait = async (n: number) => {
    for (let i = 0; i < 150 && received.length < n; i++) await new Promise((r) => setTimeout(r, 20));
  };
  await wait(1);
  t.same(JSON.parse(received[0]!.body), { verification_token: sub.verification_token });
  const ds = await tasks();
  const page = await notion.pages.create({ parent: { data_source_id: ds.id }, properties: { Name: { title: text('Hooked') } } });
  await notion.pages.update({ page_id: page.id, properties: { Estimate: { number: 2 } } as any });
  await notion.comments.create({ parent: { page_id: page.id }, rich_text: text('ping') });
  await wait(4);
  t.equal(received.length, 4);
  const events = received.slice(1).map((r) => ({ ...r, payload: JSON.parse(r.body) }));
  for (const e of events) {
    t.ok(
      await verifyWebhookSignature({ body: e.body, signature: e.signature, verificationToken: sub.verification_token }),
      `${e.payload.type} signature verifies`,
    );
  }
  t.notOk(await verifyWebhookSignature({ body: events[0]!.body, signature: events[0]!.signature, verificationToken: 'secret_wrong' }));
  t.same(events.map((e) => e.payload.type).sort(), ['comment.created', 'page.created', 'page.properties_updated']);
  const created = events.find((e) => e.payload.type === 'page.created')!.payload;
  t.same(created.entity, { id: page.id, type: 'page' });
  t.equal(created.attempt_number, 1);
  t.equal(created.data.parent.data_source_id, ds.id);
  const updated = events.find((e) => e.payload.type === 'page.properties_updated')!.payload;
  t.equal(updated.data.updated_properties.length, 1);
});

t.test('markdown, move, comment edits, custom emojis', async (t) => {
  const ds = await tasks();
  const homeId = ((await notion.databases.retrieve({ database_id: ds.parent.database_id })) as any).parent.page_id;
  const page = await notion.pages.create({
    parent: { page_id: homeId },
    properties: { title: { title: text('Notes') } },
    children: [
      { heading_2: { rich_text: text('Plan') } },
      { bulleted_list_item: { rich_text: [{ text: { content: 'fast' }, annotations: { bold: true } }] } },
      { to_do: { rich_text: text('ship'), checked: true } },
    ],
  } as any);
  const md = await notion.pages.retrieveMarkdown({ page_id: page.id });
  t.equal(md.object, 'page_markdown');
  t.equal(md.markdown, '## Plan\n- **fast**\n- [x] ship');
  const inserted = await notion.pages.updateMarkdown({ page_id: page.id, type: 'insert_content', insert_content: { content: '> quoted `code`' } });
  t.equal(inserted.markdown, '## Plan\n- **fast**\n- [x] ship\n> quoted `code`');
  const blocks = (await notion.blocks.children.list({ block_id: page.id })).results as any[];
  t.same(
    blocks.map((b) => b.type),
    ['heading_2', 'bulleted_list_item', 'to_do', 'quote'],
  );
  t.equal(blocks[3].quote.rich_text[1].annotations.code, true);
  const edited = await notion.pages.updateMarkdown({
    page_id: page.id,
    type: 'update_content',
    update_content: { content_updates: [{ old_str: 'Plan', new_str: 'Roadmap' }] },
  });
  t.match(edited.markdown, /^## Roadmap\n/);

  const target = await notion.pages.create({ parent: { page_id: homeId }, properties: { title: { title: text('Archive') } } });
  const moved = await notion.pages.move({ page_id: page.id, parent: { page_id: target.id } });
  t.same((moved as any).parent, { type: 'page_id', page_id: target.id });
  t.ok((await notion.blocks.children.list({ block_id: target.id })).results.some((b) => b.id === page.id));
  t.notOk((await notion.blocks.children.list({ block_id: homeId })).results.some((b) => b.id === page.id));
  const intoSelf = await notion.pages.move({ page_id: target.id, parent: { page_id: page.id } }).catch((e) => e);
  t.equal(intoSelf.code, 'validation_error');

  const c = await notion.comments.create({ parent: { page_id: page.id }, rich_text: text('first draft') });
  const changed = await notion.comments.update({ comment_id: c.id, rich_text: text('second draft') });
  t.equal((changed as any).rich_text[0].plain_text, 'second draft');
  await notion.comments.delete({ comment_id: c.id });
  const gone = await notion.comments.retrieve({ comment_id: c.id }).catch((e) => e);
  t.equal(gone.code, 'object_not_found');
  const emojis = await notion.customEmojis.list({});
  t.same(emojis.results, []);
  t.equal(emojis.type, 'custom_emoji');
});

t.test('file uploads: single part, attach to an image block and a files property, expiry', async (t) => {
  const upload = await notion.fileUploads.create({ mode: 'single_part', filename: 'chart.png', content_type: 'image/png' });
  t.equal(upload.status, 'pending');
  t.match(upload.upload_url, /\/v1\/file_uploads\/[0-9a-f-]{36}\/send$/);
  const bytes = Buffer.from('89504e470d0a1a0a', 'hex');
  const sent = await notion.fileUploads.send({ file_upload_id: upload.id, file: { filename: 'chart.png', data: new Blob([bytes], { type: 'image/png' }) } });
  t.equal(sent.status, 'uploaded');
  t.equal(sent.content_length, bytes.length);
  const ds = await tasks();
  await notion.dataSources.update({ data_source_id: ds.id, properties: { Attachments: { files: {} } } as any });
  const page = await notion.pages.create({
    parent: { data_source_id: ds.id },
    properties: {
      Name: { title: text('With files') },
      Attachments: { files: [{ type: 'file_upload', file_upload: { id: upload.id }, name: 'chart.png' }] },
    } as any,
    children: [{ image: { type: 'file_upload', file_upload: { id: upload.id } } }] as any,
  });
  const files = (page as any).properties.Attachments.files;
  t.equal(files[0].name, 'chart.png');
  t.equal(files[0].type, 'file');
  const image = ((await notion.blocks.children.list({ block_id: page.id })).results[0] as any).image;
  t.equal(image.type, 'file');
  const downloaded = await fetch(image.file.url, { headers: { authorization: `Bearer ${gw.apiKey}` } });
  t.same(Buffer.from(await downloaded.arrayBuffer()), bytes, 'the attached bytes come back');
  const listed = await notion.fileUploads.list({ status: 'uploaded' });
  t.ok(listed.results.some((f) => f.id === upload.id));

  const late = await notion.fileUploads.create({ mode: 'multi_part', filename: 'big.bin', number_of_parts: 2 });
  await notion.fileUploads.send({ file_upload_id: late.id, file: { data: new Blob(['a']) }, part_number: '1' });
  const early = await notion.fileUploads.complete({ file_upload_id: late.id }).catch((e) => e);
  t.equal(early.code, 'validation_error', 'completing before every part is sent is refused');
  await gw.twin.advance(new Date(Date.parse((late as any).expiry_time) + 60_000));
  t.equal((await notion.fileUploads.retrieve({ file_upload_id: late.id })).status, 'expired');
});

t.test('views: default table view, create with filter and sorts, run a view query, page its results', async (t) => {
  const ds = await tasks();
  const listed = await notion.views.list({ data_source_id: ds.id });
  t.equal(listed.type, 'view');
  t.ok(listed.results.length >= 1, 'a database opens with a view');
  const view = await notion.views.create({
    data_source_id: ds.id,
    name: 'Query items',
    type: 'board',
    filter: { property: 'Name', title: { starts_with: 'Query item' } },
    sorts: [{ property: 'Estimate', direction: 'descending' }],
  } as any);
  t.equal((view as any).name, 'Query items');
  t.equal((view as any).parent.database_id, ds.parent.database_id);
  const q = await notion.views.queries.create({ view_id: view.id, page_size: 4 });
  t.equal(q.total_count, 6);
  t.equal(q.results.length, 4);
  t.equal(q.has_more, true);
  const rest = await notion.views.queries.results({ view_id: view.id, query_id: q.id, start_cursor: q.next_cursor! });
  t.equal(rest.results.length, 2);
  const estimates = await Promise.all(
    [...q.results, ...rest.results].map(async (r) => ((await notion.pages.retrieve({ page_id: r.id })) as any).properties.Estimate.number),
  );
  t.same(estimates, [5, 4, 3, 2, 1, 0]);
  const renamed = await notion.views.update({ view_id: view.id, name: 'Renamed' });
  t.equal((renamed as any).name, 'Renamed');
  const badFilter = await notion.views.update({ view_id: view.id, filter: { property: 'Nope', checkbox: { equals: true } } } as any).catch((e) => e);
  t.equal(badFilter.code, 'validation_error');
  const deleted = await notion.views.queries.delete({ view_id: view.id, query_id: q.id });
  t.match(deleted, { object: 'view_query', id: q.id, deleted: true });
  const expired = await notion.views.queries.results({ view_id: view.id, query_id: q.id }).catch((e) => e);
  t.equal(expired.code, 'object_not_found');
  await notion.views.delete({ view_id: view.id });
  const gone = await notion.views.retrieve({ view_id: view.id }).catch((e) => e);
  t.equal(gone.code, 'object_not_found');
});

t.test('rate limit: 429 rate_limited with Retry-After once a window is spent, lifted as the clock moves', async (t) => {
  const set = (body: object) =>
    fetch(`${gw.url}/v1/twin/rate_limit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  t.equal((await set({ requests: 2, per_seconds: 60 })).status, 200);
  await notion.users.me({});
  await notion.users.me({});
  const limited = await notion.users.me({}).catch((e) => e);
  t.equal(limited.code, APIErrorCode.RateLimited);
  t.equal(limited.status, 429);
  t.ok(Number(limited.headers.get('retry-after')) >= 1, 'Retry-After in seconds');
  await gw.twin.advance(new Date(gw.twin.server.host.clock.nowMs() + 60_000));
  t.equal((await notion.users.me({})).type, 'bot', 'a new window admits again');
  t.equal((await set({ requests: null })).status, 200);
});

t.test('webhook: page.content_updated for nested blocks, comment.updated, page.moved', async (t) => {
  const received: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/content`;
  await fetch(`${gw.url}/v1/twin/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, event_types: ['page.content_updated', 'comment.updated', 'page.moved'] }),
  });
  const ds = await tasks();
  const homeId = ((await notion.databases.retrieve({ database_id: ds.parent.database_id })) as any).parent.page_id;
  const page = await notion.pages.create({ parent: { page_id: homeId }, properties: { title: { title: text('Hooked content') } } });
  const toggle = (await notion.blocks.children.append({ block_id: page.id, children: [{ toggle: { rich_text: text('t') } }] as any })).results[0]!;
  await notion.blocks.children.append({ block_id: toggle.id, children: [{ paragraph: { rich_text: text('inside') } }] as any });
  const c = await notion.comments.create({ parent: { page_id: page.id }, rich_text: text('v1') });
  await notion.comments.update({ comment_id: c.id, rich_text: text('v2') });
  await notion.pages.move({ page_id: page.id, parent: { data_source_id: ds.id } });
  for (let i = 0; i < 150 && received.length < 5; i++) await new Promise((r) => setTimeout(r, 20));
  const events = received.slice(1).map((b) => JSON.parse(b));
  t.same(events.map((e) => e.type).sort(), ['comment.updated', 'page.content_updated', 'page.content_updated', 'page.moved']);
  t.ok(
    events.filter((e) => e.type === 'page.content_updated').every((e) => e.entity.id === page.id),
    'nested blocks report their page',
  );
  t.equal(events.find((e) => e.type === 'page.moved').data.parent.data_source_id, ds.id);
});
