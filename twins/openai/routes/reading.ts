// Readers shared by the generation routes: message content (a string or text parts), function
// tools and tool_choice in the chat and Responses shapes, and "what was asked" (the body without
// the options that only change delivery, so a streamed and a plain request get the same answer).

import type { OfferedTool, ToolChoice } from '../../../twin-runtime/llm/answer.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { invalidRequest } from '../wire/errors.js';
import type { Body } from '../wire/params.js';

const DELIVERY_ONLY = new Set(['stream', 'stream_options', 'store', 'metadata', 'user', 'service_tier', 'safety_identifier', 'prompt_cache_key', 'background']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function asked(body: Body): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(body)) if (!DELIVERY_ONLY.has(k)) Object.defineProperty(out, k, { value: body[k], enumerable: true });
  return out;
}

/** Text of a content value: a string, or the `text` of its parts (`text`, `input_text`, `output_text`). */
export function contentText(content: unknown, param: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw invalidRequest(`Invalid type for '${param}': expected one of a string or array of objects, but got an object instead.`, param, 'invalid_type');
  return content
    .map((part) => {
      const text = ownValue(part, 'text');
      return typeof text === 'string' ? text : '';
    })
    .join('');
}

function toolName(name: unknown, param: string): string {
  if (typeof name !== 'string') throw invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
  if (!TOOL_NAME.test(name)) {
    throw invalidRequest(
      `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      param,
      'invalid_value',
    );
  }
  return name;
}

/** Chat tools: `[{type: 'function', function: {name, parameters}}]`. */
export function chatTools(raw: unknown[] | undefined): OfferedTool[] {
  return (raw ?? []).map((t, i) => {
    const fn = ownValue(t, 'function');
    if (ownValue(t, 'type') !== 'function' && ownValue(t, 'type') !== 'custom') {
      throw invalidRequest(
        `Invalid value: '${String(ownValue(t, 'type'))}'. Supported values are: 'function' and 'custom'.`,
        `tools[${i}].type`,
        'invalid_value',
      );
    }
    return { name: toolName(ownValue(fn, 'name'), `tools[${i}].function.name`), parameters: ownValue(fn, 'parameters') ?? { type: 'object', properties: {} } };
  });
}

/** Responses tools: function tools `{type: 'function', name, parameters}`; built-in tools are not offered. */
export function responseTools(raw: unknown[] | undefined): OfferedTool[] {
  return (raw ?? []).flatMap((t, i) =>
    ownValue(t, 'type') === 'function'
      ? [{ name: toolName(ownValue(t, 'name'), `tools[${i}].name`), parameters: ownValue(t, 'parameters') ?? { type: 'object', properties: {} } }]
      : [],
  );
}

/** `none` | `auto` | `required` | `{type: 'function', function: {name}}` (chat) or `{type: 'function', name}` (responses). */
export function toolChoice(raw: unknown, tools: OfferedTool[]): ToolChoice {
  if (raw === undefined || raw === null) return { mode: 'auto' };
  if (raw === 'none' || raw === 'auto' || raw === 'required') {
    if (raw === 'required' && tools.length === 0)
      throw invalidRequest("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice', null);
    return { mode: raw };
  }
  const name = ownValue(ownValue(raw, 'function'), 'name') ?? ownValue(raw, 'name');
  if (typeof name !== 'string') throw invalidRequest(`Invalid value for 'tool_choice'.`, 'tool_choice', 'invalid_value');
  if (!tools.some((t) => t.name === name))
    throw invalidRequest(`Invalid value for 'tool_choice': tool '${name}' is not in 'tools'.`, 'tool_choice', 'invalid_value');
  return { mode: 'named', name };
}

/** A `json_schema` format's schema (chat: `json_schema.schema`; responses: `format.schema`). */
export function jsonSchemaOf(holder: unknown, param: string): { name: string; schema: unknown; strict?: boolean } {
  const name = ownValue(holder, 'name');
  if (typeof name !== 'string') throw invalidRequest(`Missing required parameter: '${param}.name'.`, `${param}.name`, 'missing_required_parameter');
  const schema = ownValue(holder, 'schema') ?? { type: 'object', properties: {} };
  const strict = ownValue(holder, 'strict');
  return { name, schema, ...(typeof strict === 'boolean' ? { strict } : {}) };
}
