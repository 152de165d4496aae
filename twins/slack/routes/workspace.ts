// auth.test, team.info, users.list, users.info, users.profile.get, users.getPresence,
// users.lookupByEmail, users.conversations.

import { conversationView, parseTypes, userConversations } from '../model/conversations.js';
import { SlackError } from '../wire/errors.js';
import { pageSize, paginate } from '../wire/pagination.js';
import type { User } from '../model/records.js';
import { CUSTOM_EMOJI, currentTeam, getUser } from '../model/workspace.js';
import type { MethodTable } from '../wire/method.js';
import { emitEvent } from '../model/events.js';

/** Profile fields users.profile.set accepts. */
const EDITABLE_PROFILE_FIELDS = new Set([
  'display_name',
  'real_name',
  'first_name',
  'last_name',
  'title',
  'phone',
  'pronouns',
  'status_text',
  'status_emoji',
  'status_expiration',
  'fields',
  'email',
]);

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
    // Nobody is connected to a twin: people are away unless set active; the app's bot is active
    // unless it set itself away (users.setPresence).
    const active = u.is_bot ? u.presence !== 'away' : u.presence === 'active';
    return { presence: !u.deleted && active ? 'active' : 'away' };
  },

  'users.setPresence': ({ ctx, args, actor }) => {
    const presence = args.string('presence');
    if (presence !== 'auto' && presence !== 'away') throw new SlackError('invalid_presence');
    const u = getUser(ctx, actor.id)!;
    ctx.store.put('user', u.id, { ...u, presence: presence === 'auto' ? 'active' : 'away' });
    emitEvent(ctx, { type: 'presence_change', user: u.id, presence: presence === 'auto' ? 'active' : 'away' });
    return {};
  },

  'users.profile.set': ({ ctx, args, actor }) => {
    const targetId = args.string('user') ?? actor.id;
    if (targetId !== actor.id && !actor.is_admin) throw new SlackError('cannot_update_admin_user');
    const u = getUser(ctx, targetId);
    if (!u || u.deleted) throw new SlackError('user_not_found');
    const given = args.json('profile', 'invalid_profile');
    const changes: Record<string, unknown> = {};
    if (given !== undefined) {
      if (!given || typeof given !== 'object' || Array.isArray(given)) throw new SlackError('invalid_profile');
      for (const [k, v] of Object.entries(given as Record<string, unknown>)) changes[k] = v;
    }
    const name = args.string('name');
    if (name !== undefined) changes[name] = args.string('value') ?? '';
    for (const [k, v] of Object.entries(changes)) {
      if (!EDITABLE_PROFILE_FIELDS.has(k)) throw new SlackError('invalid_profile', { response_metadata: { messages: [`[ERROR] ${k} cannot be set`] } });
      if (k !== 'status_expiration' && typeof v !== 'string') throw new SlackError('invalid_profile');
      if (k === 'status_text' && String(v).length > 100) throw new SlackError('too_long');
    }
    const profile = { ...u.profile, ...changes };
    if (changes.display_name !== undefined) profile.display_name_normalized = String(changes.display_name);
    if (changes.real_name !== undefined) profile.real_name_normalized = String(changes.real_name);
    const next = { ...u, profile, real_name: String(profile.real_name), updated: ctx.clock.nowSeconds() };
    ctx.store.put('user', u.id, next);
    emitEvent(ctx, { type: 'user_change', user: next });
    return { profile, username: u.name };
  },

  'team.profile.get': () => ({
    profile: {
      fields: [
        {
          id: 'Xf01PAGER',
          ordering: 0,
          field_name: null,
          label: 'Pager',
          hint: 'Who pages you',
          type: 'text',
          possible_values: null,
          options: null,
          is_hidden: false,
          section_id: 'S01CONTACT',
        },
        {
          id: 'Xf01TEAM',
          ordering: 1,
          field_name: null,
          label: 'Team',
          hint: 'Your team',
          type: 'text',
          possible_values: null,
          options: null,
          is_hidden: false,
          section_id: 'S01CONTACT',
        },
      ],
      sections: [{ id: 'S01CONTACT', team_id: null, section_type: 'contact', label: 'Contact information', order: 1, is_hidden: false }],
    },
  }),

  'emoji.list': ({ ctx }) => ({
    emoji: Object.fromEntries(CUSTOM_EMOJI),
    cache_ts: `${ctx.clock.nowSeconds()}.000000`,
    categories_version: '5',
  }),

  'users.lookupByEmail': ({ ctx, args }) => {
    const email = args.string('email')?.toLowerCase();
    const u = email ? ctx.store.list<User>('user').find((x) => !x.deleted && x.profile.email?.toLowerCase() === email) : undefined;
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
