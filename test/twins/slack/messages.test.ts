// Messages, threads, reactions and scheduled messages of the Slack twin, through @slack/web-api.

import t from 'tap';
import { startSlack, slackError, CLOCK_START } from './slack-client.js';

const slack = await startSlack();
const { client } = slack;
t.teardown(() => slack.twin.close());

const auth = await client.auth.test();
const channels = (await client.conversations.list()).channels!;
const general = channels.find((c) => c.name === 'general')!.id!;
const random = channels.find((c) => c.name === 'random')!.id!;
const startSeconds = Math.floor(CLOCK_START.getTime() / 1000);

t.test('chat.postMessage: ts from the clock, unique and ordered; blocks kept as sent', async (t) => {
  const blocks = [
    { type: 'section', text: { type: 'mrkdwn', text: '*Deploy* finished' } },
    { type: 'context', elements: [{ type: 'plain_text', text: 'v1.2.3' }] },
  ];
  const first = await client.chat.postMessage({ channel: general, text: 'Deploy finished', blocks });
  const second = await client.chat.postMessage({ channel: '#general', text: 'second' });
  t.equal(first.channel, general);
  t.equal(first.ts, `${startSeconds}.000001`);
  t.equal(second.ts, `${startSeconds}.000002`);
  t.same(first.message!.blocks, blocks);
  t.equal(first.message!.user, auth.user_id);
  t.equal(first.message!.bot_id, auth.bot_id);
  t.equal(first.message!.text, 'Deploy finished');

  await slack.twin.advance(new Date(CLOCK_START.getTime() + 60_000));
  const third = await client.chat.postMessage({ channel: general, text: 'a minute later' });
  t.equal(third.ts, `${startSeconds + 60}.000001`);

  const history = await client.conversations.history({ channel: general });
  t.same(
    history.messages!.slice(0, 3).map((m) => m.text),
    ['a minute later', 'second', 'Deploy finished'],
  );
  t.same(history.messages![2]!.blocks, blocks);
});

t.test('chat.postMessage errors', async (t) => {
  t.equal(await slackError(client.chat.postMessage({ channel: random, text: 'hi' })), 'not_in_channel');
  t.equal(await slackError(client.chat.postMessage({ channel: 'C0NOPE00000', text: 'hi' })), 'channel_not_found');
  t.equal(await slackError(client.chat.postMessage({ channel: general, text: '' })), 'no_text');
  t.equal(await slackError(client.chat.postMessage({ channel: general, text: 'x', blocks: [{ text: 'no type' }] as never })), 'invalid_blocks');
  t.equal(await slackError(client.chat.postMessage({ channel: general, text: 'x'.repeat(40_001) })), 'msg_too_long');
});

