// Batches: a JSONL file of requests (purpose `batch`) run against one endpoint. The lifecycle runs
// on the environment clock (`advance`): `validating` → `in_progress` 5 s after creation →
// `completed` 60 s after, when every line is answered exactly as the endpoint answers it (the
// same deterministic answers and scripts) into an output file, failures into an error file.
// A cancelled batch is `cancelling` until the next advance, then `cancelled`.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';
import { createFile, fileContent, retrieveFile } from './files.js';
import { InputRefusal, parseJson } from '../../../twin-runtime/safe-input.js';

export const BATCH = 'batch';
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/responses', '/v1/embeddings'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

const START_AFTER_S = 5;
const COMPLETE_AFTER_S = 60;
const MAX_LINES = 50_000;

export interface Batch {
  id: string;
  object: 'batch';
  endpoint: BatchEndpoint;
  errors: { object: 'list'; data: { code: string; message: string; line: number | null; param: string | null }[] } | null;
  input_file_id: string;
  completion_window: '24h';
  status: 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  in_progress_at: number | null;
  expires_at: number;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
}

/** Answers one batch line as the endpoint would (the twin's own route, in-process). */
export type BatchLineRunner = (endpoint: BatchEndpoint, body: unknown) => Promise<{ status: number; body: unknown; requestId: string }>;

interface BatchLine {
  custom_id: string;
  method: string;
  url: string;
  body: unknown;
}

export function isBatchEndpoint(v: string): v is BatchEndpoint {
  return (BATCH_ENDPOINTS as readonly string[]).includes(v);
}

