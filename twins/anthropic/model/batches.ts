// Message Batches: up to 100,000 Messages requests answered together. `in_progress` when created;
// on the environment clock (`advance`) the batch ends 60 s later, every request answered exactly as
// POST /v1/messages answers it (same scripts, same deterministic answers), results as JSONL at
// `results_url`. A cancel makes it `canceling`; it ends at the next advance with the requests
// `canceled`. Ended batches can be deleted.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { AnthropicError, invalid } from '../wire/errors.js';

export const MESSAGE_BATCH = 'message_batch';
const END_AFTER_MS = 60_000;
const MAX_REQUESTS = 100_000;

export interface MessageBatch {
  id: string;
  type: 'message_batch';
  processing_status: 'in_progress' | 'canceling' | 'ended';
  request_counts: { processing: number; succeeded: number; errored: number; canceled: number; expired: number };
  ended_at: string | null;
  created_at: string;
  expires_at: string;
  archived_at: null;
  cancel_initiated_at: string | null;
  results_url: string | null;
}

interface StoredBatch {
  batch: MessageBatch;
  requests: { custom_id: string; params: unknown }[];
  results: unknown[];
}

/** Answers one request as POST /v1/messages would: the message, or Anthropic's error body. */
export type BatchRequestRunner = (params: unknown) => Promise<{ status: number; body: unknown }>;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function stored(ctx: TwinContext, id: string): StoredBatch {
  const s = ctx.store.get<StoredBatch>(MESSAGE_BATCH, id);
  if (!s) throw new AnthropicError(404, `message_batch: ${id} not found`, 'not_found_error');
  return s;
}

export function createBatch(ctx: TwinContext, requests: { custom_id: string; params: unknown }[]): MessageBatch {
  if (requests.length === 0) throw invalid('requests: List should have at least 1 item after validation, not 0');
  if (requests.length > MAX_REQUESTS) throw invalid(`requests: List should have at most ${MAX_REQUESTS} items after validation, not ${requests.length}`);
  const seen = new Set<string>();
  for (const r of requests) {
    if (seen.has(r.custom_id)) throw invalid(`requests: custom_id '${r.custom_id}' is not unique`);
    seen.add(r.custom_id);
  }
  const now = ctx.clock.nowMs();
  const batch: MessageBatch = {
    id: ctx.ids.nextIn('msgbatch', 'msgbatch_01', 22),
    type: 'message_batch',
    processing_status: 'in_progress',
    request_counts: { processing: requests.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    ended_at: null,
    created_at: iso(now),
    expires_at: iso(now + 86_400_000),
    archived_at: null,
    cancel_initiated_at: null,
    results_url: null,
  };
  ctx.store.put(MESSAGE_BATCH, batch.id, { batch, requests, results: [] } satisfies StoredBatch);
  return batch;
}

export function retrieveBatch(ctx: TwinContext, id: string): MessageBatch {
  return stored(ctx, id).batch;
}

export function listBatches(ctx: TwinContext): MessageBatch[] {
  return ctx.store
    .list<StoredBatch>(MESSAGE_BATCH)
    .map((s) => s.batch)
    .reverse();
}

export function cancelBatch(ctx: TwinContext, id: string): MessageBatch {
  const s = stored(ctx, id);
  if (s.batch.processing_status === 'in_progress') {
    s.batch.processing_status = 'canceling';
    s.batch.cancel_initiated_at = iso(ctx.clock.nowMs());
    ctx.store.put(MESSAGE_BATCH, id, s);
  }
  return s.batch;
}

export function deleteBatch(ctx: TwinContext, id: string) {
  const s = stored(ctx, id);
  if (s.batch.processing_status !== 'ended') throw invalid(`Batch ${id} cannot be deleted while it is ${s.batch.processing_status}; cancel it first.`);
  ctx.store.delete(MESSAGE_BATCH, id);
  return { id, type: 'message_batch_deleted' as const };
}

export function batchResults(ctx: TwinContext, id: string): string {
  const s = stored(ctx, id);
  if (s.batch.processing_status !== 'ended') throw invalid(`Batch ${id} has not ended; its results are not available yet.`);
  return s.results.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

async function end(ctx: TwinContext, s: StoredBatch, run: BatchRequestRunner): Promise<void> {
  const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  const results: unknown[] = [];
  for (const r of s.requests) {
    if (s.batch.processing_status === 'canceling') {
      counts.canceled++;
      results.push({ custom_id: r.custom_id, result: { type: 'canceled' } });
      continue;
    }
    const res = await run(r.params);
    if (res.status < 400) {
      counts.succeeded++;
      results.push({ custom_id: r.custom_id, result: { type: 'succeeded', message: res.body } });
    } else {
      counts.errored++;
      const { request_id: _omit, ...error } = res.body as Record<string, unknown>;
      results.push({ custom_id: r.custom_id, result: { type: 'errored', error } });
    }
  }
  s.results = results;
  s.batch.request_counts = counts;
  s.batch.processing_status = 'ended';
  s.batch.ended_at = iso(ctx.clock.nowMs());
  s.batch.results_url = `${ctx.baseUrl}/v1/messages/batches/${s.batch.id}/results`;
}

/** End every batch due by `to` (60 s after creation; a canceling one at once), earliest first. */
export async function advanceBatches(ctx: TwinContext, to: Date, run: BatchRequestRunner): Promise<void> {
  const due = ctx.store
    .list<StoredBatch>(MESSAGE_BATCH)
    .filter((s) => s.batch.processing_status !== 'ended')
    .map((s) => ({ s, at: s.batch.processing_status === 'canceling' ? ctx.clock.nowMs() : Date.parse(s.batch.created_at) + END_AFTER_MS }))
    .filter((x) => x.at <= to.getTime())
    .sort((a, b) => a.at - b.at);
  for (const { s, at } of due) {
    if (at > ctx.clock.nowMs()) ctx.clock.advanceTo(at);
    await end(ctx, s, run);
    ctx.store.put(MESSAGE_BATCH, s.batch.id, s);
  }
}
