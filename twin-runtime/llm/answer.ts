// What a model-provider twin answers one turn with: the first matching scripted response, else a
// deterministic answer derived from the request's digest — a tool call when the request offers
// tools and the turn is the user's (or a tool is required), otherwise text; JSON valid against the
// requested schema for structured outputs. Shared by the openai and anthropic twins, which render
// the outcome in their own wire shapes.

import type { RecordStore } from '../record-store.js';
import { DeterministicSource, deterministicText, streamPieces } from './determinism.js';
import { findScripted, type ScriptedError } from './scripted.js';
import { schemaInstance } from './schema-instance.js';

export interface OfferedTool {
  name: string;
  /** JSON Schema of the arguments. */
  parameters: unknown;
}

export type ToolChoice = { mode: 'auto' | 'none' | 'required' } | { mode: 'named'; name: string };

export interface TurnRequest {
  model: string;
  /** Digest of what was asked (not of how it is delivered). */
  digest: Buffer;
  /** Text of the last input message. */
  lastText: string;
  /** Text of every message of the conversation, system prompt included (scripts matching `in: "any"`). */
  conversation: string[];
  /** Names of the tools whose results the last input message carries (scripts matching `tool_result`). */
  toolResults: string[];
  /** The last input message is the user's own (not a tool result): a tool may be called. */
  userTurn: boolean;
  tools: OfferedTool[];
  toolChoice: ToolChoice;
  /** Structured output: the answer is JSON valid against this schema. */
  schema?: unknown;
  /** JSON mode: the answer is a JSON object. */
  jsonObject?: boolean;
  /** Which of n alternative answers (n > 1 in chat completions). */
  choice?: number;
}

export interface AnsweredToolCall {
  name: string;
  /** The arguments as the JSON text the model "wrote". */
  arguments: string;
  /** A scripted call id, kept as given. */
  id?: string;
}

export type TurnAnswer =
  | { kind: 'text'; text: string; chunks?: string[]; scripted?: string }
  | { kind: 'tool_calls'; calls: AnsweredToolCall[]; scripted?: string }
  | { kind: 'error'; error: ScriptedError; scripted: string };

export function answerTurn(store: RecordStore, turn: TurnRequest): TurnAnswer {
  const scripted = findScripted(store, {
    model: turn.model,
    text: turn.lastText,
    conversation: turn.conversation,
    tools: turn.tools.map((t) => t.name),
    toolResults: turn.toolResults,
  });
  if (scripted) {
    const r = scripted.response;
    if (r.error) return { kind: 'error', error: r.error, scripted: scripted.id };
    if (r.tool_calls) {
      return {
        kind: 'tool_calls',
        scripted: scripted.id,
        calls: r.tool_calls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.arguments), ...(c.id ? { id: c.id } : {}) })),
      };
    }
    return { kind: 'text', text: r.text ?? '', chunks: scripted.stream_chunks, scripted: scripted.id };
  }
  const rng = new DeterministicSource(turn.digest).fork(`choice:${turn.choice ?? 0}`);
  const choice = turn.toolChoice;
  const callable = choice.mode === 'named' ? turn.tools.filter((t) => t.name === choice.name) : turn.tools;
  const wantsTool = callable.length > 0 && (choice.mode === 'required' || choice.mode === 'named' || (choice.mode === 'auto' && turn.userTurn));
  if (wantsTool) {
    const tool = rng.pick(callable);
    return { kind: 'tool_calls', calls: [{ name: tool.name, arguments: JSON.stringify(schemaInstance(tool.parameters, rng)) }] };
  }
  if (turn.schema !== undefined) return { kind: 'text', text: JSON.stringify(schemaInstance(turn.schema, rng)) };
  const text = deterministicText(rng, turn.lastText);
  return { kind: 'text', text: turn.jsonObject ? JSON.stringify({ answer: text }) : text };
}

/** The deltas a text answer streams in: the scripted chunks, else word by word. */
export function textChunks(answer: { text: string; chunks?: string[] }): string[] {
  return answer.chunks && answer.chunks.join('') === answer.text ? answer.chunks : streamPieces(answer.text);
}
