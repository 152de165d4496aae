// Evals: a data source config (custom item schema, or logs / stored completions), testing criteria
// (graders the twin runs: model/graders.ts), and runs. A run is `queued` when created and is graded
// 30 s later on the environment clock (on `advance` on a frozen one): each item of its JSONL source
// (inline `file_content` or a `file_id`) is graded as it is, or — with a `completions` data source —
// after sampling the model through POST /v1/chat/completions in-process (scripts and deterministic
// answers apply), giving output items and pass/fail counts.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';
import { fileContent } from './files.js';
import { grade, render, type Grader } from './graders.js';

export const EVAL = 'eval';

const RUN_AFTER_S = 30;
const MAX_ITEMS = 1_000;

/** Answers a chat completion request in-process: its status and body. */
export type ChatRunner = (body: Record<string, unknown>) => Promise<{ status: number; body: unknown }>;

export interface EvalObject {
  id: string;
  object: 'eval';
  name: string;
  created_at: number;
  data_source_config: Record<string, unknown>;
  testing_criteria: (Grader & Record<string, unknown>)[];
  metadata: Record<string, string>;
}

interface Sampling {
  model: string;
  template: { role: string; content: string }[];
  params: Record<string, unknown>;
}

export interface RunObject {
  id: string;
  object: 'eval.run';
  eval_id: string;
  name: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed' | 'canceled';
  created_at: number;
  data_source: unknown;
  model: string | null;
  error: { code: string; message: string } | null;
  metadata: Record<string, string>;
  per_model_usage: {
    model_name: string;
    invocation_count: number;
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    cached_tokens: number;
  }[];
  per_testing_criteria_results: { testing_criteria: string; passed: number; failed: number }[];
  report_url: string;
  result_counts: { total: number; passed: number; failed: number; errored: number };
}

interface OutputItem {
  id: string;
  object: 'eval.run.output_item';
  run_id: string;
  eval_id: string;
  created_at: number;
  status: 'pass' | 'fail' | 'error';
  datasource_item_id: number;
  datasource_item: unknown;
  results: { name: string; type: string; score: number; passed: boolean }[];
  sample: unknown;
}

interface StoredRun {
  run: RunObject;
  items: unknown[];
  sampling?: Sampling;
  output: OutputItem[];
}

interface StoredEval {
  eval: EvalObject;
  runs: StoredRun[];
}

function stored(ctx: TwinContext, id: string): StoredEval {
  const s = ctx.store.get<StoredEval>(EVAL, id);
  if (!s) throw new OpenAIError(404, `Eval with id '${id}' not found.`, 'invalid_request_error', null, null);
  return s;
}

function runOf(s: StoredEval, runId: string): StoredRun {
  const r = s.runs.find((x) => x.run.id === runId);
  if (!r) throw new OpenAIError(404, `Eval run with id '${runId}' not found.`, 'invalid_request_error', null, null);
  return r;
}

export function createEval(
  ctx: TwinContext,
  input: { name?: string; dataSourceConfig: Record<string, unknown>; criteria: Grader[]; metadata?: Record<string, string> },
): EvalObject {
  const e: EvalObject = {
    id: ctx.ids.nextIn('eval', 'eval_', 32),
    object: 'eval',
    name: input.name ?? '',
    created_at: ctx.clock.nowSeconds(),
    data_source_config: input.dataSourceConfig,
    testing_criteria: input.criteria.map((c) => ({ ...c })),
    metadata: input.metadata ?? {},
  };
  ctx.store.put(EVAL, e.id, { eval: e, runs: [] } satisfies StoredEval);
  return e;
}

export function listEvals(ctx: TwinContext): EvalObject[] {
  return ctx.store.list<StoredEval>(EVAL).map((s) => s.eval);
}

export function retrieveEval(ctx: TwinContext, id: string): EvalObject {
  return stored(ctx, id).eval;
}

export function updateEval(ctx: TwinContext, id: string, input: { name?: string; metadata?: Record<string, string> }): EvalObject {
  const s = stored(ctx, id);
  s.eval = { ...s.eval, ...(input.name !== undefined ? { name: input.name } : {}), ...(input.metadata !== undefined ? { metadata: input.metadata } : {}) };
  ctx.store.put(EVAL, id, s);
  return s.eval;
}

export function deleteEval(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(EVAL, id);
  return { object: 'eval.deleted' as const, deleted: true as const, eval_id: id };
}

