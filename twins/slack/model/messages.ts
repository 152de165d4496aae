// Messages: posting (threads, broadcasts, blocks and attachments kept as sent), editing,
// deleting, ephemeral messages, and reading history and threads the way Slack pages them.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError } from '../wire/errors.js';
import { blockKitProblems } from './block-kit.js';
import { emitEvent } from './events.js';
import { eventChannelType } from './records.js';
import { paginate, type Page } from '../wire/pagination.js';
import { findWhere, type Conversation, type Message, type Reaction, type User } from './records.js';
import { compareTs, nextTs } from './slack-ids.js';
import { botUser, currentTeam } from './workspace.js';

const MAX_TEXT = 40_000;

export interface MessageContent {
  text?: string;
  blocks?: unknown;
  attachments?: unknown;
  metadata?: unknown;
}

export interface PostInput extends MessageContent {
  thread_ts?: string;
  reply_broadcast?: boolean;
  subtype?: string;
  /** Extra message fields (system messages: `inviter`, `topic`…). */
  extra?: Record<string, unknown>;
}

function messageKey(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

export function getMessage(ctx: TwinContext, channel: string, ts: string): Message | undefined {
  return ctx.store.get<Message>('message', messageKey(channel, ts));
}

/**
 * Check text/blocks/attachments as chat.postMessage does: the refusal, or undefined. Invalid blocks
 * answer `invalid_blocks` with every problem (model/block-kit.ts) in `errors` and, prefixed
 * `[ERROR]`, in `response_metadata.messages`.
 */
export function contentError(content: MessageContent, requireSomething = true): SlackError | undefined {
  const hasBlocks = Array.isArray(content.blocks) && content.blocks.length > 0;
  const hasAttachments = Array.isArray(content.attachments) && content.attachments.length > 0;
  if (requireSomething && !content.text && !hasBlocks && !hasAttachments) return new SlackError('no_text');
  if (content.text && content.text.length > MAX_TEXT) return new SlackError('msg_too_long');
  if (content.blocks !== undefined) {
    const problems = blockKitProblems(content.blocks, '/blocks', 'message');
    if (problems.length > 0) {
      return new SlackError('invalid_blocks', { errors: problems, response_metadata: { messages: problems.map((m) => `[ERROR] ${m}`) } });
    }
  }
  if (content.attachments !== undefined && !Array.isArray(content.attachments)) return new SlackError('invalid_attachments');
  return undefined;
}

/** The fields Slack adds to a message an app's bot user posts. */
export function botFields(ctx: TwinContext, author: User): Record<string, unknown> {
  if (!author.is_bot) return {};
  const team = currentTeam(ctx);
  return {
    bot_id: author.profile.bot_id,
    app_id: author.profile.api_app_id,
    bot_profile: {
      id: author.profile.bot_id,
      app_id: author.profile.api_app_id,
      name: author.real_name,
      icons: {
        image_36: author.profile.image_48,
        image_48: author.profile.image_48,
        image_72: author.profile.image_72,
      },
      deleted: false,
      updated: author.updated,
      team_id: team.id,
    },
  };
}

/** A message as the API shows it: without the twin's `channel` key, with its reactions. */
export function messageView(m: Message, reactions: Reaction[] = []): Record<string, unknown> {
  const { channel: _channel, ...rest } = m;
  const out: Record<string, unknown> = rest;
  if (reactions.length > 0) out.reactions = reactions.map((r) => ({ name: r.name, users: r.users, count: r.count }));
  return out;
}

function reactionsByTs(ctx: TwinContext, channel: string): Map<string, Reaction[]> {
  const map = new Map<string, Reaction[]>();
  for (const r of findWhere<Reaction>(ctx.store, 'reaction', 'channel', channel)) {
    const list = map.get(r.ts) ?? [];
    list.push(r);
    map.set(r.ts, list);
  }
  return map;
}

export function viewWithReactions(ctx: TwinContext, m: Message): Record<string, unknown> {
  return messageView(m, reactionsByTs(ctx, m.channel).get(m.ts) ?? []);
}

function messageEvent(ctx: TwinContext, c: Conversation, m: Message): void {
  const { channel: _c, ...fields } = m;
  emitEvent(ctx, { ...fields, type: 'message', channel: c.id, channel_type: eventChannelType(c) }, { channel: c.id, eventTs: m.ts });
  // Someone else mentioning the app's bot user in a conversation it is in: `app_mention` too.
  const bot = botUser(ctx);
  if (m.user !== bot.id && !m.subtype?.startsWith('channel_') && m.text.includes(`<@${bot.id}>`)) {
    const mention: Record<string, unknown> = { type: 'app_mention', user: m.user, text: m.text, ts: m.ts, channel: c.id };
    if (m.team) mention.team = m.team;
    if (m.blocks !== undefined) mention.blocks = m.blocks;
    if (m.thread_ts) mention.thread_ts = m.thread_ts;
    emitEvent(ctx, { ...mention, type: 'app_mention' }, { channel: c.id, eventTs: m.ts });
  }
}

/** The thread root a `thread_ts` names (a reply's ts leads to its root, as on Slack). */
function threadRoot(ctx: TwinContext, c: Conversation, threadTs: string): Message {
  const named = getMessage(ctx, c.id, threadTs);
  if (!named) throw new SlackError('thread_not_found');
  if (named.thread_ts && named.thread_ts !== named.ts) {
    const root = getMessage(ctx, c.id, named.thread_ts);
    if (!root) throw new SlackError('thread_not_found');
    return root;
  }
  return named;
}

/** Recount a root's thread fields from its replies. */
function refreshThread(ctx: TwinContext, root: Message): void {
  const replies = threadReplies(ctx, root);
  if (replies.length === 0) {
    for (const k of ['reply_count', 'reply_users', 'reply_users_count', 'latest_reply', 'is_locked', 'subscribed', 'thread_ts'] as const) {
      delete root[k];
    }
  } else {
    const users = [...new Set(replies.map((r) => r.user).filter((u): u is string => !!u))];
    root.thread_ts = root.ts;
    root.reply_count = replies.length;
    root.reply_users_count = users.length;
    root.latest_reply = replies[replies.length - 1]!.ts;
    root.reply_users = users;
    root.is_locked = false;
    root.subscribed = false;
  }
  ctx.store.put('message', messageKey(root.channel, root.ts), root);
}

function threadReplies(ctx: TwinContext, root: Message): Message[] {
  return findWhere<Message>(ctx.store, 'message', 'thread_ts', root.ts)
    .filter((m) => m.channel === root.channel && m.ts !== root.ts)
    .sort((a, b) => compareTs(a.ts, b.ts));
}

/** Store a new message from `author` in `c` (no membership checks: callers apply the method's rules). */
export function postMessage(ctx: TwinContext, c: Conversation, author: User, input: PostInput): Message {
  return ctx.store.transaction(() => {
    const root = input.thread_ts ? threadRoot(ctx, c, input.thread_ts) : undefined;
    const ts = nextTs(ctx);
    const m: Message = {
      user: author.id,
      type: 'message',
      ts,
      ...botFields(ctx, author),
      text: input.text ?? '',
      team: currentTeam(ctx).id,
      channel: c.id,
    } as Message;
    if (input.subtype) m.subtype = input.subtype;
    if (input.blocks !== undefined) m.blocks = input.blocks;
    if (input.attachments !== undefined) m.attachments = input.attachments;
    if (input.metadata !== undefined) m.metadata = input.metadata;
    Object.assign(m, input.extra ?? {});
    if (root) {
      m.thread_ts = root.ts;
      m.parent_user_id = root.user;
      if (input.reply_broadcast) {
        m.subtype = 'thread_broadcast';
        m.root = messageView(root);
      }
    }
    ctx.store.put('message', messageKey(c.id, ts), m);
    if (root) refreshThread(ctx, root);
    messageEvent(ctx, c, m);
    return m;
  });
}

/** Own-message check shared by update and delete. */
function ownMessage(ctx: TwinContext, c: Conversation, ts: string | undefined, actor: User, refusal: string): Message {
  if (!ts) throw new SlackError('message_not_found');
  const m = getMessage(ctx, c.id, ts);
  if (!m || m.subtype === 'tombstone') throw new SlackError('message_not_found');
  if (m.user !== actor.id) throw new SlackError(refusal);
  return m;
}

export function updateMessage(ctx: TwinContext, c: Conversation, ts: string | undefined, actor: User, content: MessageContent): Message {
  const m = ownMessage(ctx, c, ts, actor, 'cant_update_message');
  const bad = contentError(content, false);
  if (bad) throw bad;
  if (content.text === undefined && content.blocks === undefined && content.attachments === undefined) {
    throw new SlackError('no_text');
  }
  return ctx.store.transaction(() => {
    const previous = messageView(m);
    if (content.text !== undefined) m.text = content.text;
    if (content.blocks !== undefined) m.blocks = content.blocks;
    if (content.attachments !== undefined) m.attachments = content.attachments;
    if (content.metadata !== undefined) m.metadata = content.metadata;
    m.edited = { user: actor.id, ts: nextTs(ctx) };
    ctx.store.put('message', messageKey(c.id, m.ts), m);
    emitEvent(
      ctx,
      {
        type: 'message',
        subtype: 'message_changed',
        hidden: true,
        channel: c.id,
        channel_type: eventChannelType(c),
        ts: (m.edited as { ts: string }).ts,
        message: messageView(m),
        previous_message: previous,
      },
      { channel: c.id },
    );
    return m;
  });
}

export function deleteMessage(ctx: TwinContext, c: Conversation, ts: string | undefined, actor: User): void {
  const m = ownMessage(ctx, c, ts, actor, 'cant_delete_message');
  ctx.store.transaction(() => {
    const previous = messageView(m);
    const isRootWithReplies = m.thread_ts === m.ts && (m.reply_count ?? 0) > 0;
    if (isRootWithReplies) {
      // A thread outlives its root: Slack leaves a tombstone in its place.
      const tombstone: Message = {
        type: 'message',
        subtype: 'tombstone',
        text: 'This message was deleted.',
        user: 'USLACKBOT',
        hidden: true,
        ts: m.ts,
        channel: c.id,
        thread_ts: m.ts,
      };
      ctx.store.put('message', messageKey(c.id, m.ts), tombstone);
      refreshThread(ctx, tombstone);
    } else {
      ctx.store.delete('message', messageKey(c.id, m.ts));
      for (const r of findWhere<Reaction>(ctx.store, 'reaction', 'channel', c.id).filter((r) => r.ts === m.ts)) {
        ctx.store.delete('reaction', `${c.id}:${m.ts}:${r.name}`);
      }
      if (m.thread_ts && m.thread_ts !== m.ts) {
        const root = getMessage(ctx, c.id, m.thread_ts);
        if (root) refreshThread(ctx, root);
      }
    }
    emitEvent(
      ctx,
      {
        type: 'message',
        subtype: 'message_deleted',
        hidden: true,
        channel: c.id,
        channel_type: eventChannelType(c),
        ts: nextTs(ctx),
        deleted_ts: m.ts,
        previous_message: previous,
      },
      { channel: c.id },
    );
  });
}

export interface RangeOptions {
  latest?: string;
  oldest?: string;
  inclusive: boolean;
  limit: number;
  cursor?: string;
}

function inRange(ts: string, o: RangeOptions): boolean {
  if (o.oldest !== undefined) {
    const c = compareTs(ts, o.oldest);
    if (c < 0 || (c === 0 && !o.inclusive)) return false;
  }
  if (o.latest !== undefined) {
    const c = compareTs(ts, o.latest);
    if (c > 0 || (c === 0 && !o.inclusive)) return false;
  }
  return true;
}

/** conversations.history: top-level messages (and thread broadcasts), newest first. */
export function history(ctx: TwinContext, c: Conversation, o: RangeOptions): Page<Record<string, unknown>> {
  const all = findWhere<Message>(ctx.store, 'message', 'channel', c.id)
    .filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.subtype === 'thread_broadcast')
    .filter((m) => inRange(m.ts, o))
    .sort((a, b) => compareTs(b.ts, a.ts));
  const page = paginate(all, (m) => m.ts, 'next_ts', o.cursor, o.limit);
  const reactions = reactionsByTs(ctx, c.id);
  return { items: page.items.map((m) => messageView(m, reactions.get(m.ts))), nextCursor: page.nextCursor };
}

/** conversations.replies: the root first, then its replies oldest first. */
export function replies(ctx: TwinContext, c: Conversation, ts: string, o: RangeOptions): Page<Record<string, unknown>> {
  const named = getMessage(ctx, c.id, ts);
  if (!named) throw new SlackError('thread_not_found');
  let thread: Message[];
  if (named.thread_ts && named.thread_ts !== named.ts) thread = [named];
  else thread = [named, ...threadReplies(ctx, named).filter((m) => inRange(m.ts, o))];
  const page = paginate(thread, (m) => m.ts, 'next_ts', o.cursor, o.limit);
  const reactions = reactionsByTs(ctx, c.id);
  return { items: page.items.map((m) => messageView(m, reactions.get(m.ts))), nextCursor: page.nextCursor };
}
