// Unchanged @slack/bolt apps in Socket Mode against the twin, through the gateway: message →
// reply; slash command → modal → submission → message; button click → respond() replacing the
// original; response_action errors; disconnect and reconnection; retries of unacknowledged
// envelopes (a raw WebSocket client that does not ack).

import t from 'tap';
import WebSocket from 'ws';
import { App, LogLevel } from '@slack/bolt';
import { eventually, startGatewayedSlack } from './app-harness.js';

process.env.TWIN_SLACK_ACK_TIMEOUT_MS = '300';

const slack = await startGatewayedSlack();
const { client, call, credential } = slack;
const channels = (await client.conversations.list()).channels!;
const general = channels.find((c) => c.name === 'general')!.id!;
const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;

const app = new App({
  token: credential.api_key,
  appToken: credential.app_token,
  socketMode: true,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: slack.apiUrl },
  installerOptions: { clientOptions: { slackApiUrl: slack.apiUrl } },
});

app.message('hello', async ({ message, say }) => {
  await say(`hi <@${(message as { user: string }).user}>`);
});
app.command('/ticket', async ({ ack, body, client: c }) => {
  await ack();
  await c.views.open({
    trigger_id: body.trigger_id,
    view: {
      type: 'modal',
      callback_id: 'ticket',
      private_metadata: body.channel_id,
      title: { type: 'plain_text', text: 'New ticket' },
      submit: { type: 'plain_text', text: 'File' },
      blocks: [
        { type: 'input', block_id: 'title', label: { type: 'plain_text', text: 'Title' }, element: { type: 'plain_text_input', action_id: 'title_input' } },
        {
          type: 'input',
          block_id: 'severity',
          label: { type: 'plain_text', text: 'Severity' },
          element: {
            type: 'static_select',
            action_id: 'pick',
            options: [
              { text: { type: 'plain_text', text: 'High' }, value: 'high' },
              { text: { type: 'plain_text', text: 'Low' }, value: 'low' },
            ],
          },
        },
      ],
    },
  });
});
app.view('ticket', async ({ ack, view, client: c }) => {
  const title = view.state.values.title!.title_input!.value!;
  if (title.length < 3) {
    await ack({ response_action: 'errors', errors: { title: 'Too short' } });
    return;
  }
  await ack();
  const severity = view.state.values.severity!.pick!.selected_option!.value;
  await c.chat.postMessage({ channel: view.private_metadata, text: `Ticket filed: ${title} (${severity})` });
});
app.action('approve', async ({ ack, respond, body }) => {
  await ack();
  await respond({ replace_original: true, text: `Approved by <@${body.user.id}>` });
});

await app.start();
t.teardown(async () => {
  await app.stop();
  await slack.close();
});

async function history(): Promise<{ text?: string; ts?: string; user?: string }[]> {
  return (await client.conversations.history({ channel: general })).messages ?? [];
}

t.test('the credential carries the app token and signing secret', async (t) => {
  t.match(credential.app_token, /^xapp-1-A[0-9A-Z]+-\d{13}-[0-9a-f]{64}$/);
  t.match(credential.signing_secret, /^[0-9a-f]{32}$/);
  t.equal(await eventually(() => slack.link().connectionCount), 1, 'Bolt is connected over the gateway');
  const refused = await call('apps.connections.open').catch((e) => e.data?.error);
  t.equal(refused, 'not_allowed_token_type', 'a bot token cannot open a connection');
});

t.test('message → reply', async (t) => {
  await call('twin.messages.postAsUser', { user: ada, channel: general, text: 'hello bot' });
  const reply = await eventually(async () => (await history()).find((m) => m.text === `hi <@${ada}>`));
  t.ok(reply.ts);
});

t.test('slash command → modal → submission → message', async (t) => {
  const run = await call('twin.commands.run', { user: ada, channel: general, command: '/ticket', text: '' });
  t.match(run.trigger_id, /^\d+\.\d+\.[0-9a-f]{32}$/);
  t.match(run.response_url, new RegExp(`^${slack.url}/commands/T`));
  // The app opened the modal with the live trigger_id.
  const open = await eventually(() => slack.server.store.list<{ id: string; user: string; open: boolean }>('view').find((v) => v.user === ada && v.open));
  // A submission the app refuses with errors keeps the view open, with the errors shown.
  await call('twin.views.submit', { user: ada, view_id: open.id, values: { title: { title_input: 'ab' }, severity: { pick: 'low' } } });
  const refused = await eventually(async () => {
    const v = await call('twin.views.get', { view_id: open.id });
    return v.errors ? v : undefined;
  });
  t.same(refused.errors, { title: 'Too short' });
  t.equal(refused.open, true);
  // A required input left empty never reaches the app.
  const missing = await call('twin.views.submit', { user: ada, view_id: open.id, values: { title: { title_input: 'x' } } }).catch((e) => e.data?.error);
  t.equal(missing, 'invalid_arguments');
  await call('twin.views.submit', { user: ada, view_id: open.id, values: { title: { title_input: 'Disk full' }, severity: { pick: 'high' } } });
  const posted = await eventually(async () => (await history()).find((m) => m.text === 'Ticket filed: Disk full (high)'));
  t.ok(posted);
  const closed = await eventually(async () => {
    const v = await call('twin.views.get', { view_id: open.id });
    return v.open === false ? v : undefined;
  });
  t.equal(closed.open, false, 'an empty ack closes the view');
  // The trigger was spent by views.open.
  const again = await client.views
    .open({ trigger_id: run.trigger_id, view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] } })
    .catch((e) => e.data?.error);
  t.equal(again, 'exchanged_trigger_id');
});

