// The egress policy (docs/decisions.md §12). The classifier and the guard are judged as pure functions
// over addresses — nothing here connects anywhere but 127.0.0.1 — and then a control plane with
// TWINS_EGRESS=public shows Stripe, GitHub and Slack deliveries to 127.0.0.1 and to `localhost`
// refused, recorded as refused, while a listener there receives nothing.

import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyAddress, EgressGuard, refusalMessage } from '../../twin-runtime/egress.js';
import { startOrchestratedControlPlane, waitFor, waitReady } from '../orchestration/helpers.js';

t.test('classifyAddress: every non-public kind, IPv4 and IPv6, mapped and embedded forms', async (t) => {
  const cases: [string, string][] = [
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    // private (RFC 1918, IPv6 unique local)
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    // link-local
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    // cloud metadata endpoints
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['192.0.0.192', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    // carrier-grade NAT, multicast, unspecified, reserved
    ['100.64.0.1', 'shared'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo
    // IPv4 carried inside IPv6: judged by the IPv4 address
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:10.1.2.3]', 'private'],
    ['::ffff:0:a01:203', 'private'], // RFC 6145 translated
    ['64:ff9b::7f00:1', 'loopback'], // NAT64
    ['64:ff9b::c0a8:101', 'private'],
    ['64:ff9b:1::1', 'unspecified'], // local-use NAT64: layout unknown, never public
    ['2002:7f00:1::1', 'loopback'], // 6to4
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['::ffff:8.8.8.8', 'public'],
    // IPv4-compatible (::/96, deprecated): judged by the IPv4 address, as some stacks still route it
    ['::7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['::a9fe:a9fe', 'metadata'],
    ['::169.254.1.1', 'link-local'],
    ['::a00:1', 'private'],
    ['::2', 'unspecified'],
    ['::808:808', 'public'],
    // Teredo: the client (inverted) and the server it names
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // client ~80ff:fffe = 127.0.0.1
    ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'private'], // server 10.0.0.1
    ['2001:0:808:808:8000:63bf:f7f7:f7f7', 'public'], // server 8.8.8.8, client 8.8.8.8
    // ISATAP interface identifiers
    ['2001:470:1::5efe:7f00:1', 'loopback'],
    ['2001:470:1::200:5efe:a9fe:a9fe', 'metadata'],
    ['fe80::5efe:808:808', 'link-local'],
    // NAT64 and 6to4 over metadata and private addresses
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:c0a8:101::1', 'private'],
    // public
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    // not an address
    ['localhost', 'invalid'],
    ['0x7f.1', 'invalid'],
    ['2130706433', 'invalid'],
    ['', 'invalid'],
    ['1.2.3', 'invalid'],
  ];
  t.ok(cases.length > 40);
  for (const [ip, kind] of cases) t.equal(classifyAddress(ip), kind, `${ip} is ${kind}`);
});

t.test('the guard: any allows everything; public allows public addresses except the control plane’s own', async (t) => {
  const any = new EgressGuard('any');
  for (const ip of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '8.8.8.8']) t.ok(any.allows(ip), `any: ${ip}`);
  const pub = new EgressGuard('public', '203.0.114.7, 2606:4700::/32,not-an-ip');
  for (const ip of ['127.0.0.1', '::1', '10.0.0.1', '169.254.169.254', '::ffff:127.0.0.1', '100.64.1.1', '0.0.0.0'])
    t.notOk(pub.allows(ip), `public refuses ${ip}`);
  for (const ip of ['203.0.114.7', '2606:4700:4700::1111', '::ffff:203.0.114.7']) t.notOk(pub.allows(ip), `public refuses the control plane's own ${ip}`);
  for (const ip of ['8.8.8.8', '203.0.114.8', '2a00:1450:4001:80b::200e']) t.ok(pub.allows(ip), `public allows ${ip}`);
  t.equal(await pub.check('ftp://example.com/x'), 'only http and https URLs are delivered to');
  t.equal(await pub.check('http://127.0.0.1:1/x'), 'the address is not public');
  t.equal(await pub.check('http://[::ffff:7f00:1]:1/x'), 'the address is not public');
  t.equal(await pub.check('http://0x7f.1:1/x'), 'the address is not public', 'URL parsing turns 0x7f.1 into 127.0.0.1');
  // Resolving `localhost` asks the system resolver; no connection is made.
  t.equal(await pub.check('http://localhost:1/x'), 'the host resolves to an address that is not public');
  t.equal(await any.check('http://127.0.0.1:1/x'), undefined);
});

