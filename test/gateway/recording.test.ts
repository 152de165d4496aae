import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as rawRequest } from 'node:http';
import { openDatabase } from '../../control-plane/store/database.js';
import { RequestLogStore } from '../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../control-plane/gateway/gateway.js';
import { BODY_CAP_BYTES, capBody, REDACTED, redactForm, redactJson } from '../../control-plane/gateway/recording.js';
import { loadTwin } from '../../twin-runtime/registry.js';
import { startTwin } from '../helpers/twin.js';
import { TwinServer } from '../../twin-runtime/server.js';
import { NotSimulated, operationName } from '../../twin-runtime/fidelity.js';

t.test('a body past the cap is cut on a character boundary, kept as bytes', async (t) => {
  t.same(capBody(undefined), { bytes: null, truncated: 0 });
  const small = Buffer.from('{"a":1}');
  t.equal(capBody(small).bytes, small, 'under the cap: the same bytes, not a copy');
  for (const [char, width] of [
    ['é', 2],
    ['€', 3],
    ['😀', 4],
  ] as const) {
    for (let shift = 0; shift < width; shift++) {
      // A run of one character placed so the cap falls at each of its byte positions.
      const body = Buffer.from('x'.repeat(shift) + char.repeat(Math.ceil(BODY_CAP_BYTES / width) + 2));
      const cut = capBody(body);
      t.equal(cut.truncated, 1);
      const text = cut.bytes!.toString('utf8');
      t.notOk(text.includes('\uFFFD'), `${char} shifted ${shift}: no broken character`);
      t.ok(cut.bytes!.length <= BODY_CAP_BYTES && cut.bytes!.length > BODY_CAP_BYTES - width, `${char} shifted ${shift}: ${cut.bytes!.length} bytes kept`);
    }
  }
});

t.test('the gateway records bodies (capped), strips credentials, logs before it answers, host routing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-gateway-'));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const twin = await startTwin('stripe');
  t.teardown(async () => {
    await twin.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const logs = new RequestLogStore(db);
  const writer = new RequestLogWriter(logs);
  const gateway = new TwinGateway({ host: '127.0.0.1', writer });
  const route = { twinId: 'twin-1', environmentId: 'env-1', organizationId: 'org-1', slug: 'stripe' };
  const { url } = await gateway.open(route);
  t.equal((await fetch(url + '/v1/customers', { headers: { authorization: `Bearer ${twin.apiKey}` } })).status, 503, 'no target yet: 503');
  t.equal(logs.count('env-1'), 1, 'the answer left after its log entry was committed');
  gateway.setTarget('twin-1', twin.url);

  const big = 'x'.repeat(BODY_CAP_BYTES + 5000);
  const res = await fetch(url + '/v1/customers?expand[]=data', {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded', cookie: 'a=b' },
    body: `email=big%40example.com&description=${big}`,
  });
  const refusedText = await res.text();
  t.equal(res.status, 400, 'the twin saw the whole (too long) description and refused it as Stripe does');
  t.equal(logs.count('env-1'), 2);
  const made = await fetch(url + '/v1/customers', {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'email=small%40example.com',
  });
  const customer = (await made.json()) as { id: string };
  t.equal((await fetch(url + '/_twin/health')).status, 404);
  t.equal(logs.count('env-1'), 4, 'every answered request is in the log already');

  // A request head too large for the parser: 431 in the `{detail}` shape.
  const huge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const u = new URL(url);
    const r = rawRequest({ host: u.hostname, port: u.port, path: '/v1/customers', headers: { 'x-big': 'y'.repeat(20_000) } }, (resp) => {
      let body = '';
      resp.on('data', (c) => (body += c));
      resp.on('end', () => resolve({ status: resp.statusCode!, body }));
    });
    r.on('error', reject);
    r.end();
  });
  t.equal(huge.status, 431);
  t.same(JSON.parse(huge.body), { detail: 'Request header fields too large.' });

  await gateway.closeAll();
  writer.close();
  const rows = logs.page('env-1', 10, 0);
  t.equal(rows.length, 4, 'every request written');
  const post = rows.find((r) => r.method === 'POST' && r.status_code === 400)!;
  t.equal(post.query_string, 'expand[]=data');
  t.equal(post.request_body_truncated, 1);
  t.equal(Buffer.byteLength(post.request_body!), BODY_CAP_BYTES);
  t.equal(post.response_body, refusedText, 'the response body as the caller got it');
  t.equal(post.response_body_truncated, 0);
  t.match(post.response_content_type, /application\/json/);
  t.equal(post.request_content_type, 'application/x-www-form-urlencoded');
  const headers = JSON.parse(post.request_headers);
  t.notOk(headers.authorization, 'no authorization header stored');
  t.notOk(headers.cookie, 'no cookie stored');
  t.equal(rows.find((r) => r.path === '/_twin/health')!.status_code, 404);
  t.equal(rows.find((r) => r.method === 'GET' && r.path === '/v1/customers')!.status_code, 503);

  // Cluster mode: one listener, the twin chosen by host `<twin id>.<domain>`.
  const hostedWriter = new RequestLogWriter(logs);
  const hosted = new TwinGateway({ host: '127.0.0.1', domain: 'twins.test', writer: hostedWriter });
  await hosted.start();
  const opened = await hosted.open(route);
  t.equal(opened.url, 'https://twin-1.twins.test');
  hosted.setTarget('twin-1', twin.url);
  const { request } = await import('undici');
  const viaHost = await request(`http://127.0.0.1:${hosted.sharedPort}/v1/customers/${customer.id}`, {
    headers: { host: 'twin-1.twins.test', authorization: `Bearer ${twin.apiKey}` },
  });
  t.equal(viaHost.statusCode, 200);
  t.equal(((await viaHost.body.json()) as { id: string }).id, customer.id);
  const unknown = await request(`http://127.0.0.1:${hosted.sharedPort}/v1/customers`, { headers: { host: 'nope.twins.test' } });
  t.equal(unknown.statusCode, 404);
  await unknown.body.dump();
  // HEAD: no body, and the status and length the twin itself announces (not 0).
  const viaHead = await request(`http://127.0.0.1:${hosted.sharedPort}/v1/customers/${customer.id}`, {
    method: 'HEAD',
    headers: { host: 'twin-1.twins.test', authorization: `Bearer ${twin.apiKey}` },
  });
  const directHead = await request(`${twin.url}/v1/customers/${customer.id}`, { method: 'HEAD', headers: { authorization: `Bearer ${twin.apiKey}` } });
  await directHead.body.dump();
  t.equal((await viaHead.body.arrayBuffer()).byteLength, 0, 'no body');
  t.equal(viaHead.statusCode, directHead.statusCode);
  t.ok(Number(directHead.headers['content-length']) > 0);
  t.equal(viaHead.headers['content-length'], directHead.headers['content-length'], "HEAD announces the twin's length");
  await hosted.closeAll();
  hostedWriter.close();
  t.equal(logs.count('env-1'), 6);
});

