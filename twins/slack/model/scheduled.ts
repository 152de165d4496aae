// Scheduled messages: kept as `scheduled_message` records until the environment clock passes
// their `post_at`, then posted (in time order, each at its own instant) by the twin's advance.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError } from '../wire/errors.js';
import { getConversation, isMember } from './conversations.js';
import { postMessage, type PostInput } from './messages.js';
import { paginate, type Page } from '../wire/pagination.js';
import type { Conversation, ScheduledMessage, User } from './records.js';
import { slackId } from './slack-ids.js';
import { getUser } from './workspace.js';

const MAX_AHEAD_SECONDS = 120 * 24 * 3600;

export function scheduleMessage(ctx: TwinContext, actor: User, c: Conversation, postAt: number | undefined, input: PostInput): ScheduledMessage {
  if (postAt === undefined) throw new SlackError('invalid_time');
  const now = ctx.clock.nowSeconds();
  if (postAt <= now) throw new SlackError('time_in_past');
  if (postAt > now + MAX_AHEAD_SECONDS) throw new SlackError('time_too_far');
  const s: ScheduledMessage = {
    id: slackId(ctx, 'Q'),
    channel_id: c.id,
    post_at: postAt,
    date_created: now,
    text: input.text ?? '',
    user: actor.id,
  };
  if (input.blocks !== undefined) s.blocks = input.blocks;
  if (input.attachments !== undefined) s.attachments = input.attachments;
  if (input.thread_ts !== undefined) s.thread_ts = input.thread_ts;
  if (input.reply_broadcast) s.reply_broadcast = true;
  if (input.metadata !== undefined) s.metadata = input.metadata;
  ctx.store.put('scheduled_message', s.id, s);
  return s;
}

/** What chat.scheduledMessages.list shows of one. */
export function scheduledView(s: ScheduledMessage): Record<string, unknown> {
  return { id: s.id, channel_id: s.channel_id, post_at: s.post_at, date_created: s.date_created, text: s.text };
}

export function listScheduled(
  ctx: TwinContext,
  actor: string,
  o: { channel?: string; latest?: number; oldest?: number; limit: number; cursor?: string },
): Page<Record<string, unknown>> {
  const items = ctx.store
    .list<ScheduledMessage>('scheduled_message')
    .filter((s) => s.user === actor)
    .filter((s) => !o.channel || s.channel_id === o.channel)
    .filter((s) => (o.oldest === undefined || s.post_at >= o.oldest) && (o.latest === undefined || s.post_at <= o.latest))
    .sort((a, b) => a.post_at - b.post_at || a.date_created - b.date_created);
  const page = paginate(items, (s) => s.id, 'scheduled', o.cursor, o.limit);
  return { items: page.items.map(scheduledView), nextCursor: page.nextCursor };
}

export function deleteScheduled(ctx: TwinContext, actor: string, channel: string, id: string | undefined): void {
  const s = id ? ctx.store.get<ScheduledMessage>('scheduled_message', id) : undefined;
  if (!s || s.user !== actor || s.channel_id !== channel) throw new SlackError('invalid_scheduled_message_id');
  ctx.store.delete('scheduled_message', s.id);
}

/** Post every scheduled message due by `to`, earliest first, with the clock at its post_at. */
export function postDueMessages(ctx: TwinContext, to: Date): void {
  const due = ctx.store
    .list<ScheduledMessage>('scheduled_message')
    .filter((s) => s.post_at * 1000 <= to.getTime())
    .sort((a, b) => a.post_at - b.post_at || a.date_created - b.date_created);
  for (const s of due) {
    ctx.clock.advanceTo(s.post_at * 1000);
    ctx.store.transaction(() => {
      ctx.store.delete('scheduled_message', s.id);
      const c = getConversation(ctx, s.channel_id);
      const author = getUser(ctx, s.user);
      // A channel archived or left since scheduling drops the message, as Slack does.
      if (!c || !author || c.is_archived || !isMember(ctx, c.id, author.id)) return;
      try {
        postMessage(ctx, c, author, {
          text: s.text,
          blocks: s.blocks,
          attachments: s.attachments,
          metadata: s.metadata,
          thread_ts: s.thread_ts,
          reply_broadcast: s.reply_broadcast,
        });
      } catch (e) {
        // The thread it answered was deleted: post it to the channel instead.
        if (!(e instanceof SlackError)) throw e;
        postMessage(ctx, c, author, { text: s.text, blocks: s.blocks, attachments: s.attachments, metadata: s.metadata });
      }
    });
  }
}
