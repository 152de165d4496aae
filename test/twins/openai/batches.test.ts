// Batches through the official SDK: a JSONL file of chat requests becomes a batch whose status
// moves on the environment clock (validating → in_progress → completed), its output file holding
// the same answers the endpoint gives directly; a scripted error lands in the error file.

import t from 'tap';
import OpenAI, { toFile } from 'openai';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';

const start = new Date('2026-03-02T09:00:00Z');
const gw = await startTwinBehindGateway('openai', { clockStart: start });
t.teardown(() => gw.close());
const client = new OpenAI({ apiKey: gw.apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });

t.test('a batch completes on advance with the endpoint answers', async (t) => {
  await fetch(`${gw.url}/v1/twin/scripted_responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ match: { contains: 'explode' }, response: { error: { status: 500 } } }),
  });
  const ask = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content }] });
  const lines = [
    { custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: ask('Translate hello to French') },
    { custom_id: 'b', method: 'POST', url: '/v1/chat/completions', body: ask('Name three rivers') },
    { custom_id: 'c', method: 'POST', url: '/v1/chat/completions', body: ask('explode please') },
  ];
  const input = await client.files.create({ file: await toFile(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')), 'batch.jsonl'), purpose: 'batch' });
  const batch = await client.batches.create({
    input_file_id: input.id,
    endpoint: '/v1/chat/completions',
    completion_window: '24h',
    metadata: { job: 'nightly' },
  });
  t.equal(batch.status, 'validating');
  t.equal(batch.request_counts!.total, 3);

  await gw.twin.advance(new Date(start.getTime() + 10_000));
  t.equal((await client.batches.retrieve(batch.id)).status, 'in_progress');
  await gw.twin.advance(new Date(start.getTime() + 120_000));
  const done = await client.batches.retrieve(batch.id);
  t.equal(done.status, 'completed');
  t.same(done.request_counts, { total: 3, completed: 2, failed: 1 });
  t.equal(done.completed_at, Math.floor(start.getTime() / 1000) + 60, 'completed at its own instant on the clock');

  const output = (await (await client.files.content(done.output_file_id!)).text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(
    output.map((o) => o.custom_id),
    ['a', 'b'],
  );
  const direct = await client.chat.completions.create(ask('Translate hello to French'));
  t.equal(output[0].response.status_code, 200);
  t.equal(output[0].response.body.choices[0].message.content, direct.choices[0]!.message.content, 'the same answer as asked directly');
  const errors = (await (await client.files.content(done.error_file_id!)).text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.equal(errors.length, 1);
  t.equal(errors[0].custom_id, 'c');
  t.equal(errors[0].response.status_code, 500);

  const listed = await client.batches.list();
  t.same(
    listed.data.map((b) => b.id),
    [batch.id],
  );
});

t.test('batch refusals and cancel', async (t) => {
  const notBatch = await client.files.create({ file: await toFile(Buffer.from('# notes'), 'notes.md'), purpose: 'assistants' });
  const refused = await client.batches
    .create({ input_file_id: notBatch.id, endpoint: '/v1/chat/completions', completion_window: '24h' })
    .catch((e: unknown) => e);
  t.ok(refused instanceof OpenAI.BadRequestError);
  const line = JSON.stringify({ custom_id: 'x', method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: 'hi' } });
  const input = await client.files.create({ file: await toFile(Buffer.from(line), 'e.jsonl'), purpose: 'batch' });
  const b = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/embeddings', completion_window: '24h' });
  t.equal((await client.batches.cancel(b.id)).status, 'cancelling');
  await gw.twin.advance(new Date(start.getTime() + 600_000));
  t.equal((await client.batches.retrieve(b.id)).status, 'cancelled');
  const missing = await client.batches.retrieve('batch_nope').catch((e: unknown) => e);
  t.ok(missing instanceof OpenAI.NotFoundError);
});
