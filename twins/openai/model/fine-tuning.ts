// Fine-tuning jobs on a schedule kept by the environment clock (moved by `advance` on a frozen one):
// `validating_files` when created, `queued` 10 s later, `running` at 30 s, `succeeded` at 300 s
// (plus any time spent paused) with a fine-tuned model `ft:<model>:org-twin:<suffix>:<id>` that
// chat completions and responses answer with, one checkpoint per epoch, a results file and events.
// A training file that is not JSONL chat examples fails the job at validation, as at OpenAI.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { MODELS, type ModelSpec } from '../spec/models.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';
import { createFile, FILE, fileContent, retrieveFile } from './files.js';

export const FINE_TUNING_JOB = 'fine_tuning_job';

const QUEUED_AFTER_S = 10;
const RUNNING_AFTER_S = 30;
const SUCCEEDED_AFTER_S = 300;
const MAX_EXAMPLES = 100_000;

type Status = 'validating_files' | 'queued' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled';

export interface Hyperparameters {
  batch_size: number | 'auto';
  learning_rate_multiplier: number | 'auto';
  n_epochs: number | 'auto';
}

export interface FineTuningJob {
  id: string;
  object: 'fine_tuning.job';
  created_at: number;
  error: { code: string; message: string; param: string | null } | null;
  fine_tuned_model: string | null;
  finished_at: number | null;
  hyperparameters: Hyperparameters;
  model: string;
  organization_id: string;
  result_files: string[];
  seed: number;
  status: Status;
  trained_tokens: number | null;
  training_file: string;
  validation_file: string | null;
  estimated_finish: number | null;
  integrations: [];
  metadata: Record<string, string> | null;
  method: { type: 'supervised'; supervised: { hyperparameters: Hyperparameters } };
  user_provided_suffix: string | null;
}

interface JobEvent {
  id: string;
  object: 'fine_tuning.job.event';
  created_at: number;
  level: 'info' | 'warn' | 'error';
  message: string;
  data: Record<string, unknown>;
  type: 'message' | 'metrics';
}

interface Checkpoint {
  id: string;
  object: 'fine_tuning.job.checkpoint';
  created_at: number;
  fine_tuned_model_checkpoint: string;
  fine_tuning_job_id: string;
  metrics: { step: number; train_loss: number; train_mean_token_accuracy: number };
  step_number: number;
}

interface StoredJob {
  job: FineTuningJob;
  events: JobEvent[];
  checkpoints: Checkpoint[];
  /** Seconds spent paused so far, and since when it is paused. */
  paused_for: number;
  paused_at?: number;
  /** Examples in the training file (known once validated). */
  examples: number;
  tokens: number;
  /** The fine-tuned model was deleted (DELETE /v1/models/{model}); the job stays. */
  model_deleted?: boolean;
}

function stored(ctx: TwinContext, id: string): StoredJob {
  const s = ctx.store.get<StoredJob>(FINE_TUNING_JOB, id);
  if (!s) throw new OpenAIError(404, `Could not find fine-tune job: ${id}`, 'invalid_request_error', 'fine_tune_id', 'fine_tune_not_found');
  return s;
}

function event(
  ctx: TwinContext,
  s: StoredJob,
  message: string,
  level: JobEvent['level'] = 'info',
  data: Record<string, unknown> = {},
  type: JobEvent['type'] = 'message',
) {
  s.events.push({
    id: ctx.ids.nextIn('ftevent', 'ftevent-', 24),
    object: 'fine_tuning.job.event',
    created_at: ctx.clock.nowSeconds(),
    level,
    message,
    data,
    type,
  });
}

