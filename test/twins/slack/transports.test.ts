// The same event reaches an app over Socket Mode and over HTTP as the same JSON (apart from the
// Socket Mode envelope and the per-event ids and times); the HTTP copy is signed.

import t from 'tap';
import WebSocket from 'ws';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySlackRequest } from '@slack/bolt';
import { eventually, startGatewayedSlack } from './app-harness.js';

const slack = await startGatewayedSlack();
const { client, call, credential } = slack;
const general = (await client.conversations.list()).channels!.find((c) => c.name === 'general')!.id!;
const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;

const posted: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (body.includes('"url_verification"')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: JSON.parse(body).challenge }));
      return;
    }
    posted.push({ headers: req.headers, body });
    res.writeHead(200).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
t.teardown(async () => {
  receiver.close();
  await slack.close();
});

/** The parts that differ from one event to the next. */
function normalise(envelope: Record<string, any>): Record<string, any> {
  const { event_id: _i, event_time: _t, ...rest } = envelope;
  const { ts: _ts, event_ts: _ets, client_msg_id: _c, ...event } = rest.event;
  return { ...rest, event };
}

t.test('one event, both transports', async (t) => {
  const opened = (await (
    await fetch(`${slack.apiUrl}apps.connections.open`, { method: 'POST', headers: { authorization: `Bearer ${credential.app_token}` } })
  ).json()) as { url: string };
  const ws = new WebSocket(opened.url);
  const frames: Record<string, any>[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    frames.push(m);
    if (m.envelope_id) ws.send(JSON.stringify({ envelope_id: m.envelope_id }));
  });
  await eventually(() => frames.find((m) => m.type === 'hello'));
  await call('twin.messages.postAsUser', { user: ada, channel: general, text: 'same event' });
  const overSocket = await eventually(() => frames.find((m) => m.type === 'events_api'));
  t.same(Object.keys(overSocket).sort(), ['accepts_response_payload', 'envelope_id', 'payload', 'retry_attempt', 'retry_reason', 'type']);
  ws.close();

  await call('twin.settings.set', { setting: 'app', value: { socket_mode: false } });
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/slack/events`;
  await call('twin.settings.set', { setting: 'events', value: { request_url: url } });
  await call('twin.messages.postAsUser', { user: ada, channel: general, text: 'same event' });
  const overHttp = await eventually(() => posted[0]);
  t.doesNotThrow(() =>
    verifySlackRequest({
      signingSecret: credential.signing_secret,
      body: overHttp.body,
      headers: {
        'x-slack-signature': String(overHttp.headers['x-slack-signature']),
        'x-slack-request-timestamp': Number(overHttp.headers['x-slack-request-timestamp']),
      },
    }),
  );
  const httpEnvelope = JSON.parse(overHttp.body);
  t.same(Object.keys(httpEnvelope), Object.keys(overSocket.payload), 'the same fields in the same order');
  t.same(normalise(httpEnvelope), normalise(overSocket.payload));
});
