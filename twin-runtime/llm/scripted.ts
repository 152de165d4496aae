// Scripted answers of the model-provider twins: records of kind `scripted_response`
//   {match: {model?, contains?, matches?, in?, tool?, tool_result?},
//    response: {text? | tool_calls? | error?} | sequence: [response, …], stream_chunks?, times?}
// tried in insertion order; the first whose every given condition holds, and that has answers
// left, answers the request. `contains`/`matches` look at the text of the turn being answered (the
// last input message: the user's question, or the tool result an agent sends back), or with
// `in: "any"` at every message of the conversation (system prompt included); `matches` with RE2
// (linear time, no catastrophic backtracking on a hostile pattern); `model` is the requested model;
// `tool` the name of a tool the request offers; `tool_result` the name of a tool whose result the
// turn carries. A rule with `times` answers that many matching calls, a `sequence` one call per
// step in order; then the next matching rule gets its turn (the twin keeps the count in the
// record's `answered`). A field the twin does not know is refused with a sentence, never dropped.

import { re2js, type RE2JS } from '../re2.js';
import type { TwinRequest, TwinResponse, TwinRoute } from '../contract.js';
import type { RecordStore } from '../record-store.js';

export const SCRIPTED_RESPONSE = 'scripted_response';

export interface ScriptedMatch {
  model?: string;
  contains?: string;
  matches?: string;
  /** Where `contains`/`matches` look: the turn being answered (default) or any message of the conversation. */
  in?: 'last' | 'any';
  tool?: string;
  tool_result?: string;
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

export interface ScriptedAnswer {
  text?: string;
  tool_calls?: ScriptedToolCall[];
  error?: ScriptedError;
}

export interface ScriptedResponse {
  id: string;
  match: ScriptedMatch;
  /** The one answer (every matching call, or `times` of them), or… */
  response?: ScriptedAnswer;
  /** …answers given in order, one per matching call. */
  sequence?: ScriptedAnswer[];
  stream_chunks?: string[];
  times?: number;
  /** Matching calls answered so far (kept by the twin for rules with `times` or a `sequence`). */
  answered: number;
}

/** The answer a rule gives this call. */
export interface ScriptedTurn {
  id: string;
  response: ScriptedAnswer;
  stream_chunks?: string[];
}

/** What a request offers the matcher. */
export interface TurnToMatch {
  model: string;
  /** Text of the last input message. */
  text: string;
  /** Text of every message of the conversation (system prompt included), for `in: "any"`. */
  conversation?: string[];
  /** Names of the tools the request offers. */
  tools: string[];
  /** Names of the tools whose results the turn carries. */
  toolResults?: string[];
}

const LIMITS = { pattern: 2_000, text: 100_000, chunks: 10_000, toolCalls: 128, sequence: 1_000, times: 1_000_000 };

const FIELDS = {
  rule: ['match', 'response', 'sequence', 'stream_chunks', 'times'],
  match: ['model', 'contains', 'matches', 'in', 'tool', 'tool_result'],
  response: ['text', 'tool_calls', 'error'],
  toolCall: ['name', 'arguments', 'input', 'id'],
  error: ['status', 'type', 'code', 'message', 'param'],
} as const;

/** The sentence refusing a field the twin does not know (never silently dropped). */
function unknownField(o: Record<string, unknown>, known: readonly string[], where: string): string | undefined {
  const extra = Object.keys(o).find((k) => !known.includes(k));
  return extra === undefined
    ? undefined
    : `\`${where}${extra}\` is not a field of a scripted response here; the fields are ${known.map((k) => `\`${k}\``).join(', ')}.`;
}

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

/** One answer (`response`, or a step of `sequence`), or what is wrong with it. */
function readAnswer(raw: unknown, where: string): ScriptedAnswer | string {
  const r = obj(raw);
  if (!r) return `\`${where}\` must be an object with \`text\`, \`tool_calls\` or \`error\`.`;
  const unknown = unknownField(r, FIELDS.response, `${where}.`);
  if (unknown) return unknown;
  const response: ScriptedAnswer = {};
  const text = own(r, 'text');
  if (text !== undefined) {
    if (typeof text !== 'string' || text.length > LIMITS.text) return `\`${where}.text\` must be a string of at most ${LIMITS.text} characters.`;
    response.text = text;
  }
  const calls = own(r, 'tool_calls');
  if (calls !== undefined) {
    if (!Array.isArray(calls) || calls.length === 0 || calls.length > LIMITS.toolCalls) return `\`${where}.tool_calls\` must be a non-empty list.`;
    response.tool_calls = [];
    for (const [i, c] of calls.entries()) {
      const call = obj(c);
      const name = call && str(own(call, 'name'));
      if (!call || !name) return `\`${where}.tool_calls[${i}].name\` is required.`;
      const unknownInCall = unknownField(call, FIELDS.toolCall, `${where}.tool_calls[${i}].`);
      if (unknownInCall) return unknownInCall;
      let args = own(call, 'arguments') ?? own(call, 'input') ?? {};
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          return `\`${where}.tool_calls[${i}].arguments\` is not valid JSON.`;
        }
      }
      if (!obj(args)) return `\`${where}.tool_calls[${i}].arguments\` must be an object.`;
      const callId = str(own(call, 'id'));
      response.tool_calls.push({ name, arguments: args as Record<string, unknown>, ...(callId ? { id: callId } : {}) });
    }
  }
  const error = own(r, 'error');
  if (error !== undefined) {
    const e = obj(error);
    const status = e ? own(e, 'status') : undefined;
    if (!e || typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) {
      return `\`${where}.error.status\` must be an HTTP error status (400–599).`;
    }
    const unknownInError = unknownField(e, FIELDS.error, `${where}.error.`);
    if (unknownInError) return unknownInError;
    response.error = { status };
    for (const key of ['type', 'code', 'message', 'param'] as const) {
      const v = str(own(e, key));
      if (v !== undefined) response.error[key] = v;
    }
  }
  const kinds = [response.text, response.tool_calls, response.error].filter((v) => v !== undefined).length;
  if (kinds === 0) return `A scripted response needs \`${where}.text\`, \`${where}.tool_calls\` or \`${where}.error\`.`;
  if (response.error && kinds > 1) return `\`${where}.error\` cannot be combined with \`text\` or \`tool_calls\`.`;
  return response;
}

