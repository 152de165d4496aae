// Events API callbacks (signed, verified with @slack/bolt's verifySlackRequest on a loopback
// receiver), the twin settings, and on-demand rate limiting.

import t from 'tap';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySlackRequest } from '@slack/bolt';
import { ErrorCode } from '@slack/web-api';
import { startSlack, slackError } from './slack-client.js';

process.env.TWIN_DELIVERY_BACKOFF_MS = '50,50';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

const received: Received[] = [];
let failNext = 0;
const verifications: string[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    // The url_verification handshake Slack sends when the URL is set: echo the challenge.
    if (body.includes('"url_verification"')) {
      verifications.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: JSON.parse(body).challenge }));
      return;
    }
    received.push({ headers: req.headers, body });
    if (failNext > 0) {
      failNext--;
      res.writeHead(500).end();
    } else res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const requestUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/slack/events`;

const slack = await startSlack();
const { client } = slack;
t.teardown(async () => {
  await slack.twin.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const auth = await client.auth.test();
const channels = (await client.conversations.list()).channels!;
const general = channels.find((c) => c.name === 'general')!.id!;
const random = channels.find((c) => c.name === 'random')!.id!;

async function waitFor(count: number): Promise<Received[]> {
  for (let i = 0; i < 200 && received.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  await slack.twin.server.deliveries.idle();
  return received;
}

function envelope(r: Received): { type: string; event: Record<string, unknown>; [k: string]: unknown } {
  return JSON.parse(r.body);
}

t.test('settings: defaults readable, invalid values refused', async (t) => {
  const got = (await client.apiCall('twin.settings.get', { setting: 'events' })) as unknown as { value: { request_url: null; signing_secret: string } };
  t.equal(got.value.request_url, null);
  t.match(got.value.signing_secret, /^[0-9a-f]{32}$/);
  t.equal(await slackError(client.apiCall('twin.settings.set', { setting: 'events', value: { request_url: 'ftp://x' } })), 'invalid_arguments');
  t.equal(await slackError(client.apiCall('twin.settings.set', { setting: 'nope', value: {} })), 'invalid_setting');
  // Nothing is delivered while no request URL is set.
  await client.chat.postMessage({ channel: general, text: 'nobody listening' });
  await slack.twin.server.deliveries.idle();
  t.equal(received.length, 0);
});

t.test('event callbacks are signed so Slack verification accepts them', async (t) => {
  const set = (await client.apiCall('twin.settings.set', { setting: 'events', value: { request_url: requestUrl } })) as unknown as {
    value: { signing_secret: string; verification_token: string };
  };
  const secret = set.value.signing_secret;
  t.equal(verifications.length, 1, 'setting the URL sent the url_verification challenge');
  const challenge = JSON.parse(verifications[0]!);
  t.equal(challenge.type, 'url_verification');
  t.equal(challenge.token, set.value.verification_token);
  t.match(challenge.challenge, /^[A-Za-z0-9]{48}$/);
  // A URL that does not echo the challenge is refused and not kept.
  const deaf = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
  await new Promise<void>((resolve) => deaf.listen(0, '127.0.0.1', resolve));
  const deafUrl = `http://127.0.0.1:${(deaf.address() as AddressInfo).port}/`;
  t.equal(await slackError(client.apiCall('twin.settings.set', { setting: 'events', value: { request_url: deafUrl } })), 'url_verification_failed');
  deaf.close();
  const kept = (await client.apiCall('twin.settings.get', { setting: 'events' })) as unknown as { value: { request_url: string } };
  t.equal(kept.value.request_url, requestUrl);

  const posted = await client.chat.postMessage({ channel: general, text: 'hello events' });
  const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;
  const human = (await client.apiCall('twin.messages.postAsUser', { user: ada, channel: general, text: 'hi bot', thread_ts: posted.ts })) as unknown as {
    ts: string;
  };
  await client.reactions.add({ channel: general, timestamp: posted.ts!, name: 'eyes' });
  const created = (await client.conversations.create({ name: 'launch' })).channel!;
  await client.conversations.join({ channel: random });
  // A person's message where the bot is not a member never reaches the app.
  const hidden = (await client.conversations.create({ name: 'hidden' })).channel!.id!;
  await client.conversations.invite({ channel: hidden, users: ada });
  await client.conversations.leave({ channel: hidden });
  const before = (await waitFor(0)).length;
  await client.apiCall('twin.messages.postAsUser', { user: ada, channel: hidden, text: 'secret' });
  await slack.twin.server.deliveries.idle();

  const all = received.map(envelope);
  t.equal(received.length, before, 'no event from a conversation the bot left');
  for (const r of received) {
    t.doesNotThrow(
      () =>
        verifySlackRequest({
          signingSecret: secret,
          body: r.body,
          headers: {
            'x-slack-signature': String(r.headers['x-slack-signature']),
            'x-slack-request-timestamp': Number(r.headers['x-slack-request-timestamp']),
          },
        }),
      'signature verifies',
    );
  }
  t.throws(() =>
    verifySlackRequest({
      signingSecret: 'not-the-secret',
      body: received[0]!.body,
      headers: {
        'x-slack-signature': String(received[0]!.headers['x-slack-signature']),
        'x-slack-request-timestamp': Number(received[0]!.headers['x-slack-request-timestamp']),
      },
    }),
  );

  const first = all[0]!;
  t.equal(first.type, 'event_callback');
  t.equal(first.team_id, auth.team_id);
  t.equal(first.token, set.value.verification_token);
  t.match(first.event_id, /^Ev[0-9A-Z]{10}$/);
  t.same((first.authorizations as { user_id: string }[])[0]!.user_id, auth.user_id);
  t.match(first.event, {
    type: 'message',
    channel: general,
    channel_type: 'channel',
    text: 'hello events',
    ts: posted.ts,
    event_ts: posted.ts,
    bot_id: auth.bot_id,
  });

  const types = all.map((e) => `${e.event.type}${e.event.subtype ? ':' + e.event.subtype : ''}`);
  t.same(types, [
    'message',
    'message',
    'reaction_added',
    'channel_created', // launch: the bot created it, so no join event
    'member_joined_channel', // the bot joins #random
    'message:channel_join',
    'channel_created', // hidden
    'member_joined_channel', // ada invited to hidden
    'message:channel_join',
    'message:channel_leave', // the bot leaves hidden
    'member_left_channel',
  ]);

  const reply = all[1]!.event;
  t.match(reply, { type: 'message', user: ada, text: 'hi bot', thread_ts: posted.ts, ts: human.ts });
  const reaction = all[2]!.event;
  t.match(reaction, { type: 'reaction_added', user: auth.user_id, reaction: 'eyes', item: { type: 'message', channel: general, ts: posted.ts } });
  t.match(all[3]!.event, { type: 'channel_created', channel: { id: created.id, name: 'launch', creator: auth.user_id } });
  t.match(all[4]!.event, { type: 'member_joined_channel', user: auth.user_id, channel: random, channel_type: 'C' });

  const deliveries = (await (await fetch(`${slack.twin.url}/_twin/records/delivery`)).json()) as { body: { status: string } }[];
  t.ok(deliveries.length >= received.length);
  t.ok(deliveries.every((d) => d.body.status === 'succeeded'));
});

