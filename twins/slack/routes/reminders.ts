// reminders.add/info/list/complete/delete (user tokens only, as on Slack).

import { SlackError } from '../wire/errors.js';
import type { MethodTable } from '../wire/method.js';
import { addReminder, completeReminder, getReminder, listReminders, parseReminderTime } from '../model/reminders.js';
import { getUser } from '../model/workspace.js';

export const reminderMethods: MethodTable = {
  'reminders.add': ({ ctx, args, actor }) => {
    const text = args.string('text');
    if (!text) throw new SlackError('no_text');
    const userId = args.string('user') ?? actor.id;
    const u = getUser(ctx, userId);
    if (!u || u.deleted) throw new SlackError('user_not_found');
    if (args.string('recurrence')) throw new SlackError('invalid_recurrence');
    return { reminder: addReminder(ctx, actor.id, u.id, text, parseReminderTime(ctx.clock.nowSeconds(), args.string('time'))) };
  },
  'reminders.info': ({ ctx, args, actor }) => ({ reminder: getReminder(ctx, actor.id, args.string('reminder')) }),
  'reminders.list': ({ ctx, actor }) => ({ reminders: listReminders(ctx, actor.id) }),
  'reminders.complete': ({ ctx, args, actor }) => {
    completeReminder(ctx, getReminder(ctx, actor.id, args.string('reminder')));
    return {};
  },
  'reminders.delete': ({ ctx, args, actor }) => {
    const r = getReminder(ctx, actor.id, args.string('reminder'));
    ctx.store.delete('reminder', r.id);
    return {};
  },
};
