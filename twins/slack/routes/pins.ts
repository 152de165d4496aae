// pins.add/remove/list, bookmarks.add/edit/remove/list.

import { SlackError } from '../wire/errors.js';
import type { MethodCall, MethodTable } from '../wire/method.js';
import { resolveMemberConversation } from '../model/conversations.js';
import { addBookmark, editBookmark, getBookmark, listBookmarks, listPins, pin, unpin } from '../model/pins.js';

function inChannel({ ctx, args, actor }: MethodCall, name = 'channel') {
  const c = resolveMemberConversation(ctx, args.required(name), actor.id);
  if (c.is_archived) throw new SlackError('is_archived');
  return c;
}

export const pinMethods: MethodTable = {
  'pins.add': (call) => {
    pin(call.ctx, call.actor, inChannel(call), call.args.string('timestamp'));
    return {};
  },
  'pins.remove': (call) => {
    unpin(call.ctx, call.actor, inChannel(call), call.args.string('timestamp'));
    return {};
  },
  'pins.list': (call) => ({ items: listPins(call.ctx, resolveMemberConversation(call.ctx, call.args.required('channel'), call.actor.id)) }),

  'bookmarks.add': (call) => {
    const { args } = call;
    return {
      bookmark: addBookmark(call.ctx, call.actor, inChannel(call, 'channel_id'), {
        title: args.string('title'),
        type: args.string('type'),
        link: args.string('link'),
        emoji: args.string('emoji'),
      }),
    };
  },
  'bookmarks.edit': (call) => {
    const { args, ctx } = call;
    const b = getBookmark(ctx, inChannel(call, 'channel_id'), args.string('bookmark_id'));
    return { bookmark: editBookmark(ctx, call.actor, b, { title: args.string('title'), link: args.string('link'), emoji: args.string('emoji') }) };
  },
  'bookmarks.remove': (call) => {
    const b = getBookmark(call.ctx, inChannel(call, 'channel_id'), call.args.string('bookmark_id'));
    call.ctx.store.delete('bookmark', b.id);
    return {};
  },
  'bookmarks.list': (call) => ({ bookmarks: listBookmarks(call.ctx, resolveMemberConversation(call.ctx, call.args.required('channel_id'), call.actor.id)) }),
};