t.test('threads: replies, reply counts, broadcast, replies pagination', async (t) => {
  const parent = await client.chat.postMessage({ channel: general, text: 'Incident: API errors' });
  const r1 = await client.chat.postMessage({ channel: general, text: 'Looking', thread_ts: parent.ts! });
  t.equal(r1.message!.thread_ts, parent.ts);
  t.equal(r1.message!.parent_user_id, auth.user_id);
  const r2 = await client.chat.postMessage({ channel: general, text: 'Fixed', thread_ts: r1.ts!, reply_broadcast: true });
  t.equal(r2.message!.thread_ts, parent.ts, 'a reply ts leads to the thread root');
  t.equal(r2.message!.subtype, 'thread_broadcast');

  const thread = await client.conversations.replies({ channel: general, ts: parent.ts! });
  t.same(
    thread.messages!.map((m) => m.text),
    ['Incident: API errors', 'Looking', 'Fixed'],
  );
  const root = thread.messages![0]!;
  t.equal(root.reply_count, 2);
  t.equal(root.latest_reply, r2.ts);
  t.same(root.reply_users, [auth.user_id]);
  t.equal(root.thread_ts, parent.ts);

  const top = (await client.conversations.history({ channel: general, limit: 3 })).messages!;
  t.same(
    top.map((m) => m.text),
    ['Fixed', 'Incident: API errors', 'a minute later'],
    'plain replies stay out of history; broadcasts show',
  );

  const paged: string[] = [];
  for await (const page of client.paginate('conversations.replies', { channel: general, ts: parent.ts!, limit: 1 })) {
    paged.push(...(page as unknown as { messages: { text: string }[] }).messages.map((m) => m.text));
  }
  t.same(paged, ['Incident: API errors', 'Looking', 'Fixed']);
  t.equal(await slackError(client.conversations.replies({ channel: general, ts: '1.000001' })), 'thread_not_found');
  const link = await client.chat.getPermalink({ channel: general, message_ts: r1.ts! });
  t.equal(link.permalink, `https://twin-workspace.slack.com/archives/${general}/p${r1.ts!.replace('.', '')}?thread_ts=${parent.ts}&cid=${general}`);
  t.equal(await slackError(client.chat.getPermalink({ channel: general, message_ts: '1.000001' })), 'message_not_found');
  t.equal(await slackError(client.chat.postMessage({ channel: general, text: 'x', thread_ts: '1.000001' })), 'thread_not_found');
});

t.test('history: limit, cursor pagination, oldest/latest/inclusive', async (t) => {
  const room = (await client.conversations.create({ name: 'history-room' })).channel!.id!;
  const posted: string[] = [];
  for (let i = 0; i < 7; i++) posted.push((await client.chat.postMessage({ channel: room, text: `m${i}` })).ts!);
  const firstPage = await client.conversations.history({ channel: room, limit: 3 });
  t.equal(firstPage.has_more, true);
  t.same(
    firstPage.messages!.map((m) => m.text),
    ['m6', 'm5', 'm4'],
  );
  t.ok(firstPage.response_metadata!.next_cursor);

  const texts: string[] = [];
  for await (const page of client.paginate('conversations.history', { channel: room, limit: 3 })) {
    texts.push(...(page as unknown as { messages: { text: string }[] }).messages.map((m) => m.text));
  }
  t.same(texts, ['m6', 'm5', 'm4', 'm3', 'm2', 'm1', 'm0']);

  const window = await client.conversations.history({ channel: room, oldest: posted[2]!, latest: posted[5]! });
  t.same(
    window.messages!.map((m) => m.text),
    ['m4', 'm3'],
  );
  const inclusive = await client.conversations.history({ channel: room, oldest: posted[2]!, latest: posted[5]!, inclusive: true });
  t.same(
    inclusive.messages!.map((m) => m.text),
    ['m5', 'm4', 'm3', 'm2'],
  );
  t.equal(await slackError(client.conversations.history({ channel: room, latest: 'yesterday' })), 'invalid_ts_latest');
});

t.test('chat.update and chat.delete', async (t) => {
  const posted = await client.chat.postMessage({ channel: general, text: 'draft' });
  const updated = await client.chat.update({ channel: general, ts: posted.ts!, text: 'final' });
  t.equal(updated.ts, posted.ts);
  t.equal(updated.text, 'final');
  t.equal((updated.message as { edited: { user: string } }).edited.user, auth.user_id);
  const read = await client.conversations.history({ channel: general, latest: posted.ts!, inclusive: true, limit: 1 });
  t.equal(read.messages![0]!.text, 'final');

  t.equal(await slackError(client.chat.update({ channel: general, ts: '1.000001', text: 'x' })), 'message_not_found');
  // A person's message: the bot may neither edit nor delete it.
  const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;
  const human = (await client.apiCall('twin.messages.postAsUser', { user: ada, channel: general, text: 'mine' })) as unknown as { ts: string };
  t.equal(await slackError(client.chat.update({ channel: general, ts: human.ts, text: 'hacked' })), 'cant_update_message');
  t.equal(await slackError(client.chat.delete({ channel: general, ts: human.ts })), 'cant_delete_message');

  const deleted = await client.chat.delete({ channel: general, ts: posted.ts! });
  t.equal(deleted.ts, posted.ts);
  t.equal(await slackError(client.chat.delete({ channel: general, ts: posted.ts! })), 'message_not_found');

  const root = await client.chat.postMessage({ channel: general, text: 'root' });
  const reply = await client.chat.postMessage({ channel: general, text: 'reply', thread_ts: root.ts! });
  await client.chat.delete({ channel: general, ts: reply.ts! });
  const thread = await client.conversations.replies({ channel: general, ts: root.ts! });
  t.equal(thread.messages!.length, 1);
  t.notOk(thread.messages![0]!.reply_count, 'reply count goes away with the last reply');
});

