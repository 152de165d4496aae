// Chat completions: one answer per choice (`n`), token usage counted with the model's encoding over
// OpenAI's chat format, the context-window check, stored completions (`store: true`) with their
// list, retrieval, metadata update, deletion and messages.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { OfferedTool, ToolChoice } from '../../../twin-runtime/llm/answer.js';
import { digestOf } from '../../../twin-runtime/llm/determinism.js';
import { encoder } from '../../../twin-runtime/llm/tokens.js';
import { OpenAIError } from '../wire/errors.js';
import { spendTokens } from '../wire/rate-limit.js';
import { checkContext, generate, systemFingerprint, toolTokens, type GeneratedAnswer } from './generation.js';
import { generationModel } from './models.js';

export const CHAT_COMPLETION = 'chat_completion';

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';
  /** The message's text (text parts joined); null for an assistant message that only calls tools. */
  content: string | null;
  name?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools: OfferedTool[];
  /** The tool definitions as sent (for prompt tokens). */
  rawTools: unknown[];
  toolChoice: ToolChoice;
  n: number;
  maxTokens?: number;
  responseFormat?: { type: 'json_schema'; schema: unknown } | { type: 'json_object' };
  store: boolean;
  metadata?: Record<string, string>;
  /** What was asked, for the deterministic answer (the body without delivery options). */
  asked: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: null;
      annotations: [];
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    };
    logprobs: null;
    finish_reason: GeneratedAnswer['finish'];
  }[];
  usage: Usage;
  service_tier: 'default';
  system_fingerprint: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: { reasoning_tokens: number; audio_tokens: number; accepted_prediction_tokens: number; rejected_prediction_tokens: number };
}

export interface ChatOutcome {
  completion: ChatCompletion;
  answers: GeneratedAnswer[];
}

interface StoredCompletion {
  completion: ChatCompletion;
  metadata: Record<string, string>;
  messages: (ChatMessage & { id: string })[];
}

function usage(prompt: number, completion: number): Usage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** Names of the tools whose results the trailing `tool` messages carry (by the calls they answer). */
function answeredTools(messages: ChatMessage[]): string[] {
  const names = new Map(messages.flatMap((m) => (m.tool_calls ?? []).map((c) => [c.id, c.function.name] as const)));
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) {
    const name = names.get(messages[i]!.tool_call_id ?? '');
    if (name) out.push(name);
  }
  return out;
}

export async function createChatCompletion(ctx: TwinContext, req: ChatRequest): Promise<ChatOutcome> {
  const model = generationModel(req.model, 'chat_completions', ctx);
  const enc = await encoder(model.encoding);
  let prompt = 3 + toolTokens(enc, req.rawTools);
  for (const m of req.messages) {
    prompt += 3 + enc.countTokens(m.role) + enc.countTokens(m.content ?? '') + (m.name ? 1 + enc.countTokens(m.name) : 0);
    for (const c of m.tool_calls ?? []) prompt += 3 + enc.countTokens(c.function.name) + enc.countTokens(c.function.arguments);
  }
  checkContext(model, prompt, req.maxTokens, 'messages');
  const last = req.messages[req.messages.length - 1]!;
  const digest = digestOf({ endpoint: 'chat.completions', asked: req.asked });
  const answers: GeneratedAnswer[] = [];
  for (let i = 0; i < req.n; i++) {
    answers.push(
      generate(
        ctx,
        enc,
        {
          model: req.model,
          digest,
          lastText: last.content ?? '',
          conversation: req.messages.map((m) => m.content ?? ''),
          toolResults: answeredTools(req.messages),
          userTurn: last.role === 'user',
          tools: req.tools,
          toolChoice: req.toolChoice,
          schema: req.responseFormat?.type === 'json_schema' ? req.responseFormat.schema : undefined,
          jsonObject: req.responseFormat?.type === 'json_object',
          choice: i,
        },
        req.maxTokens,
      ),
    );
  }
  const completionTokens = answers.reduce((n, a) => n + a.completionTokens, 0);
  spendTokens(ctx, prompt + completionTokens);
  const completion: ChatCompletion = {
    id: ctx.ids.nextIn('chatcmpl', 'chatcmpl-', 29),
    object: 'chat.completion',
    created: ctx.clock.nowSeconds(),
    model: model.snapshot,
    choices: answers.map((a, index) => ({
      index,
      message: {
        role: 'assistant',
        content: a.text,
        refusal: null,
        annotations: [],
        ...(a.toolCalls.length > 0
          ? { tool_calls: a.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      },
      logprobs: null,
      finish_reason: a.finish,
    })),
    usage: usage(prompt, completionTokens),
    service_tier: 'default',
    system_fingerprint: systemFingerprint(model.id),
  };
  if (req.store) {
    const stored: StoredCompletion = {
      completion,
      metadata: req.metadata ?? {},
      messages: req.messages.map((m, i) => ({ ...m, id: `${completion.id}-${i}` })),
    };
    ctx.store.put(CHAT_COMPLETION, completion.id, stored);
  }
  return { completion, answers };
}

function stored(ctx: TwinContext, id: string): StoredCompletion {
  const s = ctx.store.get<StoredCompletion>(CHAT_COMPLETION, id);
  if (!s) throw new OpenAIError(404, `Completion with id '${id}' not found.`, 'invalid_request_error', null, null);
  return s;
}

function view(s: StoredCompletion): ChatCompletion & { metadata: Record<string, string> } {
  return { ...s.completion, metadata: s.metadata };
}

export function listChatCompletions(ctx: TwinContext, filter: { model?: string; metadata?: Record<string, string> }) {
  return ctx.store
    .list<StoredCompletion>(CHAT_COMPLETION)
    .filter((s) => filter.model === undefined || s.completion.model === filter.model || s.completion.model.startsWith(`${filter.model}-`))
    .filter((s) => Object.entries(filter.metadata ?? {}).every(([k, v]) => s.metadata[k] === v))
    .map(view);
}

export function retrieveChatCompletion(ctx: TwinContext, id: string) {
  return view(stored(ctx, id));
}

export function updateChatCompletion(ctx: TwinContext, id: string, metadata: Record<string, string>) {
  const s = stored(ctx, id);
  s.metadata = metadata;
  ctx.store.put(CHAT_COMPLETION, id, s);
  return view(s);
}

export function deleteChatCompletion(ctx: TwinContext, id: string) {
  stored(ctx, id);
  ctx.store.delete(CHAT_COMPLETION, id);
  return { object: 'chat.completion.deleted' as const, id, deleted: true as const };
}

export function chatCompletionMessages(ctx: TwinContext, id: string) {
  return stored(ctx, id).messages.map((m) => ({
    id: m.id,
    role: m.role,
    content: m.content,
    name: m.name ?? null,
    content_parts: null,
    ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
    ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
  }));
}