t.test('mentioning the bot sends app_mention after the message event', async (t) => {
  received.length = 0;
  const ada = (await client.users.lookupByEmail({ email: 'ada@example.com' })).user!.id!;
  const posted = (await client.apiCall('twin.messages.postAsUser', {
    user: ada,
    channel: general,
    text: `<@${auth.user_id}> what is the status?`,
  })) as unknown as { ts: string };
  const got = (await waitFor(2)).map(envelope);
  t.same(
    got.map((e) => e.event.type),
    ['message', 'app_mention'],
  );
  t.match(got[1]!.event, {
    type: 'app_mention',
    user: ada,
    channel: general,
    ts: posted.ts,
    event_ts: posted.ts,
    text: `<@${auth.user_id}> what is the status?`,
  });
  // The bot's own mention of itself is no app_mention.
  received.length = 0;
  await client.chat.postMessage({ channel: general, text: `I am <@${auth.user_id}>` });
  t.same(
    (await waitFor(1)).map((r) => envelope(r).event.type),
    ['message'],
  );
});

t.test('a refused callback is retried with Slack retry headers', async (t) => {
  received.length = 0;
  failNext = 1;
  await client.chat.postMessage({ channel: general, text: 'retry me' });
  const got = await waitFor(2);
  t.equal(got.length, 2);
  t.equal(got[0]!.body, got[1]!.body, 'same payload');
  t.notOk(got[0]!.headers['x-slack-retry-num']);
  t.equal(got[1]!.headers['x-slack-retry-num'], '1');
  t.equal(got[1]!.headers['x-slack-retry-reason'], 'http_error');
});

t.test('event_types filter and the records API as the settings surface', async (t) => {
  received.length = 0;
  const put = await fetch(`${slack.twin.url}/_twin/records/setting/events`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields: { request_url: requestUrl, signing_secret: 'abc123', event_types: ['reaction_added'] } }),
  });
  t.equal(put.status, 200);
  const m = await client.chat.postMessage({ channel: general, text: 'filtered out' });
  await client.reactions.add({ channel: general, timestamp: m.ts!, name: 'fire' });
  const got = await waitFor(1);
  t.equal(got.length, 1);
  t.equal(envelope(got[0]!).event.type, 'reaction_added');
  t.doesNotThrow(() =>
    verifySlackRequest({
      signingSecret: 'abc123',
      body: got[0]!.body,
      headers: {
        'x-slack-signature': String(got[0]!.headers['x-slack-signature']),
        'x-slack-request-timestamp': Number(got[0]!.headers['x-slack-request-timestamp']),
      },
    }),
  );
  await client.apiCall('twin.settings.set', { setting: 'events', value: { request_url: null } });
});

t.test('rate limiting on demand: 429 with Retry-After', async (t) => {
  await client.apiCall('twin.settings.set', { setting: 'rate_limit', value: { enabled: true, retry_after: 7 } });
  const raw = await fetch(`${slack.twin.url}/api/auth.test`, { headers: { authorization: `Bearer ${slack.twin.apiKey}` } });
  t.equal(raw.status, 429);
  t.equal(raw.headers.get('retry-after'), '7');
  t.same(await raw.json(), { ok: false, error: 'ratelimited' });
  await t.rejects(client.auth.test(), { code: ErrorCode.RateLimitedError, retryAfter: 7 });

  // Per-method budget: two postMessage calls a window, other methods untouched.
  await client.apiCall('twin.settings.set', {
    setting: 'rate_limit',
    value: { enabled: true, limit: 2, window_seconds: 60, methods: ['chat.postMessage'], retry_after: 30 },
  });
  await client.chat.postMessage({ channel: general, text: 'one' });
  await client.chat.postMessage({ channel: general, text: 'two' });
  await t.rejects(client.chat.postMessage({ channel: general, text: 'three' }), { code: ErrorCode.RateLimitedError });
  t.ok((await client.auth.test()).ok, 'other methods are not limited');

  await client.apiCall('twin.settings.set', { setting: 'rate_limit', value: { enabled: false } });
  t.ok((await client.chat.postMessage({ channel: general, text: 'free again' })).ok);
});
