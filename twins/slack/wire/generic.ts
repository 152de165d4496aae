// Slack's rules for the generic layer: every Web API method of `@slack/web-api` outside `admin.*`
// that no hand-written method answers, the Slack way — arguments from the query and the body,
// checked against the spec and refused as `invalid_arguments`; `<family>.<verb>` names what a
// method does (`add`/`create` store a record, `list` pages them with `response_metadata.next_cursor`,
// `info` reads one, `edit`/`update` change it, `remove`/`delete` drop it, other verbs answer from
// the spec); a record that is not there answers the method's own `*_not_found` error; the same
// wrapper as the hand-written methods (`ok`, rate limits, scopes header).

import type { TwinResponse } from '../../../twin-runtime/contract.js';
import { loadArtefacts } from '../../../twin-runtime/generic/artefacts.js';
import { GenericEngine } from '../../../twin-runtime/generic/engine.js';
import { isPlainObject, typeOf, type FillField, type Schema } from '../../../twin-runtime/generic/schema.js';
import type { Action, GenericAdapter, GenericCall, Outcome } from '../../../twin-runtime/generic/types.js';
import type { InputProblem } from '../../../twin-runtime/generic/validate.js';
import { getConversation } from '../model/conversations.js';
import { SlackError, invalidArguments } from './errors.js';
import { getMessage, messageView } from '../model/messages.js';
import { decodeCursor, encodeCursor, pageSize } from './pagination.js';
import { slackId } from '../model/slack-ids.js';
import { botUser, currentTeam } from '../model/workspace.js';
import { METHODS } from '../routes/index.js';
import { callArguments, methodRoutes } from './method.js';

/** What Slack's methods of one family keep, where the docs say it (the rest is read from the names). */
interface Family {
  /** Argument(s) naming one record. */
  key?: string[];
  /** Arguments naming the collection's owner (a channel). */
  scope?: string[];
  /** Answer fields holding one record and the list. */
  record?: string;
  list?: string;
  /** Kind letter(s) of new ids, and the record field holding the id. */
  idPrefix?: string;
  idField?: string;
  /** The record stored for the arguments of a create (Slack's own shape). */
  shape?(call: GenericCall): Record<string, unknown>;
  /** Error code for a record that is not there, when the method's docs do not name one. */
  notFound?: string;
}

const now = (call: GenericCall) => call.ctx.clock.nowSeconds();
const argText = (call: GenericCall, name: string) => (call.body[name] === undefined ? undefined : String(call.body[name]));

const FAMILIES: Record<string, Family> = {
  bookmarks: {
    key: ['bookmark_id'],
    scope: ['channel_id'],
    record: 'bookmark',
    list: 'bookmarks',
    idPrefix: 'Bk',
    notFound: 'not_found',
    shape: (call) => ({
      id: slackId(call.ctx, 'Bk'),
      channel_id: argText(call, 'channel_id'),
      title: argText(call, 'title') ?? '',
      link: argText(call, 'link') ?? '',
      emoji: argText(call, 'emoji') ?? null,
      icon_url: null,
      type: argText(call, 'type') ?? 'link',
      entity_id: argText(call, 'entity_id') ?? null,
      date_created: now(call),
      date_updated: 0,
      rank: 'U',
      last_updated_by_user_id: botUser(call.ctx).id,
      last_updated_by_team_id: currentTeam(call.ctx).id,
      shortcut_id: null,
      app_id: null,
    }),
  },
  pins: {
    key: ['timestamp'],
    scope: ['channel'],
    list: 'items',
    notFound: 'no_pin',
    shape(call) {
      const channel = argText(call, 'channel')!;
      const ts = argText(call, 'timestamp');
      if (!ts) throw new SlackError('no_item_specified');
      const m = getMessage(call.ctx, channel, ts);
      if (!m) throw new SlackError('message_not_found');
      return {
        type: 'message',
        created: now(call),
        created_by: botUser(call.ctx).id,
        channel,
        message: { ...messageView(m), pinned_to: [channel] },
      };
    },
  },
  reminders: { key: ['reminder'], record: 'reminder', list: 'reminders', idPrefix: 'Rm', notFound: 'not_found' },
  usergroups: { key: ['usergroup'], record: 'usergroup', list: 'usergroups', idPrefix: 'S', notFound: 'no_such_subteam' },
  calls: { key: ['id'], record: 'call', idPrefix: 'R', notFound: 'invalid_call_id' },
  'slackLists.items': { key: ['id'], scope: ['list_id'], record: 'item', list: 'items', idPrefix: 'Rec' },
  canvases: { key: ['canvas_id'], idField: 'canvas_id', idPrefix: 'F', notFound: 'canvas_not_found' },
  'workflows.featured': { key: ['trigger_id'], scope: ['channel_id'], list: 'featured_workflows' },
};

