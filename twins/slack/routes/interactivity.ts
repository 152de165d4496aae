// Twin-only person methods (what someone does in Slack's UI; the app receives exactly what Slack
// sends for it), response URLs, Socket Mode's apps.connections.open and twin.socket.disconnect.
//   twin.commands.run     {user, channel, command, text?}               → {trigger_id, response_url}
//   twin.actions.click    {user, channel+message_ts | view_id, action_id, value?}
//   twin.views.submit     {user, view_id, values: {block_id: {action_id: value}}}
//   twin.views.close      {user, view_id}
//   twin.views.get        {view_id}                                      → {view, open, errors}
//   twin.home.open        {user}
//   twin.reactions.add    {user, channel, timestamp, name}               (a person reacts)
//   twin.socket.disconnect {reason?}

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { SlackError, invalidArguments } from '../wire/errors.js';
import { callArguments, type MethodTable } from '../wire/method.js';
import { Args } from '../wire/params.js';
import { appLink } from '../model/app-link.js';
import { resolveConversation } from '../model/conversations.js';
import { click, closeView, openHome, personView, respond, runCommand, spendResponseUrl, submitView } from '../model/interactivity.js';
import { getMessage } from '../model/messages.js';
import type { User } from '../model/records.js';
import { getView } from '../model/views.js';
import { botUser, getUser } from '../model/workspace.js';
import { updateSetting, getSetting } from '../model/settings.js';
import { linkUrl } from '../wire/socket.js';

function person(ctx: TwinContext, args: Args): User {
  const id = args.string('user');
  const u = id ? getUser(ctx, id) : undefined;
  if (!u || u.deleted || u.is_bot) throw new SlackError('user_not_found');
  return u;
}

const DISCONNECT_REASONS = ['refresh_requested', 'warning', 'link_disabled', 'too_many_websockets'];

export const interactivityMethods: MethodTable = {
  'apps.connections.open': ({ ctx }) => {
    // An app opening a Socket Mode connection has Socket Mode on: payloads go over the socket.
    if (!getSetting(ctx, 'app').socket_mode) updateSetting(ctx, 'app', { socket_mode: true });
    const appId = botUser(ctx).profile.api_app_id ?? '';
    return { url: linkUrl(ctx, appLink(ctx).issueTicket(), appId) };
  },

  'twin.socket.disconnect': ({ ctx, args }) => {
    const reason = args.string('reason') ?? 'refresh_requested';
    if (!DISCONNECT_REASONS.includes(reason)) throw invalidArguments(`reason must be one of ${DISCONNECT_REASONS.join(', ')}`);
    return { connections: appLink(ctx).disconnectAll(reason) };
  },

  'twin.commands.run': ({ ctx, args }) => {
    const u = person(ctx, args);
    const c = resolveConversation(ctx, args.string('channel'), u.id);
    return runCommand(ctx, u, c, args.required('command'), args.string('text') ?? '');
  },

  'twin.actions.click': ({ ctx, args }) => {
    const u = person(ctx, args);
    const actionId = args.required('action_id');
    const viewId = args.string('view_id');
    if (viewId) return click(ctx, u, { view: personView(ctx, u, viewId) }, actionId, rawValue(args));
    const c = resolveConversation(ctx, args.string('channel'), u.id);
    const ts = args.required('message_ts');
    const m = getMessage(ctx, c.id, ts);
    if (!m) throw new SlackError('message_not_found');
    return click(ctx, u, { message: { channel: c, message: m } }, actionId, rawValue(args));
  },

  'twin.views.submit': ({ ctx, args }) => {
    const u = person(ctx, args);
    const rec = personView(ctx, u, args.string('view_id'));
    const values = args.json('values') ?? {};
    if (typeof values !== 'object' || Array.isArray(values)) throw invalidArguments('values must be an object {block_id: {action_id: value}}');
    return { view_id: rec.id, ...submitView(ctx, u, rec, values as Record<string, unknown>) };
  },

  'twin.views.close': ({ ctx, args }) => {
    const u = person(ctx, args);
    const rec = personView(ctx, u, args.string('view_id'));
    closeView(ctx, u, rec);
    return { view_id: rec.id };
  },

  'twin.views.get': ({ ctx, args }) => {
    const rec = getView(ctx, args.required('view_id'));
    if (!rec) throw new SlackError('not_found');
    return { view: rec.view, user: rec.user, open: rec.open, errors: rec.errors };
  },

  'twin.home.open': ({ ctx, args }) => openHome(ctx, person(ctx, args)),
};

/** `value` as sent: a JSON array/object for multi-selects and state objects, else the string. */
function rawValue(args: Args): unknown {
  const s = args.string('value');
  if (s === undefined) return undefined;
  if (s.startsWith('[') || s.startsWith('{')) {
    try {
      return args.json('value');
    } catch {
      return s;
    }
  }
  return s;
}

/** `POST /commands|actions/{team}/{id}/{token}`: a response URL (no token needed; the URL is the secret). */
function responseUrlHandler(kind: 'commands' | 'actions') {
  return (req: TwinRequest, ctx: TwinContext): TwinResponse => {
    try {
      const body = callArguments(req);
      const r = spendResponseUrl(ctx, kind, req.params.id ?? '', req.params.token ?? '');
      const args = new Args(body);
      respond(ctx, r, {
        ...body,
        blocks: args.json('blocks', 'invalid_blocks'),
        attachments: args.json('attachments', 'invalid_attachments'),
      });
      return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: { ok: true } };
    } catch (e) {
      if (!(e instanceof SlackError)) throw e;
      const status = ['invalid_url', 'expired_url', 'used_url'].includes(e.code) ? 404 : 400;
      // The request's writes are undone by the caller's savepoint only on a throw: refusals write nothing.
      return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: { ok: false, error: e.code } };
    }
  };
}

export const responseUrlRoutes: TwinRoute[] = (['commands', 'actions'] as const).map((kind) => ({
  method: 'POST' as const,
  path: `/${kind}/{team}/{id}/{token}`,
  public: true,
  unmetered: true,
  handler: responseUrlHandler(kind),
}));
