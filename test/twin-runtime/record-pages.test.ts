// The record store's keyset pages: equalities, `oneOf` / `noneOf` (a missing field is none of the
// values), ranges, and cursors in `created` order.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RecordStore } from '../../twin-runtime/record-store.js';

const dir = mkdtempSync(join(tmpdir(), 'record-pages-'));
const store = new RecordStore(join(dir, 'r.sqlite'));
t.teardown(() => {
  store.db.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = [
  { id: 'a', created: 10, status: 'active', customer: 'c1' },
  { id: 'b', created: 20, status: 'canceled', customer: 'c1' },
  { id: 'c', created: 20, customer: 'c2' },
  { id: 'd', created: 30, status: 'past_due', customer: 'c1' },
];
for (const r of rows) store.put('sub', r.id, r);
const page = (q: Partial<Parameters<RecordStore['page']>[0]>) =>
  store.page<{ id: string }>({ resource: 'sub', order: 'created', descending: true, limit: 10, ...q }).items.map((r) => r.body.id);

t.same(page({}), ['d', 'c', 'b', 'a'], 'created descending, then insertion order descending');
t.same(page({ oneOf: { status: ['active', 'past_due'] } }), ['d', 'a']);
t.same(page({ noneOf: { status: ['canceled'] } }), ['d', 'c', 'a'], 'a record without the field is kept');
t.same(page({ oneOf: { status: [] } }), [], 'an empty oneOf admits nothing');
t.same(page({ noneOf: { status: [] } }), ['d', 'c', 'b', 'a'], 'an empty noneOf excludes nothing');
t.same(page({ equals: { customer: 'c1' }, noneOf: { status: ['canceled'] }, ranges: [{ field: 'created', op: '>', value: 10 }] }), ['d']);
t.throws(() => page({ oneOf: { 'status) OR (1': ['x'] } }), /not a field name/, 'field names are never SQL');
const first = store.page<{ id: string }>({ resource: 'sub', order: 'created', descending: true, limit: 2 });
t.equal(first.hasMore, true);
t.same(page({ after: first.items.at(-1) }), ['b', 'a'], 'the cursor continues after the last row');

t.test('savepoints keep their undo pages in memory, and a rolled-back savepoint restores the record', async (t) => {
  t.equal(store.db.pragma('temp_store', { simple: true }), 2, 'temp_store = MEMORY');
  store.transaction(() => {
    // Nested: better-sqlite3 runs the inner transaction as a savepoint.
    t.throws(() =>
      store.transaction(() => {
        store.put('sub', 'a', { id: 'a', created: 10, status: 'rewritten' });
        throw new Error('roll back');
      }),
    );
    t.equal(store.get<{ status: string }>('sub', 'a')?.status, 'active', 'the write inside the savepoint was undone');
  });
});

t.test('a file written before the body columns existed opens, is migrated, and answers the same', async (t) => {
  const file = join(dir, 'old-layout.sqlite');
  // The layout before `created` and `status` had columns of their own: indexes over the JSON.
  const old = new Database(file);
  old.exec(`
    CREATE TABLE records (seq INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, external_id TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (resource, external_id));
    CREATE INDEX records_by_resource ON records (resource, seq);
    CREATE INDEX records_by_created ON records (resource, ifnull(json_extract(body, '$.created'), 0), seq);
    CREATE INDEX records_by_status ON records (resource, json_extract(body, '$.status'), seq);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
  const insert = old.prepare('INSERT INTO records (resource, external_id, body) VALUES (?, ?, ?)');
  for (const r of rows) insert.run('sub', r.id, JSON.stringify(r));
  insert.run('sub', 'e', JSON.stringify({ id: 'e', status: { nested: true } }));
  old.close();

  // Reset to an old-layout seed: the columns are computed from the seed's bodies as they are copied.
  const reset = new RecordStore(join(dir, 'reset.sqlite'));
  t.teardown(() => reset.db.close());
  reset.replaceWith(file);
  t.same(
    reset
      .page<{ id: string }>({ resource: 'sub', order: 'created', descending: true, limit: 10, oneOf: { status: ['active', 'past_due'] } })
      .items.map((r) => r.body.id),
    ['d', 'a'],
    'a reset from an old-layout seed fills the columns',
  );

  const migrated = new RecordStore(file);
  t.teardown(() => migrated.db.close());
  const columns = (migrated.db.prepare('PRAGMA table_info(records)').all() as { name: string }[]).map((c) => c.name);
  t.ok(columns.includes('created') && columns.includes('status'), 'the columns were added');
  const filled = migrated.db.prepare('SELECT external_id, created, status FROM records ORDER BY seq').all();
  t.same(
    filled,
    [
      { external_id: 'a', created: 10, status: 'active' },
      { external_id: 'b', created: 20, status: 'canceled' },
      { external_id: 'c', created: 20, status: null },
      { external_id: 'd', created: 30, status: 'past_due' },
      { external_id: 'e', created: 0, status: '{"nested":true}' },
    ],
    'backfilled with what json_extract gives',
  );
  const indexes = migrated.db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { name: string; sql: string }[];
  t.ok(indexes.length > 0);
  t.notOk(
    indexes.some((i) => i.sql.includes('json_extract')),
    'no index parses the JSON any more',
  );
  t.ok(
    indexes.some((i) => i.name === 'records_by_created'),
    'the created index was recreated on the column',
  );

  const pageOf = (q: Partial<Parameters<RecordStore['page']>[0]>) =>
    migrated.page<{ id: string }>({ resource: 'sub', order: 'created', descending: true, limit: 10, ...q }).items.map((r) => r.body.id);
  t.same(pageOf({}), ['d', 'c', 'b', 'a', 'e']);
  t.same(pageOf({ oneOf: { status: ['active', 'past_due'] } }), ['d', 'a'], 'status filters read the backfilled column');
  t.same(pageOf({ noneOf: { status: ['canceled'] } }), ['d', 'c', 'a', 'e']);
  migrated.put('sub', 'b', { id: 'b', created: 40, status: 'active' });
  t.same(pageOf({ oneOf: { status: ['active'] } }), ['b', 'a'], 'a write after the migration keeps the columns current');

  migrated.db.close();
  const reopened = new RecordStore(file);
  t.teardown(() => reopened.db.close());
  t.equal(reopened.count('sub'), 5, 'opening a migrated file again changes nothing');
});

t.test('the columns hold exactly what json_extract gives for every kind of value', async (t) => {
  const values = [1, -7, 1.5, 1e21, true, false, 'x', '', null, { a: 1 }, [1, 'b'], undefined];
  for (const [i, v] of values.entries()) store.put('kinds', `k${i}`, { created: v, status: v });
  const rows = store.db
    .prepare(
      "SELECT created, ifnull(json_extract(body, '$.created'), 0) AS c, typeof(created) = typeof(ifnull(json_extract(body, '$.created'), 0)) AS same_c, status IS json_extract(body, '$.status') AS same_s, typeof(status) = typeof(json_extract(body, '$.status')) AS same_st FROM records WHERE resource = 'kinds' ORDER BY seq",
    )
    .all() as { created: unknown; c: unknown; same_c: number; same_s: number; same_st: number }[];
  t.equal(rows.length, values.length);
  for (const [i, r] of rows.entries()) {
    t.equal(r.same_c, 1, `created's type for ${JSON.stringify(values[i])}`);
    t.same(r.created, r.c, `created for ${JSON.stringify(values[i])}`);
    t.equal(r.same_s, 1, `status for ${JSON.stringify(values[i])}`);
    t.equal(r.same_st, 1, `status's type for ${JSON.stringify(values[i])}`);
  }
});
