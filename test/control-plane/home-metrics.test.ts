// GET / sends a browser to the docs and tells an API client where the document is; /readme serves
// the walk-through; the OpenAPI document names the server the caller reached; /metrics speaks the
// Prometheus text format with API, gateway, twin-state and request-log figures.

import t from 'tap';
import { get } from 'node:http';
import { startOrchestratedControlPlane, waitFor } from '../orchestration/helpers.js';

const cp = await startOrchestratedControlPlane();
t.teardown(() => cp.stop());
const token = await cp.token({ org: 'metrics' });

t.test('GET / and /readme', async (t) => {
  const browser = await fetch(`${cp.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
  t.equal(browser.status, 302);
  t.equal(browser.headers.get('location'), '/docs');
  const api = await cp.call('GET', '/', { headers: { accept: 'application/json' } });
  t.equal(api.status, 200);
  t.match(api.body, { openapi: '/openapi.json', docs: '/docs', readme: '/readme', mcp: '/mcp' });
  const readme = await fetch(`${cp.url}/readme`);
  t.equal(readme.status, 200);
  t.match(readme.headers.get('content-type'), /^text\/markdown/);
  t.match(await readme.text(), /^# Twins\n/);
});

t.test('the document names the server it was fetched from', async (t) => {
  const doc = (await cp.call('GET', '/openapi.json')).body;
  t.same(doc.servers, [{ url: cp.url, description: 'this control plane' }]);
  t.equal(doc.externalDocs.url, `${cp.url}/readme`);
  t.match(doc.info.description, /\[README\]\(\/readme\)/);
  // fetch cannot set Host; node:http can (still a loopback connection).
  const other = await new Promise<any>((resolve, reject) => {
    const { port } = new URL(cp.url);
    get({ host: '127.0.0.1', port, path: '/openapi.json', headers: { host: 'twins.example.test' } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c)).on('end', () => resolve(JSON.parse(body)));
    }).on('error', reject);
  });
  t.equal(other.servers[0].url, 'http://twins.example.test', 'servers follow the Host the caller used');
  for (const path of ['/health/live', '/health/ready', '/.well-known/jwks.json']) {
    t.same(doc.paths[path].get.security, [], `${path} needs no credential`);
  }
});

t.test('/metrics', async (t) => {
  const env = await cp.call('POST', '/environments', { token, body: { name: 'metrics', twins: [{ twin: 'stripe' }] } });
  t.equal(env.status, 201);
  const ready = await waitFor('ready', async () => {
    const e = await cp.call('GET', `/environments/${env.body.id}`, { token });
    return e.body.status === 'ready' && e.body;
  });
  const key = (await cp.call('POST', `/twins/${ready.twins[0].id}/credential`, { token })).body.api_key;
  for (let i = 0; i < 3; i++) await fetch(`${ready.twins[0].url}/v1/customers`, { headers: { authorization: `Bearer ${key}` } });
  await cp.call('GET', '/twins/catalog', { token });
  await cp.call('GET', '/nowhere/at/all');

  // The writer batches for a few milliseconds; write what waits so the queue reads 0.
  cp.services.orchestration.logWriter.flush();
  const res = await fetch(`${cp.url}/metrics`);
  t.equal(res.status, 200, 'no credential needed (a scraper)');
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(series + ' '));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  t.equal(value('twins_http_requests_total{method="GET",route="/twins/catalog",status_code="200"}'), 1);
  t.equal(value('twins_http_requests_total{method="GET",route="unmatched",status_code="404"}'), 1, 'unknown paths share one label');
  t.ok((value('twins_http_request_duration_seconds_count{method="POST",route="/environments"}') ?? 0) >= 1);
  t.match(text, /^twins_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/twins\/catalog"\} \d+$/m);
  t.equal(value('twins_gateway_requests_total{twin="stripe"}'), 3);
  t.equal(value('twins_twins{state="ready"}'), 1);
  t.equal(value('twins_request_log_queue_depth'), 0);
  t.ok((value('twins_request_log_written_total') ?? 0) >= 3, 'the three gateway requests were written');
  t.match(text, /^# TYPE twins_gateway_requests_total counter$/m);
  t.match(text, /^twins_process_cpu_user_seconds_total /m, 'process metrics too');
});