/** The JSONL items of a run's source: inline `file_content` rows or a file's lines. */
function sourceItems(ctx: TwinContext, source: unknown): unknown[] {
  const type = ownValue(source, 'type');
  let rows: unknown[];
  if (type === 'file_content') {
    const content = ownValue(source, 'content');
    if (!Array.isArray(content))
      throw invalidRequest("Missing required parameter: 'data_source.source.content'.", 'data_source.source.content', 'missing_required_parameter');
    rows = content;
  } else if (type === 'file_id') {
    const id = ownValue(source, 'id');
    if (typeof id !== 'string')
      throw invalidRequest("Missing required parameter: 'data_source.source.id'.", 'data_source.source.id', 'missing_required_parameter');
    rows = fileContent(ctx, id)
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l, i) => {
        try {
          return JSON.parse(l) as unknown;
        } catch {
          throw invalidRequest(`Line ${i + 1} of file ${id} is not valid JSON.`, 'data_source.source.id', null);
        }
      });
  } else {
    throw new NotSimulated(`POST /v1/evals/{eval_id}/runs with a ${String(type)} source`, 'The twin reads file_content and file_id sources.');
  }
  if (rows.length > MAX_ITEMS) throw invalidRequest(`A run holds at most ${MAX_ITEMS} items.`, 'data_source.source', null);
  return rows;
}

export function createRun(ctx: TwinContext, evalId: string, input: { name?: string; dataSource: unknown; metadata?: Record<string, string> }): RunObject {
  const s = stored(ctx, evalId);
  const type = ownValue(input.dataSource, 'type');
  const items = sourceItems(ctx, ownValue(input.dataSource, 'source'));
  let sampling: Sampling | undefined;
  if (type === 'completions') {
    const model = ownValue(input.dataSource, 'model');
    const messages = ownValue(input.dataSource, 'input_messages');
    if (typeof model !== 'string') throw invalidRequest("Missing required parameter: 'data_source.model'.", 'data_source.model', 'missing_required_parameter');
    if (ownValue(messages, 'type') !== 'template')
      throw new NotSimulated('POST /v1/evals/{eval_id}/runs with item_reference input messages', 'The twin samples from templates.');
    const template = ownValue(messages, 'template');
    if (!Array.isArray(template) || template.length === 0)
      throw invalidRequest(
        "Missing required parameter: 'data_source.input_messages.template'.",
        'data_source.input_messages.template',
        'missing_required_parameter',
      );
    sampling = {
      model,
      template: template.map((m, i) => {
        const role = ownValue(m, 'role');
        const content = ownValue(m, 'content');
        if (typeof role !== 'string' || typeof content !== 'string')
          throw invalidRequest(
            `Invalid 'data_source.input_messages.template[${i}]': expected a role and text content.`,
            `data_source.input_messages.template[${i}]`,
            'invalid_value',
          );
        return { role, content };
      }),
      params: { ...(ownValue(input.dataSource, 'sampling_params') as Record<string, unknown> | undefined) },
    };
  } else if (type !== 'jsonl') {
    throw new NotSimulated(`POST /v1/evals/{eval_id}/runs with a ${String(type)} data source`, 'The twin runs jsonl and completions data sources.');
  }
  const run: RunObject = {
    id: ctx.ids.nextIn('evalrun', 'evalrun_', 32),
    object: 'eval.run',
    eval_id: evalId,
    name: input.name ?? '',
    status: 'queued',
    created_at: ctx.clock.nowSeconds(),
    data_source: input.dataSource,
    model: sampling?.model ?? null,
    error: null,
    metadata: input.metadata ?? {},
    per_model_usage: [],
    per_testing_criteria_results: [],
    report_url: `${ctx.baseUrl}/v1/evals/${evalId}/runs`,
    result_counts: { total: 0, passed: 0, failed: 0, errored: 0 },
  };
  s.runs.push({ run, items, ...(sampling ? { sampling } : {}), output: [] });
  ctx.store.put(EVAL, evalId, s);
  return run;
}

export function listRuns(ctx: TwinContext, evalId: string): RunObject[] {
  return stored(ctx, evalId).runs.map((r) => r.run);
}

export function retrieveRun(ctx: TwinContext, evalId: string, runId: string): RunObject {
  return runOf(stored(ctx, evalId), runId).run;
}

export function cancelRun(ctx: TwinContext, evalId: string, runId: string): RunObject {
  const s = stored(ctx, evalId);
  const r = runOf(s, runId);
  if (r.run.status !== 'queued' && r.run.status !== 'in_progress')
    throw invalidRequest(`Eval run ${runId} is ${r.run.status} and cannot be canceled.`, null, null);
  r.run = { ...r.run, status: 'canceled' };
  ctx.store.put(EVAL, evalId, s);
  return r.run;
}

export function deleteRun(ctx: TwinContext, evalId: string, runId: string) {
  const s = stored(ctx, evalId);
  runOf(s, runId);
  s.runs = s.runs.filter((r) => r.run.id !== runId);
  ctx.store.put(EVAL, evalId, s);
  return { object: 'eval.run.deleted' as const, deleted: true as const, run_id: runId };
}

