// auth, team, users and conversations of the Slack twin, driven through @slack/web-api.

import t from 'tap';
import { startSlack, slackError, CLOCK_START } from './slack-client.js';

const slack = await startSlack();
const { client } = slack;
t.teardown(() => slack.twin.close());

const auth = await client.auth.test();
const general = (await client.conversations.list()).channels!.find((c) => c.name === 'general')!;
const random = (await client.conversations.list()).channels!.find((c) => c.name === 'random')!;

t.test('auth.test names the bot, its team and its bot id', async (t) => {
  t.equal(auth.ok, true);
  t.match(auth.user_id, /^U[0-9][0-9A-Z]{9}$/);
  t.match(auth.team_id, /^T[0-9][0-9A-Z]{9}$/);
  t.match(auth.bot_id, /^B[0-9A-Z]{10}$/);
  t.equal(auth.user, 'twinbot');
  t.equal(auth.team, 'Twin Workspace');
  t.match(slack.twin.apiKey, /^xoxb-\d{12}-\d{13}-[0-9A-Za-z]{24}$/);
});

t.test('tokens: missing is not_authed, wrong is invalid_auth, token param works', async (t) => {
  t.equal(await slackError(slack.clientWith('xoxb-1-2-nope').auth.test()), 'invalid_auth');
  const bare = await fetch(`${slack.twin.url}/api/auth.test`, { method: 'POST' });
  t.equal(bare.status, 200);
  t.same(await bare.json(), { ok: false, error: 'not_authed' });
  const viaParam = await fetch(`${slack.twin.url}/api/auth.test`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: slack.twin.apiKey }).toString(),
  });
  t.equal(((await viaParam.json()) as { user_id: string }).user_id, auth.user_id);
  const viaQuery = await fetch(`${slack.twin.url}/api/auth.test?token=${encodeURIComponent(slack.twin.apiKey)}`);
  t.equal(((await viaQuery.json()) as { ok: boolean }).ok, true);
  const json = await fetch(`${slack.twin.url}/api/conversations.info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${slack.twin.apiKey}` },
    body: JSON.stringify({ channel: general.id }),
  });
  t.equal(((await json.json()) as { channel: { name: string } }).channel.name, 'general');
});

t.test('unknown methods answer unknown_method with HTTP 200', async (t) => {
  t.equal(await slackError(client.apiCall('chat.teleport', {})), 'unknown_method');
});

t.test('team.info', async (t) => {
  const res = await client.team.info();
  t.equal(res.team!.id, auth.team_id);
  t.equal(res.team!.domain, 'twin-workspace');
  t.equal(await slackError(client.team.info({ team: 'T000000000' })), 'team_not_found');
});

t.test('users.list pages with the SDK paginator; info and lookupByEmail', async (t) => {
  const ids: string[] = [];
  for await (const page of client.paginate('users.list', { limit: 2 })) {
    const members = (page as unknown as { members: { id: string }[] }).members;
    t.ok(members.length <= 2, 'page respects limit');
    ids.push(...members.map((m) => m.id));
  }
  t.equal(ids.length, 5, 'four people and the bot');
  t.equal(new Set(ids).size, 5);
  const ada = await client.users.lookupByEmail({ email: 'ada@example.com' });
  t.equal(ada.user!.real_name, 'Ada Lovelace');
  t.equal(ada.user!.is_owner, true);
  const info = await client.users.info({ user: ada.user!.id! });
  t.equal(info.user!.profile!.email, 'ada@example.com');
  const bot = await client.users.info({ user: auth.user_id! });
  t.equal(bot.user!.is_bot, true);
  t.equal(bot.user!.profile!.bot_id, auth.bot_id);
  t.equal(await slackError(client.users.info({ user: 'U0NOBODY00' })), 'user_not_found');
  t.equal((await client.users.profile.get({ user: ada.user!.id! })).profile!.email, 'ada@example.com');
  t.equal((await client.users.getPresence({ user: ada.user!.id! })).presence, 'away');
  t.equal((await client.users.getPresence({ user: auth.user_id! })).presence, 'active', 'the bot is always active');
  t.equal(await slackError(client.users.lookupByEmail({ email: 'nobody@example.com' })), 'users_not_found');
});

