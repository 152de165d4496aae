// The HTTP side of the console, without a browser: `/` for browsers and for API clients, the built
// files (encodings, caching, CSP), sign-in tickets (usable once, durable across a restart, never an
// access token themselves), the live request-log stream (resume without loss, limits, errors), one
// log entry in full, the record kinds of a twin, and the OpenAPI description of the new routes.

import t from 'tap';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { SignJWT } from 'jose';
import { ensureBuilt } from '../orchestration/build.js';
import { waitFor, waitReady } from '../orchestration/helpers.js';
import { startTestControlPlane, type TestControlPlane } from '../helpers/control-plane.js';
import { ensureConsoleBuilt } from '../helpers/console.js';
import { CONSOLE_OUT } from '../../scripts/console/build.js';
import { mintSignInTicket } from '../../control-plane/console/sign-in-ticket.js';
import { LOCAL_ISSUER } from '../../control-plane/auth/local-idp.js';
import { MAX_STREAMS_PER_ORGANIZATION } from '../../control-plane/routes/request-log-stream.js';
import { parseEvents, type StreamEvent } from '../../control-plane/console/web/lib/event-stream.js';

ensureBuilt();
await ensureConsoleBuilt();
const cp = await startTestControlPlane();
t.teardown(() => cp.stop());
const admin = await cp.token({ email: 'ada@example.com', org: 'acme', role: 'admin' });

/** An open event stream read with fetch, as the console reads it. */
interface OpenStream {
  status: number;
  headers: Headers;
  /** The next event, waiting up to `ms`. */
  next(ms?: number): Promise<StreamEvent>;
  close(): void;
}

async function openStream(path: string, opts: { token?: string; headers?: Record<string, string> } = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream', ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(cp.url + path, { headers, signal: controller.signal });
  const queue: StreamEvent[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  if (res.ok && res.body) {
    void (async () => {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer = parseEvents(buffer + value, (e) => {
            queue.push(e);
            for (const w of waiters.splice(0)) w();
          });
        }
      } catch {
        // aborted
      }
    })();
  }
  return {
    status: res.status,
    headers: res.headers,
    async next(ms = 3000) {
      const deadline = Date.now() + ms;
      while (queue.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return queue.shift()!;
    },
    close() {
      controller.abort();
    },
  };
}

