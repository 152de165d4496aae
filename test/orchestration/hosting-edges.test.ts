// The smaller edges of issue 20: every UUID form Pydantic accepts names the same resource on every
// id route; a record id `.` is stored under `.`; 431 and 502 answers are `{detail}` sentences that
// name no internal address; the gateway's counters are readable synchronously (for metrics); the
// data directory and its files are readable by the service user only.

import t from 'tap';
import { request as httpRequest } from 'node:http';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { TwinAdminClient, TwinAdminError } from '../../control-plane/orchestration/twin-admin.js';
import type { ProcessDriver } from '../../control-plane/orchestration/drivers/process.js';
import { startOrchestratedControlPlane, stripe, waitReady } from './helpers.js';

const cp = await startOrchestratedControlPlane({ defaultPlan: 'paygo' });
t.teardown(() => cp.stop());
const token = await cp.token({});
const created = await cp.call('POST', '/environments', { token, body: { name: 'edges', twins: [{ twin: 'stripe' }] } });
const env = await waitReady(cp, token, created.body.id, 30_000);
const twin = env.twins[0];

/** A request sent exactly as written (fetch would normalise `.` path segments away). */
function raw(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const u = new URL(cp.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

t.test('every UUID form names the same resource on every id route', async (t) => {
  const forms = (id: string) => [id, id.toUpperCase(), `{${id}}`, `urn:uuid:${id}`, id.replaceAll('-', '')];
  for (const e of forms(env.id)) {
    const got = await cp.call('GET', `/environments/${encodeURIComponent(e)}`, { token });
    t.equal(got.status, 200, `environment as ${e}`);
    t.equal(got.body.id, env.id);
    t.equal((await cp.call('GET', `/environments/${encodeURIComponent(e)}/logs`, { token })).status, 200, `logs as ${e}`);
  }
  for (const e of forms(twin.id)) t.equal((await cp.call('GET', `/twins/${encodeURIComponent(e)}`, { token })).body.id, twin.id, `twin as ${e}`);
  for (const e of forms(env.sandbox_id)) t.equal((await cp.call('GET', `/sandboxes/${encodeURIComponent(e)}`, { token })).status, 200, `sandbox as ${e}`);
  const bad = await cp.call('GET', `/environments/${env.id.slice(0, 30)}`, { token });
  t.equal(bad.status, 422);
  t.equal(bad.body.detail[0].type, 'uuid_parsing');
});

t.test("a record id '.' or '..' is kept as given", async (t) => {
  for (const id of ['.', '..']) {
    const path = `/environments/${env.id}/twins/${twin.id}/records/customer/${id}`;
    const put = await raw('PUT', path, { fields: { id, object: 'customer', email: `dot${id.length}@example.com` } });
    t.equal(put.status, 200, `PUT ${id}`);
    t.equal(put.body.external_id, id);
  }
  const list = (await cp.call('GET', `/environments/${env.id}/twins/${twin.id}/records/customer`, { token })).body as { external_id: string }[];
  const ids = list.map((r) => r.external_id);
  t.ok(ids.includes('.') && ids.includes('..'), 'both stored under their own ids');
  t.notOk(ids.includes(''), 'nothing stored under an empty id');
  t.equal((await raw('DELETE', `/environments/${env.id}/twins/${twin.id}/records/customer/..`)).status, 204);
});

t.test('a request head too large answers 431 with {detail}', async (t) => {
  const res = await raw('GET', '/health/live', undefined, { 'x-big': 'z'.repeat(20_000) });
  t.equal(res.status, 431);
  t.same(res.body, { detail: 'Request header fields too large.' });
});

t.test('502 answers name no internal address', async (t) => {
  const err = await new TwinAdminClient(2000).call('http://127.0.0.1:1', 'secret', 'GET', '/_twin/health').catch((e: unknown) => e);
  t.ok(err instanceof TwinAdminError);
  t.notMatch((err as Error).message, /127\.0\.0\.1|:1\b|http/, (err as Error).message);
  // The twin killed: whatever the API answers while it restarts names no address.
  const pid = (cp.services.orchestration.driver as ProcessDriver).pidOf(twin.id)!;
  process.kill(pid, 'SIGKILL');
  const answers = await Promise.all([
    cp.call('POST', `/twins/${twin.id}/credential`, { token }),
    cp.call('GET', `/environments/${env.id}/twins/${twin.id}/records/customer`, { token }),
  ]);
  for (const a of answers) {
    t.ok([200, 409, 502].includes(a.status), `status ${a.status}`);
    if (a.status !== 200) t.notMatch(a.body.detail, /127\.0\.0\.1|localhost|http:\/\//, a.body.detail);
  }
  await waitReady(cp, token, env.id, 30_000);
});

t.test('gateway.stats(): requests per twin and the log writer, read synchronously', async (t) => {
  const fresh = (await cp.call('GET', `/environments/${env.id}`, { token })).body.twins[0];
  // The twin killed above may still be restarting although the environment read ready (before the
  // reconciler saw the exit): its key is answered 409/502 and the gateway answers 503 meanwhile. Wait
  // until a key is handed out and a request goes through before counting.
  const deadline = Date.now() + 30_000;
  let newKey = '';
  let through = 0;
  for (;;) {
    const cred = await cp.call('POST', `/twins/${twin.id}/credential`, { token });
    if (cred.status === 200) {
      newKey = cred.body.api_key as string;
      through = (await stripe(fresh.url, newKey, 'GET', '/v1/customers')).status;
      if (through === 200) break;
    }
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  t.equal(through, 200, 'the restarted twin answers through the gateway');
  const before = cp.services.orchestration.gateway.stats();
  const mine = () => cp.services.orchestration.gateway.stats().twins.find((x) => x.twin_id === twin.id);
  const start = mine()?.requests ?? 0;
  for (let i = 0; i < 5; i++) t.equal((await stripe(fresh.url, newKey, 'GET', '/v1/customers')).status, 200);
  const after = cp.services.orchestration.gateway.stats();
  t.equal(mine()!.requests, start + 5, 'five more requests counted for this twin');
  t.match(mine(), { environment_id: env.id, twin_slug: 'stripe' });
  t.ok(after.log.written >= before.log.written + 5, 'and written to the log');
  t.equal(after.log.queue_depth, 0, 'nothing waiting: each answer left after its commit');
  t.equal(after.log.writable, true);
});

t.test('the data directory and its files are readable by the service user only', async (t) => {
  const mode = (p: string) => statSync(p).mode & 0o777;
  t.equal(mode(cp.dataDir), 0o700, 'data directory');
  for (const f of ['control-plane.sqlite', 'request-logs.sqlite', 'local-idp-key.json']) t.equal(mode(join(cp.dataDir, f)), 0o600, f);
  const row = cp.services.orchestration.store.twinById(twin.id)!;
  t.equal(mode(row.data_file), 0o600, "the twin's data file (its records and keys)");
  t.equal(mode(join(cp.dataDir, 'twins')), 0o700, 'the twins folder');
});
