// The environment clock (decisions §8, §15): a living clock runs with wall time from its start and
// every advance, resumes after a restart at the instant it would have reached, goes back to its
// start on reset; a frozen one moves only on advance. The host hands the environment's fidelity to
// handlers and runs what a living clock passes on its lifecycle tick. Wall time is injected (the
// clock's only source of it), so nothing here waits.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordStore } from '../../twin-runtime/record-store.js';
import { EnvironmentClock } from '../../twin-runtime/clock.js';
import { TwinHost } from '../../twin-runtime/host.js';
import type { TwinDefinition, TwinRequest } from '../../twin-runtime/contract.js';

const dir = mkdtempSync(join(tmpdir(), 'twin-clock-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = () => join(dir, `c${files++}.sqlite`);

const START = Date.parse('2026-01-01T00:00:00Z');
/** A wall clock the test moves. */
function wallAt(ms: number) {
  const w = { now: ms, read: () => w.now };
  return w;
}

t.test('a living clock runs with wall time, advances, resumes after a restart and resets to its start', async (t) => {
  const path = file();
  const wall = wallAt(1_000_000);
  let store = new RecordStore(path);
  let clock = new EnvironmentClock(store, new Date(START), 'living', wall.read);
  t.equal(clock.nowMs(), START, 'starts at its start');
  wall.now += 2_000;
  t.equal(clock.nowMs(), START + 2_000, 'two seconds later it reads two seconds later');
  t.equal(clock.nowSeconds(), START / 1000 + 2);

  clock.advanceTo(START + 1_000);
  t.equal(clock.nowMs(), START + 2_000, 'an earlier instant is ignored');
  clock.advanceTo(START + 86_400_000);
  t.equal(clock.nowMs(), START + 86_400_000, 'an advance moves it forward');
  wall.now += 500;
  t.equal(clock.nowMs(), START + 86_400_500, 'and it runs on from there');
  // An instant decided earlier (by the control plane, for every twin): it runs on from that wall time.
  clock.advanceTo(START + 2 * 86_400_000, wall.now - 300);
  t.equal(clock.nowMs(), START + 2 * 86_400_000 + 300, 'the instant holds at the wall time given');
  t.equal(clock.at(wall.now - 300), START + 2 * 86_400_000);

  // A restart: the file keeps the offset from wall time.
  store.close();
  wall.now += 60_000;
  store = new RecordStore(path);
  clock = new EnvironmentClock(store, new Date(0), 'living', wall.read);
  t.equal(clock.nowMs(), START + 2 * 86_400_000 + 60_300, 'resumes where it would have been had it never stopped');

  wall.now -= 10_000;
  t.equal(clock.nowMs(), START + 2 * 86_400_000 + 60_300, 'a wall clock stepped back never makes it run backwards');
  wall.now += 10_000;

  clock.resetTo(new Date(START), wall.now);
  t.equal(clock.nowMs(), START, 'reset: back to the start');
  wall.now += 1_000;
  t.equal(clock.nowMs(), START + 1_000, 'and running again');

  // Frozen from the same file: stops where it reads now, and moves only on advance.
  store.close();
  store = new RecordStore(path);
  clock = new EnvironmentClock(store, new Date(0), 'frozen', wall.read);
  wall.now += 5_000;
  t.equal(clock.nowMs(), START + 1_000, 'a living file started frozen stops where it stood');
  clock.advanceTo(START + 3_000);
  t.equal(clock.nowMs(), START + 3_000);
  store.close();
  store = new RecordStore(path);
  clock = new EnvironmentClock(store, new Date(0), 'living', wall.read);
  wall.now += 4_000;
  t.equal(clock.nowMs(), START + 7_000, 'a frozen file started living runs on from its instant');
  store.close();
});

t.test('a twin joining an environment starts where its clock stands, and resets to its start', async (t) => {
  const wall = wallAt(50_000);
  const joinedAt = START + 86_400_000;
  const living = new TwinHost(clockTwin(), {
    dataFile: file(),
    clockStart: new Date(START),
    clockNow: new Date(joinedAt),
    clockWall: new Date(wall.now - 250),
    clock: 'living',
    wall: wall.read,
  });
  t.teardown(() => living.close());
  t.equal(living.clock.nowMs(), joinedAt + 250, "at the environment's offset from wall time");
  t.equal(living.clockStart.getTime(), START);
  await living.reset(new Date(wall.now));
  t.equal(living.clock.nowMs(), START, 'reset: back to the environment’s start');
  const frozen = new TwinHost(clockTwin(), { dataFile: file(), clockStart: new Date(START), clockNow: new Date(joinedAt), clock: 'frozen', wall: wall.read });
  t.teardown(() => frozen.close());
  t.equal(frozen.clock.nowMs(), joinedAt, 'frozen: at the instant');
});

t.test('a frozen clock moves only on advance; reload follows what was committed', async (t) => {
  const wall = wallAt(5_000);
  const store = new RecordStore(file());
  t.teardown(() => store.close());
  const clock = new EnvironmentClock(store, new Date(START), 'frozen', wall.read);
  wall.now += 3_600_000;
  t.equal(clock.nowMs(), START, 'an hour of wall time changes nothing');
  t.equal(clock.offsetMs, undefined);
  store.db.exec('BEGIN');
  clock.advanceTo(START + 10_000);
  t.equal(clock.nowMs(), START + 10_000);
  store.db.exec('ROLLBACK');
  clock.reload();
  t.equal(clock.nowMs(), START, 'a rolled-back advance leaves the clock where the file has it');
});

/** A twin whose things carry their creation instant, and whose lifecycle marks due things done. */
function clockTwin(): TwinDefinition {
  return {
    slug: 'clocked',
    name: 'Clocked',
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
          const thing = { id: req.params.id, created: ctx.clock.nowMs(), due: ctx.clock.nowMs() + 5_000, done_at: null, fidelity: ctx.fidelity };
          ctx.store.put('thing', req.params.id!, thing);
          return { status: 200, body: thing };
        },
      },
    ],
    authenticate: () => undefined,
    errors: { render: () => undefined, routeMiss: () => ({ status: 404, body: {} }) },
    advance(ctx, to) {
      for (const r of ctx.store.listRecords('thing')) {
        const thing = r.body as { due: number; done_at: number | null };
        if (thing.done_at === null && thing.due <= to.getTime()) ctx.store.put('thing', r.external_id, { ...thing, done_at: ctx.clock.nowMs() });
      }
    },
    suggestions: [],
  };
}

