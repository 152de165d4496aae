// What a person does in Slack's UI and what the app receives for it: slash commands, clicks on
// message or view elements, modal submissions and closes, opening App Home. Each payload carries
// a live `trigger_id` (usable once, for 3 s of wall-clock time, to open or push a view) and, where
// Slack gives one, a `response_url` (5 uses within 30 minutes). The app's answer — a command's
// response body, a submission's `response_action` — is applied when it arrives.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError, invalidArguments } from '../wire/errors.js';
import { appLink, socketMode, type AppAnswer, type EnvelopeType } from './app-link.js';
import { imWith, isMember } from './conversations.js';
import { emitEvent } from './events.js';
import { contentError, deleteMessage, getMessage, messageView, postMessage, updateMessage, type MessageContent } from './messages.js';
import type { Conversation, Message, User } from './records.js';
import { getSetting } from './settings.js';
import { nextTs } from './slack-ids.js';
import { blockElements, closeModal, getView, homeView, pushOnto, setErrors, setState, updateView, type ViewRecord } from './views.js';
import { botUser, currentTeam } from './workspace.js';

// ---- trigger ids ---------------------------------------------------------------------------

interface TriggerRecord {
  id: string;
  user: string;
  issued_ms: number;
  used: boolean;
}

function digits(ctx: TwinContext, n: number): string {
  return [...ctx.ids.bytes(n)]
    .map((b) => String(b % 10))
    .join('')
    .replace(/^0/, '1');
}

export function issueTrigger(ctx: TwinContext, user: string): string {
  const id = `${digits(ctx, 13)}.${digits(ctx, 13)}.${ctx.ids.bytes(16).toString('hex')}`;
  ctx.store.put('trigger', id, { id, user, issued_ms: Date.now(), used: false } satisfies TriggerRecord);
  return id;
}

/** Spend a trigger_id (views.open/push): the person it was issued for. */
export function useTrigger(ctx: TwinContext, triggerId: string | undefined): string {
  if (!triggerId) throw new SlackError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: trigger_id'] } });
  const t = ctx.store.get<TriggerRecord>('trigger', triggerId);
  if (!t) throw new SlackError('invalid_trigger_id');
  if (t.used) throw new SlackError('exchanged_trigger_id');
  if (Date.now() - t.issued_ms > getSetting(ctx, 'app').trigger_ttl_ms) throw new SlackError('expired_trigger_id');
  ctx.store.put('trigger', triggerId, { ...t, used: true });
  return t.user;
}

// ---- response URLs -------------------------------------------------------------------------

export interface ResponseUrlRecord {
  id: string;
  token: string;
  kind: 'commands' | 'actions';
  channel: string;
  user: string;
  /** The message clicked (replace_original / delete_original act on it). */
  message_ts: string | null;
  issued_ms: number;
  uses: number;
}

const RESPONSE_URL_TTL_MS = 30 * 60 * 1000;
const RESPONSE_URL_USES = 5;

function issueResponseUrl(ctx: TwinContext, kind: ResponseUrlRecord['kind'], channel: string, user: string, messageTs: string | null): string {
  const id = digits(ctx, 13);
  const token = ctx.ids.token(24);
  ctx.store.put('response_url', id, { id, token, kind, channel, user, message_ts: messageTs, issued_ms: Date.now(), uses: 0 } satisfies ResponseUrlRecord);
  return `${ctx.baseUrl.replace(/\/+$/, '')}/${kind}/${currentTeam(ctx).id}/${id}/${token}`;
}

/** The response URL a POST names, spent once; Slack's refusals for unknown, expired and used URLs. */
export function spendResponseUrl(ctx: TwinContext, kind: string, id: string, token: string): ResponseUrlRecord {
  const r = ctx.store.get<ResponseUrlRecord>('response_url', id);
  if (!r || r.token !== token || r.kind !== kind) throw new SlackError('invalid_url');
  if (Date.now() - r.issued_ms > RESPONSE_URL_TTL_MS) throw new SlackError('expired_url');
  if (r.uses >= RESPONSE_URL_USES) throw new SlackError('used_url');
  const spent = { ...r, uses: r.uses + 1 };
  ctx.store.put('response_url', id, spent);
  return spent;
}

/** An ephemeral message: only its recipient sees it; kept as an `ephemeral_message` record for inspection. */
export function postEphemeral(ctx: TwinContext, channel: string, recipient: string, author: User, content: MessageContent, threadTs?: string): string {
  const ts = nextTs(ctx);
  ctx.store.put('ephemeral_message', `${channel}:${ts}`, {
    type: 'message',
    subtype: 'ephemeral',
    channel,
    recipient,
    user: author.id,
    ts,
    text: content.text ?? '',
    ...(content.blocks !== undefined ? { blocks: content.blocks } : {}),
    ...(content.attachments !== undefined ? { attachments: content.attachments } : {}),
    ...(threadTs ? { thread_ts: threadTs } : {}),
  });
  return ts;
}

