// The runtime's pipeline and host: group commit with a savepoint per request, the provider-error
// hook, `around`, generic routes behind hand-written ones, and the host operations the admin API
// and seeds call (advance, reset, records).

import { InputRefusal } from '../../twin-runtime/safe-input.js';
import t from 'tap';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestPipeline } from '../../twin-runtime/pipeline.js';
import { RecordStore } from '../../twin-runtime/record-store.js';
import { HostError, TwinHost } from '../../twin-runtime/host.js';
import { FIDELITY_HEADER, NotSimulated, operationName } from '../../twin-runtime/fidelity.js';
import type { TwinDefinition, TwinRequest, TwinResponse } from '../../twin-runtime/contract.js';

const dir = mkdtempSync(join(tmpdir(), 'twin-host-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = () => join(dir, `f${files++}.sqlite`);

t.test('pipeline: one transaction for a burst, a savepoint per request, exclusive jobs alone', async (t) => {
  const db = new Database(file());
  db.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)');
  const counts = { BEGIN: 0, COMMIT: 0 };
  const prepare = db.prepare.bind(db);
  (db as { prepare: typeof db.prepare }).prepare = ((sql: string) => {
    const stmt = prepare(sql);
    if (sql === 'BEGIN' || sql === 'COMMIT') {
      const run = stmt.run.bind(stmt);
      (stmt as { run: typeof stmt.run }).run = ((...a: unknown[]) => {
        counts[sql]++;
        return run(...(a as []));
      }) as typeof stmt.run;
    }
    return stmt;
  }) as typeof db.prepare;
  const p = new RequestPipeline(db);
  const insert = db.prepare('INSERT INTO kv (k, v) VALUES (?, ?)');
  const jobs = Array.from({ length: 20 }, (_, i) =>
    p.submit(() =>
      p.savepoint(() => {
        insert.run(`k${i}`, 'v');
        if (i % 5 === 0) throw new Error(`refused ${i}`);
        return db.inTransaction;
      }),
    ),
  );
  const results = await Promise.allSettled(jobs);
  t.equal(counts.BEGIN, 1, 'one BEGIN for the burst');
  t.equal(counts.COMMIT, 1, 'one COMMIT for the burst');
  t.equal(results.filter((r) => r.status === 'rejected').length, 4);
  t.ok(
    results.every((r) => r.status === 'rejected' || r.value === true),
    'requests run inside the transaction',
  );
  const keys = (db.prepare('SELECT k FROM kv ORDER BY k').all() as { k: string }[]).map((r) => r.k);
  t.equal(keys.length, 16, 'a refused request rolls back only its own write');
  t.notOk(keys.includes('k5'));

  const order: string[] = [];
  const a = p.submit(() => void order.push('request'));
  const b = p.exclusive(() => void order.push(`exclusive in transaction: ${db.inTransaction}`));
  const c = p.submit(() => void order.push('later request'));
  await Promise.all([a, b, c]);
  t.same(order, ['request', 'exclusive in transaction: false', 'later request']);
  await p.idle();
  db.close();
});

t.test('pipeline: counters drawn in a batch are written once, before its COMMIT, and a rollback takes them back', async (t) => {
  const path = file();
  const store = new RecordStore(path);
  const p = new RequestPipeline(store.db, store);
  const onDisk = () => (store.db.prepare("SELECT value FROM meta WHERE key = 'n'").get() as { value: string } | undefined)?.value;
  const drawn = await Promise.allSettled([
    p.submit(() => p.savepoint(() => [store.incrementMeta('n'), store.incrementMeta('n'), onDisk()])),
    p.submit(() =>
      p.savepoint(() => {
        store.incrementMeta('n');
        throw new Error('refused');
      }),
    ),
    // A nested transaction (better-sqlite3's savepoint) that fails takes back its numbers too.
    p.submit(() =>
      p.savepoint(() => {
        t.throws(() =>
          store.transaction(() => {
            store.incrementMeta('n');
            throw new Error('inner');
          }),
        );
        // withReadCache counts on from the pending counters and leaves them pending.
        return store.withReadCache(() => [store.incrementMeta('n'), store.getMeta('n'), onDisk()]);
      }),
    ),
  ]);
  t.same(
    drawn.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected')),
    [[1, 2, undefined], 'rejected', [3, '3', undefined]],
    'numbers in order, none lost or given twice, nothing written before the commit',
  );
  t.equal(onDisk(), '3', 'written with the commit');
  t.equal(await p.submit(() => store.incrementMeta('n')), 4, 'the next batch counts on from the file');
  // A failed COMMIT (here: the flush's write refused) leaves the file and the counters as they were.
  store.db.exec("CREATE TRIGGER refuse BEFORE UPDATE ON meta WHEN NEW.value = '6' BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
  await t.rejects(p.submit(() => [store.incrementMeta('n'), store.incrementMeta('n')]));
  store.db.exec('DROP TRIGGER refuse');
  t.equal(await p.submit(() => store.incrementMeta('n')), 5, 'a batch that never committed consumed no number');
  store.close();
  const reopened = new RecordStore(path);
  t.equal(reopened.getMeta('n'), '5', 'committed counters survive a restart');
  reopened.close();
});

class Refused extends Error {}

function testTwin(extra: Partial<TwinDefinition> = {}): TwinDefinition {
  return {
    slug: 'test',
    name: 'Test',
    description: 'test twin',
    version: '0.0.1',
    storageVersion: 1,
    defaultPort: 0,
    resources: ['thing'],
    mintKey: () => 'key_1',
    routes: [
      {
        method: 'POST',
        path: '/things/{id}',
        handler: (req, ctx) => {
          ctx.store.put('thing', req.params.id!, { id: req.params.id, n: ctx.ids.sequence('things') });
          if (req.params.id === 'bad') throw new Refused('no bad things');
          if (req.params.id === 'boom') throw new Error('kaput');
          return { status: 200, body: ctx.store.get('thing', req.params.id!) };
        },
      },
      { method: 'GET', path: '/things/{id}', handler: (req, ctx) => ({ status: 200, body: ctx.store.get('thing', req.params.id!) ?? null }) },
    ],
    authenticate: (req) => (req.headers.authorization === 'Bearer key_1' ? undefined : { status: 401, body: { error: 'who are you' } }),
    errors: {
      render: (e, req) => (e instanceof Refused ? { status: 400, body: { error: e.message, template: req.template } } : undefined),
      routeMiss: (req) => ({ status: 404, body: { error: `no route for ${req.method} ${req.path}` } }),
      parseFailure: (_req, _ctx, problem) => ({ status: 400, body: { error: problem.kind } }),
    },
    around: async ({ route }, run) => {
      const res = await run((r) => ({ ...r, headers: { ...(r.headers ?? {}), 'x-inside': 'yes' } }));
      return { ...res, headers: { ...(res.headers ?? {}), 'x-route': route.path } };
    },
    suggestions: [],
    ...extra,
  };
}

function request(method: string, path: string, auth = true): TwinRequest {
  return {
    method,
    path,
    params: {},
    queryString: '',
    query: {},
    headers: auth ? { authorization: 'Bearer key_1' } : {},
    rawBody: Buffer.alloc(0),
    body: {},
    bodyKind: 'none',
  };
}

t.test('host: provider requests through the pipeline and the error hook', async (t) => {
  const host = new TwinHost(testTwin(), { dataFile: file(), clockStart: new Date('2026-01-01T00:00:00Z') });
  t.teardown(() => host.close());
  const ok = await host.handle(request('POST', '/things/a'));
  t.equal(ok.status, 200);
  t.same(ok.body, { id: 'a', n: 1 });
  t.same(ok.headers, { 'x-inside': 'yes', 'x-route': '/things/{id}', 'twin-fidelity': 'modelled' }, '`around` wraps the answer, `finish` runs inside');

  const refused = await host.handle(request('POST', '/things/bad'));
  t.same(refused.body, { error: 'no bad things', template: '/things/{id}' }, 'the twin renders its own errors');
  t.same(refused.headers, { 'x-route': '/things/{id}', 'twin-fidelity': 'modelled' }, 'a rolled-back request still passes through `around`');
  t.equal(host.getRecord('thing', 'bad'), undefined, 'the refused request left nothing');
  t.same((await host.handle(request('POST', '/things/b'))).body, { id: 'b', n: 2 }, 'and drew no id');

  const boom = await host.handle(request('POST', '/things/boom'));
  t.equal(boom.status, 500);
  t.same(boom.body, { error: { type: 'api_error', message: 'kaput' } });

  t.same((await host.handle(request('GET', '/nope'))).body, { error: 'no route for GET /nope' });
  t.equal((await host.handle(request('GET', '/things/a', false))).status, 401);
  t.same((await host.handle(request('GET', '/things/%E0%A4%A'))).body, { error: 'malformed_url' });
  t.same(
    (await host.refuse(request('POST', '/things/a'), { kind: 'input_refused', message: 'big', refusal: new InputRefusal('body_too_large', 'body', 10) })).body,
    { error: 'input_refused' },
  );
});

t.test('host: generic routes answer where no hand-written route does', async (t) => {
  const generic = {
    resources: [],
    routes: () => [
      { method: 'GET' as const, path: '/things/{thing}', operationId: 'getThing', handler: (): TwinResponse => ({ status: 299 }) },
      { method: 'DELETE' as const, path: '/things/{thing}', operationId: 'deleteThing', handler: (): TwinResponse => ({ status: 204 }) },
    ],
    requestFields: () => undefined,
    operations: () => [],
  };
  const host = new TwinHost(testTwin({ generic }), { dataFile: file() });
  t.teardown(() => host.close());
  t.equal((await host.handle(request('GET', '/things/a'))).status, 200, 'the hand-written GET wins');
  const del = await host.handle(request('DELETE', '/things/a'));
  t.equal(del.status, 204, 'the generic DELETE fills the gap');
  t.same(del.headers, { 'x-inside': 'yes', 'x-route': '/things/{thing}', 'twin-fidelity': 'modelled' }, 'through the same pipeline');
  t.equal(host.routing.shadowedGeneric.length, 1);
});

t.test('host operations: advance, reset, records', async (t) => {
  const start = new Date('2026-01-01T00:00:00Z');
  const advanced: string[] = [];
  const host = new TwinHost(
    testTwin({
      advance: (ctx, to) => void advanced.push(`${ctx.clock.now().toISOString()} → ${to.toISOString()}`),
      initialize: (ctx) => {
        if (!ctx.store.has('thing', 'seed')) ctx.store.put('thing', 'seed', { id: 'seed' });
      },
    }),
    { dataFile: file(), clockStart: start },
  );
  t.teardown(() => host.close());
  const health = host.health();
  t.match(health.wall, /^\d{4}-\d\d-\d\dT/, 'the wall time the clock was read at');
  t.same(health, {
    status: 'ok',
    twin: 'test',
    version: '0.0.1',
    storage_version: 1,
    clock: start.toISOString(),
    clock_mode: 'frozen',
    wall: health.wall,
    fidelity: 'strict',
    advance: null,
    prototype_intact: true,
  });
  t.same(host.credential(), { api_key: 'key_1' });
  t.same(await host.advance(new Date('2026-01-02T00:00:00Z')), { clock: '2026-01-02T00:00:00.000Z' });
  t.same(advanced, ['2026-01-01T00:00:00.000Z → 2026-01-02T00:00:00.000Z']);
  await t.rejects(
    host.advance(new Date('2025-12-31T00:00:00Z')),
    new HostError(409, 'Cannot move the clock back from 2026-01-02T00:00:00.000Z to 2025-12-31T00:00:00.000Z.'),
  );
  await t.rejects(host.advance(new Date('nonsense')), new HostError(400, '`to` must be a date-time.'));

  await host.handle(request('POST', '/things/x'));
  await host.putRecord('thing', 'edited', { id: 'edited' });
  t.same(
    host.listRecords('thing').map((r) => r.external_id),
    ['seed', 'x', 'edited'],
  );
  t.equal(await host.deleteRecord('thing', 'x'), true);
  t.equal(await host.deleteRecord('thing', 'x'), false);
  t.throws(() => host.listRecords('nothing'), new HostError(404, "The test twin keeps no records of kind 'nothing'."));
  t.ok(host.keeps('delivery'), 'deliveries are records of every twin');

  t.same(await host.reset(), { clock: start.toISOString() });
  t.same(
    host.listRecords('thing').map((r) => r.external_id),
    ['seed'],
    'reset: empty, then the starting state again',
  );
});

t.test('host: every answer says how it was made (Twin-Fidelity); NotSimulated is an honest refusal', async (t) => {
  const routes: TwinDefinition['routes'] = [
    {
      method: 'POST',
      path: '/things/{id}/refund',
      handler: (req, ctx) => {
        ctx.store.put('thing', req.params.id!, { id: req.params.id, refunded: true });
        throw new NotSimulated(operationName(req), 'Refunds move no money here.');
      },
    },
    { method: 'GET', path: '/stored/{id}', fidelity: 'stored', handler: () => ({ status: 200, body: { id: 'x' } }) },
    { method: 'GET', path: '/inferred/{id}', fidelity: 'stored', handler: () => ({ status: 200, body: { id: 'y' }, fidelity: 'inferred' }) },
  ];
  const plain = new TwinHost(testTwin({ routes: [...testTwin().routes, ...routes] }), { dataFile: file() });
  t.teardown(() => plain.close());
  const refund = await plain.handle(request('POST', '/things/a/refund'));
  t.equal(refund.status, 501, 'without a hook: 501');
  t.same(refund.body, { error: { type: 'api_error', message: 'This twin does not simulate POST /things/{id}/refund. Refunds move no money here.' } });
  t.equal(refund.headers?.[FIDELITY_HEADER], 'unsupported');
  t.equal(plain.getRecord('thing', 'a'), undefined, 'the refused request left nothing');
  t.equal((await plain.handle(request('GET', '/stored/a'))).headers?.[FIDELITY_HEADER], 'stored', "the route's level");
  t.equal((await plain.handle(request('GET', '/inferred/a'))).headers?.[FIDELITY_HEADER], 'inferred', "the answer's own level wins");
  t.equal((await plain.handle(request('GET', '/things/a'))).headers?.[FIDELITY_HEADER], 'modelled', 'hand-written routes default to modelled');
  t.equal((await plain.handle(request('GET', '/things/a', false))).headers?.[FIDELITY_HEADER], 'modelled', 'an authentication refusal too');

  const hooked = new TwinHost(
    testTwin({
      routes: [...testTwin().routes, ...routes],
      errors: { ...testTwin().errors, unsupported: (req, _ctx, sentence) => ({ status: 400, body: { error: { message: sentence, path: req.path } } }) },
    }),
    { dataFile: file() },
  );
  t.teardown(() => hooked.close());
  const own = await hooked.handle(request('POST', '/things/b/refund'));
  t.equal(own.status, 400, "the twin's own envelope and status");
  t.same(own.body, { error: { message: 'This twin does not simulate POST /things/{id}/refund. Refunds move no money here.', path: '/things/b/refund' } });
  t.equal(own.headers?.[FIDELITY_HEADER], 'unsupported');
  t.equal(own.headers?.['x-route'], '/things/{id}/refund', 'still through `around`');
});