t.test('provider credentials in query strings and bodies are redacted before storage', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-gateway-redact-'));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const slack = await startTwin('slack');
  const github = await startTwin('github');
  t.teardown(async () => {
    await slack.close();
    await github.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const logs = new RequestLogStore(db);
  const writer = new RequestLogWriter(logs);
  const gateway = new TwinGateway({ host: '127.0.0.1', writer });
  t.teardown(() => gateway.closeAll());
  const slackUrl = (await gateway.open({ twinId: 's', environmentId: 'env-r', organizationId: 'o', slug: 'slack', redact: (await loadTwin('slack')).redact }))
    .url;
  const githubUrl = (
    await gateway.open({ twinId: 'g', environmentId: 'env-r', organizationId: 'o', slug: 'github', redact: (await loadTwin('github')).redact })
  ).url;
  gateway.setTarget('s', slack.url);
  gateway.setTarget('g', github.url);

  const viaQuery = await fetch(`${slackUrl}/api/auth.test?token=${slack.apiKey}`);
  t.equal(((await viaQuery.json()) as { ok: boolean }).ok, true, 'Slack takes the token from the query');
  const viaForm = await fetch(`${slackUrl}/api/chat.postMessage`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${slack.apiKey}&channel=%23general&text=hello`,
  });
  t.equal(((await viaForm.json()) as { ok: boolean }).ok, true, 'and from a form body');
  await (await fetch(`${githubUrl}/user?access_token=${github.apiKey}`)).text();
  await (
    await fetch(`${githubUrl}/user/repos`, {
      method: 'POST',
      headers: { authorization: `token ${github.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hooks', config: { secret: 'hook-secret-123' }, client_secret: 'cs-123' }),
    })
  ).text();

  const rows = logs.page('env-r', 10, 0);
  t.equal(rows.length, 4);
  const stored = JSON.stringify(rows);
  for (const secret of [slack.apiKey, github.apiKey, 'hook-secret-123', 'cs-123']) t.notOk(stored.includes(secret), `${secret.slice(0, 6)}… is not stored`);
  t.equal(rows.find((r) => r.path === '/api/auth.test')!.query_string, `token=${encodeURIComponent(REDACTED)}`);
  t.match(rows.find((r) => r.path === '/api/chat.postMessage')!.request_body, /^token=%5BREDACTED%5D&channel=%23general&text=hello$/);
  t.match(rows.find((r) => r.path === '/user/repos')!.request_body, /"secret":"\[REDACTED\]"/);

  // The helpers alone: bracket and encoded keys, nested JSON, arrays, untouched bodies stay identical.
  t.equal(redactForm('card%5Bnumber%5D=4242&amount=1', new Set(['card[number]'])), 'card%5Bnumber%5D=%5BREDACTED%5D&amount=1');
  t.equal(redactForm('a=1&b=2', new Set(['token'])), 'a=1&b=2');
  t.equal(redactJson('{"a":[{"token":"x"}],"b":{"c":{"token":"y"}}}', new Set(['token'])), '{"a":[{"token":"[REDACTED]"}],"b":{"c":{"token":"[REDACTED]"}}}');
  const untouched = '{ "a" : 1 }';
  t.equal(redactJson(untouched, new Set(['token'])), untouched);
});