function readMatch(raw: unknown): ScriptedMatch | string {
  if (raw === undefined || raw === null) return {};
  const m = obj(raw);
  if (!m) return '`match` must be an object.';
  const unknown = unknownField(m, FIELDS.match, 'match.');
  if (unknown) return unknown;
  const match: ScriptedMatch = {};
  for (const key of ['model', 'contains', 'matches', 'tool', 'tool_result'] as const) {
    const v = own(m, key);
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return `\`match.${key}\` must be a string.`;
    match[key] = v;
  }
  const scope = own(m, 'in');
  if (scope !== undefined && scope !== null) {
    if (scope !== 'last' && scope !== 'any') return '`match.in` must be "last" (the turn being answered) or "any" (any message of the conversation).';
    match.in = scope;
  }
  if (match.matches !== undefined) {
    if (match.matches.length > LIMITS.pattern) return `\`match.matches\` is longer than ${LIMITS.pattern} characters.`;
    if (!regex(match.matches)) return `\`match.matches\` is not a valid RE2 pattern.`;
  }
  return match;
}

/**
 * Read a record's fields into a scripted response, or say what is wrong with them (the twin-only
 * helper answers 400 with that sentence; a stored record that does not read is skipped). `answered`
 * is the twin's own count, read from a stored record and refused from a caller.
 */
export function readScripted(id: string, fields: unknown, stored = false): ScriptedResponse | string {
  const f = obj(fields);
  if (!f) return 'A scripted response is an object with `match` and `response` (or `sequence`).';
  const unknown = unknownField(f, stored ? [...FIELDS.rule, 'answered'] : FIELDS.rule, '');
  if (unknown) return unknown;
  const match = readMatch(own(f, 'match'));
  if (typeof match === 'string') return match;
  const out: ScriptedResponse = { id, match, answered: 0 };
  const rawResponse = own(f, 'response');
  const rawSequence = own(f, 'sequence');
  if (rawResponse !== undefined && rawSequence !== undefined) return 'A scripted response has `response` or `sequence`, not both.';
  if (rawSequence !== undefined) {
    if (!Array.isArray(rawSequence) || rawSequence.length === 0 || rawSequence.length > LIMITS.sequence) {
      return `\`sequence\` must be a list of 1 to ${LIMITS.sequence} answers.`;
    }
    out.sequence = [];
    for (const [i, step] of rawSequence.entries()) {
      const answer = readAnswer(step, `sequence[${i}]`);
      if (typeof answer === 'string') return answer;
      out.sequence.push(answer);
    }
  } else {
    if (!obj(rawResponse)) return 'A scripted response needs `response` with `text`, `tool_calls` or `error` (or a `sequence` of them).';
    const answer = readAnswer(rawResponse, 'response');
    if (typeof answer === 'string') return answer;
    out.response = answer;
  }
  const times = own(f, 'times');
  if (times !== undefined && times !== null) {
    if (typeof times !== 'number' || !Number.isInteger(times) || times < 1 || times > LIMITS.times) {
      return `\`times\` must be a whole number from 1 to ${LIMITS.times}.`;
    }
    if (out.sequence) return '`times` cannot be combined with `sequence`: a sequence answers one matching call per step.';
    out.times = times;
  }
  const chunks = own(f, 'stream_chunks');
  if (chunks !== undefined && chunks !== null) {
    if (!Array.isArray(chunks) || chunks.length > LIMITS.chunks || !chunks.every((c) => typeof c === 'string')) {
      return '`stream_chunks` must be a list of strings.';
    }
    if (!out.response) return '`stream_chunks` goes with `response.text`; a `sequence` streams each text word by word.';
    if (out.response.text !== undefined && chunks.join('') !== out.response.text) return '`stream_chunks` must join to `response.text`.';
    out.stream_chunks = chunks as string[];
  }
  const answered = own(f, 'answered');
  if (stored && typeof answered === 'number' && Number.isInteger(answered) && answered > 0) out.answered = answered;
  return out;
}

