// What chat completions and the Responses API share: the answer to one turn in OpenAI terms (token
// usage with the model's real encoding, `max_tokens` truncation, the context-window check), call
// ids, and the system fingerprint.

import { createHash } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { answerTurn, type TurnRequest } from '../../../twin-runtime/llm/answer.js';
import { truncateToTokens, type Encoder } from '../../../twin-runtime/llm/tokens.js';
import type { ModelSpec } from '../spec/models.js';
import { invalidRequest, scriptedError } from '../wire/errors.js';

export interface GeneratedToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface GeneratedAnswer {
  /** Text (null when the answer is tool calls). */
  text: string | null;
  /** How the text streams (scripted chunks or word by word; recomputed when truncated). */
  chunks?: string[];
  toolCalls: GeneratedToolCall[];
  finish: 'stop' | 'length' | 'tool_calls';
  completionTokens: number;
  /** The scripted_response record that answered, if one did. */
  scripted?: string;
}

/** `fp_` and ten hex digits, stable per model (OpenAI's backend configuration fingerprint). */
export function systemFingerprint(model: string): string {
  return `fp_${createHash('sha256').update(model).digest('hex').slice(0, 10)}`;
}

export function newCallId(ctx: TwinContext): string {
  return ctx.ids.nextIn('call', 'call_', 24);
}

/**
 * Answer one turn: a scripted error is thrown as OpenAI's error; tool calls get call ids; text is
 * cut at `maxTokens` (finish `length`).
 */
export function generate(ctx: TwinContext, enc: Encoder, turn: TurnRequest, maxTokens: number | undefined): GeneratedAnswer {
  const answer = answerTurn(ctx.store, turn);
  if (answer.kind === 'error') throw scriptedError(answer.error, turn.model);
  if (answer.kind === 'tool_calls') {
    const toolCalls = answer.calls.map((c) => ({ id: c.id ?? newCallId(ctx), name: c.name, arguments: c.arguments }));
    const completionTokens = toolCalls.reduce((n, c) => n + enc.countTokens(c.name) + enc.countTokens(c.arguments) + 3, 0);
    return { text: null, toolCalls, finish: 'tool_calls', completionTokens, scripted: answer.scripted };
  }
  if (maxTokens !== undefined) {
    const cut = truncateToTokens(enc, answer.text, maxTokens);
    if (cut.cut) return { text: cut.text, toolCalls: [], finish: 'length', completionTokens: maxTokens, scripted: answer.scripted };
  }
  return { text: answer.text, chunks: answer.chunks, toolCalls: [], finish: 'stop', completionTokens: enc.countTokens(answer.text), scripted: answer.scripted };
}

/** OpenAI's 400 `context_length_exceeded` when the prompt (plus the requested completion) does not fit. */
export function checkContext(model: ModelSpec, promptTokens: number, maxTokens: number | undefined, param: string): void {
  const total = promptTokens + (maxTokens ?? 0);
  if (total <= model.contextWindow) return;
  const message =
    maxTokens === undefined
      ? `This model's maximum context length is ${model.contextWindow} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`
      : `This model's maximum context length is ${model.contextWindow} tokens. However, you requested ${total} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`;
  throw invalidRequest(message, param, 'context_length_exceeded');
}

/** Tokens a tool list adds to the prompt (its JSON, as the model reads the definitions). */
export function toolTokens(enc: Encoder, tools: unknown[]): number {
  return tools.length === 0 ? 0 : enc.countTokens(JSON.stringify(tools)) + 9;
}
