// The Files API (beta) through @anthropic-ai/sdk's `beta.files`: upload, retrieve, list newest
// first with paging, the uploaded file refused for download, delete, and the errors.

import t from 'tap';
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import { startTwin } from '../../helpers/twin.js';

const twin = await startTwin('anthropic');
t.teardown(() => twin.close());
const client = new Anthropic({ apiKey: twin.apiKey, baseURL: twin.url, maxRetries: 0 });

t.test('upload, retrieve, list, download refused, delete', async (t) => {
  const uploaded = [];
  for (const name of ['a.txt', 'b.txt', 'c.csv']) {
    uploaded.push(await client.beta.files.upload({ file: await toFile(Buffer.from(`contents of ${name}`), name, { type: 'text/plain' }) }));
  }
  const first = uploaded[0]!;
  t.match(first, { type: 'file', filename: 'a.txt', mime_type: 'text/plain', size_bytes: 'contents of a.txt'.length, downloadable: false });
  t.match(first.id, /^file_011C/);
  t.ok(!Number.isNaN(Date.parse(first.created_at)), 'created_at is an RFC 3339 instant');
  t.same(await client.beta.files.retrieveMetadata(first.id), first);

  const page = await client.beta.files.list({ limit: 2 });
  t.same(
    page.data.map((f) => f.filename),
    ['c.csv', 'b.txt'],
    'newest first',
  );
  const all: string[] = [];
  for await (const f of client.beta.files.list({ limit: 2 })) all.push(f.filename);
  t.same(all, ['c.csv', 'b.txt', 'a.txt'], 'the SDK pages through with next_page');

  const download = await client.beta.files.download(first.id).catch((e: unknown) => e);
  t.ok(download instanceof Anthropic.BadRequestError, 'an uploaded file is not downloadable');

  t.same(await client.beta.files.delete(first.id), { id: first.id, type: 'file_deleted' });
  const gone = await client.beta.files.retrieveMetadata(first.id).catch((e: unknown) => e);
  t.ok(gone instanceof Anthropic.NotFoundError, 'a deleted file is not found');
});

t.test('expires_in_seconds sets expires_at; an unknown form field is refused', async (t) => {
  const file = await client.beta.files.upload({ file: await toFile(Buffer.from('x'), 'x.txt'), expires_in_seconds: 3600 });
  t.equal(Date.parse(file.expires_at!) - Date.parse(file.created_at), 3_600_000);
  const bad = await client.beta.files
    .upload({ file: await toFile(Buffer.from('x'), 'x.txt'), purpose: 'batch' } as unknown as Anthropic.Beta.FileUploadParams)
    .catch((e: unknown) => e);
  t.ok(bad instanceof Anthropic.BadRequestError);
  t.match((bad as Error).message, /purpose: Extra inputs are not permitted/);
  const empty = await client.beta.files.upload({ file: await toFile(Buffer.alloc(0), 'empty.txt') }).catch((e: unknown) => e);
  t.ok(empty instanceof Anthropic.BadRequestError, 'an empty file is refused');
});
