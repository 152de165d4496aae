// Memory stores (beta) through @anthropic-ai/sdk's `beta.memoryStores`: a store, memories by path
// (prefix and depth listing, a path clash, a content_sha256 precondition), versions and redaction,
// archive (reads stay, writes are refused) and deletion.

import { createHash } from 'node:crypto';
import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('anthropic');
t.teardown(() => twin.close());
const client = new Anthropic({ apiKey: twin.apiKey, baseURL: twin.url, maxRetries: 0 });
const stores = client.beta.memoryStores;

t.test('memories, versions, archive', async (t) => {
  const store = await stores.create({ name: 'Customer A', description: 'What we know about customer A', metadata: { customer: 'a' } });
  t.match(store, { type: 'memory_store', name: 'Customer A', archived_at: null, metadata: { customer: 'a' } });
  t.match(store.id, /^memstore_01/);
  const ids = { store_id: store.id };

  const prefs = await stores.memories.create(store.id, { path: '/prefs/tone.md', content: 'Formal.' });
  t.match(prefs, { type: 'memory', path: '/prefs/tone.md', content_size_bytes: 7, content_sha256: createHash('sha256').update('Formal.').digest('hex') });
  await stores.memories.create(store.id, { path: '/prefs/lang.md', content: 'Norwegian.' });
  await stores.memories.create(store.id, { path: '/notes.md', content: 'Renewal in May.' });
  const clash = await stores.memories.create(store.id, { path: '/notes.md', content: 'x' }).catch((e: unknown) => e);
  t.equal((clash as InstanceType<typeof Anthropic.APIError>).status, 409, 'a path holds one memory');

  const all = await stores.memories.list(store.id);
  t.same(
    all.data.map((m) => m.path),
    ['/notes.md', '/prefs/lang.md', '/prefs/tone.md'],
  );
  const top = await stores.memories.list(store.id, { depth: 1 });
  t.same(
    top.data.map((m) => [m.type, m.path]),
    [
      ['memory', '/notes.md'],
      ['memory_prefix', '/prefs/'],
    ],
  );
  const full = await stores.memories.retrieve(prefs.id, { memory_store_id: ids.store_id, view: 'full' });
  t.equal(full.content, 'Formal.');
  t.equal((await stores.memories.retrieve(prefs.id, { memory_store_id: store.id })).content, null, 'basic view has no content');

  const stale = await stores.memories
    .update(prefs.id, { memory_store_id: store.id, content: 'Casual.', precondition: { type: 'content_sha256', content_sha256: 'f'.repeat(64) } })
    .catch((e: unknown) => e);
  t.equal((stale as InstanceType<typeof Anthropic.APIError>).status, 409, 'a stale precondition is refused');
  const updated = await stores.memories.update(prefs.id, {
    memory_store_id: store.id,
    content: 'Casual.',
    precondition: { type: 'content_sha256', content_sha256: prefs.content_sha256 },
  });
  t.not(updated.memory_version_id, prefs.memory_version_id);

  const versions = await stores.memoryVersions.list(store.id, { memory_id: prefs.id, view: 'full' });
  t.same(
    versions.data.map((v) => [v.operation, v.content]),
    [
      ['modified', 'Casual.'],
      ['created', 'Formal.'],
    ],
  );
  const redacted = await stores.memoryVersions.redact(prefs.memory_version_id, { memory_store_id: store.id });
  t.match(redacted, { content: null, path: null });
  t.ok(redacted.redacted_at);
  const current = await stores.memoryVersions.redact(updated.memory_version_id, { memory_store_id: store.id }).catch((e: unknown) => e);
  t.ok(current instanceof Anthropic.BadRequestError, "the memory's current version is not redacted");

  t.same(await stores.memories.delete(prefs.id, { memory_store_id: store.id }), { id: prefs.id, type: 'memory_deleted' });
  const archived = await stores.archive(store.id);
  t.ok(archived.archived_at);
  const write = await stores.memories.create(store.id, { path: '/late.md', content: 'x' }).catch((e: unknown) => e);
  t.ok(write instanceof Anthropic.BadRequestError, 'an archived store takes no writes');
  t.equal((await stores.memories.list(store.id)).data.length, 2, 'its memories stay readable');
  t.notOk(
    (await stores.list()).data.some((s) => s.id === store.id),
    'archived stores are left out of the list',
  );
  t.ok((await stores.list({ include_archived: true })).data.some((s) => s.id === store.id));
  t.same(await stores.delete(store.id), { id: store.id, type: 'memory_store_deleted' });
});

t.test('update and refusals', async (t) => {
  const store = await stores.create({ name: 'B', metadata: { a: '1', b: '2' } });
  const updated = await stores.update(store.id, { name: 'B2', metadata: { a: null, c: '3' } });
  t.match(updated, { name: 'B2', metadata: { b: '2', c: '3' } });
  t.notOk('a' in updated.metadata, 'a key set to null is removed');
  const badPath = await stores.memories.create(store.id, { path: 'no-slash.md', content: 'x' }).catch((e: unknown) => e);
  t.ok(badPath instanceof Anthropic.BadRequestError);
  const extra = await stores.create({ name: 'C', colour: 'blue' } as Anthropic.Beta.MemoryStores.MemoryStoreCreateParams).catch((e: unknown) => e);
  t.match((extra as Error).message, /colour: Extra inputs are not permitted/);
});
