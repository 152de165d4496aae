// POST /v1/chat/completions (plain and streamed) and the stored completions' routes.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import {
  chatCompletionMessages,
  createChatCompletion,
  deleteChatCompletion,
  listChatCompletions,
  retrieveChatCompletion,
  updateChatCompletion,
  type ChatMessage,
  type ChatRequest,
} from '../model/chat-completions.js';
import { invalidRequest } from '../wire/errors.js';
import { cursorPage } from '../wire/pagination.js';
import { get, jsonBody, operationBody, listQuery, optArray, optBool, optInt, optMetadata, optNumber, optObject, reqString, type Body } from '../wire/params.js';
import { chatCompletionStream, sse } from '../wire/streams.js';
import { asked, chatTools, contentText, jsonSchemaOf, toolChoice } from './reading.js';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
const MAX_MESSAGES = 2048;

function readMessages(body: Body): ChatMessage[] {
  const raw = optArray(body, 'messages');
  if (raw === undefined) throw invalidRequest("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (raw.length === 0)
    throw invalidRequest(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  if (raw.length > MAX_MESSAGES)
    throw invalidRequest(
      `Invalid 'messages': array too long. Expected an array with maximum length ${MAX_MESSAGES}, but got an array with length ${raw.length} instead.`,
      'messages',
      'array_above_max_length',
    );
  const messages = raw.map((m, i): ChatMessage => {
    const role = ownValue(m, 'role');
    if (typeof role !== 'string')
      throw invalidRequest(`Missing required parameter: 'messages[${i}].role'.`, `messages[${i}].role`, 'missing_required_parameter');
    if (!(ROLES as readonly string[]).includes(role)) {
      throw invalidRequest(
        `Invalid value: '${role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        'invalid_value',
      );
    }
    const content = ownValue(m, 'content');
    const calls = ownValue(m, 'tool_calls');
    const msg: ChatMessage = {
      role: role as ChatMessage['role'],
      content: content === null || content === undefined ? null : contentText(content, `messages[${i}].content`),
    };
    if (msg.content === null && !(role === 'assistant' && Array.isArray(calls))) {
      throw invalidRequest(`Missing required parameter: 'messages[${i}].content'.`, `messages[${i}].content`, 'missing_required_parameter');
    }
    const name = ownValue(m, 'name');
    if (typeof name === 'string') msg.name = name;
    if (role === 'assistant' && Array.isArray(calls)) {
      msg.tool_calls = calls.map((c, j) => {
        const id = ownValue(c, 'id');
        const fn = ownValue(c, 'function');
        const fname = ownValue(fn, 'name');
        const args = ownValue(fn, 'arguments');
        if (typeof id !== 'string' || typeof fname !== 'string' || typeof args !== 'string') {
          throw invalidRequest(
            `Missing required parameter: 'messages[${i}].tool_calls[${j}]'.`,
            `messages[${i}].tool_calls[${j}]`,
            'missing_required_parameter',
          );
        }
        return { id, type: 'function' as const, function: { name: fname, arguments: args } };
      });
    }
    if (role === 'tool') {
      const callId = ownValue(m, 'tool_call_id');
      if (typeof callId !== 'string')
        throw invalidRequest(`Missing required parameter: 'messages[${i}].tool_call_id'.`, `messages[${i}].tool_call_id`, 'missing_required_parameter');
      msg.tool_call_id = callId;
    }
    return msg;
  });
  checkToolTurns(messages);
  return messages;
}

/** Tool messages answer the preceding assistant's tool calls, every one of them, as OpenAI requires. */
function checkToolTurns(messages: ChatMessage[]): void {
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && messages[j]!.role === 'tool') j--;
      const caller = messages[j];
      if (caller?.role !== 'assistant' || !caller.tool_calls?.some((c) => c.id === m.tool_call_id)) {
        throw invalidRequest(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
          null,
        );
      }
    }
    if (m.role === 'assistant' && m.tool_calls) {
      const answered = new Set<string>();
      for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) answered.add(messages[j]!.tool_call_id!);
      const missing = m.tool_calls.filter((c) => !answered.has(c.id)).map((c) => c.id);
      if (missing.length > 0) {
        throw invalidRequest(
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
          `messages.[${i}].role`,
          null,
        );
      }
    }
  });
}

function readResponseFormat(body: Body, messages: ChatMessage[]): ChatRequest['responseFormat'] {
  const rf = optObject(body, 'response_format');
  if (!rf) return undefined;
  const type = ownValue(rf, 'type');
  if (type === 'text') return undefined;
  if (type === 'json_object') {
    if (!messages.some((m) => /json/i.test(m.content ?? ''))) {
      throw invalidRequest("'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", 'messages', null);
    }
    return { type: 'json_object' };
  }
  if (type === 'json_schema') return { type: 'json_schema', schema: jsonSchemaOf(ownValue(rf, 'json_schema'), 'response_format.json_schema').schema };
  throw invalidRequest(
    `Invalid value: '${String(type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
    'response_format.type',
    'invalid_value',
  );
}

export const chatCompletionRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/chat/completions',
    async handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/chat/completions');
      if (get(body, 'model') === undefined) throw invalidRequest('you must provide a model parameter', null, null);
      const model = reqString(body, 'model');
      const messages = readMessages(body);
      const rawTools = optArray(body, 'tools') ?? [];
      const tools = chatTools(rawTools);
      optNumber(body, 'temperature', 0, 2);
      optNumber(body, 'top_p', 0, 1);
      const maxTokens = optInt(body, 'max_completion_tokens', 1, 1_000_000) ?? optInt(body, 'max_tokens', 1, 1_000_000);
      const stream = optBool(body, 'stream') ?? false;
      const streamOptions = optObject(body, 'stream_options');
      if (streamOptions && !stream) throw invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options', null);
      const outcome = await createChatCompletion(ctx, {
        model,
        messages,
        tools,
        rawTools,
        toolChoice: toolChoice(get(body, 'tool_choice'), tools),
        n: optInt(body, 'n', 1, 128) ?? 1,
        maxTokens,
        responseFormat: readResponseFormat(body, messages),
        store: optBool(body, 'store') ?? false,
        metadata: optMetadata(body),
        asked: asked(body),
      });
      if (stream) return sse(chatCompletionStream(outcome, ownValue(streamOptions, 'include_usage') === true));
      return { status: 200, body: outcome.completion };
    },
  },
  {
    method: 'GET',
    path: '/v1/chat/completions',
    handler(req, ctx) {
      const q = listQuery(req, 100, 20, 'asc');
      const model = ownValue(req.query, 'model');
      const metadata = ownValue(req.query, 'metadata');
      const filter: Record<string, string> = {};
      if (metadata && typeof metadata === 'object') for (const [k, v] of Object.entries(metadata)) if (typeof v === 'string') filter[k] = v;
      return { status: 200, body: cursorPage(listChatCompletions(ctx, { model: typeof model === 'string' ? model : undefined, metadata: filter }), q) };
    },
  },
  {
    method: 'GET',
    path: '/v1/chat/completions/{completion_id}',
    handler: (req, ctx) => ({ status: 200, body: retrieveChatCompletion(ctx, req.params.completion_id!) }),
  },
  {
    method: 'POST',
    path: '/v1/chat/completions/{completion_id}',
    handler(req, ctx) {
      const metadata = optMetadata(jsonBody(req));
      if (metadata === undefined) throw invalidRequest("Missing required parameter: 'metadata'.", 'metadata', 'missing_required_parameter');
      return { status: 200, body: updateChatCompletion(ctx, req.params.completion_id!, metadata) };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/chat/completions/{completion_id}',
    handler: (req, ctx) => ({ status: 200, body: deleteChatCompletion(ctx, req.params.completion_id!) }),
  },
  {
    method: 'GET',
    path: '/v1/chat/completions/{completion_id}/messages',
    handler(req, ctx) {
      const q = listQuery(req, 100, 20, 'asc');
      return { status: 200, body: cursorPage(chatCompletionMessages(ctx, req.params.completion_id!), q) };
    },
  },
];