t.test('GET / answers a browser with the console and an API client with JSON', async (t) => {
  const page = await fetch(cp.url + '/', { headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' } });
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, "default-src 'none'");
  t.match(csp, "connect-src 'self'", 'the page may only talk to this origin');
  t.match(csp, "script-src 'self'");
  t.equal(page.headers.get('cache-control'), 'no-cache');
  t.equal(page.headers.get('x-frame-options'), 'DENY');
  const html = await page.text();
  const js = /\/console\/(app-[A-Z0-9]+\.js)/.exec(html)?.[1];
  const css = /\/console\/(app-[A-Z0-9]+\.css)/.exec(html)?.[1];
  t.ok(js && css, 'the page names its hashed script and stylesheet');
  t.notMatch(html, /https?:\/\//, 'and no other host');

  const api = await cp.call('GET', '/', { headers: { accept: 'application/json' } });
  t.equal(api.status, 200);
  t.match(api.body, { console: '/', openapi: '/openapi.json', docs: '/docs' });
  t.equal((await cp.call('GET', '/')).status, 200, 'curl (Accept: */*) gets the JSON');
  t.match((await cp.call('GET', '/')).headers.get('vary'), /Accept/);

  for (const [file, type] of [
    [js!, /^text\/javascript/],
    [css!, /^text\/css/],
  ] as const) {
    const plain = await fetch(`${cp.url}/console/${file}`, { headers: { 'accept-encoding': 'identity' } });
    t.equal(plain.status, 200);
    t.match(plain.headers.get('content-type'), type);
    t.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable', `${file} is immutable`);
    t.equal(plain.headers.get('content-encoding'), null);
    const body = Buffer.from(await plain.arrayBuffer());
    // fetch decodes br/gzip itself; the encodings are checked on the raw size headers.
    const br = await fetch(`${cp.url}/console/${file}`, { headers: { 'accept-encoding': 'gzip, br' } });
    t.equal(br.headers.get('content-encoding'), 'br');
    t.same(Buffer.from(await br.arrayBuffer()), body, 'the brotli copy decodes to the same file');
    const gz = await fetch(`${cp.url}/console/${file}`, { headers: { 'accept-encoding': 'gzip' } });
    t.equal(gz.headers.get('content-encoding'), 'gzip');
    t.same(Buffer.from(await gz.arrayBuffer()), body);
    const etag = plain.headers.get('etag')!;
    t.equal((await fetch(`${cp.url}/console/${file}`, { headers: { 'if-none-match': etag } })).status, 304);
  }
  for (const bad of ['/console/index.html', '/console/nope.js', '/console/..%2fpackage.json', '/console/app.js.map']) {
    const res = await cp.call('GET', bad);
    t.equal(res.status, 404, `${bad} is not served`);
    t.same(res.body, { detail: 'Not Found' });
  }
});

t.test('the split build: the first visit preloads its stylesheet and scripts; every chunk is served, compressed, and resolves', async (t) => {
  const page = await fetch(cp.url + '/', { headers: { accept: 'text/html' } });
  const link = page.headers.get('link') ?? '';
  const html = await page.text();
  const named = [...html.matchAll(/\/console\/([\w-]+\.(?:js|css))/g)].map((m) => m[1]!);
  t.ok(named.length >= 3, `the page names its stylesheet, entry and chunk: ${named.join(', ')}`);
  for (const file of named) {
    const form = file.endsWith('.css') ? `</console/${file}>; rel=preload; as=style` : `</console/${file}>; rel=preload; as=script; crossorigin`;
    t.ok(link.split(', ').includes(form), `the Link header preloads ${file} (${form})`);
  }
  const built = readdirSync(CONSOLE_OUT);
  const scripts = built.filter((f) => f.endsWith('.js'));
  const later = scripts.filter((f) => /^later-[A-Z0-9]+\.js$/.test(f));
  t.equal(later.length, 1, 'the later pages are one chunk of their own');
  t.notOk(named.includes(later[0]!), 'which the first visit does not wait for');
  t.notMatch(link, /later-/, 'nor preload');
  for (const file of [...scripts, ...built.filter((f) => f.endsWith('.css'))]) {
    t.ok(built.includes(`${file}.gz`) && built.includes(`${file}.br`), `${file} has its gzip and brotli copies`);
    const res = await fetch(`${cp.url}/console/${file}`, { headers: { 'accept-encoding': 'br' } });
    t.equal(res.status, 200, `${file} is served`);
    t.match(res.headers.get('content-type'), file.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    t.equal(res.headers.get('content-encoding'), 'br');
    t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    if (!file.endsWith('.js')) continue;
    // Every module a chunk imports (statically or by import()) is another served file beside it.
    const imports = [...(await res.text()).matchAll(/(?:from|import)\s*\(?\s*"\.\/([^"]+)"/g)].map((m) => m[1]!);
    for (const imported of imports) t.ok(scripts.includes(imported), `${file} imports ${imported}, which is built`);
    if (/^app-/.test(file)) t.ok(imports.includes(later[0]!), 'the entry loads the later pages with import()');
  }
});

t.test('sign-in tickets: one use, then refused; never an access token themselves', async (t) => {
  const options = await cp.call('GET', '/auth/sign-in');
  t.equal(options.status, 200);
  t.same(options.body, { mode: 'local', authorization_endpoint: null, client_id: null, scope: null, audience: null, detail: null });

  const keys = cp.services.localKeys!;
  const ticket = await mintSignInTicket(keys, {
    email: 'grace@example.com',
    org: 'acme',
    role: 'member',
    firstName: 'Grace',
    lastName: 'Hopper',
    sessionSeconds: 600,
  });
  t.equal((await cp.call('GET', '/users/me', { token: ticket })).status, 401, 'a ticket is not an access token');

  const first = await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket } });
  t.equal(first.status, 200);
  t.equal(first.headers.get('cache-control'), 'no-store');
  t.match(first.body, { token_type: 'Bearer', expires_in: 600 });
  const me = await cp.call('GET', '/users/me', { token: first.body.access_token });
  t.equal(me.status, 200);
  t.match(me.body, { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper', role: 'member' });
  const claims = JSON.parse(Buffer.from(first.body.access_token.split('.')[1], 'base64url').toString());
  t.equal(claims.exp - claims.iat, 600, 'the session lasts what the ticket asked for');

  const again = await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket } });
  t.equal(again.status, 401);
  t.match(again.body.detail, /already used/);
  t.equal(again.headers.get('www-authenticate'), 'Bearer');

  const expired = await mintSignInTicket(keys, { email: 'grace@example.com', org: 'acme', role: 'member' }, new Date(Date.now() - 10 * 60_000));
  t.match((await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket: expired } })).body.detail, /expired/);
  const tampered = ticket.slice(0, -4) + (ticket.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  t.equal((await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket: tampered } })).status, 401, 'a tampered ticket');
  t.equal((await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket: admin } })).status, 401, 'an access token is not a ticket');
  const foreign = await new SignJWT({ email: 'x@example.com', org_id: 'acme', org_role: 'admin', session_seconds: 60 })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(LOCAL_ISSUER)
    .setAudience('twins-console-sign-in')
    .setJti(randomUUID())
    .setExpirationTime('2m')
    .sign(new TextEncoder().encode('a secret the server never held, 32 bytes long!'));
  t.equal(
    (await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket: foreign } })).status,
    401,
    'a ticket not signed by the local key',
  );

  const missing = await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket' } });
  t.equal(missing.status, 422);
  t.match(missing.body.detail, [{ type: 'missing', loc: ['body', 'ticket'] }]);
  const unknown = await cp.call('POST', '/auth/token', { body: { grant_type: 'password', ticket: 'x' } });
  t.equal(unknown.status, 422);
  t.match(unknown.body.detail, [{ loc: ['body', 'grant_type'] }]);
  t.equal((await cp.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket: 'x', extra: 1 } })).status, 422, 'unknown fields are refused');
  const code = await cp.call('POST', '/auth/token', {
    body: { grant_type: 'authorization_code', code: 'c', code_verifier: 'v'.repeat(43), redirect_uri: `${cp.url}/` },
  });
  t.equal(code.status, 409, 'no authorization codes under the embedded identity provider');
});