t.test('button click → respond() replaces the original', async (t) => {
  const posted = await client.chat.postMessage({
    channel: general,
    text: 'Deploy?',
    blocks: [
      {
        type: 'actions',
        block_id: 'deploy',
        elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' }, value: 'v42' }],
      },
    ],
  });
  const clicked = await call('twin.actions.click', { user: ada, channel: general, message_ts: posted.ts, action_id: 'approve' });
  t.match(clicked.response_url, new RegExp(`^${slack.url}/actions/T`));
  const replaced = await eventually(async () => (await history()).find((m) => m.ts === posted.ts && m.text === `Approved by <@${ada}>`));
  t.ok(replaced, 'the same message, its text replaced');
  const unknown = await call('twin.actions.click', { user: ada, channel: general, message_ts: posted.ts, action_id: 'nope' }).catch((e) => e.data?.error);
  t.equal(unknown, 'action_not_found');
});

t.test('disconnect → Bolt reconnects and keeps answering', async (t) => {
  const before = slack.link().stats.sent;
  const told = await call('twin.socket.disconnect', { reason: 'refresh_requested' });
  t.equal(told.connections, 1);
  await eventually(() => slack.link().connectionCount === 0, 5000);
  await eventually(() => slack.link().connectionCount === 1, 15000);
  await call('twin.messages.postAsUser', { user: ada, channel: general, text: 'hello again' });
  await eventually(async () => (await history()).filter((m) => m.text === `hi <@${ada}>`).length >= 2, 10000);
  t.ok(slack.link().stats.sent > before);
});

t.test('trigger ids: unknown, expired', async (t) => {
  const view = { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] };
  t.equal(await client.views.open({ trigger_id: '1.2.3', view } as never).catch((e) => e.data?.error), 'invalid_trigger_id');
  await call('twin.settings.set', { setting: 'app', value: { trigger_ttl_ms: 1 } });
  const run = await call('twin.commands.run', { user: ada, channel: general, command: '/other' });
  await new Promise((r) => setTimeout(r, 20));
  t.equal(await client.views.open({ trigger_id: run.trigger_id, view } as never).catch((e) => e.data?.error), 'expired_trigger_id');
  await call('twin.settings.set', { setting: 'app', value: { trigger_ttl_ms: 3000 } });
  t.equal(await client.views.update({ view_id: 'V0NOPE', view } as never).catch((e) => e.data?.error), 'not_found');
});

t.test('an envelope not acknowledged is sent again with retry_attempt', async (t) => {
  await app.stop();
  await eventually(() => slack.link().connectionCount === 0);
  const opened = (await (
    await fetch(`${slack.apiUrl}apps.connections.open`, { method: 'POST', headers: { authorization: `Bearer ${credential.app_token}` } })
  ).json()) as { ok: boolean; url: string };
  t.ok(opened.ok);
  t.match(opened.url, new RegExp(`^${slack.url.replace('http', 'ws')}/link/\\?ticket=`));
  const ws = new WebSocket(opened.url);
  const got: Record<string, any>[] = [];
  ws.on('message', (d) => got.push(JSON.parse(d.toString())));
  await eventually(() => got.find((m) => m.type === 'hello'));
  await call('twin.messages.postAsUser', { user: ada, channel: general, text: 'nobody acks this' });
  const retried = await eventually(() => got.filter((m) => m.type === 'events_api').length >= 2 && got.filter((m) => m.type === 'events_api'));
  t.equal(retried[0].retry_attempt, 0);
  t.equal(retried[1].retry_attempt, 1);
  t.equal(retried[1].retry_reason, 'timeout');
  t.not(retried[1].envelope_id, retried[0].envelope_id);
  t.same(retried[1].payload, retried[0].payload, 'the same event');
  const acked = slack.link().stats.acked;
  ws.send(JSON.stringify({ envelope_id: retried[1].envelope_id }));
  await eventually(() => slack.link().stats.acked === acked + 1);
  const seen = got.filter((m) => m.type === 'events_api').length;
  await new Promise((r) => setTimeout(r, 700));
  t.equal(got.filter((m) => m.type === 'events_api').length, seen, 'an acknowledged envelope is not sent again');
  ws.close();
  // A used ticket cannot connect again.
  const again = new WebSocket(opened.url);
  const status = await new Promise<number>((resolve) =>
    again.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)).on('error', () => resolve(-1)),
  );
  t.equal(status, 401);
});
