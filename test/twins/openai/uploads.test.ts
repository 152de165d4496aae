// Uploads through the official `openai` SDK: create, add parts, complete into a File whose content
// is the parts in the order given, the byte count and md5 checked, cancel, expiry on the clock.

import { createHash } from 'node:crypto';
import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('openai', { clockStart: new Date('2026-03-01T00:00:00Z'), clock: 'frozen' });
t.teardown(() => twin.close());
const client = new OpenAI({ apiKey: twin.apiKey, baseURL: `${twin.url}/v1`, maxRetries: 0 });

t.test('parts complete into a file in the order given', async (t) => {
  const text = 'first part|second part';
  const upload = await client.uploads.create({ bytes: Buffer.byteLength(text), filename: 'data.jsonl', mime_type: 'application/jsonl', purpose: 'batch' });
  t.match(upload, { object: 'upload', status: 'pending', filename: 'data.jsonl', purpose: 'batch', file: null });
  t.equal(upload.expires_at - upload.created_at, 3600);
  const second = await client.uploads.parts.create(upload.id, { data: await toFile(Buffer.from('second part'), 'p2') });
  const first = await client.uploads.parts.create(upload.id, { data: await toFile(Buffer.from('first part|'), 'p1') });
  t.match(first, { object: 'upload.part', upload_id: upload.id });
  const done = await client.uploads.complete(upload.id, { part_ids: [first.id, second.id], md5: createHash('md5').update(text).digest('hex') });
  t.equal(done.status, 'completed');
  t.match(done.file, { object: 'file', filename: 'data.jsonl', purpose: 'batch', bytes: text.length });
  const content = await (await client.files.content(done.file!.id)).text();
  t.equal(content, text, 'the file holds the parts in part_ids order');
  const again = await client.uploads.complete(upload.id, { part_ids: [first.id] }).catch((e: unknown) => e);
  t.ok(again instanceof OpenAI.BadRequestError, 'a completed upload takes no more requests');
});

t.test('byte count, md5 and foreign parts are checked', async (t) => {
  const upload = await client.uploads.create({ bytes: 10, filename: 'a.txt', mime_type: 'text/plain', purpose: 'user_data' });
  const part = await client.uploads.parts.create(upload.id, { data: await toFile(Buffer.from('short'), 'p') });
  const short = await client.uploads.complete(upload.id, { part_ids: [part.id] }).catch((e: unknown) => e);
  t.match((short as Error).message, /hold 5 bytes, but the upload was created for 10/);
  const other = await client.uploads.create({ bytes: 5, filename: 'b.txt', mime_type: 'text/plain', purpose: 'user_data' });
  const foreign = await client.uploads.complete(other.id, { part_ids: [part.id] }).catch((e: unknown) => e);
  t.match((foreign as Error).message, /is not a part of upload/);
  const twice = await client.uploads.complete(upload.id, { part_ids: [part.id, part.id] }).catch((e: unknown) => e);
  t.ok(twice instanceof OpenAI.BadRequestError, 'a part listed twice is refused');
  const cancelled = await client.uploads.cancel(upload.id);
  t.equal(cancelled.status, 'cancelled');
  const late = await client.uploads.parts.create(upload.id, { data: await toFile(Buffer.from('x'), 'p') }).catch((e: unknown) => e);
  t.ok(late instanceof OpenAI.BadRequestError, 'a cancelled upload takes no parts');
});

t.test('a pending upload expires after its hour', async (t) => {
  const upload = await client.uploads.create({ bytes: 1, filename: 'c.txt', mime_type: 'text/plain', purpose: 'user_data' });
  await twin.advance(new Date(Date.parse('2026-03-01T00:00:00Z') + 3601_000));
  const late = await client.uploads.parts.create(upload.id, { data: await toFile(Buffer.from('x'), 'p') }).catch((e: unknown) => e);
  t.match((late as Error).message, /is expired/);
  const missing = await client.uploads.cancel('upload_missing').catch((e: unknown) => e);
  t.ok(missing instanceof OpenAI.NotFoundError);
});
