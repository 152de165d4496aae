// Scripted answers of the model-provider twins: records of kind `scripted_response`
//   {match: {model?, contains?, matches?, tool?}, response: {text? | tool_calls? | error?}, stream_chunks?}
// tried in insertion order; the first whose every given condition holds answers the request.
// `contains`/`matches` look at the text of the turn being answered (the last input message: the
// user's question, or the tool result an agent sends back), `matches` with RE2 (linear time, no
// catastrophic backtracking on a hostile pattern); `model` is the requested model; `tool` the name
// of a tool the request offers.

import { re2js, type RE2JS } from '../re2.js';
import type { TwinRequest, TwinRoute } from '../contract.js';
import type { RecordStore } from '../record-store.js';

export const SCRIPTED_RESPONSE = 'scripted_response';

export interface ScriptedMatch {
  model?: string;
  contains?: string;
  matches?: string;
  tool?: string;
}

export interface ScriptedToolCall {
  name: string;
  /** The call's arguments (an object; a JSON string is accepted too). */
  arguments: Record<string, unknown>;
  id?: string;
}

export interface ScriptedError {
  status: number;
  type?: string;
  code?: string;
  message?: string;
  param?: string;
}

export interface ScriptedResponse {
  id: string;
  match: ScriptedMatch;
  response: { text?: string; tool_calls?: ScriptedToolCall[]; error?: ScriptedError };
  stream_chunks?: string[];
}

/** What a request offers the matcher. */
export interface TurnToMatch {
  model: string;
  /** Text of the last input message. */
  text: string;
  /** Names of the tools the request offers. */
  tools: string[];
}

const LIMITS = { pattern: 2_000, text: 100_000, chunks: 10_000, toolCalls: 128 };

const compiled = new Map<string, RE2JS | null>();