/** A message sent to a response URL (or as a command's response body), as Slack applies it. */
export function respond(ctx: TwinContext, r: ResponseUrlRecord, body: Record<string, unknown>): void {
  const bot = botUser(ctx);
  const c = ctx.store.get<Conversation>('channel', r.channel);
  if (!c) throw new SlackError('channel_not_found');
  const content: MessageContent = { text: str(body.text), blocks: body.blocks, attachments: body.attachments };
  const truthy = (v: unknown) => v === true || v === 'true';
  if (truthy(body.delete_original)) {
    if (!r.message_ts) throw new SlackError('no_original_message');
    deleteMessage(ctx, c, r.message_ts, bot);
    return;
  }
  const bad = contentError(content);
  if (bad) throw bad;
  if (truthy(body.replace_original) && r.message_ts) {
    const original = getMessage(ctx, c.id, r.message_ts);
    if (!original) throw new SlackError('message_not_found');
    updateMessage(ctx, c, r.message_ts, ctx.store.get<User>('user', original.user ?? '') ?? bot, content);
    return;
  }
  const threadTs = str(body.thread_ts);
  if (body.response_type === 'in_channel') {
    postMessage(ctx, c, bot, { ...content, ...(threadTs ? { thread_ts: threadTs } : {}) });
    return;
  }
  postEphemeral(ctx, c.id, r.user, bot, content, threadTs);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

// ---- delivery ------------------------------------------------------------------------------

function userRef(ctx: TwinContext, u: User): Record<string, unknown> {
  return { id: u.id, username: u.name, name: u.name, team_id: currentTeam(ctx).id };
}

function common(ctx: TwinContext): { team: Record<string, unknown>; api_app_id: string | null; token: string } {
  const team = currentTeam(ctx);
  return {
    team: { id: team.id, domain: team.domain },
    api_app_id: botUser(ctx).profile.api_app_id ?? null,
    token: getSetting(ctx, 'events').verification_token,
  };
}

/** Where an HTTP-mode app takes interactivity (or a command), or undefined in Socket Mode. */
function httpTarget(ctx: TwinContext, command?: string): string | undefined {
  const app = getSetting(ctx, 'app');
  const events = getSetting(ctx, 'events');
  const url = (command ? app.commands[command] : app.interactivity_url) ?? events.request_url;
  if (!url)
    throw new SlackError('app_unreachable', { response_metadata: { messages: ['[ERROR] the app has neither Socket Mode nor a request URL for this'] } });
  return url;
}

function send(
  ctx: TwinContext,
  type: EnvelopeType,
  payload: Record<string, unknown>,
  onAnswer?: (ctx: TwinContext, a: AppAnswer) => void,
  command?: string,
): void {
  if (socketMode(ctx)) {
    appLink(ctx).stage({ type, payload, onAnswer });
    return;
  }
  const url = httpTarget(ctx, command);
  const form: Record<string, string> =
    type === 'slash_commands'
      ? (Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, String(v)])) as Record<string, string>)
      : { payload: JSON.stringify(payload) };
  appLink(ctx).stage({ type, payload, onAnswer, http: { url: url!, form } });
}

// ---- what people do ------------------------------------------------------------------------

function channelName(c: Conversation): string {
  if (c.is_im) return 'directmessage';
  if (c.is_mpim) return 'mpdm';
  return c.name ?? c.id;
}

export function runCommand(ctx: TwinContext, user: User, c: Conversation, command: string, text: string): { trigger_id: string; response_url: string } {
  if (!/^\/[a-z0-9_-]{1,31}$/i.test(command)) throw invalidArguments('command must look like /name');
  if (!isMember(ctx, c.id, user.id)) throw new SlackError('not_in_channel');
  const trigger = issueTrigger(ctx, user.id);
  const responseUrl = issueResponseUrl(ctx, 'commands', c.id, user.id, null);
  const { team, api_app_id, token } = common(ctx);
  const payload = {
    token,
    team_id: team.id,
    team_domain: team.domain,
    channel_id: c.id,
    channel_name: channelName(c),
    user_id: user.id,
    user_name: user.name,
    command,
    text,
    api_app_id,
    is_enterprise_install: 'false',
    response_url: responseUrl,
    trigger_id: trigger,
  };
  const responseId = responseUrl.split('/').at(-2)!;
  send(
    ctx,
    'slash_commands',
    payload,
    (ctx2, answer) => {
      // A response body with a message is posted as if sent to the response URL.
      if (!answer || (answer.text === undefined && answer.blocks === undefined && answer.attachments === undefined)) return;
      const r = ctx2.store.get<ResponseUrlRecord>('response_url', responseId);
      if (r) respond(ctx2, r, answer);
    },
    command,
  );
  return { trigger_id: trigger, response_url: responseUrl };
}

