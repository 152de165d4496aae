// Views: modals (opened with a live trigger_id, stacked up to three deep with views.push, changed
// with views.update guarded by `hash`) and App Home tabs (views.publish, one per person). A view
// is kept as a `view` record: the view object as the API answers it, plus who sees it and whether
// it is still open.

import { blockKitProblems } from './block-kit.js';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidArguments, SlackError } from '../wire/errors.js';
import { findWhere, type User } from './records.js';
import { slackId } from './slack-ids.js';
import { botUser, currentTeam } from './workspace.js';

export interface ViewRecord {
  id: string;
  /** The person who sees it. */
  user: string;
  kind: 'modal' | 'home';
  open: boolean;
  /** Position in its modal stack (0 = root). */
  depth: number;
  /** Errors the app answered to the last submission (`response_action: errors`), shown under inputs. */
  errors: Record<string, string> | null;
  view: Record<string, unknown>;
}

const MAX_STACK = 3;
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function shortId(ctx: TwinContext, n = 5): string {
  return [...ctx.ids.bytes(n)].map((b) => ID_CHARS[b % ID_CHARS.length]).join('');
}

function hashOf(ctx: TwinContext): string {
  return `${ctx.clock.nowSeconds()}.${ctx.ids.bytes(4).toString('hex')}`;
}

function plainText(v: unknown, field: string, max: number, required: boolean): void {
  if (v === undefined || v === null) {
    if (required) throw invalidArguments(`failed to match all allowed schemas [json-pointer:/view/${field}]`);
    return;
  }
  const t = v as { type?: unknown; text?: unknown };
  if (typeof v !== 'object' || t.type !== 'plain_text' || typeof t.text !== 'string' || t.text === '') {
    throw invalidArguments(`must be a plain_text object [json-pointer:/view/${field}]`);
  }
  if (t.text.length > max) throw invalidArguments(`must be less than ${max + 1} characters [json-pointer:/view/${field}/text]`);
}

/** Elements of a block that carry an action_id (actions, section accessory, input element). */
export function blockElements(block: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (Array.isArray(block.elements) && block.type === 'actions') out.push(...(block.elements as Record<string, unknown>[]));
  if (block.accessory && typeof block.accessory === 'object') out.push(block.accessory as Record<string, unknown>);
  if (block.element && typeof block.element === 'object') out.push(block.element as Record<string, unknown>);
  return out.filter((e) => e && typeof e === 'object');
}

/** Blocks as Slack keeps them: every block has a block_id and every element an action_id. */
export function withIds(ctx: TwinContext, blocks: unknown[]): Record<string, unknown>[] {
  return blocks.map((raw) => {
    const block = { ...(raw as Record<string, unknown>) };
    if (typeof block.block_id !== 'string' || block.block_id === '') block.block_id = shortId(ctx);
    if (Array.isArray(block.elements) && block.type === 'actions') {
      block.elements = (block.elements as Record<string, unknown>[]).map((e) => (typeof e.action_id === 'string' ? e : { ...e, action_id: shortId(ctx) }));
    }
    for (const key of ['accessory', 'element'] as const) {
      const e = block[key] as Record<string, unknown> | undefined;
      if (e && typeof e === 'object' && typeof e.action_id !== 'string') block[key] = { ...e, action_id: shortId(ctx) };
    }
    return block;
  });
}

/** Check a view the app sent and build the view object Slack answers. */
function buildView(
  ctx: TwinContext,
  input: unknown,
  kind: 'modal' | 'home',
  ids: { id: string; rootId?: string; previousId?: string | null },
): Record<string, unknown> {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw invalidArguments('failed to match all allowed schemas [json-pointer:/view]');
  const v = input as Record<string, unknown>;
  if (v.type !== kind) {
    throw invalidArguments(`must be '${kind}' [json-pointer:/view/type]`);
  }
  if (!Array.isArray(v.blocks)) throw invalidArguments('missing required field: blocks [json-pointer:/view]');
  const problems = blockKitProblems(v.blocks, '/view/blocks', 'view');
  if (problems.length > 0) throw invalidArguments(...problems);
  if (kind === 'modal') {
    plainText(v.title, 'title', 24, true);
    plainText(v.submit, 'submit', 24, false);
    plainText(v.close, 'close', 24, false);
    if (v.blocks.some((b) => (b as { type: string }).type === 'input') && v.submit === undefined) {
      throw invalidArguments('must provide a submit property when using input blocks [json-pointer:/view/submit]');
    }
  }
  const str = (name: string, max: number): string => {
    const x = v[name];
    if (x === undefined || x === null) return '';
    if (typeof x !== 'string') throw invalidArguments(`must be a string [json-pointer:/view/${name}]`);
    if (x.length > max) throw invalidArguments(`must be less than ${max + 1} characters [json-pointer:/view/${name}]`);
    return x;
  };
  const team = currentTeam(ctx);
  const bot = botUser(ctx);
  const view: Record<string, unknown> = {
    id: ids.id,
    team_id: team.id,
    type: kind,
    blocks: withIds(ctx, v.blocks),
    private_metadata: str('private_metadata', 3000),
    callback_id: str('callback_id', 255),
    state: { values: {} },
    hash: hashOf(ctx),
    title: v.title ?? { type: 'plain_text', text: 'App Home', emoji: true },
    clear_on_close: v.clear_on_close === true,
    notify_on_close: v.notify_on_close === true,
    close: v.close ?? null,
    submit: v.submit ?? null,
    previous_view_id: ids.previousId ?? null,
    root_view_id: ids.rootId ?? ids.id,
    app_id: bot.profile.api_app_id ?? null,
    external_id: str('external_id', 255),
    app_installed_team_id: team.id,
    bot_id: bot.profile.bot_id ?? null,
  };
  if (kind === 'home') view.title = v.title ?? null;
  return view;
}

