// The Twilio twin through the recording gateway, driven by the `twilio` package (basic auth with
// the credential's account_sid and auth token; the api and verify domains pointed at the twin):
// messages with their lifecycle on advance and signed status callbacks (checked with
// twilio.validateRequest), the test numbers' errors, paging, redaction, messaging services, the
// inbound helper posting to SmsUrl, calls with status callbacks, Verify, API keys.

import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';

const start = new Date('2026-03-02T09:00:00Z');
const gw = await startGatewayTwin('twilio', { clockStart: start });
t.teardown(() => gw.close());
const credential = gw.twin.server.host.credential();
const accountSid = credential.account_sid!;
const authToken = credential.api_key;

function clientFor(username: string, password: string, accountSidOpt?: string) {
  const c = twilio(username, password, accountSidOpt ? { accountSid: accountSidOpt } : {});
  c.api.baseUrl = gw.url;
  c.verify.baseUrl = gw.url;
  return c;
}
const client = clientFor(accountSid, authToken);
let now = start.getTime();
async function advance(seconds: number): Promise<void> {
  now += seconds * 1000;
  await gw.twin.advance(new Date(now));
}

/** A loopback receiver of Twilio's form posts, keeping each one's URL, params and signature. */
interface Received {
  url: string;
  params: Record<string, string>;
  signature: string;
}
const received: Received[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({
      url: `${base}${req.url}`,
      params: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())),
      signature: String(req.headers['x-twilio-signature']),
    });
    res.writeHead(200, { 'content-type': 'text/xml' }).end('<Response/>');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
t.teardown(() => receiver.close());
const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

async function waitFor(n: number, filter: (r: Received) => boolean): Promise<Received[]> {
  for (let i = 0; i < 150 && received.filter(filter).length < n; i++) await new Promise((r) => setTimeout(r, 20));
  return received.filter(filter);
}

t.test('credential: account_sid and auth token; the account', async (t) => {
  t.match(accountSid, /^AC[0-9a-f]{32}$/);
  t.match(authToken, /^[0-9a-f]{32}$/);
  const account = await client.api.v2010.accounts(accountSid).fetch();
  t.equal(account.sid, accountSid);
  t.equal(account.status, 'active');
  const numbers = await client.incomingPhoneNumbers.list();
  t.same(
    numbers.map((n) => n.phoneNumber),
    ['+15017122661'],
  );
});

t.test('messages: create, lifecycle on advance, signed status callbacks', async (t) => {
  const created = await client.messages.create({
    to: '+14155550100',
    from: '+15017122661',
    body: 'Your order shipped',
    statusCallback: `${base}/status?order=42`,
  });
  t.match(created.sid, /^SM[0-9a-f]{32}$/);
  t.equal(created.status, 'queued');
  t.equal(created.direction, 'outbound-api');
  t.equal(created.numSegments, '1');
  t.equal(created.dateCreated.toISOString(), start.toISOString());
  t.equal(created.dateSent, null);
  await advance(10);
  const fetched = await client.messages(created.sid).fetch();
  t.equal(fetched.status, 'delivered');
  t.ok(fetched.dateSent, 'date_sent set');
  t.equal(fetched.price, '-0.00790');
  const callbacks = await waitFor(3, (r) => r.params.MessageSid === created.sid);
  t.same(
    callbacks.map((c) => c.params.MessageStatus),
    ['sending', 'sent', 'delivered'],
  );
  for (const c of callbacks) {
    t.ok(twilio.validateRequest(authToken, c.signature, c.url, c.params), `signature of ${c.params.MessageStatus} validates`);
    t.equal(c.params.AccountSid, accountSid);
    t.equal(c.url, `${base}/status?order=42`);
  }
  t.notOk(twilio.validateRequest('0'.repeat(32), callbacks[0]!.signature, callbacks[0]!.url, callbacks[0]!.params), 'another token does not validate');
});

t.test('outcome numbers: undelivered and failed after sending', async (t) => {
  const undelivered = await client.messages.create({ to: '+15005550010', from: '+15005550006', body: 'x', statusCallback: `${base}/status` });
  const failed = await client.messages.create({ to: '+15005550011', from: '+15005550006', body: 'y' });
  await advance(10);
  const u = await client.messages(undelivered.sid).fetch();
  t.equal(u.status, 'undelivered');
  t.equal(u.errorCode, 30003);
  const f = await client.messages(failed.sid).fetch();
  t.equal(f.status, 'failed');
  t.equal(f.errorCode, 30008);
  const last = (await waitFor(3, (r) => r.params.MessageSid === undelivered.sid)).at(-1)!;
  t.equal(last.params.MessageStatus, 'undelivered');
  t.equal(last.params.ErrorCode, '30003');
});