/** The training file's chat examples and their tokens (a word count stand-in), or why they do not read. */
function readTraining(ctx: TwinContext, fileId: string): { examples: number; tokens: number } | string {
  const lines = fileContent(ctx, fileId)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  if (lines.length < 10) return `Training file has ${lines.length} example(s), but must have at least 10 examples`;
  if (lines.length > MAX_EXAMPLES) return `Training file has more than ${MAX_EXAMPLES} examples`;
  let tokens = 0;
  for (const [i, line] of lines.entries()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return `Invalid file format. Line ${i + 1}: not valid JSON`;
    }
    const messages = (parsed as { messages?: unknown }).messages;
    if (!Array.isArray(messages) || messages.length === 0) return `Invalid file format. Line ${i + 1}, key "messages": missing or empty`;
    tokens += JSON.stringify(messages).split(/\s+/).length;
  }
  return { examples: lines.length, tokens };
}

function resolved(h: Hyperparameters, examples: number): Hyperparameters {
  return {
    batch_size: h.batch_size === 'auto' ? Math.max(1, Math.min(32, Math.ceil(examples / 50))) : h.batch_size,
    learning_rate_multiplier: h.learning_rate_multiplier === 'auto' ? 1.8 : h.learning_rate_multiplier,
    n_epochs: h.n_epochs === 'auto' ? 3 : h.n_epochs,
  };
}

export function createFineTuningJob(
  ctx: TwinContext,
  input: {
    model: string;
    trainingFile: string;
    validationFile?: string;
    hyperparameters: Hyperparameters;
    suffix?: string;
    seed?: number;
    metadata?: Record<string, string>;
  },
): FineTuningJob {
  const base = MODELS.get(input.model);
  if (!base?.endpoints.includes('fine_tuning'))
    throw invalidRequest(`Model ${input.model} is not available for fine-tuning or does not exist.`, 'model', 'model_not_available');
  for (const [param, id] of [
    ['training_file', input.trainingFile],
    ['validation_file', input.validationFile],
  ] as const) {
    if (id === undefined) continue;
    const file = ctx.store.has(FILE, id) ? retrieveFile(ctx, id) : undefined;
    if (!file) throw invalidRequest(`invalid ${param}: ${id}`, param, 'invalid_value');
    if (file.purpose !== 'fine-tune')
      throw invalidRequest(`File ${id} has purpose '${file.purpose}'; fine-tuning takes files with purpose 'fine-tune'.`, param, 'invalid_value');
  }
  const now = ctx.clock.nowSeconds();
  const id = ctx.ids.nextIn('ftjob', 'ftjob-', 24);
  const job: FineTuningJob = {
    id,
    object: 'fine_tuning.job',
    created_at: now,
    error: null,
    fine_tuned_model: null,
    finished_at: null,
    hyperparameters: input.hyperparameters,
    model: base.snapshot,
    organization_id: 'org-twin',
    result_files: [],
    seed: input.seed ?? Number.parseInt(id.slice(-6), 36) % 2_147_483_647,
    status: 'validating_files',
    trained_tokens: null,
    training_file: input.trainingFile,
    validation_file: input.validationFile ?? null,
    estimated_finish: now + SUCCEEDED_AFTER_S,
    integrations: [],
    metadata: input.metadata ?? null,
    method: { type: 'supervised', supervised: { hyperparameters: input.hyperparameters } },
    user_provided_suffix: input.suffix ?? null,
  };
  const s: StoredJob = { job, events: [], checkpoints: [], paused_for: 0, examples: 0, tokens: 0 };
  event(ctx, s, `Created fine-tuning job: ${id}`);
  ctx.store.put(FINE_TUNING_JOB, id, s);
  return job;
}

export function listFineTuningJobs(ctx: TwinContext, metadata: Record<string, string>): FineTuningJob[] {
  return ctx.store
    .list<StoredJob>(FINE_TUNING_JOB)
    .map((s) => s.job)
    .filter((j) => Object.entries(metadata).every(([k, v]) => j.metadata?.[k] === v));
}

export function retrieveFineTuningJob(ctx: TwinContext, id: string): FineTuningJob {
  return stored(ctx, id).job;
}

const TERMINAL: readonly Status[] = ['succeeded', 'failed', 'cancelled'];