/** The element a click names, and its block. */
function findElement(blocks: unknown, actionId: string): { block: Record<string, unknown>; element: Record<string, unknown> } {
  if (Array.isArray(blocks)) {
    for (const b of blocks as Record<string, unknown>[]) {
      if (!b || typeof b !== 'object') continue;
      const element = blockElements(b).find((e) => e.action_id === actionId);
      if (element) return { block: b, element };
    }
  }
  throw new SlackError('action_not_found', { response_metadata: { messages: [`[ERROR] no element with action_id ${actionId}`] } });
}

function options(element: Record<string, unknown>): Record<string, unknown>[] {
  const direct = Array.isArray(element.options) ? (element.options as Record<string, unknown>[]) : [];
  const grouped = Array.isArray(element.option_groups)
    ? (element.option_groups as { options?: Record<string, unknown>[] }[]).flatMap((g) => g.options ?? [])
    : [];
  return [...direct, ...grouped];
}

function option(element: Record<string, unknown>, value: string): Record<string, unknown> {
  const found = options(element).find((o) => o.value === value);
  if (!found) throw invalidArguments(`no option with value ${value}`);
  return found;
}

/** What an element's state (or a click on it) carries for a chosen value. */
function elementValue(element: Record<string, unknown>, value: unknown): Record<string, unknown> {
  const type = String(element.type);
  if (value && typeof value === 'object' && !Array.isArray(value)) return { ...(value as Record<string, unknown>), type };
  const list = Array.isArray(value) ? value.map(String) : value === undefined || value === null ? [] : [String(value)];
  const one = list[0];
  switch (type) {
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      return { type, selected_option: one === undefined ? null : option(element, one) };
    case 'multi_static_select':
    case 'multi_external_select':
    case 'checkboxes':
      return { type, selected_options: list.map((v) => option(element, v)) };
    case 'users_select':
      return { type, selected_user: one ?? null };
    case 'multi_users_select':
      return { type, selected_users: list };
    case 'conversations_select':
      return { type, selected_conversation: one ?? null };
    case 'multi_conversations_select':
      return { type, selected_conversations: list };
    case 'channels_select':
      return { type, selected_channel: one ?? null };
    case 'multi_channels_select':
      return { type, selected_channels: list };
    case 'datepicker':
      return { type, selected_date: one ?? null };
    case 'timepicker':
      return { type, selected_time: one ?? null };
    case 'datetimepicker':
      return { type, selected_date_time: one === undefined ? null : Number(one) };
    default:
      return { type, value: one ?? null };
  }
}

export interface ClickTarget {
  message?: { channel: Conversation; message: Message };
  view?: ViewRecord;
}

export function click(
  ctx: TwinContext,
  user: User,
  target: ClickTarget,
  actionId: string,
  value: unknown,
): { trigger_id: string; response_url: string | null } {
  const blocks = target.message ? target.message.message.blocks : target.view!.view.blocks;
  const { block, element } = findElement(blocks, actionId);
  const trigger = issueTrigger(ctx, user.id);
  const { team, api_app_id, token } = common(ctx);
  const actionTs = `${ctx.clock.nowSeconds()}.${String(ctx.ids.sequence('action_ts') % 1_000_000).padStart(6, '0')}`;
  const action: Record<string, unknown> = { action_id: actionId, block_id: block.block_id, ...actionFields(element, value), action_ts: actionTs };
  const payload: Record<string, unknown> = { type: 'block_actions', user: userRef(ctx, user), api_app_id, token };
  let responseUrl: string | null = null;
  if (target.message) {
    const { channel: c, message: m } = target.message;
    if (!isMember(ctx, c.id, user.id)) throw new SlackError('not_in_channel');
    responseUrl = issueResponseUrl(ctx, 'actions', c.id, user.id, m.ts);
    Object.assign(payload, {
      container: { type: 'message', message_ts: m.ts, channel_id: c.id, is_ephemeral: false },
      trigger_id: trigger,
      team,
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: c.id, name: channelName(c) },
      message: messageView(m),
      state: { values: {} },
      response_url: responseUrl,
      actions: [action],
    });
  } else {
    const rec = target.view!;
    Object.assign(payload, {
      container: { type: 'view', view_id: rec.id },
      trigger_id: trigger,
      team,
      enterprise: null,
      is_enterprise_install: false,
      view: rec.view,
      actions: [action],
    });
  }
  send(ctx, 'interactive', payload);
  return { trigger_id: trigger, response_url: responseUrl };
}