t.test('chat.meMessage', async (t) => {
  const me = await client.chat.meMessage({ channel: general, text: 'waves' });
  const top = (await client.conversations.history({ channel: general, limit: 1 })).messages![0]!;
  t.equal(top.ts, me.ts);
  t.equal(top.subtype, 'me_message');
  t.equal(top.text, 'waves');
});

t.test('chat.postEphemeral', async (t) => {
  const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;
  const before = (await client.conversations.history({ channel: general, limit: 1 })).messages![0]!.ts;
  const eph = await client.chat.postEphemeral({ channel: general, user: ada, text: 'only you' });
  t.match(eph.message_ts, /^\d+\.\d{6}$/);
  t.equal((await client.conversations.history({ channel: general, limit: 1 })).messages![0]!.ts, before, 'not in history');
  const room = (await client.conversations.create({ name: 'ephemeral-room' })).channel!.id!;
  t.equal(await slackError(client.chat.postEphemeral({ channel: room, user: ada, text: 'x' })), 'user_not_in_channel');
});

t.test('direct messages: posting to a user id opens the IM', async (t) => {
  const grace = (await client.users.lookupByEmail({ email: 'grace@example.com' })).user!.id!;
  const sent = await client.chat.postMessage({ channel: grace, text: 'psst' });
  t.match(sent.channel, /^D/);
  const im = await client.conversations.open({ users: grace });
  t.equal(im.channel!.id, sent.channel);
  t.equal((await client.conversations.history({ channel: sent.channel! })).messages![0]!.text, 'psst');
});

t.test('reactions add, get, remove', async (t) => {
  const m = await client.chat.postMessage({ channel: general, text: 'react to me' });
  await client.reactions.add({ channel: general, timestamp: m.ts!, name: 'thumbsup' });
  await client.reactions.add({ channel: general, timestamp: m.ts!, name: ':tada:' });
  const got = await client.reactions.get({ channel: general, timestamp: m.ts! });
  t.equal(got.type, 'message');
  t.same(got.message!.reactions, [
    { name: 'thumbsup', users: [auth.user_id], count: 1 },
    { name: 'tada', users: [auth.user_id], count: 1 },
  ]);
  const inHistory = (await client.conversations.history({ channel: general, limit: 1 })).messages![0]!;
  t.equal(inHistory.reactions!.length, 2);
  t.equal(await slackError(client.reactions.add({ channel: general, timestamp: m.ts!, name: 'thumbsup' })), 'already_reacted');
  t.equal(await slackError(client.reactions.add({ channel: general, timestamp: m.ts!, name: 'Not Valid' })), 'invalid_name');
  t.equal(
    await slackError(client.reactions.add({ channel: general, timestamp: m.ts!, name: 'not_an_emoji_anywhere' })),
    'invalid_name',
    'names are checked against Slack’s emoji',
  );
  await client.reactions.add({ channel: general, timestamp: m.ts!, name: 'shipit' }); // a custom emoji of emoji.list
  await client.reactions.add({ channel: general, timestamp: m.ts!, name: '+1::skin-tone-3' });
  t.equal(await slackError(client.reactions.add({ channel: general, timestamp: m.ts!, name: 'shipit::skin-tone-9' })), 'invalid_name');
  t.equal(await slackError(client.reactions.add({ channel: general, timestamp: '1.000001', name: 'tada' })), 'message_not_found');
  await client.reactions.remove({ channel: general, timestamp: m.ts!, name: 'thumbsup' });
  t.equal(await slackError(client.reactions.remove({ channel: general, timestamp: m.ts!, name: 'thumbsup' })), 'no_reaction');
  const after = await client.reactions.get({ channel: general, timestamp: m.ts! });
  t.same(
    after.message!.reactions!.map((r) => r.name),
    ['tada', 'shipit', '+1::skin-tone-3'],
  );
});