t.test('errors as Twilio answers them (test numbers, missing params, 404, 401)', async (t) => {
  const cases: [Record<string, string>, number, number][] = [
    [{ to: '+15005550001', from: '+15005550006', body: 'x' }, 400, 21211],
    [{ to: '+15005550009', from: '+15005550006', body: 'x' }, 400, 21614],
    [{ to: '+15005550004', from: '+15005550006', body: 'x' }, 400, 21610],
    [{ to: '+14155550100', from: '+15005550001', body: 'x' }, 400, 21212],
    [{ to: '+14155550100', from: '+14155559999', body: 'x' }, 400, 21606],
    [{ to: '+14155550100', from: '+15005550006' }, 400, 21602],
  ];
  for (const [params, status, code] of cases) {
    const e = await client.messages.create(params as any).catch((x) => x);
    t.equal(e.status, status, `${JSON.stringify(params)} → ${status}`);
    t.equal(e.code, code);
    t.equal(e.moreInfo, `https://www.twilio.com/docs/errors/${code}`);
  }
  const missing = await client
    .messages('SM00000000000000000000000000000000')
    .fetch()
    .catch((x) => x);
  t.equal(missing.status, 404);
  t.equal(missing.code, 20404);
  const stranger = clientFor(accountSid, 'f'.repeat(32));
  const denied = await stranger.messages.list().catch((x) => x);
  t.equal(denied.status, 401);
  t.equal(denied.code, 20003);
  const raw = await fetch(`${gw.url}/2010-04-01/Accounts/${accountSid}/Messages.json`, {
    headers: { authorization: 'Basic ' + Buffer.from(`${accountSid}:nope`).toString('base64') },
  });
  t.equal(raw.status, 401);
  t.same(Object.keys(await raw.json()).sort(), ['code', 'detail', 'message', 'more_info', 'status']);
  const noTo = await fetch(`${gw.url}/2010-04-01/Accounts/${accountSid}/Messages.json`, {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(`${accountSid}:${authToken}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'From=%2B15005550006&Body=x',
  });
  t.equal(noTo.status, 400);
  t.match(await noTo.json(), { code: 21604, message: "A 'To' phone number is required.", more_info: 'https://www.twilio.com/docs/errors/21604', status: 400 });
  const other = await fetch(`${gw.url}/2010-04-01/Accounts/AC${'0'.repeat(32)}/Messages.json`, {
    headers: { authorization: 'Basic ' + Buffer.from(`${accountSid}:${authToken}`).toString('base64') },
  });
  t.equal(other.status, 404, "another account's path is not found");
});

t.test('list: filters and the paging envelope', async (t) => {
  for (let i = 0; i < 5; i++) await client.messages.create({ to: '+14155550177', from: '+15017122661', body: `paged ${i}` });
  const all = await client.messages.list({ to: '+14155550177' });
  t.same(
    all.map((m) => m.body),
    ['paged 4', 'paged 3', 'paged 2', 'paged 1', 'paged 0'],
    'newest first',
  );
  const page = await client.messages.page({ to: '+14155550177', pageSize: 2 });
  t.equal(page.instances.length, 2);
  const next = await page.nextPage();
  t.same(
    next!.instances.map((m) => m.body),
    ['paged 2', 'paged 1'],
  );
  const last = await next!.nextPage();
  t.same(
    last!.instances.map((m) => m.body),
    ['paged 0'],
  );
  t.equal(await last!.nextPage(), undefined);
  const raw = (await (
    await fetch(`${gw.url}/2010-04-01/Accounts/${accountSid}/Messages.json?To=%2B14155550177&PageSize=2`, {
      headers: { authorization: 'Basic ' + Buffer.from(`${accountSid}:${authToken}`).toString('base64') },
    })
  ).json()) as Record<string, unknown>;
  t.same(Object.keys(raw).sort(), ['end', 'first_page_uri', 'messages', 'next_page_uri', 'page', 'page_size', 'previous_page_uri', 'start', 'uri']);
  t.match(raw.next_page_uri, /^\/2010-04-01\/Accounts\/AC[0-9a-f]{32}\/Messages\.json\?To=%2B14155550177&PageSize=2&Page=1&PageToken=PASM/);
  const limited = await client.messages.list({ limit: 3, pageSize: 2 });
  t.equal(limited.length, 3, 'limit across pages');
});

t.test('redact, delete; a messaging service picks the sender', async (t) => {
  const m = await client.messages.create({ to: '+14155550188', from: '+15017122661', body: 'secret code 1234' });
  const early = await client
    .messages(m.sid)
    .update({ body: '' })
    .catch((x) => x);
  t.equal(early.status, 400, 'cannot redact a queued message');
  await advance(10);
  const redacted = await client.messages(m.sid).update({ body: '' });
  t.equal(redacted.body, '');
  t.equal(await client.messages(m.sid).remove(), true);
  t.equal(
    (
      await client
        .messages(m.sid)
        .fetch()
        .catch((x) => x)
    ).status,
    404,
  );
  const service = (await gw.twin.server.host.ctx.store.list<{ sid: string }>('messaging_service'))[0]!;
  const viaService = await client.messages.create({ to: '+14155550199', messagingServiceSid: service.sid, body: 'hello' });
  t.equal(viaService.status, 'accepted');
  t.equal(viaService.from, null);
  await advance(10);
  const sent = await client.messages(viaService.sid).fetch();
  t.equal(sent.status, 'delivered');
  t.equal(sent.from, '+15017122661');
  const bad = await client.messages.create({ to: '+14155550199', messagingServiceSid: 'MG' + '0'.repeat(32), body: 'x' }).catch((x) => x);
  t.equal(bad.code, 21701);
});

t.test('inbound helper: a text to the number is posted to its SmsUrl, signed', async (t) => {
  const [number] = await client.incomingPhoneNumbers.list({ phoneNumber: '+15017122661' });
  await client.incomingPhoneNumbers(number!.sid).update({ smsUrl: `${base}/sms` });
  const res = await fetch(`${gw.url}/twin/messages/inbound`, {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(`${accountSid}:${authToken}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ From: '+14155550111', To: '+15017122661', Body: 'STOP' }),
  });
  t.equal(res.status, 201);
  const [hook] = await waitFor(1, (r) => r.url === `${base}/sms`);
  t.ok(hook, 'SmsUrl called');
  t.equal(hook!.params.Body, 'STOP');
  t.equal(hook!.params.From, '+14155550111');
  t.equal(hook!.params.SmsStatus, 'received');
  t.ok(twilio.validateRequest(authToken, hook!.signature, hook!.url, hook!.params), 'inbound webhook signature validates');
  const inbound = await client.messages.list({ from: '+14155550111' });
  t.equal(inbound.length, 1);
  t.equal(inbound[0]!.direction, 'inbound');
  const bought = await client.incomingPhoneNumbers.create({ areaCode: '415', voiceUrl: `${base}/voice` });
  t.match(bought.phoneNumber, /^\+1415\d{7}$/);
  t.equal(bought.voiceUrl, `${base}/voice`);
});

