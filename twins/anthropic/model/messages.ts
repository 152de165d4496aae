// Messages: one answer to a conversation (system prompt, user/assistant turns with text, tool_use
// and tool_result blocks), tool use, structured output (`output_config.format`), `stop_sequences`,
// `max_tokens`; token counts (Anthropic publishes no tokenizer: counted with the o200k_base BPE,
// the same count for count_tokens and for the message's usage).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { answerTurn, type OfferedTool, type ToolChoice } from '../../../twin-runtime/llm/answer.js';
import { digestOf } from '../../../twin-runtime/llm/determinism.js';
import { encoder, truncateToTokens, type Encoder } from '../../../twin-runtime/llm/tokens.js';
import { claudeModel, type ClaudeModel } from '../spec/models.js';
import { AnthropicError, invalid, scriptedAnthropicError } from '../wire/errors.js';

/** A content block as read from the request. */
export type InputBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; text: string; is_error?: boolean }
  | { type: 'other'; kind: string };

export interface InputMessage {
  role: 'user' | 'assistant';
  content: InputBlock[];
}

export interface MessageRequest {
  model: string;
  maxTokens: number;
  system: string;
  messages: InputMessage[];
  tools: OfferedTool[];
  rawTools: unknown[];
  toolChoice: ToolChoice;
  stopSequences: string[];
  schema?: unknown;
  asked: unknown;
}

/** Output blocks as the API sends them: a text block carries `citations` only when it has citations. */
export type OutputBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown; caller?: unknown };

export interface MessageObject {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutputBlock[];
  stop_reason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  stop_sequence: string | null;
  usage: {
    input_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
    cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
    output_tokens: number;
    service_tier: 'standard';
  };
}

export interface MessageOutcome {
  message: MessageObject;
  /** How the text streams (scripted chunks), when the answer is text. */
  chunks?: string[];
}

export function resolveModel(name: string): ClaudeModel {
  const m = claudeModel(name);
  if (!m) throw new AnthropicError(404, `model: ${name}`, 'not_found_error');
  return m;
}

function blockText(b: InputBlock): string {
  if (b.type === 'text') return b.text;
  if (b.type === 'tool_use') return `${b.name} ${JSON.stringify(b.input)}`;
  if (b.type === 'tool_result') return b.text;
  return '';
}

export function messageText(m: InputMessage): string {
  return m.content.map(blockText).join('\n');
}

/** Each tool_result answers a tool_use of the message before it; every tool_use is answered by the next message. */
function checkToolTurns(messages: InputMessage[]): void {
  messages.forEach((m, i) => {
    const prev = messages[i - 1];
    const uses = new Set((prev?.role === 'assistant' ? prev.content : []).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
    m.content.forEach((b, j) => {
      if (b.type === 'tool_result' && !uses.has(b.tool_use_id)) {
        throw invalid(
          `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    });
    if (m.role === 'assistant' && i < messages.length - 1) {
      const answered = new Set(messages[i + 1]!.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])));
      const missing = m.content.flatMap((b) => (b.type === 'tool_use' && !answered.has(b.id) ? [b.id] : []));
      if (missing.length > 0) {
        throw invalid(
          `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
    }
  });
}

/** Input tokens of a request: system prompt, every block, tool definitions, per-message framing. */
function inputTokens(enc: Encoder, req: Pick<MessageRequest, 'system' | 'messages' | 'rawTools'>): number {
  let n = 1 + (req.system ? 3 + enc.countTokens(req.system) : 0);
  for (const m of req.messages) n += 4 + enc.countTokens(messageText(m));
  if (req.rawTools.length > 0) n += 300 + enc.countTokens(JSON.stringify(req.rawTools));
  return n;
}

export async function countTokens(req: Pick<MessageRequest, 'model' | 'system' | 'messages' | 'rawTools'>): Promise<{ input_tokens: number }> {
  resolveModel(req.model);
  checkToolTurns(req.messages);
  return { input_tokens: inputTokens(await encoder('o200k_base'), req) };
}

/** Names of the tools whose results the last message's `tool_result` blocks carry. */
function answeredTools(messages: InputMessage[]): string[] {
  const names = new Map(messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [[b.id, b.name] as const] : []))));
  const last = messages[messages.length - 1]!;
  return last.content.flatMap((b) => (b.type === 'tool_result' && names.has(b.tool_use_id) ? [names.get(b.tool_use_id)!] : []));
}

export async function createMessage(ctx: TwinContext, req: MessageRequest): Promise<MessageOutcome> {
  const model = resolveModel(req.model);
  if (req.maxTokens > model.max_tokens) {
    throw invalid(`max_tokens: ${req.maxTokens} > ${model.max_tokens}, which is the maximum allowed number of output tokens for ${model.id}`);
  }
  checkToolTurns(req.messages);
  const enc = await encoder('o200k_base');
  const input = inputTokens(enc, req);
  if (input > model.max_input_tokens) throw invalid(`prompt is too long: ${input} tokens > ${model.max_input_tokens} maximum`);
  const last = req.messages[req.messages.length - 1]!;
  const userTurn = last.role === 'user' && !last.content.some((b) => b.type === 'tool_result');
  const answer = answerTurn(ctx.store, {
    model: req.model,
    digest: digestOf({ endpoint: 'messages', asked: req.asked }),
    lastText: messageText(last),
    conversation: [...(req.system ? [req.system] : []), ...req.messages.map(messageText)],
    toolResults: answeredTools(req.messages),
    userTurn,
    tools: req.tools,
    toolChoice: req.toolChoice,
    schema: req.schema,
  });
  if (answer.kind === 'error') throw scriptedAnthropicError(answer.error);
  const base = {
    id: ctx.ids.nextIn('msg', 'msg_01', 22),
    type: 'message' as const,
    role: 'assistant' as const,
    model: model.id,
  };
  const usage = (output: number) => ({
    input_tokens: input,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: output,
    service_tier: 'standard' as const,
  });
  if (answer.kind === 'tool_calls') {
    const content: OutputBlock[] = answer.calls.map((c) => ({
      type: 'tool_use',
      id: c.id ?? ctx.ids.nextIn('toolu', 'toolu_01', 22),
      name: c.name,
      input: JSON.parse(c.arguments),
    }));
    const output = answer.calls.reduce((n, c) => n + 3 + enc.countTokens(c.name) + enc.countTokens(c.arguments), 0);
    return { message: { ...base, content, stop_reason: 'tool_use', stop_sequence: null, usage: usage(output) } };
  }
  let text = answer.text;
  let stopReason: MessageObject['stop_reason'] = 'end_turn';
  let stopSequence: string | null = null;
  let chunks = answer.chunks;
  const stops = req.stopSequences
    .map((s) => ({ s, at: text.indexOf(s) }))
    .filter((x) => x.at !== -1)
    .sort((a, b) => a.at - b.at);
  if (stops.length > 0) {
    text = text.slice(0, stops[0]!.at);
    stopReason = 'stop_sequence';
    stopSequence = stops[0]!.s;
    chunks = undefined;
  }
  const cut = truncateToTokens(enc, text, req.maxTokens);
  if (cut.cut) {
    text = cut.text;
    stopReason = 'max_tokens';
    stopSequence = null;
    chunks = undefined;
  }
  const output = cut.cut ? req.maxTokens : Math.max(1, enc.countTokens(text));
  return {
    message: { ...base, content: [{ type: 'text', text }], stop_reason: stopReason, stop_sequence: stopSequence, usage: usage(output) },
    chunks,
  };
}