t.test('the guard: loopback allows loopback addresses only (what `make test` runs under)', async (t) => {
  const loop = new EgressGuard('loopback');
  for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) t.ok(loop.allows(ip), `loopback allows ${ip}`);
  for (const ip of ['8.8.8.8', '10.0.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::', 'fd00::1', '2606:4700:4700::1111'])
    t.notOk(loop.allows(ip), `loopback refuses ${ip}`);
  // Judged without connecting: IP literals before any connection, `localhost` through the resolver only.
  t.equal(await loop.check('http://127.0.0.1:1/x'), undefined);
  t.equal(await loop.check('http://[::1]:1/x'), undefined);
  t.equal(await loop.check('http://localhost:1/x'), undefined);
  t.equal(await loop.check('http://8.8.8.8:1/x'), 'the address is not loopback');
  t.equal(await loop.check('http://10.1.2.3/x'), 'the address is not loopback');
  t.equal(await loop.check('ftp://127.0.0.1/x'), 'only http and https URLs are delivered to');
  t.equal(refusalMessage('loopback', 'the address is not loopback'), 'Refused by the egress policy (TWINS_EGRESS=loopback): the address is not loopback.');
  t.equal(EgressGuard.fromEnv({ TWINS_EGRESS: 'loopback' }).policy, 'loopback');
  t.equal(EgressGuard.fromEnv({ TWINS_EGRESS: 'public' }).policy, 'public');
  t.equal(EgressGuard.fromEnv({ TWINS_EGRESS: 'nonsense' }).policy, 'any');
  t.equal(EgressGuard.fromEnv({}).policy, 'any');
});

