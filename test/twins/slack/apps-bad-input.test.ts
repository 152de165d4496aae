// Malformed or stale input to the app-facing surface gets Slack's own errors, never a 500:
// views, streams, response and upload URLs, OAuth, Socket Mode tickets and garbage frames.

import t from 'tap';
import WebSocket from 'ws';
import { WebClient } from '@slack/web-api';
import { startSlack, slackError } from './slack-client.js';

const slack = await startSlack();
const { client } = slack;
t.teardown(() => slack.twin.close());
const base = slack.twin.url;
const cred = (await (await fetch(`${base}/_twin/credential`)).json()) as { app_token: string };

t.test('views and streams', async (t) => {
  t.equal(await slackError(client.apiCall('views.open', { trigger_id: '1.2.3', view: '{bad json' })), 'invalid_arguments');
  t.equal(await slackError(client.apiCall('views.open', { trigger_id: '1.2.3' })), 'invalid_arguments');
  const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;
  t.equal(
    await slackError(client.views.publish({ user_id: ada, view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] } as never })),
    'invalid_arguments',
  );
  t.equal(await slackError(client.views.publish({ user_id: 'U0NOPE', view: { type: 'home', blocks: [] } })), 'user_not_found');
  const home = (await client.views.publish({ user_id: ada, view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }] } }))
    .view!;
  t.equal(await slackError(client.views.publish({ user_id: ada, hash: 'stale', view: { type: 'home', blocks: [] } })), 'hash_conflict');
  t.ok(home.hash);
  const general = (await client.conversations.list()).channels!.find((c) => c.name === 'general')!.id!;
  t.equal(await slackError(client.apiCall('chat.startStream', { channel: general })), 'invalid_arguments');
  t.equal(await slackError(client.apiCall('chat.startStream', { channel: general, thread_ts: '1.000001', chunks: '{"not":"a list"}' })), 'invalid_chunks');
});

t.test('response, upload and OAuth endpoints', async (t) => {
  const team = (await client.auth.test()).team_id;
  const r = await fetch(`${base}/actions/${team}/123/nope`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' });
  t.equal(r.status, 404);
  t.same(await r.json(), { ok: false, error: 'invalid_url' });
  const garbage = await fetch(`${base}/commands/${team}/123/nope`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
  t.equal(garbage.status, 404);
  const up = await fetch(`${base}/upload/v1/F0NOPE/nope`, { method: 'POST', body: 'bytes' });
  t.equal(up.status, 404);
  t.equal(await up.text(), 'invalid_upload_url');
  const noToken = new WebClient(undefined, { slackApiUrl: `${base}/api/`, retryConfig: { retries: 0 } });
  t.equal(await slackError(noToken.oauth.v2.access({ client_id: '1.2', client_secret: 'x', code: 'y' })), 'invalid_client_id');
  const page = await fetch(`${base}/oauth/v2/authorize?client_id=1.2&scope=chat:write`);
  t.equal(page.status, 400);
  t.equal(await slackError(client.apiCall('apps.connections.open')), 'not_allowed_token_type');
  t.equal(await slackError(slack.clientWith(cred.app_token).auth.test()), 'not_allowed_token_type');
  t.equal(await slackError(slack.clientWith(cred.app_token).chat.postMessage({ channel: 'C1', text: 'x' })), 'not_allowed_token_type');
});

t.test('Socket Mode: no ticket, garbage frames', async (t) => {
  const refused = new WebSocket(`${base.replace('http', 'ws')}/link/?ticket=nope`);
  t.equal(
    await new Promise<number>((resolve) => refused.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0)).on('error', () => resolve(-1))),
    401,
  );
  const opened = (await slack.clientWith(cred.app_token).apps.connections.open()) as { url: string };
  const ws = new WebSocket(opened.url);
  const hello = await new Promise<Record<string, unknown>>((resolve) => ws.once('message', (d) => resolve(JSON.parse(d.toString()))));
  t.equal(hello.type, 'hello');
  ws.send('not json');
  ws.send(JSON.stringify({ envelope_id: 'unknown' }));
  ws.send(JSON.stringify({ __proto__: { polluted: true }, envelope_id: 5 }));
  ws.send(Buffer.from([1, 2, 3]), { binary: true });
  await new Promise((r) => setTimeout(r, 100));
  t.equal(({} as Record<string, unknown>).polluted, undefined);
  t.equal((await client.auth.test()).ok, true, 'the twin keeps answering');
  ws.close();
});
