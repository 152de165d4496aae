// POST /v1/messages (plain and streamed) and POST /v1/messages/count_tokens.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import type { OfferedTool, ToolChoice } from '../../../twin-runtime/llm/answer.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { SSE_HEADERS } from '../../../twin-runtime/llm/sse.js';
import { countTokens, createMessage, type InputBlock, type InputMessage, type MessageRequest } from '../model/messages.js';
import { invalid } from '../wire/errors.js';
import { get, operationBody, optArray, optNumber, reqInt, reqString, type Body } from '../wire/params.js';
import { messageStream } from '../wire/streams.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const DELIVERY_ONLY = new Set(['stream', 'metadata', 'service_tier']);

function textOf(v: unknown, path: string): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  if (!Array.isArray(v)) throw invalid(`${path}: Input should be a valid list`);
  return v.map((b) => (ownValue(b, 'type') === 'text' && typeof ownValue(b, 'text') === 'string' ? (ownValue(b, 'text') as string) : '')).join('\n');
}

function readBlock(b: unknown, path: string): InputBlock {
  const type = ownValue(b, 'type');
  if (type === 'text') {
    const text = ownValue(b, 'text');
    if (typeof text !== 'string') throw invalid(`${path}.text: Field required`);
    return { type: 'text', text };
  }
  if (type === 'tool_use') {
    const id = ownValue(b, 'id');
    const name = ownValue(b, 'name');
    if (typeof id !== 'string' || typeof name !== 'string') throw invalid(`${path}: tool_use blocks need \`id\` and \`name\``);
    return { type: 'tool_use', id, name, input: ownValue(b, 'input') ?? {} };
  }
  if (type === 'tool_result') {
    const id = ownValue(b, 'tool_use_id');
    if (typeof id !== 'string') throw invalid(`${path}.tool_use_id: Field required`);
    return {
      type: 'tool_result',
      tool_use_id: id,
      text: textOf(ownValue(b, 'content'), `${path}.content`),
      ...(ownValue(b, 'is_error') === true ? { is_error: true } : {}),
    };
  }
  if (typeof type !== 'string') throw invalid(`${path}.type: Field required`);
  return { type: 'other', kind: type };
}

function readMessages(body: Body): InputMessage[] {
  const raw = optArray(body, 'messages');
  if (raw === undefined) throw invalid('messages: Field required');
  if (raw.length === 0) throw invalid('messages: at least one message is required');
  if (raw.length > 100_000) throw invalid('messages: too many messages');
  return raw.map((m, i) => {
    const role = ownValue(m, 'role');
    if (role !== 'user' && role !== 'assistant') throw invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const content = ownValue(m, 'content');
    if (typeof content === 'string') return { role, content: [{ type: 'text', text: content }] };
    if (!Array.isArray(content)) throw invalid(`messages.${i}.content: Field required`);
    return { role, content: content.map((b, j) => readBlock(b, `messages.${i}.content.${j}`)) };
  });
}

function readTools(body: Body): { tools: OfferedTool[]; raw: unknown[] } {
  const raw = optArray(body, 'tools') ?? [];
  const tools = raw.flatMap((t, i): OfferedTool[] => {
    const type = ownValue(t, 'type');
    // Server tools (web_search, code_execution…) run on Anthropic's side: the twin does not call them.
    if (type !== undefined && type !== 'custom') return [];
    const name = ownValue(t, 'name');
    if (typeof name !== 'string') throw invalid(`tools.${i}.custom.name: Field required`);
    if (!TOOL_NAME.test(name)) throw invalid(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    const schema = ownValue(t, 'input_schema');
    if (!schema || typeof schema !== 'object') throw invalid(`tools.${i}.custom.input_schema: Field required`);
    return [{ name, parameters: schema }];
  });
  return { tools, raw };
}

function readToolChoice(body: Body, tools: OfferedTool[]): ToolChoice {
  const choice = get(body, 'tool_choice');
  if (choice === undefined) return { mode: 'auto' };
  const type = ownValue(choice, 'type');
  if (type === 'auto') return { mode: 'auto' };
  if (type === 'none') return { mode: 'none' };
  if (type === 'any') return { mode: 'required' };
  if (type === 'tool') {
    const name = ownValue(choice, 'name');
    if (typeof name !== 'string' || !tools.some((t) => t.name === name))
      throw invalid(`tool_choice.tool.name: Tool '${String(name)}' not found in provided tools`);
    return { mode: 'named', name };
  }
  throw invalid("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'");
}

function readSystem(body: Body): string {
  return textOf(get(body, 'system'), 'system');
}

function asked(body: Body): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(body)) if (!DELIVERY_ONLY.has(k)) Object.defineProperty(out, k, { value: body[k], enumerable: true });
  return out;
}

function readSchema(body: Body): unknown {
  const format = ownValue(get(body, 'output_config'), 'format') ?? get(body, 'output_format');
  if (format === undefined || format === null) return undefined;
  if (ownValue(format, 'type') !== 'json_schema') throw invalid("output_config.format.type: Input should be 'json_schema'");
  return ownValue(format, 'schema') ?? { type: 'object' };
}

export const messageRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/messages',
    async handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/messages');
      const model = reqString(body, 'model');
      const maxTokens = reqInt(body, 'max_tokens', 1);
      const messages = readMessages(body);
      const { tools, raw } = readTools(body);
      optNumber(body, 'temperature', 0, 1);
      const stops = optArray(body, 'stop_sequences') ?? [];
      if (!stops.every((s) => typeof s === 'string')) throw invalid('stop_sequences: Input should be a valid list of strings');
      const request: MessageRequest = {
        model,
        maxTokens,
        system: readSystem(body),
        messages,
        tools,
        rawTools: raw,
        toolChoice: readToolChoice(body, tools),
        stopSequences: stops as string[],
        schema: readSchema(body),
        asked: asked(body),
      };
      const outcome = await createMessage(ctx, request);
      if (get(body, 'stream') === true) return { status: 200, headers: { ...SSE_HEADERS }, body: messageStream(outcome) };
      return { status: 200, body: outcome.message };
    },
  },
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    async handler(req) {
      const body = operationBody(req, 'POST /v1/messages/count_tokens');
      const { raw } = readTools(body);
      return {
        status: 200,
        body: await countTokens({ model: reqString(body, 'model'), system: readSystem(body), messages: readMessages(body), rawTools: raw }),
      };
    },
  },
];