export function cancelFineTuningJob(ctx: TwinContext, id: string): FineTuningJob {
  const s = stored(ctx, id);
  if (TERMINAL.includes(s.job.status)) throw invalidRequest(`Job has already completed: ${id}`, null, null);
  s.job = { ...s.job, status: 'cancelled', finished_at: ctx.clock.nowSeconds(), estimated_finish: null };
  event(ctx, s, 'Fine-tuning job cancelled');
  ctx.store.put(FINE_TUNING_JOB, id, s);
  return s.job;
}

export function pauseFineTuningJob(ctx: TwinContext, id: string): FineTuningJob {
  const s = stored(ctx, id);
  if (s.job.status !== 'running') throw invalidRequest(`Only a running job can be paused; ${id} is ${s.job.status}.`, null, null);
  s.job = { ...s.job, status: 'paused' };
  s.paused_at = ctx.clock.nowSeconds();
  event(ctx, s, 'Fine-tuning job paused');
  ctx.store.put(FINE_TUNING_JOB, id, s);
  return s.job;
}

export function resumeFineTuningJob(ctx: TwinContext, id: string): FineTuningJob {
  const s = stored(ctx, id);
  if (s.job.status !== 'paused') throw invalidRequest(`Only a paused job can be resumed; ${id} is ${s.job.status}.`, null, null);
  s.paused_for += ctx.clock.nowSeconds() - (s.paused_at ?? ctx.clock.nowSeconds());
  delete s.paused_at;
  s.job = { ...s.job, status: 'running', estimated_finish: s.job.created_at + SUCCEEDED_AFTER_S + s.paused_for };
  event(ctx, s, 'Fine-tuning job resumed');
  ctx.store.put(FINE_TUNING_JOB, id, s);
  return s.job;
}

export function fineTuningEvents(ctx: TwinContext, id: string): JobEvent[] {
  return stored(ctx, id).events;
}

export function fineTuningCheckpoints(ctx: TwinContext, id: string): Checkpoint[] {
  return stored(ctx, id).checkpoints;
}

function succeed(ctx: TwinContext, s: StoredJob): void {
  const j = s.job;
  const h = j.hyperparameters as { batch_size: number; n_epochs: number; learning_rate_multiplier: number };
  const stepsPerEpoch = Math.max(1, Math.ceil(s.examples / h.batch_size));
  const name = `ft:${j.model}:org-twin:${j.user_provided_suffix ? `${j.user_provided_suffix}:` : ''}${j.id.slice(-8)}`;
  for (let epoch = 1; epoch <= h.n_epochs; epoch++) {
    const step = epoch * stepsPerEpoch;
    const loss = Number((1.5 / (epoch + 1)).toFixed(4));
    s.checkpoints.push({
      id: ctx.ids.nextIn('ftckpt', 'ftckpt_', 24),
      object: 'fine_tuning.job.checkpoint',
      created_at: ctx.clock.nowSeconds(),
      fine_tuned_model_checkpoint: epoch === h.n_epochs ? name : `${name}:ckpt-step-${step}`,
      fine_tuning_job_id: j.id,
      metrics: { step, train_loss: loss, train_mean_token_accuracy: Number((1 - loss / 3).toFixed(4)) },
      step_number: step,
    });
    event(ctx, s, `Step ${step}/${stepsPerEpoch * h.n_epochs}: training loss=${loss}`, 'info', { step, train_loss: loss }, 'metrics');
  }
  const results = s.checkpoints.map((c) => `${c.step_number},${c.metrics.train_loss},${c.metrics.train_mean_token_accuracy}`);
  const file = createFile(ctx, {
    filename: 'step_metrics.csv',
    purpose: 'fine-tune-results',
    content: Buffer.from(`step,train_loss,train_accuracy\n${results.join('\n')}\n`),
  });
  s.job = {
    ...j,
    status: 'succeeded',
    fine_tuned_model: name,
    finished_at: ctx.clock.nowSeconds(),
    trained_tokens: s.tokens * h.n_epochs,
    result_files: [file.id],
    estimated_finish: null,
  };
  event(ctx, s, `New fine-tuned model created: ${name}`);
  event(ctx, s, 'The job has successfully completed');
}

