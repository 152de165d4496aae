// Twilio's rules for the generic layer: every operation of the 2010-04-01 API and Verify v2 that no
// hand-written route answers, the Twilio way — form bodies checked against the spec (PascalCase
// parameters, kept as the snake_case fields of the record), SIDs of the resource's own two letters
// and 32 hex, the caller's AccountSid, RFC 2822 dates in 2010-04-01 and ISO 8601 in v2, `uri`/`url`
// built from the path, records kept below the path's owners, Twilio's paging envelopes
// (`PageSize`, `Page`, `PageToken`), `{code, message, more_info, status}` errors, 204 after deletes.

import type { TwinResponse } from '../../../twin-runtime/contract.js';
import { loadArtefacts } from '../../../twin-runtime/generic/artefacts.js';
import { classifyRest, paramName, staticName } from '../../../twin-runtime/generic/classify.js';
import { GenericEngine } from '../../../twin-runtime/generic/engine.js';
import { typeOf, type FillField } from '../../../twin-runtime/generic/schema.js';
import type { OperationEntry } from '../../../twin-runtime/generic/spec-types.js';
import type { GenericAdapter, Outcome } from '../../../twin-runtime/generic/types.js';
import type { InputProblem } from '../../../twin-runtime/generic/validate.js';
import { account } from '../model/account.js';
import { API, iso, rfc2822, sid } from '../model/records.js';
import { ownAccount } from './auth.js';
import { badParam, notFound, TwilioError } from './errors.js';
import { envelope2010, envelopeV2 } from './pagination.js';
import { int } from './params.js';

/** `FriendlyName` → `friendly_name`, `SmsUrl` → `sms_url`. */
export function snake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** The template without Twilio's `.json` suffix, so `{Sid}.json` reads as a key segment. */
const bare = (path: string) => path.replace(/\.json$/, '');
const isV2010 = (path: string) => path.startsWith(`${API}/`);

/** The two letters a SID schema's pattern starts with (`^AD[0-9a-fA-F]{32}$` → `AD`). */
function sidPrefix(schema: unknown): string | undefined {
  const pattern = (schema as { pattern?: unknown } | undefined)?.pattern;
  // `^(SM|MM)[0-9a-fA-F]{32}$`: the first of the alternatives.
  return typeof pattern === 'string' ? /^\^(?:\()?([A-Z]{2})(?:\|[A-Z]{2})*\)?\[0-9a-fA-F\]\{32\}\$$/.exec(pattern)?.[1] : undefined;
}