function regex(pattern: string): RE2JS | null {
  let re = compiled.get(pattern);
  if (re === undefined) {
    try {
      re = re2js().compile(pattern);
    } catch {
      re = null;
    }
    if (compiled.size > 1_000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function own(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * Read a record's fields into a scripted response, or say what is wrong with them (the twin-only
 * helper answers 400 with that sentence; a stored record that does not read is skipped).
 */
export function readScripted(id: string, fields: unknown): ScriptedResponse | string {
  const f = obj(fields);
  if (!f) return 'A scripted response is an object with `match` and `response`.';
  const m = obj(own(f, 'match')) ?? {};
  const match: ScriptedMatch = {};
  for (const key of ['model', 'contains', 'matches', 'tool'] as const) {
    const v = own(m, key);
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return `\`match.${key}\` must be a string.`;
    match[key] = v;
  }
  if (match.matches !== undefined) {
    if (match.matches.length > LIMITS.pattern) return `\`match.matches\` is longer than ${LIMITS.pattern} characters.`;
    if (!regex(match.matches)) return `\`match.matches\` is not a valid RE2 pattern.`;
  }
  const r = obj(own(f, 'response'));
  if (!r) return 'A scripted response needs `response` with `text`, `tool_calls` or `error`.';
  const response: ScriptedResponse['response'] = {};
  const text = own(r, 'text');
  if (text !== undefined) {
    if (typeof text !== 'string' || text.length > LIMITS.text) return `\`response.text\` must be a string of at most ${LIMITS.text} characters.`;
    response.text = text;
  }
  const calls = own(r, 'tool_calls');
  if (calls !== undefined) {
    if (!Array.isArray(calls) || calls.length === 0 || calls.length > LIMITS.toolCalls) return '`response.tool_calls` must be a non-empty list.';
    response.tool_calls = [];
    for (const [i, c] of calls.entries()) {
      const call = obj(c);
      const name = call && str(own(call, 'name'));
      if (!call || !name) return `\`response.tool_calls[${i}].name\` is required.`;
      let args = own(call, 'arguments') ?? own(call, 'input') ?? {};
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          return `\`response.tool_calls[${i}].arguments\` is not valid JSON.`;
        }
      }
      if (!obj(args)) return `\`response.tool_calls[${i}].arguments\` must be an object.`;
      const callId = str(own(call, 'id'));
      response.tool_calls.push({ name, arguments: args as Record<string, unknown>, ...(callId ? { id: callId } : {}) });
    }
  }
  const error = own(r, 'error');
  if (error !== undefined) {
    const e = obj(error);
    const status = e ? own(e, 'status') : undefined;
    if (!e || typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) {
      return '`response.error.status` must be an HTTP error status (400–599).';
    }
    response.error = { status };
    for (const key of ['type', 'code', 'message', 'param'] as const) {
      const v = str(own(e, key));
      if (v !== undefined) response.error[key] = v;
    }
  }
  const kinds = [response.text, response.tool_calls, response.error].filter((v) => v !== undefined).length;
  if (kinds === 0) return 'A scripted response needs `response.text`, `response.tool_calls` or `response.error`.';
  if (response.error && kinds > 1) return '`response.error` cannot be combined with `text` or `tool_calls`.';
  const out: ScriptedResponse = { id, match, response };
  const chunks = own(f, 'stream_chunks');
  if (chunks !== undefined && chunks !== null) {
    if (!Array.isArray(chunks) || chunks.length > LIMITS.chunks || !chunks.every((c) => typeof c === 'string')) {
      return '`stream_chunks` must be a list of strings.';
    }
    if (response.text !== undefined && chunks.join('') !== response.text) return '`stream_chunks` must join to `response.text`.';
    out.stream_chunks = chunks as string[];
  }
  return out;
}

function matches(s: ScriptedResponse, turn: TurnToMatch): boolean {
  const m = s.match;
  if (m.model !== undefined && m.model !== turn.model) return false;
  if (m.contains !== undefined && !turn.text.includes(m.contains)) return false;
  if (m.tool !== undefined && !turn.tools.includes(m.tool)) return false;
  if (m.matches !== undefined) {
    const re = regex(m.matches);
    if (!re?.matcher(turn.text).find()) return false;
  }
  return true;
}

/** The first scripted response (insertion order) that answers this turn. */
export function findScripted(store: RecordStore, turn: TurnToMatch): ScriptedResponse | undefined {
  for (const rec of store.listRecords(SCRIPTED_RESPONSE)) {
    const s = readScripted(rec.external_id, rec.body);
    if (typeof s !== 'string' && matches(s, turn)) return s;
  }
  return undefined;
}

/** Store a scripted response under a fresh id (the twin-only helper and the seeds use this). */
export function addScripted(store: RecordStore, id: string, fields: unknown): ScriptedResponse | string {
  const s = readScripted(id, fields);
  if (typeof s === 'string') return s;
  const { id: _id, ...body } = s;
  store.put(SCRIPTED_RESPONSE, id, body);
  return s;
}

/**
 * The twin-only helper routes both model-provider twins serve: `POST /v1/twin/scripted_responses`
 * adds one (refused with the twin's own 400), `GET` lists them. `tag` is the field naming the
 * object's kind in that provider's style (`object` for OpenAI, `type` for Anthropic).
 */
export function scriptedResponseRoutes(
  readBody: (req: TwinRequest) => Record<string, unknown>,
  refuse: (message: string) => Error,
  tag: 'object' | 'type',
): TwinRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/twin/scripted_responses',
      unmetered: true,
      handler(req, ctx) {
        const id = ctx.ids.nextIn('scripted', 'sr_', 16);
        const s = addScripted(ctx.store, id, readBody(req));
        if (typeof s === 'string') throw refuse(s);
        return { status: 200, body: { id, [tag]: SCRIPTED_RESPONSE, ...(ctx.store.get(SCRIPTED_RESPONSE, id) ?? {}) } };
      },
    },
    {
      method: 'GET',
      path: '/v1/twin/scripted_responses',
      unmetered: true,
      handler: (_req, ctx) => ({
        status: 200,
        body: { data: ctx.store.listRecords(SCRIPTED_RESPONSE).map((r) => ({ id: r.external_id, [tag]: SCRIPTED_RESPONSE, ...r.body })) },
      }),
    },
  ];
}
