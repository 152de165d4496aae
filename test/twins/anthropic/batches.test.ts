// Message Batches through @anthropic-ai/sdk: created in progress, ended on the environment clock
// with every request answered as POST /v1/messages answers it, results read with the SDK's
// JSONL decoder; an errored request, cancel and delete.

import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import { startTwinBehindGateway } from '../../helpers/gateway-twin.js';

const start = new Date('2026-03-02T09:00:00Z');
const gw = await startTwinBehindGateway('anthropic', { clockStart: start });
t.teardown(() => gw.close());
const client = new Anthropic({ apiKey: gw.apiKey, baseURL: gw.url, maxRetries: 0 });
const params = (content: string) => ({ model: 'claude-haiku-4-5', max_tokens: 128, messages: [{ role: 'user' as const, content }] });

t.test('a batch ends on advance with the Messages answers', async (t) => {
  const batch = await client.messages.batches.create({
    requests: [
      { custom_id: 'first', params: params('Summarise the changelog') },
      { custom_id: 'second', params: params('Draft a reply to the customer') },
      { custom_id: 'broken', params: { ...params('x'), model: 'claude-0' } },
    ],
  });
  t.equal(batch.processing_status, 'in_progress');
  t.equal(batch.request_counts.processing, 3);
  t.match(batch.id, /^msgbatch_01/);
  const early = await client.messages.batches.results(batch.id).catch((e: unknown) => e);
  t.ok(early instanceof Error, 'no results before it ends');

  await gw.twin.advance(new Date(start.getTime() + 120_000));
  const ended = await client.messages.batches.retrieve(batch.id);
  t.equal(ended.processing_status, 'ended');
  t.same(ended.request_counts, { processing: 0, succeeded: 2, errored: 1, canceled: 0, expired: 0 });
  t.equal(ended.ended_at, new Date(start.getTime() + 60_000).toISOString());

  const results: Anthropic.Messages.MessageBatchIndividualResponse[] = [];
  for await (const r of await client.messages.batches.results(batch.id)) results.push(r);
  t.same(
    results.map((r) => [r.custom_id, r.result.type]),
    [
      ['first', 'succeeded'],
      ['second', 'succeeded'],
      ['broken', 'errored'],
    ],
  );
  const direct = await client.messages.create(params('Summarise the changelog'));
  const first = results[0]!.result as Anthropic.Messages.MessageBatchSucceededResult;
  t.same(first.message.content, direct.content, 'the same answer as asked directly');
  t.match((results[2]!.result as Anthropic.Messages.MessageBatchErroredResult).error, { type: 'error', error: { type: 'not_found_error' } });

  const listed = await client.messages.batches.list();
  t.same(
    listed.data.map((b) => b.id),
    [batch.id],
  );
  t.equal((await client.messages.batches.delete(batch.id)).type, 'message_batch_deleted');
});

t.test('cancel: the requests end canceled', async (t) => {
  const batch = await client.messages.batches.create({ requests: [{ custom_id: 'only', params: params('hello') }] });
  t.equal((await client.messages.batches.cancel(batch.id)).processing_status, 'canceling');
  const notYet = await client.messages.batches.delete(batch.id).catch((e: unknown) => e);
  t.ok(notYet instanceof Anthropic.BadRequestError, 'a batch still running cannot be deleted');
  await gw.twin.advance(new Date(start.getTime() + 130_000));
  const ended = await client.messages.batches.retrieve(batch.id);
  t.equal(ended.processing_status, 'ended');
  t.equal(ended.request_counts.canceled, 1);
  const missing = await client.messages.batches.retrieve('msgbatch_nope').catch((e: unknown) => e);
  t.ok(missing instanceof Anthropic.NotFoundError);
});
