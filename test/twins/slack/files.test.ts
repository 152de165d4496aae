// Files through the official SDK's files.uploadV2 (getUploadURLExternal → upload → complete), a
// person's upload, file_shared reaching an unchanged Bolt app over Socket Mode, info/list/delete,
// url_private downloads.

import t from 'tap';
import { App, LogLevel } from '@slack/bolt';
import { eventually, startGatewayedSlack } from './app-harness.js';

const slack = await startGatewayedSlack();
const { client, call, credential } = slack;
const general = (await client.conversations.list()).channels!.find((c) => c.name === 'general')!.id!;
const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;

const shared: { file_id: string; user_id: string; channel_id: string }[] = [];
const app = new App({
  token: credential.api_key,
  appToken: credential.app_token,
  socketMode: true,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: slack.apiUrl },
  installerOptions: { clientOptions: { slackApiUrl: slack.apiUrl } },
});
app.event('file_shared', async ({ event }) => {
  shared.push(event as never);
});
await app.start();
t.teardown(async () => {
  await app.stop();
  await slack.close();
});

t.test('files.uploadV2 shares a file in a channel', async (t) => {
  await eventually(() => slack.link().connectionCount === 1);
  const res = (await client.filesUploadV2({
    channel_id: general,
    filename: 'postmortem.md',
    content: '# What happened\n',
    title: 'Postmortem',
    initial_comment: 'Here it is',
  })) as unknown as {
    files: { files: { id: string; title: string }[] }[];
  };
  const id = res.files[0]!.files[0]!.id;
  t.match(id, /^F/);
  const info = (await client.files.info({ file: id })).file!;
  t.equal(info.name, 'postmortem.md');
  t.equal(info.title, 'Postmortem');
  t.equal(info.size, 16);
  t.same(info.channels, [general]);
  const message = (await client.conversations.history({ channel: general })).messages!.find((m) => m.files?.[0]?.id === id)!;
  t.equal(message.text, 'Here it is');
  t.equal(message.subtype, 'file_share');
  const event = await eventually(() => shared.find((e) => e.file_id === id));
  t.equal(event.channel_id, general);
  const body = await fetch(info.url_private!, { headers: { authorization: `Bearer ${credential.api_key}` } });
  t.equal(await body.text(), '# What happened\n');
  const anonymous = await fetch(info.url_private!);
  t.same(await anonymous.json(), { ok: false, error: 'not_authed' }, 'without a token the download is refused');

  const listed = await client.files.list({ channel: general });
  t.ok(listed.files!.length > 0);
  t.equal(listed.files![0]!.id, id);
  t.equal(await client.files.sharedPublicURL({ file: id }).catch((e) => e.data?.error), 'not_allowed_token_type');
  await client.files.delete({ file: id });
  t.equal(await client.files.info({ file: id }).catch((e) => e.data?.error), 'file_not_found');
  t.equal(await client.files.completeUploadExternal({ files: [{ id: 'F0NOPE' }] }).catch((e) => e.data?.error), 'file_not_found');
});

t.test('a person uploads: file_share message and file_shared event', async (t) => {
  const up = await call('twin.files.upload', { user: ada, channel: general, filename: 'graph.csv', content: 'a,b\n1,2\n' });
  t.equal(up.file.user, ada);
  t.equal(up.file.filetype, 'csv');
  const event = await eventually(() => shared.find((e) => e.file_id === up.file.id));
  t.equal(event.user_id, ada);
  t.equal(await client.files.delete({ file: up.file.id }).catch((e) => e.data?.error), 'cant_delete_file');
});