function actionFields(element: Record<string, unknown>, value: unknown): Record<string, unknown> {
  const type = String(element.type);
  if (type === 'button' || type === 'overflow' || type === 'workflow_button') {
    const out: Record<string, unknown> = { type, text: element.text };
    if (type === 'overflow') out.selected_option = option(element, String(value));
    else out.value = value === undefined ? element.value : String(value);
    if (element.style) out.style = element.style;
    return out;
  }
  return elementValue(element, value);
}

/** A person's view by id: open, theirs. */
export function personView(ctx: TwinContext, user: User, viewId: string | undefined): ViewRecord {
  const rec = viewId ? getView(ctx, viewId) : undefined;
  if (!rec || rec.user !== user.id || !rec.open) throw new SlackError('not_found');
  return rec;
}

/** Submitted values as `view.state.values`, from `{block_id: {action_id: value}}`. */
function stateValues(rec: ViewRecord, values: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const blocks = (rec.view.blocks as Record<string, unknown>[]) ?? [];
  for (const block of blocks) {
    if (block.type !== 'input') continue;
    const element = block.element as Record<string, unknown> | undefined;
    if (!element) continue;
    const blockId = String(block.block_id);
    const actionId = String(element.action_id);
    const given = values[blockId] as Record<string, unknown> | undefined;
    const value = given && typeof given === 'object' ? given[actionId] : undefined;
    if ((value === undefined || value === '' || value === null) && block.optional !== true) {
      throw invalidArguments(`a value is required for input block ${blockId}`);
    }
    out[blockId] = { [actionId]: elementValue(element, value) };
  }
  return out;
}

export function submitView(ctx: TwinContext, user: User, rec: ViewRecord, values: Record<string, unknown>): { trigger_id: string } {
  if (rec.kind !== 'modal') throw new SlackError('not_found');
  const state = stateValues(rec, values);
  const submitted = setState(ctx, rec, state);
  const trigger = issueTrigger(ctx, user.id);
  const { team, api_app_id, token } = common(ctx);
  const payload = {
    type: 'view_submission',
    team,
    user: userRef(ctx, user),
    api_app_id,
    token,
    trigger_id: trigger,
    view: submitted.view,
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
  send(ctx, 'interactive', payload, (ctx2, answer) => applyResponseAction(ctx2, rec.id, answer));
  return { trigger_id: trigger };
}

/** The app's answer to a submission: errors, update, push, clear, or (nothing) close this view. */
function applyResponseAction(ctx: TwinContext, viewId: string, answer: AppAnswer): void {
  const rec = getView(ctx, viewId);
  if (!rec?.open) return;
  const action = answer?.response_action;
  switch (action) {
    case 'errors': {
      const errors = answer!.errors;
      if (errors && typeof errors === 'object' && !Array.isArray(errors)) {
        setErrors(ctx, rec, Object.fromEntries(Object.entries(errors as Record<string, unknown>).map(([k, v]) => [k, String(v)])));
      }
      return;
    }
    case 'update':
      updateView(ctx, rec, answer!.view, undefined);
      return;
    case 'push':
      pushOnto(ctx, rec, answer!.view);
      return;
    case 'clear':
      closeModal(ctx, rec, true);
      return;
    default:
      closeModal(ctx, rec, false);
  }
}

export function closeView(ctx: TwinContext, user: User, rec: ViewRecord): void {
  if (rec.kind !== 'modal') throw new SlackError('not_found');
  const clear = rec.view.clear_on_close === true;
  closeModal(ctx, rec, clear);
  if (rec.view.notify_on_close !== true) return;
  const { team, api_app_id, token } = common(ctx);
  send(ctx, 'interactive', {
    type: 'view_closed',
    team,
    user: userRef(ctx, user),
    api_app_id,
    token,
    view: rec.view,
    is_cleared: clear,
    is_enterprise_install: false,
    enterprise: null,
  });
}

export function openHome(ctx: TwinContext, user: User): { channel: string } {
  const bot = botUser(ctx);
  const im = imWith(ctx, bot, user.id);
  const home = homeView(ctx, user.id);
  emitEvent(ctx, { type: 'app_home_opened', user: user.id, channel: im.id, tab: 'home', ...(home ? { view: home.view } : {}) });
  return { channel: im.id };
}
