// Every SendGrid suggestion generates with the built-in planner, loads into a twin started on the
// seed file, and the official `@sendgrid/client` reads the templates, mailbox (Email Activity),
// engagement, verified senders and unsubscribe groups it promised.

import t from 'tap';
import sgClient from '@sendgrid/client';
import { startTwin } from '../helpers/twin.js';
import { seedFixture } from './seed-fixture.js';

const { twin, seedFrom } = await seedFixture('sendgrid', t.teardown.bind(t));
/** `require('@sendgrid/client').Client`: the class beside the singleton (its typings name only the instance). */
type SendGridClient = typeof sgClient;
const Client = (sgClient as unknown as { Client: new () => SendGridClient }).Client;

async function withSendGrid(file: string, fn: (client: SendGridClient) => Promise<void>): Promise<void> {
  const running = await startTwin('sendgrid', { seedFile: file });
  try {
    const client = new Client();
    client.setApiKey(running.server.host.credential().api_key);
    client.setDefaultRequest('baseUrl', running.url);
    await fn(client);
  } finally {
    await running.close();
  }
}

async function get(client: SendGridClient, url: string, qs?: Record<string, unknown>): Promise<any> {
  const [res, body] = await client.request({ method: 'GET', url, qs });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
  return body;
}

t.ok(twin.suggestions.length >= 5, 'at least five SendGrid suggestions');

t.test('transactional templates: 4 dynamic and 2 legacy, each with an active version', async (t) => {
  await withSendGrid(await seedFrom(twin.suggestions[0]!.prompt, 'templates'), async (client) => {
    const dynamic = (await get(client, '/v3/templates', { generations: 'dynamic', page_size: 50 })).result;
    const legacy = (await get(client, '/v3/templates', { generations: 'legacy', page_size: 50 })).result;
    t.equal(dynamic.length, 4);
    t.equal(legacy.length, 2);
    for (const tpl of [...dynamic, ...legacy])
      t.same(
        tpl.versions.map((v: any) => v.active),
        [1],
      );
    t.ok(dynamic.every((x: any) => /^d-[0-9a-f]{32}$/.test(x.id)));
  });
});

t.test('sent mail with bounces: 10 emails, 3 not delivered', async (t) => {
  await withSendGrid(await seedFrom(twin.suggestions[1]!.prompt, 'bounces'), async (client) => {
    const all = (await get(client, '/v3/messages', { limit: 100 })).messages;
    t.equal(all.length, 10);
    t.equal((await get(client, '/v3/messages', { limit: 100, query: 'status="not_delivered"' })).messages.length, 3);
    t.equal((await get(client, '/v3/messages', { limit: 100, query: 'status="delivered"' })).messages.length, 7);
  });
});

t.test('engaged newsletter: 8 emails, 4 opened, 2 clicked', async (t) => {
  await withSendGrid(await seedFrom(twin.suggestions[2]!.prompt, 'engaged'), async (client) => {
    const all = (await get(client, '/v3/messages', { limit: 100 })).messages;
    t.equal(all.length, 8);
    t.equal(all.filter((m: any) => m.opens_count > 0).length, 4);
    t.equal(all.filter((m: any) => m.clicks_count > 0).length, 2);
    const clicked = all.find((m: any) => m.clicks_count > 0);
    const detail = await get(client, `/v3/messages/${encodeURIComponent(clicked.msg_id)}`);
    t.same(
      detail.events.map((e: any) => e.event_name),
      ['processed', 'delivered', 'clicked'],
    );
  });
});

t.test('verified senders: 3, the seeded from address among them', async (t) => {
  await withSendGrid(await seedFrom(twin.suggestions[3]!.prompt, 'senders'), async (client) => {
    const senders = (await get(client, '/v3/verified_senders')).results;
    t.equal(senders.length, 3);
    t.ok(senders.every((s: any) => s.verified === true));
    t.ok(senders.some((s: any) => s.from_email === 'team@example.com'));
  });
});

t.test('unsubscribe groups: 5', async (t) => {
  await withSendGrid(await seedFrom(twin.suggestions[4]!.prompt, 'groups'), async (client) => {
    const groups = await get(client, '/v3/asm/groups');
    t.equal(groups.length, 5);
    t.ok(groups.every((g: any) => typeof g.name === 'string' && g.name !== ''));
  });
});