t.test('when the log cannot be written, requests are refused before they reach the twin', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-gateway-full-'));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const twin = await startTwin('stripe');
  t.teardown(async () => {
    await twin.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const logs = new RequestLogStore(db);
  const writer = new RequestLogWriter(logs);
  const gateway = new TwinGateway({ host: '127.0.0.1', writer });
  t.teardown(() => gateway.closeAll());
  const { url } = await gateway.open({ twinId: 'f', environmentId: 'env-f', organizationId: 'o', slug: 'stripe' });
  gateway.setTarget('f', twin.url);
  const create = (email: string) =>
    fetch(url + '/v1/customers', {
      method: 'POST',
      headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=${encodeURIComponent(email)}`,
    });
  const customers = () => twin.server.store.count('customer');

  // A full disk, as SQLite would refuse it: every write to the log file fails.
  for (const [name, table] of [
    ['full', 'request_logs'],
    ['full_probe', 'request_log_meta'],
  ]) {
    db.exec(`CREATE TEMP TRIGGER ${name} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
  }
  const first = await create('first@example.com');
  t.equal(first.status, 503, 'the answer whose log entry failed is a 503');
  t.match(await first.json(), { detail: /could not be written/ });
  t.equal(customers(), 0, 'a state-changing request is logged before it is forwarded: the first never reached the twin either');
  const seen = customers();
  const second = await create('second@example.com');
  t.equal(second.status, 503);
  t.match(await second.json(), { detail: /not forwarded/ });
  t.equal(customers(), seen, 'the refused request never reached the twin');
  t.equal(writer.stats().writable, false);

  db.exec('DROP TRIGGER temp.full; DROP TRIGGER temp.full_probe');
  await new Promise((r) => setTimeout(r, 1100));
  const third = await create('third@example.com');
  t.equal(third.status, 200, 'writable again: forwarded and logged');
  t.equal(logs.count('env-f'), 1, 'only the answered-and-logged request is in the log');
  t.equal(writer.stats().writable, true);
});

t.test("the gateway keeps each answer's Twin-Fidelity level: the twin's header, none for an answer of its own", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-gateway-fidelity-'));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  // A twin answering at every level: a hand-written route (modelled), a generic one (stored), and
  // an operation it refuses to simulate (NotSimulated → unsupported, the provider's 501).
  const twin = new TwinServer(
    {
      slug: 'levels',
      name: 'Levels',
      description: 'test twin',
      version: '0.0.1',
      storageVersion: 1,
      defaultPort: 0,
      resources: ['thing'],
      mintKey: () => 'key_levels',
      routes: [
        { method: 'GET', path: '/things', handler: () => ({ status: 200, body: [] }) },
        { method: 'POST', path: '/things', fidelity: 'stored', handler: () => ({ status: 200, body: { id: 'thing_1' } }) },
        {
          method: 'POST',
          path: '/things/{id}/refund',
          handler: (req) => {
            throw new NotSimulated(operationName(req));
          },
        },
      ],
      authenticate: () => undefined,
      errors: { render: () => undefined, routeMiss: () => ({ status: 404, body: { error: 'no route' } }) },
      suggestions: [],
    },
    { dataFile: join(dir, 'levels.sqlite') },
  );
  const target = await twin.listen(0);
  const logs = new RequestLogStore(db);
  const gateway = new TwinGateway({ host: '127.0.0.1', writer: new RequestLogWriter(logs) });
  t.teardown(async () => {
    await gateway.closeAll();
    await twin.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { url } = await gateway.open({ twinId: 'twin-l', environmentId: 'env-l', organizationId: 'org-1', slug: 'levels' });
  gateway.setTarget('twin-l', target);
  const answers: [number, string | null][] = [];
  for (const [method, path] of [
    ['GET', '/things'],
    ['POST', '/things'],
    ['POST', '/things/t1/refund'],
    ['GET', '/_twin/health'],
  ] as const) {
    const res = await fetch(url + path, { method });
    await res.text();
    answers.push([res.status, res.headers.get('twin-fidelity')]);
  }
  t.same(
    answers,
    [
      [200, 'modelled'],
      [200, 'stored'],
      [501, 'unsupported'],
      [404, null],
    ],
    'the caller sees the header as the twin sent it',
  );
  const listed = logs.listPage('env-l', 1, 10);
  t.same(
    listed.items.map((r) => [r.path, r.fidelity]),
    [
      ['/_twin/health', null],
      ['/things/t1/refund', 'unsupported'],
      ['/things', 'stored'],
      ['/things', 'modelled'],
    ],
    'and the log keeps it',
  );
  t.same(
    logs.listPage('env-l', 1, 10, { fidelity: 'unsupported' }).items.map((r) => [r.method, r.path, r.status_code]),
    [['POST', '/things/t1/refund', 501]],
    'filtered on the level',
  );
});
