// chat.* methods (scheduled messages: scheduled.ts), and the twin-only twin.messages.postAsUser.

import { imWith, isMember, resolveConversation, resolveMemberConversation } from '../model/conversations.js';
import { SlackError } from '../wire/errors.js';
import { contentError, deleteMessage, getMessage, messageView, postMessage, updateMessage, type MessageContent, type PostInput } from '../model/messages.js';
import type { Conversation, User } from '../model/records.js';
import { isTs, nextTs } from '../model/slack-ids.js';
import { currentTeam, getUser } from '../model/workspace.js';
import type { Args } from '../wire/params.js';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { MethodTable } from '../wire/method.js';

function content(args: Args): MessageContent {
  return {
    text: args.string('text'),
    blocks: args.json('blocks', 'invalid_blocks_format'),
    attachments: args.json('attachments', 'invalid_attachments'),
    metadata: args.json('metadata', 'invalid_metadata_format'),
  };
}

export function postInput(args: Args): PostInput {
  const input: PostInput = { ...content(args) };
  const bad = contentError(input);
  if (bad) throw bad;
  const threadTs = args.string('thread_ts');
  if (threadTs !== undefined) {
    if (!isTs(threadTs)) throw new SlackError('invalid_thread_ts');
    input.thread_ts = threadTs;
    input.reply_broadcast = args.bool('reply_broadcast');
  }
  return input;
}

/**
 * The conversation a message goes to: a channel id or name, or a user id (their IM with the bot,
 * opened on demand). The bot must be in it (chat:write without chat:write.public).
 */
export function destination(ctx: TwinContext, actor: User, channelArg: string | undefined): Conversation {
  if (channelArg && /^[UW][0-9A-Z]+$/.test(channelArg)) {
    const u = getUser(ctx, channelArg);
    if (!u || u.deleted) throw new SlackError('channel_not_found');
    return imWith(ctx, actor, u.id);
  }
  const c = resolveConversation(ctx, channelArg, actor.id);
  if (c.is_archived) throw new SlackError('is_archived');
  if (!isMember(ctx, c.id, actor.id)) throw new SlackError('not_in_channel');
  return c;
}

export const messageMethods: MethodTable = {
  'chat.postMessage': ({ ctx, args, actor }) => {
    const input = postInput(args);
    const c = destination(ctx, actor, args.string('channel'));
    const m = postMessage(ctx, c, actor, input);
    return { channel: c.id, ts: m.ts, message: messageView(m) };
  },

  'chat.meMessage': ({ ctx, args, actor }) => {
    const text = args.string('text');
    if (!text) throw new SlackError('no_text');
    const c = destination(ctx, actor, args.string('channel'));
    const m = postMessage(ctx, c, actor, { text, subtype: 'me_message' });
    return { channel: c.id, ts: m.ts };
  },

  'chat.update': ({ ctx, args, actor }) => {
    const c = resolveMemberConversation(ctx, args.string('channel'), actor.id);
    if (c.is_archived) throw new SlackError('is_archived');
    const m = updateMessage(ctx, c, args.string('ts'), actor, content(args));
    return { channel: c.id, ts: m.ts, text: m.text, message: messageView(m) };
  },

  'chat.delete': ({ ctx, args, actor }) => {
    const c = resolveMemberConversation(ctx, args.string('channel'), actor.id);
    if (c.is_archived) throw new SlackError('is_archived');
    const ts = args.string('ts');
    deleteMessage(ctx, c, ts, actor);
    return { channel: c.id, ts };
  },

  'chat.postEphemeral': ({ ctx, args, actor }) => {
    postInput(args); // checked as chat.postMessage checks it
    const c = destination(ctx, actor, args.string('channel'));
    const userId = args.string('user');
    const u = userId ? getUser(ctx, userId) : undefined;
    if (!u) throw new SlackError('user_not_found');
    if (!isMember(ctx, c.id, u.id)) throw new SlackError('user_not_in_channel');
    // Only the recipient's client shows it: nothing is stored or delivered as an event.
    return { message_ts: nextTs(ctx) };
  },

  'chat.unfurl': ({ ctx, args, actor }) => {
    const channel = args.string('channel');
    const ts = args.string('ts');
    if (!channel || !ts) throw new SlackError('cannot_unfurl_message');
    const c = resolveConversation(ctx, channel, actor.id);
    const m = getMessage(ctx, c.id, ts);
    if (!m) throw new SlackError('cannot_unfurl_message');
    const unfurls = args.json('unfurls', 'invalid_unfurls_format');
    if (!unfurls || typeof unfurls !== 'object' || Array.isArray(unfurls)) throw new SlackError('invalid_unfurls_format');
    const added = Object.entries(unfurls as Record<string, unknown>).map(([url, u], i) => {
      if (!u || typeof u !== 'object' || Array.isArray(u)) throw new SlackError('invalid_unfurls_format');
      return { id: i + 1, ...(u as Record<string, unknown>), app_unfurl_url: url, is_app_unfurl: true, app_id: actor.profile.api_app_id };
    });
    const previous = Array.isArray(m.attachments) ? (m.attachments as unknown[]) : [];
    ctx.store.put('message', `${c.id}:${m.ts}`, { ...m, attachments: [...previous, ...added] });
    return {};
  },

  'chat.getPermalink': ({ ctx, args, actor }) => {
    const c = resolveConversation(ctx, args.string('channel'), actor.id);
    const ts = args.string('message_ts');
    const m = ts ? getMessage(ctx, c.id, ts) : undefined;
    if (!m) throw new SlackError('message_not_found');
    const team = currentTeam(ctx);
    const base = `${team.url ?? `https://${team.domain}.slack.com/`}archives/${c.id}/p${m.ts.replace('.', '')}`;
    const threadTs = m.thread_ts && m.thread_ts !== m.ts ? m.thread_ts : undefined;
    return { channel: c.id, permalink: threadTs ? `${base}?thread_ts=${threadTs}&cid=${c.id}` : base };
  },

  // Twin-only (no Slack equivalent): a person in the workspace posts, and the app receives it as a
  // `message` event. {user, channel, text|blocks, thread_ts?, reply_broadcast?}
  'twin.messages.postAsUser': ({ ctx, args }) => {
    const userId = args.string('user');
    const u = userId ? getUser(ctx, userId) : undefined;
    if (!u || u.deleted) throw new SlackError('user_not_found');
    const c = resolveConversation(ctx, args.string('channel'), u.id);
    if (c.is_archived) throw new SlackError('is_archived');
    if (!isMember(ctx, c.id, u.id)) throw new SlackError('not_in_channel');
    const input = {
      text: args.string('text'),
      blocks: args.json('blocks', 'invalid_blocks_format'),
      thread_ts: args.string('thread_ts'),
      reply_broadcast: args.bool('reply_broadcast'),
    };
    const bad = contentError(input);
    if (bad) throw bad;
    if (input.thread_ts !== undefined && !isTs(input.thread_ts)) throw new SlackError('invalid_thread_ts');
    const m = postMessage(ctx, c, u, input);
    return { channel: c.id, ts: m.ts, message: messageView(m) };
  },
};