const VERBS: [RegExp, Action][] = [
  [/^list/, 'list'],
  [/^(add|create|open|start|schedule)$/, 'create'],
  [/^(info|get|read)$/, 'retrieve'],
  [/^(edit|update|rename)$/, 'update'],
  [/^(remove|delete|end|close)$/, 'delete'],
];

function familyOf(method: string): { family: string; verb: string } {
  const parts = method.split('.');
  return { family: parts.slice(0, -1).join('.'), verb: parts[parts.length - 1]! };
}

const singular = (word: string) => word.replace(/ies$/, 'y').replace(/([^s])s$/, '$1');

/** The method's own error for a record that is not there (`bookmark_not_found`, `no_pin`…). */
function notFoundCode(call: GenericCall): string {
  const { family } = familyOf(call.op.entry.id);
  const errors = call.op.entry.errors ?? [];
  const noun = singular(family.split('.').pop()!);
  return (
    errors.find((e) => e === `${noun}_not_found`) ??
    errors.find((e) => /_not_found$/.test(e) && e !== 'channel_not_found' && e !== 'user_not_found') ??
    FAMILIES[family]?.notFound ??
    'not_found'
  );
}

export const slackGenericAdapter: GenericAdapter = {
  slug: 'slack',
  scopeMode: 'prefix',
  pagingParams: new Set(['cursor', 'limit', 'token', 'page', 'count']),

  classify(entry, index) {
    const { family, verb } = familyOf(entry.id);
    const rule = FAMILIES[family] ?? {};
    let action = VERBS.find(([re]) => re.test(verb))?.[1] ?? 'answer';
    // A family keeps records only when some method of it makes them (`team.billing.info` just
    // answers), and not when hand-written methods keep them already (`conversations.close`).
    const makes = ['add', 'create', 'open', 'start', 'schedule'].some((v) => index.get('POST', `/api/${family}.${v}`));
    const handModelled = Object.keys(METHODS).some((m) => familyOf(m).family === family);
    if ((!makes || handModelled) && !FAMILIES[family] && action !== 'answer') action = 'answer';
    const noun = singular(family.split('.').pop()!);
    const field =
      action === 'list'
        ? (rule.list ?? entry.response.lists?.[0] ?? family.split('.').pop())
        : action === 'delete'
          ? undefined
          : (rule.record ?? entry.response.objects?.[0] ?? (action === 'answer' || entry.origin !== 'sdk' ? undefined : noun));
    const keyParams = rule.key ?? [`${noun}_id`];
    return {
      action,
      resource: `slack.${family}`,
      scope: rule.scope ?? [],
      key: keyParams[keyParams.length - 1],
      keyParams: action === 'list' || action === 'answer' ? undefined : keyParams,
      keyField: rule.idField ?? (rule.key && rule.key.length === 1 ? 'id' : undefined),
      field,
    };
  },

  methods: () => ['GET', 'POST'],

  pipeline(op, execute) {
    // Slack's own method wrapper: `ok`, rate limits, SlackError → `{ok:false, error}`.
    const [route] = methodRoutes({
      [op.entry.id]: ({ req, ctx }) => (execute(req, ctx).body ?? {}) as Record<string, unknown>,
    });
    return route!.handler;
  },

  input(req) {
    const args = callArguments(req);
    delete args.token;
    return { query: {}, body: args, coerceBody: true };
  },

  refuse(_call, problem: InputProblem) {
    const field = problem.field.join('.');
    if (problem.kind === 'missing') return invalidArguments(`missing required field: ${field}`);
    if (problem.kind === 'type')
      return invalidArguments(
        `must provide ${problem.expected === 'integer' ? 'an integer' : `a ${problem.expected}`} [json-pointer:/${problem.field.join('/')}]`,
      );
    if (problem.kind === 'enum') return invalidArguments(`must be one of ${(problem.allowed ?? []).join(', ')} [json-pointer:/${problem.field.join('/')}]`);
    return invalidArguments(`invalid value [json-pointer:/${problem.field.join('/')}]`);
  },

  missing: (call) => new SlackError(notFoundCode(call)),

  conflict(call) {
    return new SlackError(call.op.entry.errors?.find((e) => /^already_/.test(e)) ?? 'already_exists');
  },

  checkReferences(call) {
    for (const name of ['channel', 'channel_id']) {
      const id = call.body[name];
      if (typeof id === 'string' && id !== '' && call.op.scope.includes(name) && !getConversation(call.ctx, id)) {
        throw new SlackError('channel_not_found');
      }
    }
  },

  // A method whose documented answer is only `{ok}` describes no record to keep.
  envelopeFields: new Set(['ok', 'warning', 'response_metadata', 'needed', 'provided']),

  // Families with a shape (bookmarks, pins) get Slack's own record from `finish`.
  shapesRecords: (op) => !!FAMILIES[familyOf(op.entry.id).family]?.shape,

  // checkReferences answers `channel_not_found` for a channel argument that names none.
  checksParent: (_op, param) => param === 'channel' || param === 'channel_id',

  fill(call, field: FillField) {
    const t = typeOf(field.schema);
    // Ids the workspace has: the bot user (who the token acts as), its app, its team.
    switch (field.ref) {
      case 'defs_user_id':
        return botUser(call.ctx).id;
      case 'defs_bot_id':
        return botUser(call.ctx).profile.bot_id;
      case 'defs_app_id':
        return botUser(call.ctx).profile.api_app_id;
      case 'defs_team':
        return currentTeam(call.ctx).id;
    }
    if (field.path.length !== 1) return undefined;
    switch (field.name) {
      case 'id': {
        const prefix = FAMILIES[familyOf(call.op.entry.id).family]?.idPrefix ?? 'X';
        return t === 'string' ? slackId(call.ctx, prefix) : undefined;
      }
      case 'created':
      case 'date_create':
      case 'date_created':
      case 'date_updated':
      case 'date_update':
        return t === 'integer' ? now(call) : undefined;
      case 'user':
      case 'user_id':
      case 'creator':
      case 'created_by':
        return t === 'string' ? botUser(call.ctx).id : undefined;
      case 'team':
      case 'team_id':
        return t === 'string' ? currentTeam(call.ctx).id : undefined;
      default:
        return undefined;
    }
  },

  newKey(call, record) {
    const rule = FAMILIES[familyOf(call.op.entry.id).family];
    const keyParams = call.op.keyParams ?? [];
    // Records named by arguments (a pin by its message ts) are kept under those.
    if (rule?.key && !rule.idPrefix && keyParams.length) return keyParams.map((p) => String(call.body[p] ?? '')).join('/');
    const idField = call.op.keyField ?? 'id';
    if (record[idField] === undefined || record[idField] === '') {
      record[idField] = slackId(call.ctx, rule?.idPrefix ?? singular(familyOf(call.op.entry.id).family).slice(0, 1).toUpperCase());
    }
    return String(record[idField]);
  },

  finish(call, record) {
    if (call.op.action !== 'create') return;
    const rule = FAMILIES[familyOf(call.op.entry.id).family];
    if (rule?.shape) {
      const shaped = rule.shape(call);
      const id = record.id;
      for (const k of Object.keys(record)) delete record[k];
      Object.assign(record, shaped);
      if (id !== undefined && shaped.id !== undefined) record.id = id;
    }
  },

  touch(call, record) {
    if ('date_updated' in record) record.date_updated = now(call);
  },

  listWindow(call) {
    // A method whose documented arguments have no cursor answers its whole list (pins.list, reminders.list).
    const args = generic.artefacts.operation(call.op.entry.id).request.body?.schema as Schema | undefined;
    if (args && !args.properties?.cursor) return { limit: 1000, order: 'seq', descending: false };
    const limitArg = call.body.limit === undefined ? undefined : Number(call.body.limit);
    const cursor = typeof call.body.cursor === 'string' && call.body.cursor !== '' ? call.body.cursor : undefined;
    const after = cursor ? { seq: Number(decodeCursor('seq', cursor)) } : undefined;
    if (after && !Number.isInteger(after.seq)) throw new SlackError('invalid_cursor');
    return { limit: pageSize(Number.isFinite(limitArg) ? limitArg : undefined, 100, 1000), order: 'seq', descending: false, after };
  },

  render(call, outcome: Outcome): TwinResponse {
    const field = call.op.field;
    switch (outcome.kind) {
      case 'record':
        // A create whose answer names no record (pins.add) is just `ok`.
        return { status: 200, body: field ? { [field]: outcome.record } : {} };
      case 'page': {
        const last = outcome.seqs[outcome.seqs.length - 1];
        const body: Record<string, unknown> = { [field ?? 'items']: outcome.items.map((r) => r.body) };
        // Cursor metadata, unless the method's documented answer has no room for it.
        const answer = generic.artefacts.operation(call.op.entry.id).response;
        const schema = answer ? generic.resolver.objectSchema(answer as Record<string, unknown>) : undefined;
        if (!schema || schema.properties?.response_metadata || schema.additionalProperties !== false)
          body.response_metadata = { next_cursor: outcome.hasMore && last !== undefined ? encodeCursor('seq', String(last)) : '' };
        return { status: 200, body };
      }
      case 'answer': {
        const body = isPlainObject(outcome.body) ? { ...outcome.body } : {};
        delete body.ok;
        return { status: 200, body };
      }
      default:
        return { status: 200, body: {} };
    }
  },
};

/** Slack's generic surface over the generated table in twins/slack/spec/. */
export const generic = new GenericEngine(slackGenericAdapter, loadArtefacts(import.meta.url));
