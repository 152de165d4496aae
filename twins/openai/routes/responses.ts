// POST /v1/responses (plain and streamed), GET/DELETE /v1/responses/{id}, its input items.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import {
  createResponse,
  deleteResponse,
  responseInputItems,
  responseInputTokens,
  retrieveResponse,
  type InputItem,
  type ResponseRequest,
} from '../model/responses.js';
import { invalidRequest } from '../wire/errors.js';
import { cursorPage } from '../wire/pagination.js';
import {
  get,
  operationBody,
  listQuery,
  optArray,
  optBool,
  optInt,
  optMetadata,
  optNumber,
  optObject,
  optString,
  reqString,
  type Body,
} from '../wire/params.js';
import { responseStream, sse } from '../wire/streams.js';
import { asked, contentText, jsonSchemaOf, responseTools, toolChoice } from './reading.js';

const MESSAGE_ROLES = ['user', 'assistant', 'system', 'developer'] as const;

/** Input items (`input` of a response, `items` of a conversation): a string is one user message. */
export function readInput(body: Body, key: 'input' | 'items' = 'input'): InputItem[] {
  const input = get(body, key);
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input, text: input }];
  if (!Array.isArray(input))
    throw invalidRequest(`Invalid type for '${key}': expected one of a string or array of input items, but got an object instead.`, key, 'invalid_type');
  return input.flatMap((item, i): InputItem[] => {
    const type = ownValue(item, 'type') ?? 'message';
    if (type === 'message') {
      const role = ownValue(item, 'role');
      if (!(MESSAGE_ROLES as readonly unknown[]).includes(role)) {
        throw invalidRequest(
          `Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
          `${key}[${i}].role`,
          'invalid_value',
        );
      }
      const content = ownValue(item, 'content');
      return [{ type: 'message', role: role as (typeof MESSAGE_ROLES)[number], content, text: contentText(content, `${key}[${i}].content`) }];
    }
    if (type === 'function_call') {
      const call_id = ownValue(item, 'call_id');
      const name = ownValue(item, 'name');
      const args = ownValue(item, 'arguments');
      if (typeof call_id !== 'string' || typeof name !== 'string' || typeof args !== 'string') {
        throw invalidRequest(`Missing required parameter: '${key}[${i}].call_id'.`, `${key}[${i}]`, 'missing_required_parameter');
      }
      return [{ type: 'function_call', call_id, name, arguments: args }];
    }
    if (type === 'function_call_output') {
      const call_id = ownValue(item, 'call_id');
      const output = ownValue(item, 'output');
      if (typeof call_id !== 'string')
        throw invalidRequest(`Missing required parameter: '${key}[${i}].call_id'.`, `${key}[${i}].call_id`, 'missing_required_parameter');
      return [{ type: 'function_call_output', call_id, output: typeof output === 'string' ? output : contentText(output, `${key}[${i}].output`) }];
    }
    // Reasoning items and other kinds a client echoes back carry nothing the twin answers from.
    if (type === 'reasoning' || type === 'item_reference') return [];
    throw invalidRequest(`Invalid value: '${String(type)}'.`, `${key}[${i}].type`, 'invalid_value');
  });
}

/** `conversation`: an id, or `{id}`. */
function readConversation(body: Body): string | undefined {
  const v = get(body, 'conversation');
  if (v === undefined) return undefined;
  const id = typeof v === 'string' ? v : ownValue(v, 'id');
  if (typeof id !== 'string' || id === '')
    throw invalidRequest("Invalid 'conversation': expected a conversation id or an object with 'id'.", 'conversation', 'invalid_type');
  return id;
}

function readFormat(body: Body): ResponseRequest['format'] {
  const text = optObject(body, 'text');
  const format = ownValue(text, 'format');
  if (format === undefined || format === null) return { type: 'text' };
  const type = ownValue(format, 'type');
  if (type === 'text') return { type: 'text' };
  if (type === 'json_object') return { type: 'json_object' };
  if (type === 'json_schema') {
    const s = jsonSchemaOf(format, 'text.format');
    const description = ownValue(format, 'description');
    return { type: 'json_schema', ...s, ...(typeof description === 'string' ? { description } : {}) };
  }
  throw invalidRequest(
    `Invalid value: '${String(type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
    'text.format.type',
    'invalid_value',
  );
}

export const responseRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/responses',
    async handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/responses');
      const model = reqString(body, 'model');
      const rawTools = optArray(body, 'tools') ?? [];
      const tools = responseTools(rawTools);
      const rawChoice = get(body, 'tool_choice') ?? 'auto';
      const { response, chunks } = await createResponse(ctx, {
        model,
        input: readInput(body),
        instructions: optString(body, 'instructions'),
        tools,
        rawTools,
        toolChoice: toolChoice(rawChoice, tools),
        rawToolChoice: rawChoice,
        format: readFormat(body),
        maxOutputTokens: optInt(body, 'max_output_tokens', 16, 1_000_000),
        previousResponseId: optString(body, 'previous_response_id'),
        conversation: readConversation(body),
        store: optBool(body, 'store') ?? true,
        metadata: optMetadata(body),
        temperature: optNumber(body, 'temperature', 0, 2) ?? 1,
        topP: optNumber(body, 'top_p', 0, 1) ?? 1,
        parallelToolCalls: optBool(body, 'parallel_tool_calls') ?? true,
        asked: asked(body),
      });
      if (optBool(body, 'stream')) return sse(responseStream(response, chunks));
      return { status: 200, body: response };
    },
  },
  {
    method: 'POST',
    path: '/v1/responses/input_tokens',
    async handler(req, ctx) {
      const body = operationBody(req, 'POST /v1/responses/input_tokens');
      const rawTools = optArray(body, 'tools') ?? [];
      responseTools(rawTools);
      return {
        status: 200,
        body: await responseInputTokens(ctx, {
          model: reqString(body, 'model'),
          input: readInput(body),
          instructions: optString(body, 'instructions'),
          rawTools,
          previousResponseId: optString(body, 'previous_response_id'),
          conversation: readConversation(body),
        }),
      };
    },
  },
  { method: 'GET', path: '/v1/responses/{response_id}', handler: (req, ctx) => ({ status: 200, body: retrieveResponse(ctx, req.params.response_id!) }) },
  { method: 'DELETE', path: '/v1/responses/{response_id}', handler: (req, ctx) => ({ status: 200, body: deleteResponse(ctx, req.params.response_id!) }) },
  {
    method: 'GET',
    path: '/v1/responses/{response_id}/input_items',
    handler(req, ctx) {
      const q = listQuery(req, 100, 20, 'desc');
      return { status: 200, body: cursorPage(responseInputItems(ctx, req.params.response_id!), q) };
    },
  },
];
