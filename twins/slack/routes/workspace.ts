// auth.test, team.info, users.list, users.info, users.profile.get, users.getPresence,
// users.lookupByEmail, users.conversations.

import { conversationView, parseTypes, userConversations } from '../model/conversations.js';
import { SlackError } from '../wire/errors.js';
import { pageSize, paginate } from '../wire/pagination.js';
import type { User } from '../model/records.js';
import { currentTeam, getUser } from '../model/workspace.js';
import type { MethodTable } from '../wire/method.js';

function withLocale(u: User, includeLocale: boolean): User {
  return includeLocale ? { ...u, locale: 'en-US' } : u;
}

export const workspaceMethods: MethodTable = {
  'auth.test': ({ ctx, actor }) => {
    const team = currentTeam(ctx);
    return {
      url: team.url ?? `https://${team.domain}.slack.com/`,
      team: team.name,
      user: actor.name,
      team_id: team.id,
      user_id: actor.id,
      bot_id: actor.profile.bot_id,
      is_enterprise_install: false,
    };
  },

  'team.info': ({ ctx, args }) => {
    const team = currentTeam(ctx);
    const asked = args.string('team');
    if (asked && asked !== team.id) throw new SlackError('team_not_found');
    return { team };
  },

  'users.list': ({ ctx, args }) => {
    const includeLocale = args.bool('include_locale');
    const users = ctx.store.list<User>('user');
    const page = paginate(users, (u) => u.id, 'user', args.string('cursor'), pageSize(args.int('limit'), 1000, 1000));
    return {
      members: page.items.map((u) => withLocale(u, includeLocale)),
      cache_ts: ctx.clock.nowSeconds(),
      response_metadata: { next_cursor: page.nextCursor },
    };
  },

  'users.info': ({ ctx, args }) => {
    const id = args.string('user');
    const u = id ? getUser(ctx, id) : undefined;
    if (!u) throw new SlackError('user_not_found');
    return { user: withLocale(u, args.bool('include_locale')) };
  },

  'users.profile.get': ({ ctx, args, actor }) => {
    const u = getUser(ctx, args.string('user') ?? actor.id);
    if (!u) throw new SlackError('user_not_found');
    return { profile: u.profile };
  },

  'users.getPresence': ({ ctx, args, actor }) => {
    const u = getUser(ctx, args.string('user') ?? actor.id);
    if (!u) throw new SlackError('user_not_found');
    // Nobody is connected to a twin: people are away; the app's bot is always active.
    return { presence: u.deleted ? 'away' : u.is_bot || u.presence === 'active' ? 'active' : 'away' };
  },

  'users.lookupByEmail': ({ ctx, args }) => {
    const email = args.string('email')?.toLowerCase();
    const u = email
      ? ctx.store.list<User>('user').find((x) => !x.deleted && x.profile.email?.toLowerCase() === email)
      : undefined;
    if (!u) throw new SlackError('users_not_found');
    return { user: u };
  },

  'users.conversations': ({ ctx, args, actor }) => {
    const userId = args.string('user') ?? actor.id;
    if (!getUser(ctx, userId)) throw new SlackError('user_not_found');
    const types = parseTypes(args.list('types'), ['public_channel']);
    const list = userConversations(ctx, actor.id, userId, types, args.bool('exclude_archived'));
    const page = paginate(list, (c) => c.id, 'channel', args.string('cursor'), pageSize(args.int('limit'), 100, 1000));
    return {
      channels: page.items.map((c) => conversationView(ctx, c, actor.id)),
      response_metadata: { next_cursor: page.nextCursor },
    };
  },
};
