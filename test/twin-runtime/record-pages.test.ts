// The record store's keyset pages: equalities, `oneOf` / `noneOf` (a missing field is none of the
// values), ranges, and cursors in `created` order.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
