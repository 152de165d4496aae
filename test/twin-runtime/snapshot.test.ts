// A twin's snapshot file (twin-runtime/snapshot.ts) and the diff of two such files
// (control-plane/orchestration/diff.ts): the copy holds every committed record and the seeded id
// source, its clock stands at the instant given (a twin started from a clone of it reads that
// instant, and a living one runs on), whichever way it was copied (a full checkpoint and a clone,
// or the backup API while a reader holds the WAL); the diff names records added, changed (with
// field paths) and removed, counts tombstones as removed, leaves journal kinds out, and is bounded.

import t from 'tap';
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostError, TwinHost } from '../../twin-runtime/host.js';
import { RecordStore } from '../../twin-runtime/record-store.js';
import { DELIVERY_RESOURCE } from '../../twin-runtime/deliveries.js';
import type { TwinDefinition } from '../../twin-runtime/contract.js';
import { diffTwinFiles, fieldPaths } from '../../control-plane/orchestration/diff.js';

const dir = mkdtempSync(join(tmpdir(), 'twins-snapshot-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const twin: TwinDefinition = {
  slug: 'test',
  name: 'Test',
  description: 'test twin',
  version: '0.0.1',
  storageVersion: 3,
  defaultPort: 0,
  resources: ['thing'],
  suggestions: [],
  mintKey: () => 'key_1',
  routes: [],
  authenticate: () => undefined,
  errors: { render: () => undefined, routeMiss: () => ({ status: 404, body: {} }) },
};

const AT = new Date('2026-03-01T12:00:00.000Z');

t.test('a snapshot copies the records, the id source and the clock, by either path', async (t) => {
  for (const path of ['checkpoint', 'backup'] as const) {
    const dataFile = join(dir, `${path}.sqlite`);
    const host = new TwinHost(twin, { dataFile, clockStart: new Date('2026-01-01T00:00:00Z'), keepKey: true });
    host.store.put('thing', 'a', { id: 'a', n: 1 });
    host.ids.next('th_');
    // A reader in the middle of a read keeps the WAL from being checkpointed: the backup API copies then.
    const reader = path === 'backup' ? new Database(dataFile, { readonly: true }) : undefined;
    reader?.exec('BEGIN');
    reader?.prepare('SELECT count(*) FROM records').get();
    host.store.put('thing', 'b', { id: 'b', n: 2 });
    const out = await host.snapshot(`copy-${path}.sqlite`, AT);
    reader?.exec('COMMIT');
    reader?.close();
    t.equal(out.file, `copy-${path}.sqlite`);
    t.equal(out.clock, AT.toISOString());
    t.equal(out.storage_version, 3);
    t.ok(out.size_bytes > 0);
    const nextOfParent = host.ids.next('th_');
    await host.close();

    const clone = join(dir, `${path}-clone.sqlite`);
    copyFileSync(join(dir, out.file), clone);
    t.notOk(existsSync(join(dir, `${out.file}-wal`)), `${path}: nothing beside the snapshot file`);
    const started = new TwinHost(twin, { dataFile: clone, clock: 'living' });
    t.same(
      started.store.listRecords('thing').map((r) => r.body),
      [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ],
      `${path}: every committed record`,
    );
    t.equal(started.ids.next('th_'), nextOfParent, `${path}: the seeded id source continues where the parent's stood`);
    const drift = started.clock.nowMs() - AT.getTime();
    t.ok(drift >= 0 && drift < 10_000, `${path}: a living clock runs on from the snapshot's instant (${drift} ms)`);
    t.equal(started.store.getMeta('standalone_api_key'), undefined, `${path}: a kept key stays with its twin`);
    await started.close();
  }
});

t.test('a snapshot name is a plain file name', async (t) => {
  const host = new TwinHost(twin, { dataFile: join(dir, 'names.sqlite') });
  for (const bad of ['../up.sqlite', 'a/b.sqlite', 'x.txt', '.hidden.sqlite', '']) {
    t.throws(() => host.snapshot(bad), new HostError(400, '`file` must be a plain file name ending in .sqlite.'), JSON.stringify(bad));
  }
  await host.close();
});

t.test('a diff names what was added, changed and removed', async (t) => {
  const before = new RecordStore(join(dir, 'before.sqlite'));
  const after = new RecordStore(join(dir, 'after.sqlite'));
  for (const s of [before, after]) {
    s.put('customer', 'kept', { id: 'kept', name: 'K' });
    s.put('customer', 'renamed', { id: 'renamed', name: 'Old', address: { city: 'Lisbon', line1: 'x' }, tags: ['a'] });
    s.put('customer', 'gone', { id: 'gone' });
    s.put('customer', 'tombstoned', { id: 'tombstoned', name: 'T' });
    s.put('customer', 'dead', { id: 'dead', deleted: true });
  }
  after.put('customer', 'renamed', { id: 'renamed', name: 'New', address: { city: 'Porto', line1: 'x' }, tags: ['a', 'b'] });
  after.delete('customer', 'gone');
  after.put('customer', 'tombstoned', { id: 'tombstoned', object: 'customer', deleted: true });
  after.put('customer', 'new', { id: 'new' });
  after.put('customer', 'born-dead', { id: 'born-dead', deleted: true });
  after.put('event', 'evt_1', { id: 'evt_1' });
  after.put(DELIVERY_RESOURCE, 'dlv_1', { id: 'dlv_1' });
  before.close();
  after.close();

  const d = diffTwinFiles('tw', join(dir, 'before.sqlite'), join(dir, 'after.sqlite'), { journal: ['event'] });
  t.same(d, {
    twin_id: 'tw',
    added: [{ resource: 'customer', external_id: 'new' }],
    changed: [{ resource: 'customer', external_id: 'renamed', fields: ['name', 'address.city', 'tags.1'] }],
    removed: [
      { resource: 'customer', external_id: 'gone' },
      { resource: 'customer', external_id: 'tombstoned' },
    ],
    truncated: false,
  });
  const withJournal = diffTwinFiles('tw', join(dir, 'before.sqlite'), join(dir, 'after.sqlite'));
  t.ok(
    withJournal.added.some((r) => r.resource === 'event'),
    'without a journal, events are records like any',
  );
  t.notOk(
    withJournal.added.some((r) => r.resource === DELIVERY_RESOURCE),
    'deliveries are never listed',
  );
  const bounded = diffTwinFiles('tw', join(dir, 'before.sqlite'), join(dir, 'after.sqlite'), { journal: ['event'], limit: 2 });
  t.equal(bounded.added.length + bounded.changed.length + bounded.removed.length, 2);
  t.equal(bounded.truncated, true);
  const onlyBefore = diffTwinFiles('tw', join(dir, 'before.sqlite'), undefined);
  t.same(
    onlyBefore.removed.map((r) => r.external_id),
    ['kept', 'renamed', 'gone', 'tombstoned'],
    'a twin on the earlier side only: every live record removed',
  );
  t.same(fieldPaths('{"a":1}', '[1]'), [''], 'a body that changed type is changed as a whole');
});
