// conversations.* methods.

import {
  archiveChannel,
  conversationView,
  createChannel,
  getConversation,
  inviteUsers,
  isMember,
  joinChannel,
  kickUser,
  leaveChannel,
  listConversations,
  memberIds,
  openConversation,
  parseTypes,
  renameChannel,
  resolveConversation,
  resolveMemberConversation,
  setTopicOrPurpose,
  unarchiveChannel,
} from '../model/conversations.js';
import { SlackError } from '../wire/errors.js';
import { history, replies, type RangeOptions } from '../model/messages.js';
import { pageSize, paginate } from '../wire/pagination.js';
import { isTs } from '../model/slack-ids.js';
import type { Args } from '../wire/params.js';
import type { MethodCall, MethodTable } from '../wire/method.js';

function range(args: Args): RangeOptions {
  const latest = args.string('latest');
  const oldest = args.string('oldest');
  if (latest !== undefined && !isTs(latest)) throw new SlackError('invalid_ts_latest');
  if (oldest !== undefined && !isTs(oldest)) throw new SlackError('invalid_ts_oldest');
  return {
    latest,
    oldest: oldest === '0' ? undefined : oldest,
    inclusive: args.bool('inclusive'),
    limit: pageSize(args.int('limit'), 100, 999),
    cursor: args.string('cursor'),
  };
}

function channelOut({ ctx, actor }: MethodCall, id: string): Record<string, unknown> {
  return conversationView(ctx, getConversation(ctx, id)!, actor.id);
}

export const conversationMethods: MethodTable = {
  'conversations.list': ({ ctx, args, actor }) => {
    const types = parseTypes(args.list('types'), ['public_channel']);
    const list = listConversations(ctx, actor.id, types, args.bool('exclude_archived'));
    const page = paginate(list, (c) => c.id, 'channel', args.string('cursor'), pageSize(args.int('limit'), 100, 1000));
    return {
      channels: page.items.map((c) => conversationView(ctx, c, actor.id, { numMembers: true })),
      response_metadata: { next_cursor: page.nextCursor },
    };
  },

  'conversations.info': ({ ctx, args, actor }) => {
    const c = resolveConversation(ctx, args.string('channel'), actor.id);
    return { channel: conversationView(ctx, c, actor.id, { numMembers: args.bool('include_num_members') }) };
  },

  'conversations.history': ({ ctx, args, actor }) => {
    const c = resolveMemberConversation(ctx, args.string('channel'), actor.id);
    const page = history(ctx, c, range(args));
    return {
      messages: page.items,
      has_more: page.nextCursor !== '',
      pin_count: 0,
      channel_actions_ts: null,
      channel_actions_count: 0,
      response_metadata: { next_cursor: page.nextCursor },
    };
  },

  'conversations.replies': ({ ctx, args, actor }) => {
    const c = resolveMemberConversation(ctx, args.string('channel'), actor.id);
    const ts = args.required('ts');
    if (!isTs(ts)) throw new SlackError('thread_not_found');
    const page = replies(ctx, c, ts, range(args));
    return { messages: page.items, has_more: page.nextCursor !== '', response_metadata: { next_cursor: page.nextCursor } };
  },

  'conversations.members': ({ ctx, args, actor }) => {
    const c = resolveConversation(ctx, args.string('channel'), actor.id);
    const page = paginate(memberIds(ctx, c.id), (u) => u, 'user', args.string('cursor'), pageSize(args.int('limit'), 100, 1000));
    return { members: page.items, response_metadata: { next_cursor: page.nextCursor } };
  },

  'conversations.create': ({ ctx, args, actor }) => {
    const c = createChannel(ctx, actor, args.string('name'), args.bool('is_private'));
    return { channel: conversationView(ctx, c, actor.id) };
  },

  'conversations.join': (call) => {
    const { ctx, args, actor } = call;
    const c = resolveConversation(ctx, args.string('channel'), actor.id);
    const { alreadyIn } = joinChannel(ctx, actor, c);
    const out: Record<string, unknown> = { channel: channelOut(call, c.id) };
    if (alreadyIn) {
      out.warning = 'already_in_channel';
      out.response_metadata = { warnings: ['already_in_channel'] };
    }
    return out;
  },

  'conversations.leave': ({ ctx, args, actor }) => {
    leaveChannel(ctx, actor, resolveConversation(ctx, args.string('channel'), actor.id));
    return {};
  },

  'conversations.invite': (call) => {
    const { ctx, args, actor } = call;
    const c = resolveConversation(ctx, args.string('channel'), actor.id);
    inviteUsers(ctx, actor, c, args.list('users'));
    return { channel: channelOut(call, c.id) };
  },

  'conversations.kick': ({ ctx, args, actor }) => {
    kickUser(ctx, actor, resolveConversation(ctx, args.string('channel'), actor.id), args.string('user'));
    return {};
  },

  'conversations.archive': ({ ctx, args, actor }) => {
    archiveChannel(ctx, actor, resolveConversation(ctx, args.string('channel'), actor.id));
    return {};
  },

  'conversations.unarchive': ({ ctx, args, actor }) => {
    unarchiveChannel(ctx, actor, resolveConversation(ctx, args.string('channel'), actor.id));
    return {};
  },

  'conversations.rename': (call) => {
    const { ctx, args, actor } = call;
    const c = resolveConversation(ctx, args.string('channel'), actor.id);
    renameChannel(ctx, actor, c, args.string('name'));
    return { channel: channelOut(call, c.id) };
  },

  'conversations.setTopic': (call) => {
    const { ctx, args, actor } = call;
    const c = resolveConversation(ctx, args.string('channel'), actor.id);
    setTopicOrPurpose(ctx, actor, c, 'topic', args.string('topic') ?? '');
    return { channel: channelOut(call, c.id) };
  },

  'conversations.setPurpose': (call) => {
    const { ctx, args, actor } = call;
    const c = resolveConversation(ctx, args.string('channel'), actor.id);
    setTopicOrPurpose(ctx, actor, c, 'purpose', args.string('purpose') ?? '');
    return { channel: channelOut(call, c.id) };
  },

  'conversations.mark': ({ ctx, args, actor }) => {
    const c = resolveMemberConversation(ctx, args.string('channel'), actor.id);
    const ts = args.string('ts');
    if (!ts || !isTs(ts)) throw new SlackError('invalid_timestamp');
    const key = `${c.id}:${actor.id}`;
    const m = ctx.store.get<Record<string, unknown>>('member', key);
    if (m) ctx.store.put('member', key, { ...m, last_read: ts });
    return {};
  },

  'conversations.open': (call) => {
    const { ctx, args, actor } = call;
    const returnIm = args.bool('return_im');
    const channelArg = args.string('channel');
    if (channelArg) {
      const c = resolveConversation(ctx, channelArg, actor.id);
      if (!c.is_im && !c.is_mpim) throw new SlackError('method_not_supported_for_channel_type');
      if (!isMember(ctx, c.id, actor.id)) throw new SlackError('channel_not_found');
      return { no_op: true, already_open: true, channel: returnIm ? channelOut(call, c.id) : { id: c.id } };
    }
    const { conversation, existed } = openConversation(ctx, actor, args.list('users'));
    const channel = returnIm ? channelOut(call, conversation.id) : { id: conversation.id };
    return existed ? { no_op: true, already_open: true, channel } : { channel };
  },
};
