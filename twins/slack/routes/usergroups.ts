// usergroups.create/update/disable/enable/list, usergroups.users.list/update.

import { SlackError, invalidArguments } from '../wire/errors.js';
import type { MethodTable } from '../wire/method.js';
import { changeUsergroup, createUsergroup, getUsergroup, listUsergroups, setMembers, type Usergroup } from '../model/usergroups.js';

function shown(g: Usergroup, includeUsers: boolean, includeCount: boolean): Record<string, unknown> {
  const { users, user_count, ...rest } = g;
  return { ...rest, ...(includeUsers ? { users } : {}), ...(includeCount ? { user_count } : {}) };
}

export const usergroupMethods: MethodTable = {
  'usergroups.create': ({ ctx, args, actor }) => {
    const name = args.string('name');
    if (!name) throw invalidArguments('missing required field: name');
    const g = createUsergroup(ctx, actor, { name, handle: args.string('handle'), description: args.string('description'), channels: args.list('channels') });
    return { usergroup: shown(g, true, args.bool('include_count')) };
  },
  'usergroups.update': ({ ctx, args, actor }) => {
    const g = getUsergroup(ctx, args.string('usergroup'));
    const changed = changeUsergroup(ctx, actor, g, {
      name: args.string('name'),
      handle: args.string('handle'),
      description: args.string('description'),
      channels: args.string('channels') !== undefined ? args.list('channels') : undefined,
    });
    return { usergroup: shown(changed, true, args.bool('include_count')) };
  },
  'usergroups.disable': ({ ctx, args, actor }) => ({
    usergroup: shown(changeUsergroup(ctx, actor, getUsergroup(ctx, args.string('usergroup')), { enabled: false }), true, args.bool('include_count')),
  }),
  'usergroups.enable': ({ ctx, args, actor }) => ({
    usergroup: shown(changeUsergroup(ctx, actor, getUsergroup(ctx, args.string('usergroup')), { enabled: true }), true, args.bool('include_count')),
  }),
  'usergroups.list': ({ ctx, args }) => ({
    usergroups: listUsergroups(ctx, args.bool('include_disabled')).map((g) => shown(g, args.bool('include_users'), args.bool('include_count'))),
  }),
  'usergroups.users.list': ({ ctx, args }) => {
    const g = getUsergroup(ctx, args.string('usergroup'));
    if (g.date_delete !== 0 && !args.bool('include_disabled')) throw new SlackError('no_such_subteam');
    return { users: g.users };
  },
  'usergroups.users.update': ({ ctx, args, actor }) => {
    const g = getUsergroup(ctx, args.string('usergroup'));
    return { usergroup: shown(setMembers(ctx, actor, g, args.list('users')), true, args.bool('include_count')) };
  },
};
