// reactions.add, reactions.remove, reactions.get.

import { resolveMemberConversation } from '../model/conversations.js';
import { SlackError } from '../wire/errors.js';
import { viewWithReactions } from '../model/messages.js';
import { addReaction, reactionTarget, removeReaction } from '../model/reactions.js';
import type { MethodCall, MethodTable } from '../wire/method.js';

function item({ ctx, args, actor }: MethodCall) {
  const channel = args.string('channel');
  const timestamp = args.string('timestamp');
  if (!channel || !timestamp) throw new SlackError('no_item_specified');
  return { c: resolveMemberConversation(ctx, channel, actor.id), timestamp };
}

export const reactionMethods: MethodTable = {
  'reactions.add': (call) => {
    const { c, timestamp } = item(call);
    addReaction(call.ctx, call.actor, c, timestamp, call.args.string('name'));
    return {};
  },

  'reactions.remove': (call) => {
    const { c, timestamp } = item(call);
    removeReaction(call.ctx, call.actor, c, timestamp, call.args.string('name'));
    return {};
  },

  'reactions.get': (call) => {
    const { c, timestamp } = item(call);
    const m = reactionTarget(call.ctx, c, timestamp);
    return { type: 'message', channel: c.id, message: viewWithReactions(call.ctx, m) };
  },
};