t.test('calls: created, lifecycle and status callbacks on advance', async (t) => {
  const call = await client.calls.create({
    to: '+14155550123',
    from: '+15017122661',
    twiml: '<Response><Say>Hi</Say></Response>',
    statusCallback: `${base}/call`,
    statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
  });
  t.match(call.sid, /^CA[0-9a-f]{32}$/);
  t.equal(call.status, 'queued');
  await advance(60);
  const done = await client.calls(call.sid).fetch();
  t.equal(done.status, 'completed');
  t.equal(done.duration, '30');
  const events = await waitFor(4, (r) => r.params.CallSid === call.sid);
  t.same(
    events.map((e) => e.params.CallStatus),
    ['initiated', 'ringing', 'in-progress', 'completed'],
  );
  t.same(
    events.map((e) => e.params.SequenceNumber),
    ['0', '1', '2', '3'],
  );
  t.equal(events[3]!.params.CallDuration, '30');
  for (const e of events) t.ok(twilio.validateRequest(authToken, e.signature, e.url, e.params));
  const busy = await client.calls.create({ to: '+15005550010', from: '+15017122661', url: 'https://example.com/twiml' });
  await advance(60);
  t.equal((await client.calls(busy.sid).fetch()).status, 'busy');
  const noUrl = await client.calls.create({ to: '+14155550123', from: '+15017122661' } as any).catch((x) => x);
  t.equal(noUrl.code, 21205);
  const ringing = await client.calls.create({ to: '+14155550124', from: '+15017122661', url: 'https://example.com/twiml' });
  const canceled = await client.calls(ringing.sid).update({ status: 'canceled' });
  t.equal(canceled.status, 'canceled');
  const listed = await client.calls.list({ status: 'completed' });
  t.same(
    listed.map((c) => c.sid),
    [call.sid],
  );
});

