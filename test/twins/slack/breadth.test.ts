// What an incident or on-call bot needs beyond messages, through the official SDK: pins,
// bookmarks, user groups, reminders (user token), profiles and presence, emoji, search,
// conversations.mark, chat.unfurl, team.profile.get, a person's reaction.

import t from 'tap';
import { WebClient } from '@slack/web-api';
import { startSlack, slackError } from './slack-client.js';
import { mintUserToken } from '../../../twins/slack/model/tokens.js';

const slack = await startSlack();
const { client } = slack;
t.teardown(() => slack.twin.close());
const general = (await client.conversations.list()).channels!.find((c) => c.name === 'general')!.id!;
const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;
const grace = (await client.users.lookupByEmail({ email: 'grace@example.com' })).user!.id!;
const userToken = mintUserToken(slack.twin.server.host.ctx, ada, ['reminders:write', 'reminders:read', 'users.profile:write', 'search:read']).token;
const asAda = slack.clientWith(userToken);

t.test('pins and bookmarks', async (t) => {
  const m = await client.chat.postMessage({ channel: general, text: 'Incident #42 opened' });
  await client.pins.add({ channel: general, timestamp: m.ts! });
  t.equal(await slackError(client.pins.add({ channel: general, timestamp: m.ts! })), 'already_pinned');
  const pins = (await client.pins.list({ channel: general })).items!;
  t.equal(pins.length, 1);
  t.equal((pins[0] as { message: { text: string } }).message.text, 'Incident #42 opened');
  await client.pins.remove({ channel: general, timestamp: m.ts! });
  t.equal(await slackError(client.pins.remove({ channel: general, timestamp: m.ts! })), 'no_pin');

  const b = (await client.bookmarks.add({ channel_id: general, title: 'Runbook', type: 'link', link: 'https://example.com/runbook' })).bookmark!;
  t.match(b.id, /^Bk/);
  const edited = (await client.bookmarks.edit({ channel_id: general, bookmark_id: b.id!, title: 'Runbook v2' })).bookmark!;
  t.equal(edited.title, 'Runbook v2');
  t.equal((await client.bookmarks.list({ channel_id: general })).bookmarks!.length, 1);
  t.equal(await slackError(client.bookmarks.add({ channel_id: general, title: 'x', type: 'link', link: 'javascript:alert(1)' })), 'invalid_link');
  await client.bookmarks.remove({ channel_id: general, bookmark_id: b.id! });
  t.equal((await client.bookmarks.list({ channel_id: general })).bookmarks!.length, 0);
});

t.test('user groups', async (t) => {
  const g = (await client.usergroups.create({ name: 'On-call', handle: 'oncall' })).usergroup!;
  t.match(g.id, /^S/);
  t.equal(await slackError(client.usergroups.create({ name: 'On-call' })), 'name_already_exists');
  await client.usergroups.users.update({ usergroup: g.id!, users: `${ada},${grace}` });
  t.same((await client.usergroups.users.list({ usergroup: g.id! })).users, [ada, grace]);
  await client.usergroups.disable({ usergroup: g.id! });
  t.equal((await client.usergroups.list()).usergroups!.length, 0);
  t.equal((await client.usergroups.list({ include_disabled: true })).usergroups!.length, 1);
  t.equal(await slackError(client.usergroups.users.list({ usergroup: 'S0NOPE' })), 'no_such_subteam');
});

t.test('reminders with a user token', async (t) => {
  t.equal(await slackError(client.reminders.add({ text: 'x', time: 'in 5 minutes' })), 'not_allowed_token_type');
  const r = (await asAda.reminders.add({ text: 'check the pager', time: 'in 10 minutes' })).reminder!;
  t.match(r.id, /^Rm/);
  t.equal(r.user, ada);
  t.equal(await slackError(asAda.reminders.add({ text: 'x', time: 'whenever' })), 'cannot_parse');
  t.equal((await asAda.reminders.list()).reminders!.length, 1);
  await asAda.reminders.complete({ reminder: r.id! });
  t.ok((await asAda.reminders.info({ reminder: r.id! })).reminder!.complete_ts! > 0);
  await asAda.reminders.delete({ reminder: r.id! });
  t.equal(await slackError(asAda.reminders.info({ reminder: r.id! })), 'not_found');
});

t.test('profiles, presence, emoji, team profile, mark, unfurl, a person reacts', async (t) => {
  const set = await asAda.users.profile.set({ profile: { status_text: 'Incident commander', status_emoji: ':rotating_light:' } as never });
  t.equal(set.profile!.status_text, 'Incident commander');
  t.equal((await client.users.profile.get({ user: ada })).profile!.status_emoji, ':rotating_light:');
  t.equal(await slackError(asAda.users.profile.set({ profile: { is_admin: true } as never })), 'invalid_profile');
  await client.users.setPresence({ presence: 'away' });
  t.equal((await client.users.getPresence({ user: (await client.auth.test()).user_id! })).presence, 'away');
  t.equal(await slackError(client.users.setPresence({ presence: 'busy' as never })), 'invalid_presence');
  t.equal((await client.emoji.list()).emoji!.shipit, 'alias:squirrel');
  t.ok((await client.team.profile.get()).profile!.fields!.length > 0);
  const m = await client.chat.postMessage({ channel: general, text: 'see https://example.com/status' });
  await client.conversations.mark({ channel: general, ts: m.ts! });
  await client.chat.unfurl({ channel: general, ts: m.ts!, unfurls: { 'https://example.com/status': { text: 'All systems go' } } });
  const shown = (await client.conversations.history({ channel: general, limit: 1 })).messages![0]!;
  t.equal(shown.attachments![0]!.text, 'All systems go');
  await client.apiCall('twin.reactions.add', { user: ada, channel: general, timestamp: m.ts, name: 'eyes' });
  const r = (await client.reactions.get({ channel: general, timestamp: m.ts! })).message!.reactions!;
  t.same(r, [{ name: 'eyes', users: [ada], count: 1 }]);
  const search = await new WebClient(userToken, { slackApiUrl: `${slack.twin.url}/api/` }).search.messages({ query: 'example.com/status' });
  t.equal(search.messages!.total, 1);
});