/** Run every step that has fallen due by `to`, each at its own instant. */
export function advanceFineTuning(ctx: TwinContext, to: Date): void {
  const limit = Math.floor(to.getTime() / 1000);
  const due = (s: StoredJob): number | undefined => {
    const j = s.job;
    if (j.status === 'validating_files') return j.created_at + QUEUED_AFTER_S;
    if (j.status === 'queued') return j.created_at + RUNNING_AFTER_S;
    if (j.status === 'running') return j.created_at + SUCCEEDED_AFTER_S + s.paused_for;
    return undefined;
  };
  for (;;) {
    const next = ctx.store
      .list<StoredJob>(FINE_TUNING_JOB)
      .flatMap((s) => {
        const at = due(s);
        return at !== undefined && at <= limit ? [{ s, at }] : [];
      })
      .sort((a, b) => a.at - b.at || a.s.job.created_at - b.s.job.created_at)[0];
    if (!next) return;
    const { s, at } = next;
    if (at * 1000 > ctx.clock.nowMs()) ctx.clock.advanceTo(at * 1000);
    if (s.job.status === 'validating_files') {
      const training = readTraining(ctx, s.job.training_file);
      if (typeof training === 'string') {
        s.job = {
          ...s.job,
          status: 'failed',
          error: { code: 'invalid_training_file', message: training, param: 'training_file' },
          finished_at: at,
          estimated_finish: null,
        };
        event(ctx, s, training, 'error');
      } else {
        s.examples = training.examples;
        s.tokens = training.tokens;
        const h = resolved(s.job.hyperparameters, training.examples);
        s.job = { ...s.job, status: 'queued', hyperparameters: h, method: { type: 'supervised', supervised: { hyperparameters: h } } };
        event(ctx, s, 'Files validated, moving job to queued state');
      }
    } else if (s.job.status === 'queued') {
      s.job = { ...s.job, status: 'running' };
      event(ctx, s, 'Fine-tuning job started');
    } else {
      succeed(ctx, s);
    }
    ctx.store.put(FINE_TUNING_JOB, s.job.id, s);
  }
}

/** A fine-tuned model (or one of its checkpoints) of a succeeded job: its base model's spec under its own id. */
export function fineTunedModel(ctx: TwinContext, id: string): (ModelSpec & { created: number; owned_by: string }) | undefined {
  if (!id.startsWith('ft:')) return undefined;
  for (const s of ctx.store.list<StoredJob>(FINE_TUNING_JOB)) {
    if (s.job.status !== 'succeeded' || s.model_deleted) continue;
    if (s.job.fine_tuned_model !== id && !s.checkpoints.some((c) => c.fine_tuned_model_checkpoint === id)) continue;
    const base = [...MODELS.values()].find((m) => m.snapshot === s.job.model || m.id === s.job.model);
    if (!base) return undefined;
    return { ...base, id, snapshot: id, created: s.job.finished_at ?? s.job.created_at, owned_by: 'org-twin' };
  }
  return undefined;
}

/** Fine-tuned models of succeeded jobs (the final model of each), for the models list. */
export function fineTunedModels(ctx: TwinContext): { id: string; created: number }[] {
  return ctx.store
    .list<StoredJob>(FINE_TUNING_JOB)
    .filter((s) => s.job.status === 'succeeded' && s.job.fine_tuned_model && !s.model_deleted)
    .map((s) => ({ id: s.job.fine_tuned_model!, created: s.job.finished_at ?? s.job.created_at }));
}

/** DELETE /v1/models/{model} for a fine-tuned model: it no longer answers; its job stays. */
export function deleteFineTunedModel(ctx: TwinContext, id: string): boolean {
  for (const s of ctx.store.list<StoredJob>(FINE_TUNING_JOB)) {
    if (s.job.status === 'succeeded' && !s.model_deleted && s.job.fine_tuned_model === id) {
      s.model_deleted = true;
      ctx.store.put(FINE_TUNING_JOB, s.job.id, s);
      return true;
    }
  }
  return false;
}
