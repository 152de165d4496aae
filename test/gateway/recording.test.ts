import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../control-plane/store/database.js';
import { RequestLogStore } from '../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../control-plane/gateway/gateway.js';
import { BODY_CAP_BYTES } from '../../control-plane/gateway/recording.js';
import { startTwin } from '../helpers/twin.js';

t.test('the gateway records bodies (capped), strips credentials, flushes on close, host routing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-gateway-'));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  const twin = await startTwin('stripe');
  t.teardown(async () => {
    await twin.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const logs = new RequestLogStore(db);
  // A long interval: nothing is written before close unless close flushes.
  const writer = new RequestLogWriter(logs, undefined, { flushIntervalMs: 60_000, maxBatch: 100_000 });
  const gateway = new TwinGateway({ host: '127.0.0.1', writer });
  const route = { twinId: 'twin-1', environmentId: 'env-1', organizationId: 'org-1', slug: 'stripe' };
  const { url } = await gateway.open(route);
  t.equal((await fetch(url + '/v1/customers', { headers: { authorization: `Bearer ${twin.apiKey}` } })).status, 503, 'no target yet: 503');
  gateway.setTarget('twin-1', twin.url);

  const big = 'x'.repeat(BODY_CAP_BYTES + 5000);
  const res = await fetch(url + '/v1/customers?expand[]=data', {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded', cookie: 'a=b' },
    body: `email=big%40example.com&description=${big}`,
  });
  const refusedText = await res.text();
  t.equal(res.status, 400, 'the twin saw the whole (too long) description and refused it as Stripe does');
  const made = await fetch(url + '/v1/customers', {
    method: 'POST',
    headers: { authorization: `Bearer ${twin.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'email=small%40example.com',
  });
  const customer = (await made.json()) as { id: string };
  t.equal((await fetch(url + '/_twin/health')).status, 404);
  t.equal(logs.count('env-1'), 0, 'still batched');

  await gateway.closeAll();
  writer.close();
  const rows = logs.page('env-1', 10, 0);
  t.equal(rows.length, 4, 'every request written at close');
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
  const hosted = new TwinGateway({ host: '127.0.0.1', domain: 'twins.test', writer });
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
  await hosted.closeAll();
  writer.flush();
  t.equal(logs.count('env-1'), 5);
});