t.test('TWINS_EGRESS=public: Stripe, GitHub and Slack deliveries to loopback are refused and recorded', async (t) => {
  let received = 0;
  const listener = createServer((req, res) => {
    received++;
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as AddressInfo).port;
  const cp = await startOrchestratedControlPlane({ egress: 'public', defaultPlan: 'paygo' });
  t.teardown(async () => {
    await cp.stop();
    listener.closeAllConnections();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });
  const token = await cp.token({});
  const created = await cp.call('POST', '/environments', {
    token,
    body: { name: 'egress', twins: [{ twin: 'stripe' }, { twin: 'github' }, { twin: 'slack' }] },
  });
  t.equal(created.status, 201);
  const env = await waitReady(cp, token, created.body.id, 30_000);
  const twin = (slug: string) => env.twins.find((x: { twin_slug: string }) => x.twin_slug === slug);
  const key = async (slug: string) => (await cp.call('POST', `/twins/${twin(slug).id}/credential`, { token })).body.api_key as string;

  const targets = [`http://127.0.0.1:${port}/hook`, `http://localhost:${port}/hook`];
  // Stripe: two webhook endpoints, then an event.
  const stripeKey = await key('stripe');
  for (const url of targets) {
    const res = await fetch(`${twin('stripe').url}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stripeKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ url, 'enabled_events[]': '*' }).toString(),
    });
    t.equal(res.status, 200, `Stripe endpoint ${url}`);
  }
  await fetch(`${twin('stripe').url}/v1/customers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stripeKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'email=egress%40example.com',
  });
  // GitHub: a repository with two hooks (creating one sends a ping).
  const ghKey = await key('github');
  const gh = (method: string, path: string, body?: unknown) =>
    fetch(`${twin('github').url}${path}`, {
      method,
      headers: { authorization: `token ${ghKey}`, 'content-type': 'application/json', accept: 'application/vnd.github+json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const repo = (await (await gh('POST', '/user/repos', { name: 'egress' })).json()) as { full_name: string };
  for (const url of targets)
    t.equal((await gh('POST', `/repos/${repo.full_name}/hooks`, { config: { url, content_type: 'json' }, events: ['issues'] })).status, 201);
  await gh('POST', `/repos/${repo.full_name}/issues`, { title: 'refused?' });
  // Slack: the Events API request URL, then a message (one URL at a time).
  const slackKey = await key('slack');
  const slack = async (method: string, args: Record<string, unknown>) =>
    (await (
      await fetch(`${twin('slack').url}/api/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${slackKey}`, 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(args),
      })
    ).json()) as { ok: boolean; channels?: { id: string; name: string }[] };
  const general = (await slack('conversations.list', {})).channels!.find((c) => c.name === 'general')!.id;
  // Slack verifies a request URL before keeping it (url_verification); the policy refuses the
  // handshake itself, so a non-public URL is never set and nothing reaches it.
  for (const url of targets) {
    const set = (await slack('twin.settings.set', { setting: 'events', value: { request_url: url } })) as { ok: boolean; error?: string };
    t.same([set.ok, set.error], [false, 'url_verification_failed'], `Slack request URL ${url} refused`);
    t.equal((await slack('chat.postMessage', { channel: general, text: `to ${url}` })).ok, true);
  }

  for (const slug of ['stripe', 'github']) {
    const records = await waitFor(`${slug} deliveries settled`, async () => {
      const res = await cp.call('GET', `/environments/${env.id}/twins/${twin(slug).id}/records/delivery`, { token });
      const list = res.body as { body: { url: string; status: string; attempts: { refused?: boolean; error: string | null; status_code: number | null }[] } }[];
      const mine = list.filter((d) => d.body.url.includes(`:${port}/`));
      return mine.length >= 2 && mine.every((d) => d.body.status !== 'pending') ? mine : undefined;
    });
    for (const host of ['127.0.0.1', 'localhost'])
      t.ok(
        records.some((d) => d.body.url.includes(`//${host}:`)),
        `${slug}: a delivery to ${host}`,
      );
    for (const d of records) {
      t.equal(d.body.status, 'failed', `${slug} → ${d.body.url}: failed`);
      t.equal(d.body.attempts.length, 1, 'one attempt, no retries of a refused address');
      t.equal(d.body.attempts[0]!.refused, true, 'recorded as refused');
      t.equal(d.body.attempts[0]!.status_code, null);
      t.match(d.body.attempts[0]!.error, /^Refused by the egress policy \(TWINS_EGRESS=public\)/);
      t.notMatch(d.body.attempts[0]!.error, /127\.0\.0\.1|::1|ECONNREFUSED/, 'the refusal names no address');
    }
  }
  t.equal(received, 0, 'the listener on 127.0.0.1 received nothing');

  // Delivery records are read-only through the records API.
  const one = (await cp.call('GET', `/environments/${env.id}/twins/${twin('stripe').id}/records/delivery`, { token })).body[0];
  const put = await cp.call('PUT', `/environments/${env.id}/twins/${twin('stripe').id}/records/delivery/${one.external_id}`, {
    token,
    body: { fields: { ...one.body, status: 'pending', url: `http://127.0.0.1:${port}/again` } },
  });
  t.equal(put.status, 403);
  t.match(put.body.detail, /read-only/);
  t.equal((await cp.call('DELETE', `/environments/${env.id}/twins/${twin('stripe').id}/records/delivery/${one.external_id}`, { token })).status, 403);
});
