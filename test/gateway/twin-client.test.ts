// The gateway's client for a twin (control-plane/gateway/twin-client.ts): answers whole, keep-alive
// connections reused within their limit, and every way a twin can fail a request (refused, cut off,
// garbage, out of turn, too slow) reported as an error rather than a wrong answer. The twins here
// are servers on 127.0.0.1 written byte by byte, so each answer is exactly what the test says.

import t, { type Test } from 'tap';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TwinClient, type TwinAnswer } from '../../control-plane/gateway/twin-client.js';
import { requestHead } from '../../control-plane/gateway/gateway.js';
import { listenLocalSocket } from '../../twin-runtime/local-socket.js';

/** A raw server: `answer` gets each connection's bytes as they come and writes what it likes. */
async function rawTwin(t: Test, answer: (socket: Socket, data: Buffer) => void): Promise<{ address: string; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (data) => answer(socket, data));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { address: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

function ask(client: TwinClient, head: string, body?: Buffer, noBody = false): Promise<TwinAnswer> {
  return new Promise((resolve, reject) => client.request(head, body, noBody, (err, answer) => (err ? reject(err) : resolve(answer!))));
}

const GET = (path = '/v1/customers') => `GET ${path} HTTP/1.1\r\nhost: twin\r\n\r\n`;

t.test('answers from node:http: status, headers as sent, whole body; one connection for requests in turn', async (t) => {
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  let connections = 0;
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (req.url === '/chunked') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Request-Id': 'req_1' });
        res.write('{"a":');
        setTimeout(() => res.end('1}'), 5);
        return;
      }
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echo: req.url }));
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new TwinClient(address);
  t.teardown(() => client.close());

  const first = await ask(client, GET('/one'));
  t.equal(first.statusCode, 201);
  t.same(JSON.parse(first.body.toString()), { echo: '/one' });
  const cookies = first.rawHeaders.filter((_, i) => i % 2 === 1 && /^[ab]=/.test(first.rawHeaders[i]!));
  t.same(cookies, ['a=1', 'b=2'], 'repeated headers stay separate');
  t.ok(first.rawHeaders.includes('content-type'), 'names as the twin wrote them');

  const chunked = await ask(client, GET('/chunked'));
  t.equal(chunked.body.toString(), '{"a":1}', 'a chunked answer is joined');
  t.ok(chunked.rawHeaders.includes('Request-Id'));

  const body = Buffer.from('email=a%40example.com');
  const posted = await ask(
    client,
    requestHead('POST', '/v1/customers', ['Content-Type', 'application/x-www-form-urlencoded', 'Host', 'gw:1'], client.host, body.length),
    body,
  );
  t.equal(posted.statusCode, 201);
  t.equal(seen.at(-1)!.body, 'email=a%40example.com', 'the body reaches the twin');
  t.equal(seen.at(-1)!.headers['x-forwarded-host'], 'gw:1');
  t.equal(seen.at(-1)!.headers.host, client.host, 'the twin sees its own address as Host');
  t.equal(connections, 1, 'requests in turn share one keep-alive connection');
  t.equal(client.connections, 1);
});

t.test('the request head: hop-by-hop headers dropped, Host replaced, the body length given', async (t) => {
  const head = requestHead(
    'POST',
    '/v1/charges?expand[]=customer',
    [
      'Host',
      'gw.example:443',
      'Connection',
      'keep-alive, X-Foo',
      'Expect',
      '100-continue',
      'Transfer-Encoding',
      'chunked',
      'X-Twin-Admin-Secret',
      'nope',
      'Authorization',
      'Bearer sk',
      'Accept',
      'a',
      'Accept',
      'b',
      'Content-Length',
      '99',
    ],
    '127.0.0.1:4010',
    3,
  );
  t.equal(
    head,
    'POST /v1/charges?expand[]=customer HTTP/1.1\r\nhost: 127.0.0.1:4010\r\nAuthorization: Bearer sk\r\nAccept: a\r\nAccept: b\r\nx-forwarded-host: gw.example:443\r\ncontent-length: 3\r\n\r\n',
  );
  t.equal(
    requestHead('GET', '/x', ['Host', 'gw:1', 'X-Forwarded-Host', 'evil', 'X-Forwarded-Proto', 'https'], 'twin:1', 0, 'http'),
    'GET /x HTTP/1.1\r\nhost: twin:1\r\nx-forwarded-host: gw:1\r\nx-forwarded-proto: http\r\n\r\n',
    "the client's own X-Forwarded-* dropped; the scheme it used given",
  );
  t.match(requestHead('GET', '/', [], 'twin:1', 0), /^GET \/ HTTP\/1\.1\r\nhost: twin:1\r\n\r\n$/, 'no body, no length on a GET');
  t.match(requestHead('PUT', '/x', [], 'twin:1', 0), /content-length: 0\r\n\r\n$/, 'an empty PUT says so');
});

t.test('a HEAD answer has no body; 204 neither; an informational answer is skipped', async (t) => {
  const twin = await rawTwin(t, (socket, data) => {
    const line = data.toString('latin1').split('\r\n')[0]!;
    if (line.startsWith('HEAD')) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1234\r\n\r\n');
    else if (line.includes('/empty')) socket.write('HTTP/1.1 204 No Content\r\n\r\n');
    else socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  });
  const client = new TwinClient(twin.address);
  t.teardown(() => client.close());
  const head = await ask(client, 'HEAD / HTTP/1.1\r\nhost: t\r\n\r\n', undefined, true);
  t.equal(head.statusCode, 200);
  t.equal(head.body.length, 0);
  const empty = await ask(client, GET('/empty'));
  t.equal(empty.statusCode, 204);
  t.equal(empty.body.length, 0);
  const after = await ask(client, GET('/continue'));
  t.equal(after.statusCode, 200);
  t.equal(after.body.toString(), 'ok');
  t.equal(twin.connections(), 1, 'all on one connection');
});

