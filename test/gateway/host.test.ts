// The gateway on its own thread, driven from this one (host.ts): twin URLs open and answer, stats()
// reads shared counters without a round trip, a thread that dies is started again with every URL
// reopened on its port, and a drain answers what is in flight.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { GatewayHost } from '../../control-plane/gateway/host.js';
import { STAT } from '../../control-plane/gateway/protocol.js';
import { openLogDatabase, RequestLogStore } from '../../control-plane/store/request-logs.js';
import { startTwin } from '../helpers/twin.js';

t.test('a gateway thread: URLs, counters, restart after a crash, drain', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-gateway-host-'));
  const logFile = join(dir, 'request-logs.sqlite');
  const twin = await startTwin('stripe');
  const host = new GatewayHost({ logFile, host: '127.0.0.1', defaultRetentionDays: 30, bodyCapBytes: 1 << 20, describe: async () => ({ retentionDays: 7 }) });
  t.teardown(async () => {
    await host.closeAll();
    await twin.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await host.start();
  const route = { twinId: 'tw', environmentId: 'env-h', organizationId: 'org-h', slug: 'stripe' };
  const { url, port } = await host.open(route);
  host.setTarget('tw', twin.url);
  t.equal(host.targetOf('tw'), twin.url, 'the reconciler reads targets without a round trip');
  const get = () => fetch(`${url}/v1/customers`, { headers: { authorization: `Bearer ${twin.apiKey}` } });
  for (let i = 0; i < 3; i++) t.equal((await get()).status, 200);
  t.equal(host.stats().log.written, 3, 'each answer left once its entry was journaled');
  await host.awaitLogged();
  const stats = host.stats();
  t.match(stats.twins, [{ twin_id: 'tw', environment_id: 'env-h', organization_id: 'org-h', twin_slug: 'stripe', requests: 3 }]);
  t.equal(stats.log.written, 3);
  t.ok(stats.log.commits >= 1 && stats.log.commits <= 3);
  t.ok(stats.thread_busy_ms > 0);
  t.equal(stats.requests_in_flight, 0, 'none in flight once answered');

  // The thread dies: a new one reopens the URL on the same port with the same target.
  const worker = (host as unknown as { worker: Worker }).worker;
  await worker.terminate();
  let back = 0;
  for (let i = 0; i < 200 && back !== 200; i++) {
    await new Promise((r) => setTimeout(r, 25));
    back = (await get().catch(() => undefined))?.status ?? 0;
  }
  t.equal(back, 200, 'the same URL answers again');
  t.equal(new URL(url).port, String(port));
  t.ok(host.stats().log.written >= 4, `the new thread goes on counting journaled entries (${host.stats().log.written})`);
  await host.awaitLogged();
  const appliedCount = () => Number((host as unknown as { counters: BigInt64Array }).counters[STAT.applied]);
  t.equal(appliedCount(), host.stats().log.written, 'every journaled entry counted as applied');

  // The log writer's thread dies: a new one goes on from the position SQLite holds, and counts on
  // from its predecessor (readers wait for what is journaled; the gateway keeps taking requests).
  const writerThread = (host as unknown as { logWriter: Worker }).logWriter;
  const before = host.stats().log.written;
  await writerThread.terminate();
  const currentWriter = () => (host as unknown as { logWriter?: Worker }).logWriter;
  for (let i = 0; i < 500 && (currentWriter() === writerThread || currentWriter() === undefined); i++) await new Promise((r) => setTimeout(r, 10));
  t.ok(currentWriter() && currentWriter() !== writerThread, 'a new writer thread runs');
  for (let i = 0; i < 3; i++) t.equal((await get()).status, 200, 'answered with a new writer');
  await host.awaitLogged();
  t.equal(host.stats().log.written, before + 3);
  t.equal(appliedCount(), before + 3, 'the new writer counts on from the old one');

  // Retention set at open (7 days for this environment).
  const reader = new RequestLogStore(openLogDatabase(logFile));
  t.teardown(() => reader.db.close());
  const row = reader.db.prepare("SELECT retention_days FROM request_log_environments WHERE environment_id = 'env-h'").get() as { retention_days: number };
  t.equal(row.retention_days, 7);
  t.equal(reader.count('env-h'), before + 3, 'every answered request is in the file');

  // A write is journaled before it is forwarded and again with its answer: two entries, which the
  // writer stores as one row when it reads both at once (an answer within its 25 ms between reads).
  // Both count as applied, else every reader after them waited out its whole bound (a request-log
  // read took 5 s). A target that answers at once makes such pairs the rule.
  const instant = createServer((_req, res) => res.end('{"ok":true}'));
  await new Promise<void>((r) => instant.listen(0, '127.0.0.1', r));
  t.teardown(() => instant.close());
  host.setTarget('tw', `http://127.0.0.1:${(instant.address() as AddressInfo).port}`);
  const written = host.stats().log.written;
  const WRITES = 10;
  for (let i = 0; i < WRITES; i++) {
    const res = await fetch(`${url}/v1/customers`, { method: 'POST', body: `email=w${i}%40example.com` });
    t.equal(res.status, 200);
    await res.text();
  }
  t.equal(host.stats().log.written, written + 2 * WRITES, 'each write left two entries: before forwarding, and with its answer');
  await host.awaitLogged();
  t.equal(appliedCount(), written + 2 * WRITES, 'every one of them applied');
  t.equal(reader.count('env-h'), before + 3 + WRITES, 'one row per write');

  // A drain lets the request in flight finish, then the URL takes no more connections.
  // The slow twin answers only once the drain has begun, however slow this machine is.
  let drainBegun = false;
  let held: (() => void) | undefined;
  const answerLater = () => setTimeout(() => held?.(), 200);
  const slowTwin = createServer((_req, res) => {
    held = () => res.end('{"slow":true}');
    if (drainBegun) answerLater();
  });
  await new Promise<void>((r) => slowTwin.listen(0, '127.0.0.1', r));
  t.teardown(() => slowTwin.close());
  host.setTarget('tw', `http://127.0.0.1:${(slowTwin.address() as AddressInfo).port}`);
  const slow = fetch(`${url}/slow`);
  for (let i = 0; i < 500 && host.stats().requests_in_flight === 0; i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(host.stats().requests_in_flight, 1, 'one request in flight');
  const draining = host.drain(10_000);
  drainBegun = true;
  if (held) answerLater();
  const unanswered = await draining;
  t.equal(unanswered, 0);
  t.equal((await slow).status, 200, 'the request in flight was answered');
  t.equal(
    await get().then(
      () => 'answered',
      () => 'refused',
    ),
    'refused',
    'new connections are refused after the drain',
  );
});
