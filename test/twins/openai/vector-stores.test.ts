// Vector stores through the official `openai` SDK: a store from uploaded files, attributes and
// filters, search ranked by the query's words, file content in chunks, file batches, a binary file
// that fails, update and delete.

import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('openai');
t.teardown(() => twin.close());
const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });

async function upload(name: string, content: string | Buffer) {
  return client.files.create({ file: await toFile(Buffer.from(content), name), purpose: 'assistants' });
}

t.test('search ranks chunks by the query, filtered by attributes', async (t) => {
  const refunds = await upload('refunds.md', 'Refunds are issued within 14 days of a return. Keep the receipt for every refund.');
  const shipping = await upload('shipping.md', 'Shipping takes 3 to 5 business days. Express shipping arrives the next day.');
  const store = await client.vectorStores.create({ name: 'Support', file_ids: [refunds.id], metadata: { team: 'care' } });
  t.match(store, { object: 'vector_store', name: 'Support', status: 'completed', file_counts: { completed: 1, total: 1 }, metadata: { team: 'care' } });
  t.match(store.id, /^vs_/);
  const attached = await client.vectorStores.files.create(store.id, { file_id: shipping.id, attributes: { region: 'eu', priority: 2 } });
  t.match(attached, { object: 'vector_store.file', status: 'completed', vector_store_id: store.id, attributes: { region: 'eu', priority: 2 } });
  t.equal((await client.vectorStores.retrieve(store.id)).usage_bytes, refunds.bytes + shipping.bytes);

  const hits = await client.vectorStores.search(store.id, { query: 'how many days does express shipping take' });
  t.ok(hits.data.length > 0, 'the search finds chunks');
  t.equal(hits.data[0]!.filename, 'shipping.md', 'the chunk with most of the query words ranks first');
  t.ok(
    hits.data.every((h, i) => i === 0 || h.score <= hits.data[i - 1]!.score),
    'ranked by score',
  );
  const filtered = await client.vectorStores.search(store.id, { query: 'days', filters: { type: 'eq', key: 'region', value: 'us' } });
  t.same(filtered.data, [], 'no file has region us');
  const either = await client.vectorStores.search(store.id, {
    query: 'days',
    filters: {
      type: 'or',
      filters: [
        { type: 'gte', key: 'priority', value: 2 },
        { type: 'eq', key: 'region', value: 'us' },
      ],
    },
  });
  t.same(
    either.data.map((h) => h.filename),
    ['shipping.md'],
  );

  const content = await client.vectorStores.files.content(shipping.id, { vector_store_id: store.id });
  t.match(content.data[0], { type: 'text', text: /Express shipping/ });

  const updated = await client.vectorStores.files.update(shipping.id, { vector_store_id: store.id, attributes: { region: 'us' } });
  t.same(updated.attributes, { region: 'us' });
  t.same(
    (await client.vectorStores.search(store.id, { query: 'days', filters: { type: 'eq', key: 'region', value: 'us' } })).data.map((h) => h.filename),
    ['shipping.md'],
  );
  const listed = await client.vectorStores.files.list(store.id);
  t.same(listed.data.map((f) => f.id).sort(), [refunds.id, shipping.id].sort());
  t.same(await client.vectorStores.files.delete(refunds.id, { vector_store_id: store.id }), {
    id: refunds.id,
    object: 'vector_store.file.deleted',
    deleted: true,
  });
  t.equal((await client.vectorStores.retrieve(store.id)).file_counts.total, 1);
});

t.test('file batches, a binary file that fails, update and delete', async (t) => {
  const store = await client.vectorStores.create({ name: 'Batch' });
  const a = await upload('a.txt', 'alpha beta gamma');
  const bin = await upload('b.bin', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80]));
  const batch = await client.vectorStores.fileBatches.create(store.id, { file_ids: [a.id, bin.id] });
  t.match(batch, { object: 'vector_store.files_batch', status: 'completed', file_counts: { completed: 1, failed: 1, total: 2 } });
  t.same(await client.vectorStores.fileBatches.retrieve(batch.id, { vector_store_id: store.id }), batch);
  const failed = await client.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: store.id, filter: 'failed' });
  t.same(
    failed.data.map((f) => [f.id, f.last_error?.code]),
    [[bin.id, 'unsupported_file']],
  );
  const cancel = await client.vectorStores.fileBatches.cancel(batch.id, { vector_store_id: store.id }).catch((e: unknown) => e);
  t.ok(cancel instanceof OpenAI.BadRequestError, 'a completed batch cannot be cancelled');

  const renamed = await client.vectorStores.update(store.id, { name: 'Renamed', expires_after: { anchor: 'last_active_at', days: 7 } });
  t.equal(renamed.name, 'Renamed');
  t.equal(renamed.expires_at! - renamed.last_active_at!, 7 * 86_400);
  t.ok((await client.vectorStores.list()).data.some((s) => s.id === store.id));
  t.same(await client.vectorStores.delete(store.id), { id: store.id, object: 'vector_store.deleted', deleted: true });
  const gone = await client.vectorStores.retrieve(store.id).catch((e: unknown) => e);
  t.ok(gone instanceof OpenAI.NotFoundError);
  const missingFile = await client.vectorStores.create({ file_ids: ['file-missing'] }).catch((e: unknown) => e);
  t.ok(missingFile instanceof OpenAI.NotFoundError, 'an unknown file id is a 404');
});
