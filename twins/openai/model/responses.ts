// The Responses API: a response to input items (text, messages, function calls and their outputs),
// optionally continuing a stored one (`previous_response_id`), with function tools, structured
// output (`text.format` json_schema), `max_output_tokens` (status `incomplete`), stored responses
// (retrieve, delete, input items).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { OfferedTool, ToolChoice } from '../../../twin-runtime/llm/answer.js';
import { digestOf } from '../../../twin-runtime/llm/determinism.js';
import { encoder, type Encoder } from '../../../twin-runtime/llm/tokens.js';
import { invalidRequest, OpenAIError } from '../wire/errors.js';
import { spendTokens } from '../wire/rate-limit.js';
import { appendTurn, conversationHistory, renderItem } from './conversations.js';
import { checkContext, generate, toolTokens } from './generation.js';
import { generationModel } from './models.js';

export const RESPONSE = 'response';

/** One input item, read: a message (its text), a function call, or a function call's output. */
export type InputItem =
  | { type: 'message'; role: 'user' | 'assistant' | 'system' | 'developer'; content: unknown; text: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

export type OutputItem =
  | {
      id: string;
      type: 'message';
      status: 'completed' | 'in_progress' | 'incomplete';
      role: 'assistant';
      content: { type: 'output_text'; text: string; annotations: []; logprobs: [] }[];
    }
  | { id: string; type: 'function_call'; status: 'completed' | 'in_progress'; arguments: string; call_id: string; name: string };

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: 'completed' | 'in_progress' | 'incomplete';
  background: false;
  error: null;
  incomplete_details: { reason: 'max_output_tokens' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: null; summary: null };
  service_tier: 'default';
  store: boolean;
  temperature: number;
  text: { format: unknown; verbosity: 'medium' };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number;
  truncation: 'disabled';
  usage: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  } | null;
  user: null;
  metadata: Record<string, string>;
  /** The conversation the response joined (only when created with one). */
  conversation?: { id: string };
}

export interface ResponseRequest {
  model: string;
  input: InputItem[];
  instructions?: string;
  tools: OfferedTool[];
  rawTools: unknown[];
  toolChoice: ToolChoice;
  rawToolChoice: unknown;
  format: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; name: string; schema: unknown; strict?: boolean; description?: string };
  maxOutputTokens?: number;
  previousResponseId?: string;
  /** A conversation whose items are the history and that the input and output join. */
  conversation?: string;
  store: boolean;
  metadata?: Record<string, string>;
  temperature: number;
  topP: number;
  parallelToolCalls: boolean;
  asked: unknown;
}

interface StoredResponse {
  response: ResponseObject;
  /** This request's input items with their ids (input_items lists these). */
  input: (InputItem & { id: string })[];
  /** The whole conversation up to and including this response's output (what a follow-up continues). */
  history: InputItem[];
}

function itemText(item: InputItem): string {
  if (item.type === 'message') return item.text;
  if (item.type === 'function_call') return `${item.name}(${item.arguments})`;
  return item.output;
}

function outputAsInput(item: OutputItem): InputItem {
  if (item.type === 'function_call') return { type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments };
  const text = item.content.map((c) => c.text).join('');
  return { type: 'message', role: 'assistant', content: text, text };
}

function stored(ctx: TwinContext, id: string): StoredResponse {
  const s = ctx.store.get<StoredResponse>(RESPONSE, id);
  if (!s) throw new OpenAIError(404, `Response with id '${id}' not found.`, 'invalid_request_error', null, null);
  return s;
}

/** Names of the functions whose outputs the trailing `function_call_output` items carry. */
function answeredTools(items: InputItem[]): string[] {
  const names = new Map(items.flatMap((it) => (it.type === 'function_call' ? [[it.call_id, it.name] as const] : [])));
  const out: string[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.type !== 'function_call_output') break;
    const name = names.get(item.call_id);
    if (name) out.push(name);
  }
  return out;
}

/** What a request's model reads: its history (a conversation's items or the previous response's) and its input. */
function historyAndInput(ctx: TwinContext, req: Pick<ResponseRequest, 'input' | 'previousResponseId' | 'conversation'>): InputItem[] {
  let history: InputItem[] = [];
  if (req.previousResponseId !== undefined && req.conversation !== undefined) {
    throw invalidRequest(
      "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.",
      null,
      'mutually_exclusive_parameters',
    );
  }
  if (req.conversation !== undefined) history = conversationHistory(ctx, req.conversation);
  if (req.previousResponseId !== undefined) {
    const prev = ctx.store.get<StoredResponse>(RESPONSE, req.previousResponseId);
    if (!prev) throw invalidRequest(`Previous response with id '${req.previousResponseId}' not found.`, 'previous_response_id', 'previous_response_not_found');
    history = prev.history;
  }
  const conversation = [...history, ...req.input];
  if (conversation.length === 0) throw invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  return conversation;
}

