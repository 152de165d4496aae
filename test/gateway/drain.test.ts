// A drain (SIGTERM) answers what is in flight in full: an answer the gateway has ended but the
// kernel has not yet taken (its client reads slowly) is still delivered whole, and its connection
// closes after it. Node's closeIdleConnections counts such a connection as idle and would destroy
// it, cutting the answer (issue 20: SIGTERM loses no in-flight request).

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../control-plane/store/database.js';
import { RequestLogStore } from '../../control-plane/store/request-logs.js';
import { RequestLogWriter } from '../../control-plane/gateway/request-log-writer.js';
import { TwinGateway } from '../../control-plane/gateway/gateway.js';

t.test('an ended answer still being written survives a drain', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'twins-gateway-drain-'));
  const db = openDatabase(join(dir, 'cp.sqlite'));
  // Larger than loopback's socket buffers on both sides together, so most of it waits in the gateway.
  const size = 48 * 1024 * 1024;
  const big = Buffer.alloc(size, 'a');
  let twinAnswered = false;
  const twin = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(size) });
    res.end(big, () => (twinAnswered = true));
  });
  await new Promise<void>((r) => twin.listen(0, '127.0.0.1', r));
  const gateway = new TwinGateway({ host: '127.0.0.1', writer: new RequestLogWriter(new RequestLogStore(db)) });
  t.teardown(async () => {
    await gateway.closeAll();
    twin.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { url } = await gateway.open({ twinId: 'd', environmentId: 'env-d', organizationId: 'o', slug: 'stripe' });
  gateway.setTarget('d', `http://127.0.0.1:${(twin.address() as AddressInfo).port}`);

  // A client that sends its request and reads nothing until told.
  const port = Number(new URL(url).port);
  const client = connect(port, '127.0.0.1');
  client.pause();
  await new Promise<void>((r) => client.once('connect', () => r()));
  client.write('GET /big HTTP/1.1\r\nhost: x\r\n\r\n');
  for (let i = 0; i < 1000 && !twinAnswered; i++) await new Promise((r) => setTimeout(r, 10));
  t.ok(twinAnswered, 'the twin has handed over its answer');
  // The gateway logs it and ends its answer; most of it is still queued behind the unread socket.
  await new Promise((r) => setTimeout(r, 200));
  t.equal(gateway.requestsInFlight, 1, 'an answer not yet with the kernel is still in flight');

  const drained = gateway.drain(10_000);
  let received = 0;
  let ended = false;
  client.on('data', (chunk: Buffer) => (received += chunk.length));
  const closed = new Promise<void>((r) => client.once('close', () => r()));
  client.once('end', () => (ended = true));
  client.on('error', () => {});
  client.resume();
  t.equal(await drained, 0, 'the drain waited for it');
  await closed;
  t.ok(ended, 'the connection ended in order, not reset');
  t.ok(received > size, `the whole answer arrived (${received} bytes for a body of ${size})`);
});