const post = (id: string): TwinRequest => ({
  method: 'POST',
  path: `/things/${id}`,
  params: {},
  queryString: '',
  query: {},
  headers: {},
  rawBody: Buffer.alloc(0),
  body: {},
  bodyKind: 'none',
});

t.test('host: writes two seconds apart differ; due events run on the lifecycle tick; advance and reset keep every twin at one offset', async (t) => {
  const path = file();
  const wall = wallAt(10_000_000);
  let host = new TwinHost(clockTwin(), { dataFile: path, clockStart: new Date(START), clock: 'living', wall: wall.read });
  t.equal(host.ctx.fidelity, 'strict', 'strict unless the environment says otherwise');
  const first = (await host.handle(post('a'))).body as { created: number; fidelity: string };
  wall.now += 2_000;
  const second = (await host.handle(post('b'))).body as { created: number };
  t.equal(second.created - first.created, 2_000, 'two writes two seconds apart carry times two seconds apart');
  t.equal(first.fidelity, 'strict');
  t.match(host.health(), { clock_mode: 'living', clock: new Date(START + 2_000).toISOString(), wall: new Date(wall.now).toISOString() });

  wall.now += 4_000;
  await host.runDueEvents();
  const a = host.getRecord('thing', 'a') as { done_at: number | null };
  t.equal(a.done_at, START + 6_000, 'a due event ran without an advance, dated when it ran');
  t.equal((host.getRecord('thing', 'b') as { done_at: number | null }).done_at, null, 'one not yet due did not');
  t.equal(host.clock.nowMs(), START + 6_000, 'the tick does not move the clock');

  // An advance to an instant decided at an earlier wall time (as the control plane sends it).
  const answer = await host.advances.request({ to: new Date(START + 86_400_000).toISOString(), wall: new Date(wall.now - 100).toISOString(), wait_ms: 60_000 });
  t.equal(answer.status, 200);
  t.equal(host.clock.nowMs(), START + 86_400_100, 'it holds at the wall time given, and runs on from there');
  t.equal(host.health().clock, new Date(START + 86_400_100).toISOString());
  t.equal((host.getRecord('thing', 'b') as { done_at: number | null }).done_at !== null, true, 'what fell due on the way ran');
  const back = await host.advances.request({ to: new Date(START + 86_400_050).toISOString(), wall: new Date(wall.now).toISOString() });
  t.equal(back.status, 409, 'an earlier instant than the clock reads at that wall time is refused');
  const toNow = await host.advances.request({ wall: new Date(wall.now).toISOString(), wait_ms: 60_000 });
  t.equal(toNow.status, 200, '`to` omitted: max(now, clock)');

  // A restart resumes; a reset goes back to the start at the wall time given.
  await host.close();
  wall.now += 30_000;
  host = new TwinHost(clockTwin(), { dataFile: path, clockStart: new Date(0), clock: 'living', wall: wall.read, fidelity: 'lenient' });
  t.teardown(() => host.close());
  t.equal(host.clock.nowMs(), START + 86_430_100, 'after a restart the clock reads what it would have');
  t.equal(host.ctx.fidelity, 'lenient', 'the fidelity comes with every start');
  t.same(await host.reset(new Date(wall.now - 50)), { clock: new Date(START + 50).toISOString() });
  t.equal(host.clock.at(wall.now - 50), START, 'reset: the start, held at the wall time given');
  t.same(host.listRecords('thing'), [], 'and the records gone');
});

t.test('host: the lifecycle tick runs by itself on a living clock, never on a frozen one', async (t) => {
  const before = process.env.TWIN_LIFECYCLE_TICK_MS;
  process.env.TWIN_LIFECYCLE_TICK_MS = '10';
  t.teardown(() => {
    if (before === undefined) delete process.env.TWIN_LIFECYCLE_TICK_MS;
    else process.env.TWIN_LIFECYCLE_TICK_MS = before;
  });
  const wall = wallAt(10_000_000);
  const living = new TwinHost(clockTwin(), { dataFile: file(), clockStart: new Date(START), clock: 'living', wall: wall.read });
  const frozen = new TwinHost(clockTwin(), { dataFile: file(), clockStart: new Date(START), clock: 'frozen', wall: wall.read });
  t.teardown(() => Promise.all([living.close(), frozen.close()]));
  await living.handle(post('a'));
  await frozen.handle(post('a'));
  wall.now += 6_000;
  const deadline = Date.now() + 10_000;
  while ((living.getRecord('thing', 'a') as { done_at: number | null }).done_at === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  t.equal((living.getRecord('thing', 'a') as { done_at: number | null }).done_at, START + 6_000, 'the living twin ran it');
  await new Promise((r) => setTimeout(r, 50));
  t.equal((frozen.getRecord('thing', 'a') as { done_at: number | null }).done_at, null, 'the frozen twin waits for an advance');
});
