// The record store's read cache (withReadCache, what a twin's advance runs under): every get hands
// out its own copy, a query sees every write made before it, a rolled-back step leaves nothing
// cached behind, and counters drawn in memory are written when the cache closes, never given twice.

import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordStore, copyJson } from '../../twin-runtime/record-store.js';

const dir = mkdtempSync(join(tmpdir(), 'record-cache-'));
const store = new RecordStore(join(dir, 'r.sqlite'));
t.teardown(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Sub {
  id: string;
  status: string;
  items: { price: string; quantity: number }[];
}

t.test('copyJson gives what JSON.parse of the text gives', async (t) => {
  const value = { a: 1, b: [1, { c: 'x', d: null }], e: { f: true, g: [] } };
  const copy = copyJson(value);
  t.same(copy, JSON.parse(JSON.stringify(value)));
  t.not(copy.b, value.b, 'arrays are new');
  t.not(copy.e, value.e, 'objects are new');
});

t.test('a get under the cache hands out its own copy, as a read from the file would', async (t) => {
  store.put('subscription', 'sub_1', { id: 'sub_1', status: 'active', items: [{ price: 'p1', quantity: 1 }] });
  store.withReadCache(() => {
    const first = store.get<Sub>('subscription', 'sub_1')!;
    first.items[0]!.quantity = 99;
    first.status = 'mutated, never saved';
    const second = store.get<Sub>('subscription', 'sub_1')!;
    t.equal(second.status, 'active', 'an unsaved change is not seen by the next reader');
    t.equal(second.items[0]!.quantity, 1);
    second.items[0]!.quantity = 7;
    const third = store.get<Sub>('subscription', 'sub_1')!;
    t.equal(third.items[0]!.quantity, 1, 'nor a change to a copy served from the cache');
    store.put('subscription', 'sub_1', { ...third, status: 'past_due' });
    t.equal(store.get<Sub>('subscription', 'sub_1')!.status, 'past_due', 'a write is read back');
  });
  t.equal(store.get<Sub>('subscription', 'sub_1')!.status, 'past_due', 'and is in the file');
  t.equal(store.get('subscription', 'missing'), undefined);
});

t.test('queries under the cache see every write made before them', async (t) => {
  store.put('invoice', 'in_1', { id: 'in_1', status: 'draft' });
  store.withReadCache(() => {
    t.same(
      store.withStatus<{ id: string }>('invoice', ['draft', 'open']).map((i) => i.id),
      ['in_1'],
    );
    t.same(store.withStatus('quote', ['draft', 'open']), [], 'no quotes');
    store.put('invoice', 'in_2', { id: 'in_2', status: 'open' });
    t.same(
      store.withStatus<{ id: string }>('invoice', ['draft', 'open']).map((i) => i.id),
      ['in_1', 'in_2'],
      'a new record is found, in insertion order',
    );
    store.put('invoice', 'in_1', { id: 'in_1', status: 'paid' });
    t.same(
      store.withStatus<{ id: string }>('invoice', ['draft', 'open']).map((i) => i.id),
      ['in_2'],
      'a record that left the statuses is gone',
    );
    t.same(
      store.list<{ id: string }>('invoice').map((i) => i.id),
      ['in_1', 'in_2'],
    );
    store.delete('invoice', 'in_2');
    t.same(
      store.list<{ id: string }>('invoice').map((i) => i.id),
      ['in_1'],
      'a delete is seen by the next list',
    );
    t.equal(store.get('invoice', 'in_2'), undefined, 'and by the next get');
    const page = store.page<{ id: string }>({ resource: 'invoice', order: 'seq', descending: false, limit: 10 });
    store.put('invoice', 'in_3', { id: 'in_3', status: 'draft' });
    const again = store.page<{ id: string }>({ resource: 'invoice', order: 'seq', descending: false, limit: 10 });
    t.same(
      page.items.map((i) => i.body.id),
      ['in_1'],
    );
    t.same(
      again.items.map((i) => i.body.id),
      ['in_1', 'in_3'],
      'a page after a write reads it',
    );
  });
});

t.test('a rolled-back step leaves nothing it wrote in the cache', async (t) => {
  store.put('charge', 'ch_1', { id: 'ch_1', status: 'pending' });
  store.withReadCache(() => {
    t.equal(store.get<{ status: string }>('charge', 'ch_1')!.status, 'pending');
    t.same(store.withStatus('charge', ['succeeded']), []);
    t.throws(() =>
      store.transaction(() => {
        store.put('charge', 'ch_1', { id: 'ch_1', status: 'succeeded' });
        store.put('charge', 'ch_2', { id: 'ch_2', status: 'succeeded' });
        t.equal(store.withStatus('charge', ['succeeded']).length, 2, 'seen inside the step');
        throw new Error('the step fails');
      }),
    );
    t.equal(store.get<{ status: string }>('charge', 'ch_1')!.status, 'pending', 'the record as the file holds it again');
    t.equal(store.get('charge', 'ch_2'), undefined, 'a record the step made is gone');
    t.same(store.withStatus('charge', ['succeeded']), [], 'and no query finds them');
  });
});

t.test('counters count in memory under the cache and are written when it closes', async (t) => {
  t.equal(store.incrementMeta('counter:ids'), 1);
  store.withReadCache(() => {
    t.equal(store.incrementMeta('counter:ids'), 2);
    t.throws(() =>
      store.transaction(() => {
        t.equal(store.incrementMeta('counter:ids'), 3);
        throw new Error('rolled back');
      }),
    );
    t.equal(store.incrementMeta('counter:ids'), 4, 'a number drawn by a rolled-back step is never given again');
    t.equal(store.getMeta('counter:ids'), '4', 'getMeta reads the counter');
    store.withReadCache(() => t.equal(store.incrementMeta('counter:ids'), 5, 'a nested call shares the counters'));
  });
  t.equal(store.getMeta('counter:ids'), '5', 'written when the outermost call ends');
  t.equal(store.incrementMeta('counter:ids'), 6, 'and counted on from there');
});