function countInput(enc: Encoder, req: Pick<ResponseRequest, 'instructions' | 'rawTools'>, conversation: InputItem[]): number {
  let n = (req.instructions ? 4 + enc.countTokens(req.instructions) : 0) + toolTokens(enc, req.rawTools);
  for (const item of conversation) n += 4 + enc.countTokens(itemText(item));
  return n;
}

/** POST /v1/responses/input_tokens: the `input_tokens` the same request's usage would report. */
export async function responseInputTokens(
  ctx: TwinContext,
  req: Pick<ResponseRequest, 'model' | 'input' | 'instructions' | 'rawTools' | 'previousResponseId' | 'conversation'>,
) {
  const model = generationModel(req.model, 'responses', ctx);
  const enc = await encoder(model.encoding);
  return { object: 'response.input_tokens' as const, input_tokens: countInput(enc, req, historyAndInput(ctx, req)) };
}

export async function createResponse(ctx: TwinContext, req: ResponseRequest): Promise<{ response: ResponseObject; chunks: Map<string, string[] | undefined> }> {
  const model = generationModel(req.model, 'responses', ctx);
  const conversation = historyAndInput(ctx, req);
  const history = conversation.slice(0, conversation.length - req.input.length);
  const enc = await encoder(model.encoding);
  const inputTokens = countInput(enc, req, conversation);
  checkContext(model, inputTokens, undefined, 'input');
  const last = conversation[conversation.length - 1]!;
  const answer = generate(
    ctx,
    enc,
    {
      model: req.model,
      digest: digestOf({ endpoint: 'responses', asked: req.asked, history }),
      lastText: itemText(last),
      conversation: [...(req.instructions ? [req.instructions] : []), ...conversation.map(itemText)],
      toolResults: answeredTools(conversation),
      userTurn: last.type === 'message' && last.role === 'user',
      tools: req.tools,
      toolChoice: req.toolChoice,
      schema: req.format.type === 'json_schema' ? req.format.schema : undefined,
      jsonObject: req.format.type === 'json_object',
    },
    req.maxOutputTokens,
  );
  const output: OutputItem[] = [];
  const chunks = new Map<string, string[] | undefined>();
  if (answer.toolCalls.length > 0) {
    for (const c of answer.toolCalls) {
      output.push({ id: ctx.ids.nextIn('fc', 'fc_', 48), type: 'function_call', status: 'completed', arguments: c.arguments, call_id: c.id, name: c.name });
    }
  } else {
    const id = ctx.ids.nextIn('msg', 'msg_', 48);
    output.push({
      id,
      type: 'message',
      status: answer.finish === 'length' ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: answer.text ?? '', annotations: [], logprobs: [] }],
    });
    chunks.set(id, answer.finish === 'length' ? undefined : answer.chunks);
  }
  spendTokens(ctx, inputTokens + answer.completionTokens);
  const response: ResponseObject = {
    id: ctx.ids.nextIn('resp', 'resp_', 48),
    object: 'response',
    created_at: ctx.clock.nowSeconds(),
    status: answer.finish === 'length' ? 'incomplete' : 'completed',
    background: false,
    error: null,
    incomplete_details: answer.finish === 'length' ? { reason: 'max_output_tokens' } : null,
    instructions: req.instructions ?? null,
    max_output_tokens: req.maxOutputTokens ?? null,
    model: model.snapshot,
    output,
    parallel_tool_calls: req.parallelToolCalls,
    previous_response_id: req.previousResponseId ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: req.store,
    temperature: req.temperature,
    text: { format: req.format, verbosity: 'medium' },
    tool_choice: req.rawToolChoice,
    tools: req.rawTools,
    top_p: req.topP,
    truncation: 'disabled',
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: answer.completionTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + answer.completionTokens,
    },
    user: null,
    metadata: req.metadata ?? {},
    ...(req.conversation !== undefined ? { conversation: { id: req.conversation } } : {}),
  };
  if (req.conversation !== undefined) {
    appendTurn(
      ctx,
      req.conversation,
      req.input,
      output.map((o) => ({ ...outputAsInput(o), id: o.id })),
    );
  }
  if (req.store) {
    const record: StoredResponse = {
      response,
      input: req.input.map((item) => ({ ...item, id: ctx.ids.nextIn('msg', 'msg_', 48) })),
      history: [...conversation, ...output.map(outputAsInput)],
    };
    ctx.store.put(RESPONSE, response.id, record);
  }
  return { response, chunks };
}

export function retrieveResponse(ctx: TwinContext, id: string): ResponseObject {
  return stored(ctx, id).response;
}

export function deleteResponse(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(RESPONSE, id);
  return { id, object: 'response' as const, deleted: true as const };
}

/** The request's input items as the API lists them (messages with `input_text` parts). */
export function responseInputItems(ctx: TwinContext, id: string) {
  return stored(ctx, id).input.map(renderItem);
}