t.test('starting workspace: #general with the bot, #random without', async (t) => {
  t.equal(general.is_general, true);
  t.equal(general.is_member, true);
  t.equal(general.num_members, 5);
  t.equal(random.is_member, false);
  t.equal(random.num_members, 4);
  t.equal(general.created, Math.floor(CLOCK_START.getTime() / 1000));
  t.match(general.id, /^C[0-9][0-9A-Z]{9}$/);
});

t.test('conversations.create, info, name rules and name_taken', async (t) => {
  const created = await client.conversations.create({ name: 'deploys' });
  const c = created.channel!;
  t.equal(c.name, 'deploys');
  t.equal(c.is_private, false);
  t.equal(c.is_member, true);
  t.equal(c.creator, auth.user_id);
  const info = await client.conversations.info({ channel: c.id!, include_num_members: true });
  t.equal(info.channel!.num_members, 1);
  t.equal(await slackError(client.conversations.create({ name: 'deploys' })), 'name_taken');
  t.equal(await slackError(client.conversations.create({ name: 'general' })), 'name_taken');
  t.equal(await slackError(client.conversations.create({ name: 'Has Spaces' })), 'invalid_name_specials');
  t.equal(await slackError(client.conversations.create({ name: 'x'.repeat(81) })), 'invalid_name_maxlength');
  t.equal(await slackError(client.conversations.create({ name: '' })), 'invalid_name_required');
  t.equal(await slackError(client.conversations.info({ channel: 'C0NOPE00000' })), 'channel_not_found');
});

t.test('private channels are invisible to non-members; list filters by type', async (t) => {
  const secret = (await client.conversations.create({ name: 'secret-plans', is_private: true })).channel!;
  t.equal(secret.is_private, true);
  const publicOnly = await client.conversations.list();
  t.notOk(
    publicOnly.channels!.some((c) => c.id === secret.id),
    'default types are public only',
  );
  const privateToo = await client.conversations.list({ types: 'public_channel,private_channel' });
  t.ok(privateToo.channels!.some((c) => c.id === secret.id));
  t.equal(await slackError(client.conversations.join({ channel: secret.id! })), 'method_not_supported_for_channel_type');
  t.equal(await slackError(client.conversations.list({ types: 'nonsense' })), 'invalid_types');
  t.equal(await slackError(client.conversations.leave({ channel: secret.id! })), 'last_member');
  const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;
  await client.conversations.invite({ channel: secret.id!, users: ada });
  await client.conversations.leave({ channel: secret.id! });
  t.equal(await slackError(client.conversations.info({ channel: secret.id! })), 'channel_not_found');
});

