// Bolt's Assistant class, unchanged, in Socket Mode through the gateway: a person opens the
// assistant (assistant_thread_started → suggested prompts, title), writes in the thread, and the
// app sets a status and streams its reply with chat.startStream / appendStream / stopStream.

import t from 'tap';
import { App, Assistant, LogLevel } from '@slack/bolt';
import { eventually, startGatewayedSlack } from './app-harness.js';

const slack = await startGatewayedSlack();
const { client, call, credential } = slack;
const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;

const app = new App({
  token: credential.api_key,
  appToken: credential.app_token,
  socketMode: true,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: slack.apiUrl },
  installerOptions: { clientOptions: { slackApiUrl: slack.apiUrl } },
});

const statuses: string[] = [];
app.assistant(
  new Assistant({
    threadStarted: async ({ say, setSuggestedPrompts, setTitle }) => {
      await say('Hi, how can I help?');
      await setSuggestedPrompts({ prompts: [{ title: 'Summarise', message: 'Summarise the incident' }], title: 'Try these' });
      await setTitle('Incident helper');
    },
    userMessage: async ({ client: c, message, setStatus, context }) => {
      const m = message as { channel: string; thread_ts: string; text: string; user: string };
      await setStatus('is thinking...');
      statuses.push('thinking');
      const streamer = c.chatStream({
        channel: m.channel,
        thread_ts: m.thread_ts,
        recipient_team_id: context.teamId,
        recipient_user_id: m.user,
        buffer_size: 1,
      });
      for (const part of ['You said: ', m.text, '.']) await streamer.append({ markdown_text: part });
      await streamer.stop();
    },
  }),
);
await app.start();
t.teardown(async () => {
  await app.stop();
  await slack.close();
});

t.test('assistant thread: started, prompts, title, status, streamed reply', async (t) => {
  await eventually(() => slack.link().connectionCount === 1);
  const started = await call('twin.assistant.start', { user: ada });
  t.match(started.channel, /^D/);
  const thread = await eventually(async () => {
    const th = slack.server.store.get<{ title: string; suggested_prompts: unknown[]; prompts_title: string }>(
      'assistant_thread',
      `${started.channel}:${started.thread_ts}`,
    );
    return th && th.title === 'Incident helper' ? th : undefined;
  });
  t.same(thread.suggested_prompts, [{ title: 'Summarise', message: 'Summarise the incident' }]);
  t.equal(thread.prompts_title, 'Try these');
  const replies = async () => (await client.conversations.replies({ channel: started.channel, ts: started.thread_ts })).messages ?? [];
  await eventually(async () => (await replies()).find((m) => m.text === 'Hi, how can I help?'));

  await call('twin.messages.postAsUser', { user: ada, channel: started.channel, thread_ts: started.thread_ts, text: 'where is the runbook' });
  const streamed = await eventually(async () => (await replies()).find((m) => m.text === 'You said: where is the runbook.'));
  t.ok(streamed.edited, 'the streamed message grew by updates');
  t.same(statuses, ['thinking']);
  const th = slack.server.store.get<{ status: string }>('assistant_thread', `${started.channel}:${started.thread_ts}`)!;
  t.equal(th.status, 'is thinking...');
  // A stopped stream takes no more text.
  const late = await client.chat.appendStream({ channel: started.channel, ts: streamed.ts!, markdown_text: 'more' }).catch((e) => e.data?.error);
  t.equal(late, 'message_not_in_streaming_state');
  const unknown = await client.assistant.threads.setTitle({ channel_id: started.channel, thread_ts: '1.000001', title: 'x' }).catch((e) => e.data?.error);
  t.equal(unknown, 'invalid_thread_ts');
});
