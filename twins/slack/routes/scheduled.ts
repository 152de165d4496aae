// Scheduled messages: chat.scheduleMessage, chat.scheduledMessages.list, chat.deleteScheduledMessage.

import { resolveConversation } from '../model/conversations.js';
import { botFields } from '../model/messages.js';
import { deleteScheduled, listScheduled, scheduleMessage } from '../model/scheduled.js';
import { currentTeam } from '../model/workspace.js';
import { pageSize } from '../wire/pagination.js';
import type { MethodTable } from '../wire/method.js';
import { destination, postInput } from './messages.js';

export const scheduledMethods: MethodTable = {
  'chat.scheduleMessage': ({ ctx, args, actor }) => {
    const input = postInput(args);
    const c = destination(ctx, actor, args.string('channel'));
    const s = scheduleMessage(ctx, actor, c, args.int('post_at'), input);
    const message: Record<string, unknown> = {
      ...botFields(ctx, actor),
      type: 'delayed_message',
      text: s.text,
      user: actor.id,
      team: currentTeam(ctx).id,
    };
    if (s.blocks !== undefined) message.blocks = s.blocks;
    if (s.attachments !== undefined) message.attachments = s.attachments;
    return { channel: c.id, scheduled_message_id: s.id, post_at: s.post_at, message };
  },

  'chat.scheduledMessages.list': ({ ctx, args, actor }) => {
    const channelArg = args.string('channel');
    const channel = channelArg ? resolveConversation(ctx, channelArg, actor.id).id : undefined;
    const page = listScheduled(ctx, actor.id, {
      channel,
      latest: args.int('latest'),
      oldest: args.int('oldest'),
      limit: pageSize(args.int('limit'), 100, 100),
      cursor: args.string('cursor'),
    });
    return { scheduled_messages: page.items, response_metadata: { next_cursor: page.nextCursor } };
  },

  'chat.deleteScheduledMessage': ({ ctx, args, actor }) => {
    const c = resolveConversation(ctx, args.string('channel'), actor.id);
    deleteScheduled(ctx, actor.id, c.id, args.string('scheduled_message_id'));
    return {};
  },
};