function readLines(ctx: TwinContext, fileId: string, endpoint: BatchEndpoint): BatchLine[] {
  const text = fileContent(ctx, fileId).toString('utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length > MAX_LINES) throw invalidRequest(`A batch holds at most ${MAX_LINES} requests.`, 'input_file_id', null);
  return lines.map((line, i) => {
    let parsed: unknown;
    try {
      // Each line is request data like any body: the same key, depth and prototype rules.
      parsed = parseJson(line);
    } catch (e) {
      if (e instanceof InputRefusal) throw invalidRequest(`Line ${i + 1} of the input file: ${e.message}`, 'input_file_id', 'invalid_json_line');
      throw invalidRequest(`Line ${i + 1} of the input file is not valid JSON.`, 'input_file_id', 'invalid_json_line');
    }
    const p = parsed as Partial<BatchLine>;
    if (typeof p.custom_id !== 'string' || p.method !== 'POST' || p.url !== endpoint || typeof p.body !== 'object' || p.body === null) {
      throw invalidRequest(`Line ${i + 1}: each request needs a custom_id, method POST, url ${endpoint} and a body.`, 'input_file_id', 'invalid_request');
    }
    return { custom_id: p.custom_id, method: p.method, url: p.url, body: p.body };
  });
}

export function createBatch(ctx: TwinContext, input: { inputFileId: string; endpoint: BatchEndpoint; metadata?: Record<string, string> }): Batch {
  const file = retrieveFile(ctx, input.inputFileId);
  if (file.purpose !== 'batch')
    throw invalidRequest(`The file ${file.id} has purpose '${file.purpose}'; a batch needs a file with purpose 'batch'.`, 'input_file_id', 'invalid_value');
  const lines = readLines(ctx, file.id, input.endpoint);
  const ids = new Set<string>();
  for (const l of lines) {
    if (ids.has(l.custom_id))
      throw invalidRequest(`The custom_id '${l.custom_id}' appears twice; each request needs its own.`, 'input_file_id', 'duplicate_custom_id');
    ids.add(l.custom_id);
  }
  const now = ctx.clock.nowSeconds();
  const batch: Batch = {
    id: ctx.ids.nextIn('batch', 'batch_', 32),
    object: 'batch',
    endpoint: input.endpoint,
    errors: null,
    input_file_id: file.id,
    completion_window: '24h',
    status: 'validating',
    output_file_id: null,
    error_file_id: null,
    created_at: now,
    in_progress_at: null,
    expires_at: now + 86_400,
    finalizing_at: null,
    completed_at: null,
    failed_at: null,
    expired_at: null,
    cancelling_at: null,
    cancelled_at: null,
    request_counts: { total: lines.length, completed: 0, failed: 0 },
    metadata: input.metadata ?? null,
  };
  ctx.store.put(BATCH, batch.id, batch);
  return batch;
}

export function retrieveBatch(ctx: TwinContext, id: string): Batch {
  const b = ctx.store.get<Batch>(BATCH, id);
  if (!b) throw new OpenAIError(404, `No batch found with id '${id}'.`, 'invalid_request_error', null, null);
  return b;
}

export function listBatches(ctx: TwinContext): Batch[] {
  return ctx.store.list<Batch>(BATCH);
}

export function cancelBatch(ctx: TwinContext, id: string): Batch {
  const b = retrieveBatch(ctx, id);
  if (b.status !== 'validating' && b.status !== 'in_progress') {
    throw new OpenAIError(409, `Cannot cancel a batch with status '${b.status}'.`, 'invalid_request_error', null, null);
  }
  b.status = 'cancelling';
  b.cancelling_at = ctx.clock.nowSeconds();
  ctx.store.put(BATCH, b.id, b);
  return b;
}

async function complete(ctx: TwinContext, b: Batch, run: BatchLineRunner): Promise<void> {
  const out: string[] = [];
  const failed: string[] = [];
  for (const line of readLines(ctx, b.input_file_id, b.endpoint)) {
    const res = await run(b.endpoint, line.body);
    const entry = JSON.stringify({
      id: ctx.ids.nextIn('batch_req', 'batch_req_', 32),
      custom_id: line.custom_id,
      response: { status_code: res.status, request_id: res.requestId, body: res.body },
      error: null,
    });
    (res.status < 400 ? out : failed).push(entry);
  }
  b.finalizing_at = ctx.clock.nowSeconds();
  if (out.length > 0)
    b.output_file_id = createFile(ctx, { filename: `${b.id}_output.jsonl`, purpose: 'batch_output', content: Buffer.from(out.join('\n') + '\n') }).id;
  if (failed.length > 0)
    b.error_file_id = createFile(ctx, { filename: `${b.id}_error.jsonl`, purpose: 'batch_output', content: Buffer.from(failed.join('\n') + '\n') }).id;
  b.request_counts = { total: out.length + failed.length, completed: out.length, failed: failed.length };
  b.status = 'completed';
  b.completed_at = ctx.clock.nowSeconds();
}

/** Run every batch step due by `to`, earliest first, each at its own instant. */
export async function advanceBatches(ctx: TwinContext, to: Date, run: BatchLineRunner): Promise<void> {
  const limit = Math.floor(to.getTime() / 1000);
  type Step = { at: number; batch: Batch; step: 'start' | 'complete' | 'cancel' };
  const steps: Step[] = [];
  for (const b of listBatches(ctx)) {
    if (b.status === 'validating') steps.push({ at: b.created_at + START_AFTER_S, batch: b, step: 'start' });
    if (b.status === 'validating' || b.status === 'in_progress') steps.push({ at: b.created_at + COMPLETE_AFTER_S, batch: b, step: 'complete' });
    if (b.status === 'cancelling') steps.push({ at: Math.max(b.cancelling_at ?? b.created_at, ctx.clock.nowSeconds()), batch: b, step: 'cancel' });
  }
  steps.sort((a, b) => a.at - b.at || a.batch.created_at - b.batch.created_at);
  for (const s of steps) {
    if (s.at > limit) continue;
    if (s.at * 1000 > ctx.clock.nowMs()) ctx.clock.advanceTo(s.at * 1000);
    const b = ctx.store.get<Batch>(BATCH, s.batch.id)!;
    if (s.step === 'start' && b.status === 'validating') {
      b.status = 'in_progress';
      b.in_progress_at = s.at;
    } else if (s.step === 'complete' && (b.status === 'validating' || b.status === 'in_progress')) {
      b.in_progress_at ??= b.created_at + START_AFTER_S;
      await complete(ctx, b, run);
    } else if (s.step === 'cancel' && b.status === 'cancelling') {
      b.status = 'cancelled';
      b.cancelled_at = ctx.clock.nowSeconds();
    }
    ctx.store.put(BATCH, b.id, b);
  }
}
