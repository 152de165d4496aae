// reactions.add, reactions.remove, reactions.get.

import { resolveMemberConversation } from '../model/conversations.js';
import { SlackError } from '../wire/errors.js';
import { viewWithReactions } from '../model/messages.js';
import { addReaction, reactionTarget, removeReaction } from '../model/reactions.js';
import type { MethodCall, MethodTable } from '../wire/method.js';
import { getUser } from '../model/workspace.js';

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

  // Twin-only: a person reacts (the app gets reaction_added). {user, channel, timestamp, name}
  'twin.reactions.add': (call) => {
    const id = call.args.string('user');
    const person = id ? getUser(call.ctx, id) : undefined;
    if (!person || person.deleted || person.is_bot) throw new SlackError('user_not_found');
    const { c, timestamp } = item({ ...call, actor: person });
    addReaction(call.ctx, person, c, timestamp, call.args.string('name'));
    return {};
  },

  'reactions.get': (call) => {
    const { c, timestamp } = item(call);
    const m = reactionTarget(call.ctx, c, timestamp);
    return { type: 'message', channel: c.id, message: viewWithReactions(call.ctx, m) };
  },
};
