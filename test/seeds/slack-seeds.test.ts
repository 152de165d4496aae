// Every Slack suggestion generates with the built-in planner, loads into a twin started on the
// seed file, and @slack/web-api reads the channels, messages, threads and reactions it promised.

import t from 'tap';
import { LogLevel, WebClient } from '@slack/web-api';
import { startTwin } from '../helpers/twin.js';
import { seedFixture } from './seed-fixture.js';

const { twin, seedFrom } = await seedFixture('slack', t.teardown.bind(t));

async function withSlack(file: string, fn: (client: WebClient) => Promise<void>): Promise<void> {
  const running = await startTwin('slack', { seedFile: file });
  try {
    await fn(new WebClient(running.apiKey, { slackApiUrl: `${running.url}/api/`, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR }));
  } finally {
    await running.close();
  }
}

async function channelNamed(client: WebClient, name: string) {
  const list = await client.conversations.list({ types: 'public_channel,private_channel', exclude_archived: false, limit: 1000 });
  return list.channels!.find((c) => c.name === name);
}

/** What people said: Slack's own notices (`channel_join` when the people were invited) left out. */
async function history(client: WebClient, channel: string) {
  return (await client.conversations.history({ channel, limit: 1000 })).messages!.filter((m) => m.subtype === undefined);
}

t.ok(twin.suggestions.length >= 5, 'at least five Slack suggestions');

t.test('support channel: 30 messages, 5 with 3 replies each', async (t) => {
  await withSlack(await seedFrom(twin.suggestions[0]!.prompt, 'support'), async (client) => {
    const support = await channelNamed(client, 'support');
    t.ok(support, '#support exists');
    const messages = await history(client, support!.id!);
    t.equal(messages.length, 30);
    const threads = messages.filter((m) => (m.reply_count ?? 0) > 0);
    t.equal(threads.length, 5);
    const replies = await client.conversations.replies({ channel: support!.id!, ts: threads[0]!.ts! });
    t.equal(replies.messages!.length, 4, 'parent and 3 replies');
  });
});

t.test('private rooms: 3 private channels with 10 messages each', async (t) => {
  await withSlack(await seedFrom(twin.suggestions[1]!.prompt, 'private'), async (client) => {
    const list = await client.conversations.list({ types: 'private_channel', limit: 1000 });
    t.equal(list.channels!.length, 3);
    for (const c of list.channels!) t.equal((await history(client, c.id!)).length, 10);
  });
});

t.test('incidents: 5 channels (2 archived) and #incidents with reactions', async (t) => {
  await withSlack(await seedFrom(twin.suggestions[2]!.prompt, 'incidents'), async (client) => {
    const all = await client.conversations.list({ types: 'public_channel', exclude_archived: false, limit: 1000 });
    t.equal(all.channels!.filter((c) => c.is_archived).length, 2);
    const incidents = await channelNamed(client, 'incidents');
    const messages = await history(client, incidents!.id!);
    t.equal(messages.length, 12);
    const reacted = messages.filter((m) => (m.reactions ?? []).length > 0);
    t.equal(reacted.length, 4);
    t.ok(reacted.every((m) => m.reactions!.length === 2));
  });
});

t.test('general: 50 messages in the existing #general', async (t) => {
  await withSlack(await seedFrom(twin.suggestions[3]!.prompt, 'general'), async (client) => {
    const general = await channelNamed(client, 'general');
    t.equal((await history(client, general!.id!)).length, 50);
  });
});

t.test('leadership: private, 8 messages each with 2 replies', async (t) => {
  await withSlack(await seedFrom(twin.suggestions[4]!.prompt, 'leadership'), async (client) => {
    const c = await channelNamed(client, 'leadership');
    t.equal(c!.is_private, true);
    const messages = await history(client, c!.id!);
    t.equal(messages.length, 8);
    t.ok(messages.every((m) => m.reply_count === 2));
  });
});