t.test('join, members, invite, kick, leave', async (t) => {
  t.equal(await slackError(client.conversations.history({ channel: random.id! })), 'not_in_channel');
  const joined = await client.conversations.join({ channel: random.id! });
  t.equal(joined.channel!.is_member, true);
  t.notOk(joined.warning);
  const again = await client.conversations.join({ channel: random.id! });
  t.equal(again.warning, 'already_in_channel');
  const members = await client.conversations.members({ channel: random.id! });
  t.equal(members.members!.length, 5);
  t.ok(members.members!.includes(auth.user_id!));

  const room = (await client.conversations.create({ name: 'incident-42' })).channel!;
  const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;
  const alan = (await client.users.lookupByEmail({ email: 'alan@example.com' })).user!.id!;
  const invited = await client.conversations.invite({ channel: room.id!, users: `${ada},${alan}` });
  t.equal(invited.channel!.id, room.id);
  t.same((await client.conversations.members({ channel: room.id! })).members, [auth.user_id, ada, alan]);
  t.equal(await slackError(client.conversations.invite({ channel: room.id!, users: ada })), 'already_in_channel');
  t.equal(await slackError(client.conversations.invite({ channel: room.id!, users: auth.user_id! })), 'cant_invite_self');
  t.equal(await slackError(client.conversations.invite({ channel: room.id!, users: 'U0NOBODY00' })), 'user_not_found');
  await client.conversations.kick({ channel: room.id!, user: alan });
  t.same((await client.conversations.members({ channel: room.id! })).members, [auth.user_id, ada]);
  t.equal(await slackError(client.conversations.kick({ channel: room.id!, user: alan })), 'not_in_channel');
  t.equal(await slackError(client.conversations.kick({ channel: room.id!, user: auth.user_id! })), 'cant_kick_self');
  t.equal(await slackError(client.conversations.kick({ channel: general.id!, user: ada })), 'cant_kick_from_general');
  t.equal(await slackError(client.conversations.leave({ channel: general.id! })), 'cant_leave_general');

  const paged: string[] = [];
  for await (const page of client.paginate('conversations.members', { channel: general.id!, limit: 2 })) {
    paged.push(...(page as unknown as { members: string[] }).members);
  }
  t.equal(paged.length, 5);

  await client.conversations.leave({ channel: room.id! });
  const notIn = await fetch(`${slack.twin.url}/api/conversations.leave`, {
    method: 'POST',
    headers: { authorization: `Bearer ${slack.twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: `channel=${room.id}`,
  });
  t.same(await notIn.json(), { ok: false, not_in_channel: true }, 'leaving where one is not: no error code');
  const history = await client.conversations.join({ channel: room.id! });
  t.ok(history.ok);
  const msgs = (await client.conversations.history({ channel: room.id! })).messages!;
  t.same(
    msgs.map((m) => m.subtype),
    ['channel_join', 'channel_leave', 'channel_leave', 'channel_join', 'channel_join'],
    'invite, kick, leave and join leave system messages, newest first',
  );
});

t.test('archive, unarchive, rename, topic, purpose', async (t) => {
  const c = (await client.conversations.create({ name: 'old-name' })).channel!;
  const renamed = await client.conversations.rename({ channel: c.id!, name: 'new-name' });
  t.equal(renamed.channel!.name, 'new-name');
  t.same(renamed.channel!.previous_names, ['old-name']);
  t.equal(await slackError(client.conversations.rename({ channel: c.id!, name: 'random' })), 'name_taken');

  const topic = await client.conversations.setTopic({ channel: c.id!, topic: 'Ship it' });
  t.equal(topic.channel!.topic!.value, 'Ship it');
  t.equal(topic.channel!.topic!.creator, auth.user_id);
  const purpose = await client.conversations.setPurpose({ channel: c.id!, purpose: 'Deploy talk' });
  t.equal((purpose.channel as { purpose: { value: string } }).purpose.value, 'Deploy talk');
  t.equal(await slackError(client.conversations.setTopic({ channel: c.id!, topic: 'x'.repeat(251) })), 'too_long');

  await client.conversations.archive({ channel: c.id! });
  t.equal((await client.conversations.info({ channel: c.id! })).channel!.is_archived, true);
  t.equal(await slackError(client.conversations.archive({ channel: c.id! })), 'already_archived');
  t.equal(await slackError(client.chat.postMessage({ channel: c.id!, text: 'hello?' })), 'is_archived');
  t.equal(await slackError(client.conversations.setTopic({ channel: c.id!, topic: 'nope' })), 'is_archived');
  const active = await client.conversations.list({ exclude_archived: true });
  t.notOk(active.channels!.some((x) => x.id === c.id));
  await client.conversations.unarchive({ channel: c.id! });
  t.equal((await client.conversations.info({ channel: c.id! })).channel!.is_archived, false);
  t.equal(await slackError(client.conversations.unarchive({ channel: c.id! })), 'not_archived');
  t.equal(await slackError(client.conversations.archive({ channel: general.id! })), 'cant_archive_general');
});

t.test('conversations.open: IMs and group DMs, reopened when they exist', async (t) => {
  const grace = (await client.users.lookupByEmail({ email: 'grace@example.com' })).user!.id!;
  const katherine = (await client.users.lookupByEmail({ email: 'katherine@example.com' })).user!.id!;
  const im = await client.conversations.open({ users: grace });
  t.match(im.channel!.id, /^D[0-9A-Z]{10}$/);
  t.notOk(im.already_open);
  const again = await client.conversations.open({ users: grace, return_im: true });
  t.equal(again.channel!.id, im.channel!.id);
  t.equal(again.already_open, true);
  t.equal((again.channel as { is_im: boolean }).is_im, true);
  t.equal((again.channel as { user: string }).user, grace);

  const mpim = await client.conversations.open({ users: `${grace},${katherine}` });
  t.match(mpim.channel!.id, /^G[0-9A-Z]{10}$/);
  const mpimInfo = (await client.conversations.info({ channel: mpim.channel!.id! })).channel!;
  t.equal(mpimInfo.is_mpim, true);
  t.match(mpimInfo.name, /^mpdm-/);
  t.equal((await client.conversations.open({ users: `${katherine},${grace}` })).channel!.id, mpim.channel!.id);
  t.equal(await slackError(client.conversations.open({ users: 'U0NOBODY00' })), 'user_not_found');
  t.equal(await slackError(client.conversations.open({} as never)), 'users_list_not_supplied');

  const ims = await client.conversations.list({ types: 'im,mpim' });
  t.same(ims.channels!.map((c) => c.id).sort(), [im.channel!.id, mpim.channel!.id].sort());
  const mine = await client.users.conversations({ types: 'im' });
  t.same(
    mine.channels!.map((c) => c.id),
    [im.channel!.id],
  );
  const graces = await client.users.conversations({ user: grace, types: 'public_channel' });
  t.same(graces.channels!.map((c) => c.name).sort(), ['general', 'random']);
});

t.test('conversations.list pages with the SDK paginator', async (t) => {
  const all = await client.conversations.list({ limit: 1000 });
  const seen: string[] = [];
  for await (const page of client.paginate('conversations.list', { limit: 2 })) {
    seen.push(...(page as unknown as { channels: { id: string }[] }).channels.map((c) => c.id));
  }
  t.same(
    seen,
    all.channels!.map((c) => c.id),
  );
  t.ok(seen.length > 2);
  t.equal(await slackError(client.conversations.list({ cursor: 'bm9wZQ==' })), 'invalid_cursor');
});

t.test('the starting workspace is deterministic and comes back after a reset', async (t) => {
  const other = await startSlack();
  t.teardown(() => other.twin.close());
  const otherAuth = await other.client.auth.test();
  t.equal(otherAuth.user_id, auth.user_id);
  t.equal(otherAuth.team_id, auth.team_id);
  const otherGeneral = (await other.client.conversations.list()).channels!.find((c) => c.name === 'general')!;
  t.equal(otherGeneral.id, general.id);
  const teams = (await (await fetch(`${other.twin.url}/_twin/records/team`)).json()) as unknown[];
  t.equal(teams.length, 1, 'team kept as a record');

  await other.client.conversations.create({ name: 'temporary' });
  const reset = await fetch(`${other.twin.url}/_twin/reset`, { method: 'POST' });
  t.equal(reset.status, 200);
  const afterReset = await other.client.auth.test();
  t.equal(afterReset.user_id, auth.user_id, 'same bot after reset');
  const names = (await other.client.conversations.list()).channels!.map((c) => c.name);
  t.same(names, ['general', 'random']);
});