t.test('an answer delimited by the end of the connection; Connection: close is not reused', async (t) => {
  const twin = await rawTwin(t, (socket) => {
    socket.end('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil the end');
  });
  const client = new TwinClient(twin.address);
  t.teardown(() => client.close());
  const a = await ask(client, GET());
  t.equal(a.body.toString(), 'until the end');
  const b = await ask(client, GET());
  t.equal(b.body.toString(), 'until the end');
  t.equal(twin.connections(), 2, 'a new connection after a closed one');
});

t.test('failures are errors, never answers: refused, cut off, garbage, too slow', async (t) => {
  // Refused: a port nobody listens on (found by closing a listener).
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const freePort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const refused = new TwinClient(`http://127.0.0.1:${freePort}`);
  await t.rejects(ask(refused, GET()), { code: 'ECONNREFUSED' });

  const cut = await rawTwin(t, (socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly this'));
  const cutClient = new TwinClient(cut.address);
  await t.rejects(ask(cutClient, GET()), { name: 'TwinConnectionError', code: 'CLOSED' }, 'an answer cut short');

  const garbage = await rawTwin(t, (socket) => socket.write('SMTP ready\r\n\r\n'));
  const garbageClient = new TwinClient(garbage.address);
  await t.rejects(ask(garbageClient, GET()), { code: 'PARSE' });

  const silent = await rawTwin(t, () => {});
  const slowClient = new TwinClient(silent.address, { timeoutMs: 100 });
  await t.rejects(ask(slowClient, GET()), { code: 'TIMEOUT' });
  t.equal(slowClient.connections, 0, 'the connection that timed out is closed');

  // Out of turn: a second answer nobody asked for rides with the first. The first is delivered;
  // the connection is not used again.
  const chatty = await rawTwin(t, (socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\naHTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nb'));
  const chattyClient = new TwinClient(chatty.address);
  t.equal((await ask(chattyClient, GET())).body.toString(), 'a');
  t.equal((await ask(chattyClient, GET())).body.toString(), 'a');
  t.equal(chatty.connections(), 2, 'the connection that answered out of turn was dropped');
  for (const c of [refused, cutClient, garbageClient, slowClient, chattyClient]) await c.close();
});

t.test('at most `connections` at once, the rest wait their turn; close() answers what it took', async (t) => {
  let open = 0;
  let most = 0;
  const twin = await rawTwin(t, (socket, data) => {
    // Each answer 20 ms later, so requests overlap.
    const path = data.toString('latin1').split(' ')[1]!;
    setTimeout(() => socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${path.length}\r\n\r\n${path}`), 20);
  });
  const client = new TwinClient(twin.address, { connections: 2 });
  const counting = setInterval(() => {
    open = client.connections;
    most = Math.max(most, open);
  }, 2);
  t.teardown(() => clearInterval(counting));
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => ask(client, GET(`/r${i}`))));
  t.same(
    answers.map((a) => a.body.toString()),
    ['/r0', '/r1', '/r2', '/r3', '/r4', '/r5'],
    'each request gets its own answer',
  );
  t.ok(twin.connections() <= 2, `connections opened: ${twin.connections()}`);
  t.ok(most <= 2);

  const inFlight = ask(client, GET('/last'));
  const closed = client.close();
  await t.rejects(ask(client, GET('/after')), { code: 'CLOSED' }, 'no request after close()');
  t.equal((await inFlight).body.toString(), '/last', 'a request taken before close() is answered');
  await closed;
  t.equal(client.connections, 0);
});

t.test("an idle connection closes before the twin's Keep-Alive timeout", async (t) => {
  const twin = await rawTwin(t, (socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nkeep-alive: timeout=1\r\n\r\n'));
  const client = new TwinClient(twin.address);
  t.teardown(() => client.close());
  await ask(client, GET());
  // timeout=1 leaves no safe idle time (one second less): the connection is closed at once.
  await new Promise((r) => setTimeout(r, 20));
  t.equal(client.connections, 0);
  await ask(client, GET());
  t.equal(twin.connections(), 2);
});

t.test(
  'a child-process twin is reached on its local socket',
  { skip: process.platform === 'linux' ? false : 'abstract Unix sockets are Linux only' },
  async (t) => {
    const viaLocal: boolean[] = [];
    const server = createHttpServer((req, res) => {
      viaLocal.push(req.socket.remoteAddress === undefined);
      res.end('hi');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const local = await listenLocalSocket(address, (socket) => server.emit('connection', socket));
    t.teardown(async () => {
      await local?.close();
      server.close();
    });
    const client = new TwinClient(address, { localSocket: true });
    t.equal((await ask(client, GET())).body.toString(), 'hi');
    const tcp = new TwinClient(address);
    t.equal((await ask(tcp, GET())).body.toString(), 'hi');
    t.same(viaLocal, [true, false], 'the local socket first; TCP without the option');
    await client.close();
    await tcp.close();
  },
);
