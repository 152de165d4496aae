// SendGrid's rules for the generic layer: every v3 operation no hand-written route answers, the
// SendGrid way — JSON bodies checked against the spec and refused with 400
// `{errors: [{field, message}]}`, records kept by resource (`/v3/asm/groups` → `asm.groups`) with
// integer or UUID ids as the schema types them, lists as bare arrays or inside the object field
// the spec names (`{result: [...]}`), `limit`/`offset` paging, 404 `resource not found`.

import type { TwinResponse } from '../../../twin-runtime/contract.js';
import { loadArtefacts } from '../../../twin-runtime/generic/artefacts.js';
import { classifyPagedRest } from '../../../twin-runtime/generic/classify.js';
import { GenericEngine } from '../../../twin-runtime/generic/engine.js';
import { typeOf, type FillField } from '../../../twin-runtime/generic/schema.js';
import type { GenericAdapter, GenericCall, Outcome } from '../../../twin-runtime/generic/types.js';
import type { InputProblem } from '../../../twin-runtime/generic/validate.js';
import { sgTime, uuid } from '../model/records.js';
import { SendGridError, plainError } from './errors.js';
import { isObject } from './params.js';

/** The record field a path parameter names (`template_id` → `id`, `group_id` → `id`). */
function keyFieldFor(param: string): string {
  if (param === 'id' || /_id$/.test(param)) return 'id';
  return param.replace(/[^A-Za-z0-9_]/g, '_');
}

function problemMessage(problem: InputProblem): string {
  const name = problem.field[problem.field.length - 1] ?? 'body';
  switch (problem.kind) {
    case 'missing':
      return `${name} is required`;
    case 'type':
      return `${name} must be ${problem.expected === 'integer' || problem.expected === 'object' || problem.expected === 'array' ? 'an' : 'a'} ${problem.expected}`;
    case 'enum':
      return `${name} must be one of ${(problem.allowed ?? []).join(', ')}`;
    default:
      return `invalid ${name}`;
  }
}

export const sendgridGenericAdapter: GenericAdapter = {
  slug: 'sendgrid',
  scopeMode: 'prefix',
  pagingParams: new Set(['limit', 'offset', 'page_size', 'page_token', 'page', 'after_key', 'before_key']),

  classify(entry, index) {
    // A GET on a collection answering `{result: [...]}` (one array field) is its list.
    return classifyPagedRest(entry, index, keyFieldFor, /^v3\.?/);
  },

  input(req) {
    const body = req.rawBody.length && req.bodyKind === 'json' && isObject(req.body) ? req.body : {};
    if (req.rawBody.length && req.bodyKind !== 'none' && !isObject(req.body) && req.method !== 'GET' && req.method !== 'DELETE') {
      throw new SendGridError(400, [{ field: null, message: 'Bad Request', help: null }]);
    }
    return { query: { ...req.query }, body, coerceBody: false };
  },

  refuse(_call, problem: InputProblem) {
    if (problem.where === 'path') return plainError(404, 'resource not found');
    const field = problem.field.join('.') || null;
    return new SendGridError(400, [{ field, message: problemMessage(problem), help: null }]);
  },

  missing: () => plainError(404, 'resource not found'),

  conflict: (call) => new SendGridError(400, [{ field: call.op.keyField ?? 'id', message: 'already exists', help: null }]),

  // Integer or UUID ids (`fill`, `newKey`); other keys come from the input.
  makes: (_op, field, kind) => kind === 'key' && field === 'id',

  fill(call, field: FillField) {
    if (field.path.length !== 1) return undefined;
    const t = typeOf(field.schema);
    switch (field.name) {
      case 'id':
        return t === 'integer' || t === 'number' ? call.ctx.ids.sequence(`sendgrid:${call.op.resource}`) : t === 'string' ? uuid(call.ctx) : undefined;
      case 'created_at':
      case 'updated_at':
      case 'created':
      case 'updated':
        return t === 'integer' || t === 'number' ? call.ctx.clock.nowSeconds() : t === 'string' ? sgTime(call.ctx) : undefined;
      default:
        return undefined;
    }
  },

  newKey(call, record) {
    const field = call.op.keyField ?? 'id';
    // An optional id the spec leaves out of the built record is still the record's id.
    if (field === 'id' && (record.id === undefined || record.id === null || record.id === ''))
      record.id = call.ctx.ids.sequence(`sendgrid:${call.op.resource}`);
    const v = record[field];
    if (v === undefined || v === null || v === '') throw new SendGridError(400, [{ field, message: `${field} is required`, help: null }]);
    return String(v);
  },

  finish(call, record) {
    // Sender identities are verified by a link in a mailbox the twin does not have: created verified.
    if (call.op.resource === 'verified_senders' && call.op.action === 'create') {
      record.verified = true;
      record.locked = false;
    }
  },

  touch(call, record) {
    if (typeof record.updated_at === 'number') record.updated_at = call.ctx.clock.nowSeconds();
    else if (typeof record.updated_at === 'string') record.updated_at = sgTime(call.ctx);
  },

  listWindow(call) {
    const num = (name: string, dflt: number) => {
      const v = Number(call.query[name]);
      return Number.isFinite(v) && v >= 0 ? Math.floor(v) : dflt;
    };
    const limit = Math.min(500, Math.max(1, num('limit', num('page_size', 50))));
    return { limit, offset: num('offset', 0), order: 'seq', descending: false };
  },

  render(call: GenericCall, outcome: Outcome): TwinResponse {
    const status = call.op.entry.status;
    switch (outcome.kind) {
      case 'record':
        return status === 204 ? { status } : { status, body: outcome.record };
      case 'deleted':
      case 'none':
        return { status: status === 200 && outcome.kind === 'deleted' ? 204 : status };
      case 'page': {
        const items = outcome.items.map((r) => r.body);
        if (!call.op.field) return { status, body: items };
        return { status, body: { [call.op.field]: items, _metadata: { self: `${call.ctx.baseUrl}${call.req.path}`, count: items.length } } };
      }
      case 'answer':
        return call.op.entry.response.kind === 'other' ? { status } : { status, body: outcome.body };
    }
  },
};

/** SendGrid's generic surface over the generated table in twins/sendgrid/spec/. */
export const generic = new GenericEngine(sendgridGenericAdapter, loadArtefacts(import.meta.url));