t.test('a redeemed ticket stays redeemed across a restart', async (t) => {
  const other = await startTestControlPlane();
  const ticket = await mintSignInTicket(other.services.localKeys!, { email: 'ada@example.com', org: 'acme', role: 'admin' });
  t.equal((await other.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket } })).status, 200);
  await other.stop({ keepData: true });
  const again = await startTestControlPlane({ dataDir: other.dataDir });
  t.teardown(() => again.stop());
  t.equal((await again.call('POST', '/auth/token', { body: { grant_type: 'sign_in_ticket', ticket } })).status, 401);
});

t.test('record kinds of a catalog twin', async (t) => {
  const kinds = await cp.call('GET', '/twins/catalog/stripe/resources', { token: admin });
  t.equal(kinds.status, 200);
  t.ok(kinds.body.length > 2);
  t.equal(kinds.body[0], 'customer');
  t.equal(kinds.body.at(-1), 'delivery');
  t.equal((await cp.call('GET', '/twins/catalog/nope/resources', { token: admin })).status, 404);
  t.equal((await cp.call('GET', '/twins/catalog/stripe/resources')).status, 401);
});

async function stripeEnvironment(cp: TestControlPlane, token: string, name: string) {
  const created = await cp.call('POST', '/environments', { token, body: { name, twins: [{ twin: 'stripe' }] } });
  const env = await waitReady(cp, token, created.body.id);
  const key = (await cp.call('POST', `/twins/${env.twins[0].id}/credential`, { token })).body.api_key as string;
  const call = async (method: string, path: string, form?: Record<string, string>) => {
    const res = await fetch(env.twins[0].url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { env, key, call };
}

t.test('the live request log', async (t) => {
  const { env, key, call } = await stripeEnvironment(cp, admin, 'stream');
  const path = `/environments/${env.id}/logs/stream`;

  const stream = await openStream(path, { token: admin });
  t.equal(stream.status, 200);
  t.match(stream.headers.get('content-type'), /^text\/event-stream/);
  t.equal(stream.headers.get('cache-control'), 'no-cache, no-transform');
  const ready = await stream.next();
  t.equal(ready.event, 'ready');
  const start = JSON.parse(ready.data).cursor as string;
  t.match(start, /^\d+$/);

  const created = await call('POST', '/v1/customers', { email: 'ada@example.com' });
  const sent = Date.now();
  const first = await stream.next(2000);
  t.comment(`stream: event ${Date.now() - sent} ms after the twin answered`);
  t.equal(first.event, 'request');
  const entry = JSON.parse(first.data);
  t.match(entry, { environment_id: env.id, environment_twin_id: env.twins[0].id, method: 'POST', path: '/v1/customers', status_code: 200 });
  t.same(
    Object.keys(entry).sort(),
    ['duration_ms', 'environment_id', 'environment_twin_id', 'fault', 'fidelity', 'id', 'method', 'occurred_at', 'path', 'query_string', 'status_code'],
    "the contract's request log entry, nothing more",
  );
  t.ok(Number(first.id) > Number(start), 'each event carries its cursor as the event id');
  stream.close();

  // Two requests while nobody listens; resuming after the last cursor delivers both, in order.
  await call('GET', `/v1/customers/${created.body.id}`);
  await call('GET', '/v1/customers/cus_missing');
  const resumed = await openStream(path, { token: admin, headers: { 'last-event-id': first.id! } });
  t.equal((await resumed.next()).event, 'ready');
  const a = JSON.parse((await resumed.next()).data);
  const b = JSON.parse((await resumed.next()).data);
  t.same(
    [a.path, a.status_code, b.path, b.status_code],
    [`/v1/customers/${created.body.id}`, 200, '/v1/customers/cus_missing', 404],
    'nothing missed, nothing repeated',
  );
  await t.rejects(resumed.next(400), /no event/, 'and nothing more');
  resumed.close();

  const viaQuery = await openStream(`${path}?after=${first.id}`, { token: admin });
  await viaQuery.next();
  t.equal(JSON.parse((await viaQuery.next()).data).id, a.id, '`after` resumes like Last-Event-ID');
  viaQuery.close();

  const tail = await openStream(`${path}?tail=2`, { token: admin });
  await tail.next();
  t.same(
    [JSON.parse((await tail.next()).data).id, JSON.parse((await tail.next()).data).id],
    [a.id, b.id],
    '`tail` sends the newest entries first, oldest first',
  );
  tail.close();

  // One entry in full.
  const detail = await cp.call('GET', `/environments/${env.id}/logs/${entry.id}`, { token: admin });
  t.equal(detail.status, 200);
  t.match(detail.body, { id: entry.id, twin_slug: 'stripe', actor: 'agent', method: 'POST', status_code: 200 });
  t.equal(detail.body.request.body, 'email=ada%40example.com');
  t.match(detail.body.request.content_type, 'application/x-www-form-urlencoded');
  t.equal(detail.body.request.body_truncated, false);
  t.notOk('authorization' in detail.body.request.headers, 'no credentials in the logged headers');
  t.notMatch(JSON.stringify(detail.body), key, 'the twin key appears nowhere');
  t.equal(JSON.parse(detail.body.response.body).id, created.body.id, "the twin's response body");
  t.match(detail.body.response.content_type, 'application/json');
  t.equal((await cp.call('GET', `/environments/${env.id}/logs/${randomUUID()}`, { token: admin })).status, 404);
  const badId = await cp.call('GET', `/environments/${env.id}/logs/not-a-uuid`, { token: admin });
  t.equal(badId.status, 422);
  t.match(badId.body.detail, [{ type: 'uuid_parsing', loc: ['path', 'log_id'] }]);

  // Errors: no credential, another organization, a cursor that is not one.
  t.equal((await openStream(path)).status, 401);
  const stranger = await cp.token({ email: 'eve@example.com', org: 'other', role: 'admin' });
  t.equal((await openStream(path, { token: stranger })).status, 404, "another organization's environment does not exist for it");
  t.equal((await cp.call('GET', `/environments/${env.id}/logs/${entry.id}`, { token: stranger })).status, 404);
  const badCursor = await cp.call('GET', path, { token: admin, headers: { 'last-event-id': 'x' } });
  t.equal(badCursor.status, 422);
  t.match(badCursor.body.detail, [{ loc: ['header', 'last-event-id'] }]);
  t.equal((await cp.call('GET', `${path}?after=-1`, { token: admin })).status, 422);
  t.equal((await cp.call('GET', `${path}?tail=1001`, { token: admin })).status, 422);
});

t.test('streams per organization are bounded, and the server closes them', async (t) => {
  const own = await startTestControlPlane();
  let stopped = false;
  t.teardown(() => (stopped ? undefined : own.stop()));
  const token = await own.token({ email: 'ada@example.com', org: 'bounded', role: 'admin' });
  const env = (await own.call('POST', '/environments', { token, body: { name: 'bounded', twins: [{ twin: 'stripe' }] } })).body;
  const open: { close(): void; done: Promise<unknown> }[] = [];
  for (let i = 0; i < MAX_STREAMS_PER_ORGANIZATION; i++) {
    const controller = new AbortController();
    const res = await fetch(`${own.url}/environments/${env.id}/logs/stream`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    t.equal(res.status, 200);
    const done = res.text().catch(() => 'aborted');
    open.push({ close: () => controller.abort(), done });
  }
  const over = await own.call('GET', `/environments/${env.id}/logs/stream`, { token });
  t.equal(over.status, 429);
  t.match(over.body.detail, /already follows/);
  const elsewhere = await own.token({ email: 'bob@example.com', org: 'elsewhere', role: 'admin' });
  const theirEnv = (await own.call('POST', '/environments', { token: elsewhere, body: { name: 'x', twins: [{ twin: 'stripe' }] } })).body;
  const theirs = await fetch(`${own.url}/environments/${theirEnv.id}/logs/stream`, { headers: { authorization: `Bearer ${elsewhere}` } });
  t.equal(theirs.status, 200, "one organization's streams do not count against another's");
  void theirs.body?.cancel();
  open[0]!.close();
  await open[0]!.done;
  await waitFor(
    'a closed stream to be forgotten',
    async () =>
      await fetch(`${own.url}/environments/${env.id}/logs/stream`, { headers: { authorization: `Bearer ${token}` } }).then((r) =>
        r.status === 200 ? (void r.body?.cancel(), true) : false,
      ),
  );
  // Closing the control plane ends the streams still open (it does not wait for them).
  const before = Date.now();
  await own.stop();
  stopped = true;
  t.ok(Date.now() - before < 10_000, 'stop is not held up by open streams');
  const ends = await Promise.all(open.slice(1).map((o) => o.done));
  t.ok(
    ends.every((text) => typeof text === 'string'),
    'every open stream ended',
  );
  t.match(String(ends[0]), /event: end\ndata: \{"reason":"shutdown"/);
});

t.test('the OpenAPI document describes the console routes', async (t) => {
  const spec = (await cp.call('GET', '/openapi.json')).body;
  const ops: [string, string, string, string, string[]][] = [
    ['/environments/{environment_id}/logs/stream', 'get', 'streamRequestLogs', 'environments', ['200', '401', '404', '422', '429']],
    ['/environments/{environment_id}/logs/{log_id}', 'get', 'getRequestLog', 'environments', ['200', '401', '404', '422']],
    ['/twins/catalog/{twin_slug}/resources', 'get', 'listCatalogTwinResources', 'catalog', ['200', '401', '404']],
    ['/auth/sign-in', 'get', 'getSignInOptions', 'users', ['200', '502']],
    ['/auth/token', 'post', 'exchangeSignInProof', 'users', ['200', '401', '409', '422', '502']],
  ];
  for (const [path, method, operationId, tag, statuses] of ops) {
    const op = spec.paths?.[path]?.[method];
    t.ok(op, `${method} ${path} documented`);
    if (!op) continue;
    t.equal(op.operationId, operationId);
    t.same(op.tags, [tag]);
    for (const s of statuses) t.ok(op.responses?.[s], `${operationId} documents ${s}`);
    if (path.startsWith('/auth/')) t.same(op.security, [], `${operationId} needs no credential`);
  }
  t.ok(
    spec.paths['/environments/{environment_id}/logs/stream'].get.responses['200'].content['text/event-stream'],
    'the stream is documented as text/event-stream',
  );
  t.notOk(spec.paths['/'], 'the console page is not an API operation');
});