t.test('verify: send a code, read it through the records API, check it', async (t) => {
  const service = await client.verify.v2.services.create({ friendlyName: 'Acme login', codeLength: 6 });
  t.match(service.sid, /^VA[0-9a-f]{32}$/);
  const verification = await client.verify.v2.services(service.sid).verifications.create({ to: '+14155550142', channel: 'sms' });
  t.equal(verification.status, 'pending');
  t.equal(verification.valid, false);
  const records = (await (await fetch(`${gw.twin.url}/_twin/records/verification`)).json()) as { body: { sid: string; code: string } }[];
  const code = records.find((r) => r.body.sid === verification.sid)!.body.code;
  t.match(code, /^\d{6}$/);
  const wrong = await client.verify.v2.services(service.sid).verificationChecks.create({ to: '+14155550142', code: code === '000000' ? '111111' : '000000' });
  t.equal(wrong.status, 'pending');
  t.equal(wrong.valid, false);
  const right = await client.verify.v2.services(service.sid).verificationChecks.create({ to: '+14155550142', code });
  t.equal(right.status, 'approved');
  t.equal(right.valid, true);
  const again = await client.verify.v2
    .services(service.sid)
    .verificationChecks.create({ to: '+14155550142', code })
    .catch((x) => x);
  t.equal(again.status, 404, 'no pending verification left');
  t.equal(again.code, 20404);
  const bad = await client.verify.v2
    .services(service.sid)
    .verifications.create({ to: '555', channel: 'sms' })
    .catch((x) => x);
  t.equal(bad.code, 60200);
  const expiring = await client.verify.v2.services(service.sid).verifications.create({ to: '+14155550143', channel: 'sms' });
  await advance(11 * 60);
  t.equal((await client.verify.v2.services(service.sid).verifications(expiring.sid).fetch()).status, 'expired');
  const services = await client.verify.v2.services.list();
  t.same(
    services.map((s) => s.friendlyName),
    ['Acme login'],
  );
});

t.test('API keys authenticate as SK…:secret', async (t) => {
  const key = await client.newKeys.create({ friendlyName: 'ci' });
  t.match(key.sid, /^SK[0-9a-f]{32}$/);
  const viaKey = clientFor(key.sid, key.secret, accountSid);
  t.ok((await viaKey.messages.list({ limit: 1 })).length > 0);
  const wrong = clientFor(key.sid, 'nope', accountSid);
  t.equal((await wrong.messages.list().catch((x) => x)).status, 401);
});

t.test('twin setting Lifecycle=immediate: the final status and its callbacks at create', async (t) => {
  const set = (mode: string) =>
    fetch(`${gw.url}/twin/settings`, {
      method: 'POST',
      headers: { authorization: 'Basic ' + Buffer.from(`${accountSid}:${authToken}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
      body: `Lifecycle=${mode}`,
    });
  t.equal((await set('now')).status, 400);
  t.equal((await set('immediate')).status, 200);
  const m = await client.messages.create({ to: '+15005550010', from: '+15017122661', body: 'at once', statusCallback: `${base}/immediate` });
  t.equal(m.status, 'queued', 'the create answer is the status at create');
  const fetched = await client.messages(m.sid).fetch();
  t.equal(fetched.status, 'undelivered');
  t.equal(fetched.errorCode, 30003);
  const hooks = await waitFor(3, (r) => r.params.MessageSid === m.sid);
  t.same(
    hooks.map((h) => h.params.MessageStatus),
    ['sending', 'sent', 'undelivered'],
  );
  t.equal(new Date(fetched.dateUpdated).getTime(), now, 'the clock did not move');
  t.equal((await set('advance')).status, 200);
  const later = await client.messages.create({ to: '+14155550100', from: '+15017122661', body: 'waits' });
  t.equal((await client.messages(later.sid).fetch()).status, 'queued');
});

t.test('the gateway logged the SDK traffic', async (t) => {
  const logged = await gw.logged();
  t.ok(logged.length > 0);
  t.ok(logged.some((l) => l.method === 'POST' && /\/Messages\.json$/.test(l.path) && l.status_code === 201));
  t.ok(logged.some((l) => l.path.startsWith('/v2/Services/') && l.status_code === 200));
});