export const twilioGenericAdapter: GenericAdapter = {
  slug: 'twilio',
  scopeMode: 'prefix',
  // Twilio's answers list every field (none is `required` in its spec).
  optionalFields: true,
  pagingParams: new Set(['PageSize', 'Page', 'PageToken']),

  classify(entry, index) {
    const plain: OperationEntry = { ...entry, path: bare(entry.path) };
    const shape = classifyRest(plain, { get: (method, template) => index.get(method, template) ?? index.get(method, `${template}.json`) });
    const product = isV2010(entry.path) ? 'api' : 'verify';
    const collection = staticName(shape.collection).replace(/^(2010-04-01\.Accounts|2010-04-01|v2)\.?/, '');
    let keyField: string | undefined;
    if (shape.key) keyField = shape.key === 'Sid' ? 'sid' : snake(shape.key);
    else if (shape.action === 'create') {
      const item = index.get('GET', `${bare(entry.path)}/{x}.json`) ?? index.get('GET', `${bare(entry.path)}/{x}`);
      const itemKey = item ? paramName(bare(item.path).split('/').pop()!) : undefined;
      keyField = itemKey && itemKey !== 'Sid' ? snake(itemKey) : 'sid';
    }
    return {
      action: shape.action,
      resource: `${product}.${collection || 'Accounts'}`,
      scope: shape.scope,
      key: shape.key,
      keyField,
      verb: shape.verb,
      field: shape.action === 'list' ? entry.response.lists?.[0] : undefined,
    };
  },

  input(req) {
    const body: Record<string, unknown> = {};
    const source = req.bodyKind === 'none' ? {} : req.body;
    for (const [k, v] of Object.entries(source)) {
      body[k] = v;
      const s = snake(k);
      if (!(s in source)) body[s] = v;
    }
    return { query: { ...req.query }, body, coerceBody: true };
  },

  refuse(call, problem: InputProblem) {
    if (problem.where === 'path') return notFound(call.req.path);
    const name = problem.field[problem.field.length - 1] ?? '';
    const where = problem.where === 'query' ? 'query string' : 'post body';
    if (problem.kind === 'missing') return badParam(20001, `Missing required parameter ${name} in the ${where}`);
    return badParam(20001, `Invalid parameter: ${name}`);
  },

  missing: (call) => notFound(call.req.path),
  conflict: (call, key) => new TwilioError(409, 20409, `Resource ${key} already exists at ${call.req.path}`),

  checkReferences(call) {
    ownAccount(call.req, call.ctx);
  },

  // The account the path names is the caller's own (checkReferences: Twilio's 20404 otherwise).
  checksParent: (_op, param) => param === 'AccountSid',

  // SIDs of the resource's own two letters (`fill`); `uri` and `url` built from the path (`finish`).
  makes: (_op, field, kind, schema) => (kind === 'key' ? !!sidPrefix(schema) || field === 'sid' : kind === 'url' && (field === 'url' || field === 'uri')),

  fill(call, field: FillField) {
    if (field.path.length !== 1) return undefined;
    const t = typeOf(field.schema);
    const name = field.name;
    const prefix = sidPrefix(field.schema);
    if (prefix) {
      if (prefix === 'AC') return account(call.ctx).sid;
      if (name === 'sid' || name === call.op.keyField) return sid(call.ctx, prefix);
      // A SID the path names (`call_sid` below `/Calls/{CallSid}/…`).
      for (const [p, v] of Object.entries(call.params)) if (snake(p) === name) return v;
      return null;
    }
    const v2010 = isV2010(call.op.entry.path);
    switch (name) {
      case 'date_created':
      case 'date_updated':
        return t === 'string' || t === undefined ? (v2010 ? rfc2822(call.ctx.clock.nowMs()) : iso(call.ctx.clock.nowMs())) : undefined;
      case 'api_version':
        return v2010 ? '2010-04-01' : undefined;
      default:
        return undefined;
    }
  },

  newKey(call, record) {
    const v = record[call.op.keyField ?? 'sid'] ?? record.sid;
    if (typeof v !== 'string' || v === '') throw badParam(20001, `Missing required parameter ${call.op.keyField ?? 'Sid'} in the post body`);
    return v;
  },

  finish(call, record, key) {
    const path = call.op.action === 'create' ? `${bare(call.req.path)}/${key}${isV2010(call.req.path) ? '.json' : ''}` : call.req.path;
    if ('uri' in record) record.uri = path;
    if ('url' in record) record.url = `${call.ctx.baseUrl}${path}`;
  },

  touch(call, record) {
    if ('date_updated' in record) record.date_updated = isV2010(call.op.entry.path) ? rfc2822(call.ctx.clock.nowMs()) : iso(call.ctx.clock.nowMs());
  },

  listWindow(call) {
    const limit = int(call.req, 'PageSize', 50, 1, 1000);
    const page = int(call.req, 'Page', 0, 0, 1_000_000);
    return { limit, offset: page * limit, order: 'seq', descending: false };
  },

  render(call, outcome: Outcome): TwinResponse {
    const status = call.op.entry.status;
    const json = (code: number, body: unknown): TwinResponse => ({ status: code, headers: { 'content-type': 'application/json; charset=utf-8' }, body });
    switch (outcome.kind) {
      case 'record':
        return status === 204 ? { status } : json(status, outcome.record);
      case 'deleted':
      case 'none':
        return { status: status === 200 && outcome.kind === 'deleted' ? 204 : status };
      case 'page': {
        const w = outcome.window;
        const key = call.op.field ?? 'items';
        const items = outcome.items.map((r) => ({ sid: String((r.body as { sid?: unknown }).sid ?? r.external_id), body: r.body }));
        const window = {
          items,
          page: Math.floor((w.offset ?? 0) / w.limit),
          pageSize: w.limit,
          start: w.offset ?? 0,
          hasMore: outcome.hasMore,
          lastSid: items.at(-1)?.sid,
          firstSid: items[0]?.sid,
        };
        const body = isV2010(call.op.entry.path)
          ? envelope2010(call.req.path, key, {}, window, (x) => x.body)
          : envelopeV2(`${call.ctx.baseUrl}${call.req.path}`, key, window, (x) => x.body);
        return json(status, body);
      }
      case 'answer':
        return call.op.entry.response.kind === 'other' ? { status } : json(status, outcome.body);
    }
  },
};

/** Twilio's generic surface over the generated table in twins/twilio/spec/. */
export const generic = new GenericEngine(twilioGenericAdapter, loadArtefacts(import.meta.url));