/** How many matching calls the rule answers in all (undefined: every one). */
function capacity(s: ScriptedResponse): number | undefined {
  return s.sequence ? s.sequence.length : s.times;
}

function textMatches(m: ScriptedMatch, text: string): boolean {
  if (m.contains !== undefined && !text.includes(m.contains)) return false;
  if (m.matches !== undefined && !regex(m.matches)?.matcher(text).find()) return false;
  return true;
}

function matches(s: ScriptedResponse, turn: TurnToMatch): boolean {
  const m = s.match;
  if (m.model !== undefined && m.model !== turn.model) return false;
  if (m.tool !== undefined && !turn.tools.includes(m.tool)) return false;
  if (m.tool_result !== undefined && !(turn.toolResults ?? []).includes(m.tool_result)) return false;
  if (m.contains === undefined && m.matches === undefined) return true;
  if (m.in === 'any') return (turn.conversation ?? [turn.text]).some((text) => textMatches(m, text));
  return textMatches(m, turn.text);
}

/**
 * The answer of the first scripted response (insertion order) that matches this turn and has
 * answers left; a rule with `times` or a `sequence` counts the call in its record. The count is a
 * write of the request: a scripted error must be answered, not thrown, for it to stay
 * (`answerScriptedErrors`).
 */
export function findScripted(store: RecordStore, turn: TurnToMatch): ScriptedTurn | undefined {
  for (const rec of store.listRecords(SCRIPTED_RESPONSE)) {
    const s = readScripted(rec.external_id, rec.body, true);
    if (typeof s === 'string' || !matches(s, turn)) continue;
    const limit = capacity(s);
    if (limit !== undefined) {
      if (s.answered >= limit) continue;
      store.put(SCRIPTED_RESPONSE, rec.external_id, { ...rec.body, answered: s.answered + 1 });
    }
    const response = s.sequence ? s.sequence[s.answered]! : s.response!;
    return { id: s.id, response, ...(s.stream_chunks ? { stream_chunks: s.stream_chunks } : {}) };
  }
  return undefined;
}

/** Store a scripted response under a fresh id (the twin-only helper and the seeds use this). */
export function addScripted(store: RecordStore, id: string, fields: unknown): ScriptedResponse | string {
  const s = readScripted(id, fields);
  if (typeof s === 'string') return s;
  const { id: _id, answered: _answered, ...body } = s;
  store.put(SCRIPTED_RESPONSE, id, body);
  return s;
}

const SCRIPTED_FAILURE = Symbol('scripted failure');

/** Mark a provider error as a scripted answer (see `answerScriptedErrors`). */
export function scriptedFailure<E extends Error>(error: E): E {
  Object.defineProperty(error, SCRIPTED_FAILURE, { value: true });
  return error;
}

/**
 * A route whose scripted errors are answered rather than thrown: a throw rolls the request's
 * writes back, the script's count with them, and a `times: 1` 429 would then answer every retry.
 */
export function answerScriptedErrors(route: TwinRoute, render: (error: unknown) => TwinResponse | undefined): TwinRoute {
  return {
    ...route,
    async handler(req, ctx) {
      try {
        return await route.handler(req, ctx);
      } catch (e) {
        const rendered = e && typeof e === 'object' && SCRIPTED_FAILURE in e ? render(e) : undefined;
        if (rendered) return rendered;
        throw e;
      }
    },
  };
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