export function getView(ctx: TwinContext, id: string): ViewRecord | undefined {
  return ctx.store.get<ViewRecord>('view', id);
}

function save(ctx: TwinContext, rec: ViewRecord): ViewRecord {
  ctx.store.put('view', rec.id, rec);
  return rec;
}

/** The open modals of a stack, root first. */
function stackOf(ctx: TwinContext, rootId: string): ViewRecord[] {
  return ctx.store
    .list<ViewRecord>('view')
    .filter((r) => r.open && r.kind === 'modal' && r.view.root_view_id === rootId)
    .sort((a, b) => a.depth - b.depth);
}

/** The person's open modal on top of its stack, if any. */
export function topModal(ctx: TwinContext, user: string): ViewRecord | undefined {
  const open = findWhere<ViewRecord>(ctx.store, 'view', 'user', user).filter((r) => r.open && r.kind === 'modal');
  return open.sort((a, b) => b.depth - a.depth)[0];
}

export function openModal(ctx: TwinContext, user: string, input: unknown): ViewRecord {
  const id = slackId(ctx, 'V');
  // Opening a modal replaces whatever modal the person had open.
  for (const r of findWhere<ViewRecord>(ctx.store, 'view', 'user', user)) {
    if (r.open && r.kind === 'modal') save(ctx, { ...r, open: false });
  }
  return save(ctx, { id, user, kind: 'modal', open: true, depth: 0, errors: null, view: buildView(ctx, input, 'modal', { id }) });
}

export function pushModal(ctx: TwinContext, user: string, input: unknown): ViewRecord {
  const top = topModal(ctx, user);
  if (!top) throw new SlackError('not_found');
  if (top.depth + 1 >= MAX_STACK) throw new SlackError('push_limit_reached');
  const id = slackId(ctx, 'V');
  const rootId = String(top.view.root_view_id);
  return save(ctx, {
    id,
    user,
    kind: 'modal',
    open: true,
    depth: top.depth + 1,
    errors: null,
    view: buildView(ctx, input, 'modal', { id, rootId, previousId: top.id }),
  });
}

/** The view views.update names (by view_id or external_id). */
export function findView(ctx: TwinContext, viewId: string | undefined, externalId: string | undefined): ViewRecord {
  if (viewId) {
    const r = getView(ctx, viewId);
    if (!r) throw new SlackError('not_found');
    return r;
  }
  if (externalId) {
    const r = ctx.store.list<ViewRecord>('view').find((x) => x.view.external_id === externalId);
    if (!r) throw new SlackError('not_found');
    return r;
  }
  throw new SlackError('invalid_arguments', { response_metadata: { messages: ['[ERROR] view_id or external_id is required'] } });
}

export function updateView(ctx: TwinContext, rec: ViewRecord, input: unknown, hash: string | undefined): ViewRecord {
  if (hash !== undefined && hash !== rec.view.hash) throw new SlackError('hash_conflict');
  const view = buildView(ctx, input, rec.kind, {
    id: rec.id,
    rootId: String(rec.view.root_view_id),
    previousId: (rec.view.previous_view_id as string | null) ?? null,
  });
  return save(ctx, { ...rec, errors: null, view });
}

export function publishHome(ctx: TwinContext, user: User, input: unknown, hash: string | undefined): ViewRecord {
  const existing = homeView(ctx, user.id);
  if (existing) return updateView(ctx, existing, input, hash);
  const id = slackId(ctx, 'V');
  return save(ctx, { id, user: user.id, kind: 'home', open: true, depth: 0, errors: null, view: buildView(ctx, input, 'home', { id }) });
}

export function homeView(ctx: TwinContext, user: string): ViewRecord | undefined {
  return findWhere<ViewRecord>(ctx.store, 'view', 'user', user).find((r) => r.kind === 'home');
}

/** Close one modal, or its whole stack. */
export function closeModal(ctx: TwinContext, rec: ViewRecord, wholeStack: boolean): void {
  const targets = wholeStack ? stackOf(ctx, String(rec.view.root_view_id)) : [rec];
  for (const r of targets) save(ctx, { ...r, open: false });
}

export function setErrors(ctx: TwinContext, rec: ViewRecord, errors: Record<string, string>): void {
  save(ctx, { ...rec, errors });
}

export function setState(ctx: TwinContext, rec: ViewRecord, values: Record<string, unknown>): ViewRecord {
  return save(ctx, { ...rec, view: { ...rec.view, state: { values } } });
}

/** The modal stack a submission's `response_action: push` adds to. */
export function pushOnto(ctx: TwinContext, rec: ViewRecord, input: unknown): ViewRecord {
  if (rec.depth + 1 >= MAX_STACK) throw new SlackError('push_limit_reached');
  const id = slackId(ctx, 'V');
  return save(ctx, {
    id,
    user: rec.user,
    kind: 'modal',
    open: true,
    depth: rec.depth + 1,
    errors: null,
    view: buildView(ctx, input, 'modal', { id, rootId: String(rec.view.root_view_id), previousId: rec.id }),
  });
}