t.test('scheduled messages post when the clock passes them', async (t) => {
  const now = Math.floor(slack.twin.server.clock.nowMs() / 1000);
  const later = await client.chat.scheduleMessage({ channel: general, text: 'in two hours', post_at: now + 7200 });
  const soon = await client.chat.scheduleMessage({ channel: general, text: 'in one hour', post_at: now + 3600 });
  const cancelled = await client.chat.scheduleMessage({ channel: general, text: 'never', post_at: now + 5400 });
  t.match(soon.scheduled_message_id, /^Q[0-9A-Z]{10}$/);
  t.equal(soon.post_at, now + 3600);
  t.equal(soon.message!.type, 'delayed_message');
  t.equal(await slackError(client.chat.scheduleMessage({ channel: general, text: 'x', post_at: now - 1 })), 'time_in_past');
  t.equal(await slackError(client.chat.scheduleMessage({ channel: general, text: 'x', post_at: now + 121 * 86400 })), 'time_too_far');

  const listed = await client.chat.scheduledMessages.list({ channel: general });
  t.same(
    listed.scheduled_messages!.map((s) => s.text),
    ['in one hour', 'never', 'in two hours'],
  );
  t.same(Object.keys(listed.scheduled_messages![0]!).sort(), ['channel_id', 'date_created', 'id', 'post_at', 'text']);
  await client.chat.deleteScheduledMessage({ channel: general, scheduled_message_id: cancelled.scheduled_message_id! });
  t.equal(
    await slackError(client.chat.deleteScheduledMessage({ channel: general, scheduled_message_id: cancelled.scheduled_message_id! })),
    'invalid_scheduled_message_id',
  );

  await slack.twin.advance(new Date((now + 3600) * 1000));
  let top = (await client.conversations.history({ channel: general, limit: 1 })).messages![0]!;
  t.equal(top.text, 'in one hour');
  t.equal(top.ts, `${now + 3600}.000001`, 'posted at its own instant');
  t.same(
    (await client.chat.scheduledMessages.list()).scheduled_messages!.map((s) => s.text),
    ['in two hours'],
  );

  await slack.twin.advance(new Date((now + 10_000) * 1000));
  top = (await client.conversations.history({ channel: general, limit: 1 })).messages![0]!;
  t.equal(top.text, 'in two hours');
  t.equal(top.ts!.split('.')[0], String(now + 7200));
  t.same((await client.chat.scheduledMessages.list()).scheduled_messages, []);
  t.equal(later.channel, general);
});

t.test('records: a PUT of a message record changes what the API answers', async (t) => {
  const m = await client.chat.postMessage({ channel: general, text: 'original' });
  const key = `${general}:${m.ts}`;
  const rec = (await (await fetch(`${slack.twin.url}/_twin/records/message/${encodeURIComponent(key)}`)).json()) as { body: Record<string, unknown> };
  t.equal(rec.body.text, 'original');
  const put = await fetch(`${slack.twin.url}/_twin/records/message/${encodeURIComponent(key)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields: { ...rec.body, text: 'rewritten' } }),
  });
  t.equal(put.status, 200);
  const top = (await client.conversations.history({ channel: general, limit: 1 })).messages![0]!;
  t.equal(top.text, 'rewritten');
});
