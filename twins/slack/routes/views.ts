// views.open / push / update / publish.

import { SlackError } from '../wire/errors.js';
import { useTrigger } from '../model/interactivity.js';
import { findView, openModal, publishHome, pushModal, updateView } from '../model/views.js';
import { getUser } from '../model/workspace.js';
import type { MethodTable } from '../wire/method.js';
import type { Args } from '../wire/params.js';

function viewArg(args: Args): unknown {
  const v = args.json('view', 'invalid_arguments');
  if (v === undefined) throw new SlackError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: view'] } });
  return v;
}

export const viewMethods: MethodTable = {
  'views.open': ({ ctx, args }) => {
    const view = viewArg(args);
    const user = useTrigger(ctx, args.string('trigger_id'));
    return { view: openModal(ctx, user, view).view };
  },

  'views.push': ({ ctx, args }) => {
    const view = viewArg(args);
    const user = useTrigger(ctx, args.string('trigger_id'));
    return { view: pushModal(ctx, user, view).view };
  },

  'views.update': ({ ctx, args }) => {
    const view = viewArg(args);
    const rec = findView(ctx, args.string('view_id'), args.string('external_id'));
    return { view: updateView(ctx, rec, view, args.string('hash')).view };
  },

  'views.publish': ({ ctx, args }) => {
    const view = viewArg(args);
    const userId = args.string('user_id');
    const user = userId ? getUser(ctx, userId) : undefined;
    if (!user || user.deleted || user.is_bot) throw new SlackError('user_not_found');
    return { view: publishHome(ctx, user, view, args.string('hash')).view };
  },
};