export function outputItems(ctx: TwinContext, evalId: string, runId: string, status?: string): OutputItem[] {
  return runOf(stored(ctx, evalId), runId).output.filter((o) => status === undefined || o.status === status);
}

export function outputItem(ctx: TwinContext, evalId: string, runId: string, itemId: string): OutputItem {
  const o = runOf(stored(ctx, evalId), runId).output.find((x) => x.id === itemId);
  if (!o) throw new OpenAIError(404, `Output item with id '${itemId}' not found.`, 'invalid_request_error', null, null);
  return o;
}

async function process(ctx: TwinContext, e: EvalObject, r: StoredRun, chat: ChatRunner): Promise<void> {
  const usage = { invocation_count: 0, prompt_tokens: 0, completion_tokens: 0 };
  const perCriterion = e.testing_criteria.map((c) => ({ testing_criteria: c.name, passed: 0, failed: 0 }));
  const counts = { total: 0, passed: 0, failed: 0, errored: 0 };
  for (const [index, row] of r.items.entries()) {
    const item = ownValue(row, 'item') ?? row;
    let sampleText = typeof ownValue(ownValue(row, 'sample'), 'output_text') === 'string' ? (ownValue(ownValue(row, 'sample'), 'output_text') as string) : '';
    let sample: unknown = ownValue(row, 'sample') ?? null;
    let errored = false;
    if (r.sampling) {
      const messages = r.sampling.template.map((m) => ({ role: m.role, content: render(m.content, { item }) }));
      const answer = await chat({ ...r.sampling.params, model: r.sampling.model, messages });
      usage.invocation_count++;
      const body = answer.body as {
        choices?: { message?: { content?: string | null }; finish_reason?: string }[];
        usage?: { prompt_tokens: number; completion_tokens: number };
      };
      if (answer.status !== 200 || !body.choices) {
        errored = true;
        sample = { error: answer.body };
      } else {
        sampleText = body.choices[0]?.message?.content ?? '';
        usage.prompt_tokens += body.usage?.prompt_tokens ?? 0;
        usage.completion_tokens += body.usage?.completion_tokens ?? 0;
        sample = {
          input: messages,
          output: [{ role: 'assistant', content: sampleText }],
          model: r.sampling.model,
          finish_reason: body.choices[0]?.finish_reason ?? 'stop',
          usage: body.usage ?? null,
        };
      }
    }
    counts.total++;
    const results = errored
      ? []
      : e.testing_criteria.map((c, i) => {
          const g = grade(c, { item, sample: { output_text: sampleText } });
          if (g.passed) perCriterion[i]!.passed++;
          else perCriterion[i]!.failed++;
          return { name: c.name, type: c.type, score: g.score, passed: g.passed };
        });
    const status: OutputItem['status'] = errored ? 'error' : results.every((x) => x.passed) ? 'pass' : 'fail';
    if (status === 'pass') counts.passed++;
    else if (status === 'fail') counts.failed++;
    else counts.errored++;
    r.output.push({
      id: ctx.ids.nextIn('outputitem', 'outputitem_', 32),
      object: 'eval.run.output_item',
      run_id: r.run.id,
      eval_id: e.id,
      created_at: ctx.clock.nowSeconds(),
      status,
      datasource_item_id: index,
      datasource_item: item,
      results,
      sample,
    });
  }
  r.run = {
    ...r.run,
    status: 'completed',
    result_counts: counts,
    per_testing_criteria_results: perCriterion,
    per_model_usage: r.sampling
      ? [{ model_name: r.sampling.model, ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens, cached_tokens: 0 }]
      : [],
  };
}

/** Grade every queued run due by `to`, each at its own instant. */
export async function advanceEvals(ctx: TwinContext, to: Date, chat: ChatRunner): Promise<void> {
  const limit = Math.floor(to.getTime() / 1000);
  const due = ctx.store
    .list<StoredEval>(EVAL)
    .flatMap((s) =>
      s.runs
        .filter((r) => r.run.status === 'queued' && r.run.created_at + RUN_AFTER_S <= limit)
        .map((r) => ({ evalId: s.eval.id, runId: r.run.id, at: r.run.created_at + RUN_AFTER_S })),
    )
    .sort((a, b) => a.at - b.at);
  for (const d of due) {
    if (d.at * 1000 > ctx.clock.nowMs()) ctx.clock.advanceTo(d.at * 1000);
    const s = stored(ctx, d.evalId);
    const r = runOf(s, d.runId);
    if (r.run.status !== 'queued') continue;
    await process(ctx, s.eval, r, chat);
    ctx.store.put(EVAL, d.evalId, s);
  }
}
