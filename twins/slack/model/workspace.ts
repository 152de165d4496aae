// The workspace every Slack twin starts with (documented in twins/slack/README.md): one team, the
// bot user the minted `xoxb-` token belongs to, four people, #general (everyone, the bot included,
// as if the app had been invited at install) and #random (people only). Created on the first call
// into an empty store, so a reset to empty brings it back; a seed that brings its own team keeps it.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { Conversation, Membership, Team, User } from './records.js';
import { slackId } from './slack-ids.js';

const DEFAULT_AVATAR = 'https://a.slack-edge.com/80588/img/avatars/ava_0001';

const PEOPLE = [
  { name: 'ada', first: 'Ada', last: 'Lovelace', title: 'Founder', owner: true, admin: true, color: '9f69e7' },
  { name: 'grace', first: 'Grace', last: 'Hopper', title: 'Engineering Manager', owner: false, admin: true, color: '4bbe2e' },
  { name: 'alan', first: 'Alan', last: 'Turing', title: 'Software Engineer', owner: false, admin: false, color: 'e7392d' },
  { name: 'katherine', first: 'Katherine', last: 'Johnson', title: 'Data Scientist', owner: false, admin: false, color: '3c989f' },
] as const;

export const WORKSPACE_NAME = 'Twin Workspace';
export const WORKSPACE_DOMAIN = 'twin-workspace';
export const EMAIL_DOMAIN = 'example.com';
export const BOT_NAME = 'twinbot';

/** The workspace's custom emoji (`emoji.list`): name → image URL or `alias:<name>`. */
export const CUSTOM_EMOJI: ReadonlyMap<string, string> = new Map([
  ['shipit', 'alias:squirrel'],
  ['twin', 'https://emoji.slack-edge.com/twin/twin.png'],
  ['pager', 'https://emoji.slack-edge.com/twin/pager.png'],
]);

function images(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const size of [24, 32, 48, 72, 192, 512]) out[`image_${size}`] = `${DEFAULT_AVATAR}-${size}.png`;
  return out;
}

function person(ctx: TwinContext, team: Team, p: (typeof PEOPLE)[number]): User {
  const realName = `${p.first} ${p.last}`;
  return {
    id: slackId(ctx, 'U'),
    team_id: team.id,
    name: p.name,
    deleted: false,
    color: p.color,
    real_name: realName,
    tz: 'America/Los_Angeles',
    tz_label: 'Pacific Standard Time',
    tz_offset: -28800,
    profile: {
      title: p.title,
      phone: '',
      skype: '',
      real_name: realName,
      real_name_normalized: realName,
      display_name: p.name,
      display_name_normalized: p.name,
      fields: null,
      status_text: '',
      status_emoji: '',
      status_emoji_display_info: [],
      status_expiration: 0,
      avatar_hash: 'g' + p.color,
      email: `${p.name}@${EMAIL_DOMAIN}`,
      first_name: p.first,
      last_name: p.last,
      ...images(),
      status_text_canonical: '',
      team: team.id,
    },
    is_admin: p.admin,
    is_owner: p.owner,
    is_primary_owner: p.owner,
    is_restricted: false,
    is_ultra_restricted: false,
    is_bot: false,
    is_app_user: false,
    updated: ctx.clock.nowSeconds(),
    is_email_confirmed: true,
    who_can_share_contact_card: 'EVERYONE',
  };
}

function bot(ctx: TwinContext, team: Team): User {
  return {
    id: slackId(ctx, 'U'),
    team_id: team.id,
    name: BOT_NAME,
    deleted: false,
    color: '757575',
    real_name: 'Twin Bot',
    tz: 'America/Los_Angeles',
    tz_label: 'Pacific Standard Time',
    tz_offset: -28800,
    profile: {
      title: '',
      phone: '',
      skype: '',
      real_name: 'Twin Bot',
      real_name_normalized: 'Twin Bot',
      display_name: '',
      display_name_normalized: '',
      fields: null,
      status_text: '',
      status_emoji: '',
      status_emoji_display_info: [],
      status_expiration: 0,
      avatar_hash: 'g757575',
      bot_id: slackId(ctx, 'B'),
      api_app_id: slackId(ctx, 'A'),
      always_active: true,
      first_name: 'Twin',
      last_name: 'Bot',
      ...images(),
      status_text_canonical: '',
      team: team.id,
    },
    is_admin: false,
    is_owner: false,
    is_primary_owner: false,
    is_restricted: false,
    is_ultra_restricted: false,
    is_bot: true,
    is_app_user: false,
    updated: ctx.clock.nowSeconds(),
    is_email_confirmed: false,
    who_can_share_contact_card: 'EVERYONE',
  };
}

export function newChannel(
  ctx: TwinContext,
  team: Team,
  fields: { id: string; name: string; creator: string; isPrivate: boolean; isGeneral?: boolean; purpose?: string },
): Conversation {
  const now = ctx.clock.nowSeconds();
  return {
    id: fields.id,
    name: fields.name,
    is_channel: true,
    is_group: false,
    is_im: false,
    is_mpim: false,
    is_private: fields.isPrivate,
    created: now,
    is_archived: false,
    is_general: fields.isGeneral ?? false,
    unlinked: 0,
    name_normalized: fields.name,
    is_shared: false,
    is_org_shared: false,
    is_pending_ext_shared: false,
    pending_shared: [],
    context_team_id: team.id,
    updated: ctx.clock.nowMs(),
    parent_conversation: null,
    creator: fields.creator,
    is_ext_shared: false,
    shared_team_ids: [team.id],
    pending_connected_team_ids: [],
    topic: { value: '', creator: '', last_set: 0 },
    purpose: fields.purpose ? { value: fields.purpose, creator: fields.creator, last_set: now } : { value: '', creator: '', last_set: 0 },
    previous_names: [],
  };
}

export function addMembership(ctx: TwinContext, channel: string, user: string): void {
  const m: Membership = { channel, user, joined: ctx.clock.nowSeconds() };
  ctx.store.put('member', `${channel}:${user}`, m);
}

/** Create the starting workspace if the store has no team yet (first start, reset to empty). */
export function ensureWorkspace(ctx: TwinContext): void {
  if (ctx.store.count('team') > 0) {
    // A seed that brought its own people but no app: install the bot into its team.
    if (!findBot(ctx)) {
      const b = bot(ctx, currentTeam(ctx));
      ctx.store.put('user', b.id, b);
    }
    return;
  }
  ctx.store.transaction(() => {
    const team: Team = {
      id: slackId(ctx, 'T'),
      name: WORKSPACE_NAME,
      url: `https://${WORKSPACE_DOMAIN}.slack.com/`,
      domain: WORKSPACE_DOMAIN,
      email_domain: EMAIL_DOMAIN,
      icon: {
        image_default: true,
        image_34: `${DEFAULT_AVATAR}-34.png`,
        image_44: `${DEFAULT_AVATAR}-44.png`,
        image_68: `${DEFAULT_AVATAR}-68.png`,
        image_88: `${DEFAULT_AVATAR}-88.png`,
        image_102: `${DEFAULT_AVATAR}-102.png`,
        image_132: `${DEFAULT_AVATAR}-132.png`,
        image_230: `${DEFAULT_AVATAR}-230.png`,
      },
      avatar_base_url: 'https://ca.slack-edge.com/',
      is_verified: false,
    };
    ctx.store.put('team', team.id, team);
    const people = PEOPLE.map((p) => person(ctx, team, p));
    const botUser = bot(ctx, team);
    for (const u of [...people, botUser]) ctx.store.put('user', u.id, u);
    const owner = people[0]!;
    const general = newChannel(ctx, team, {
      id: slackId(ctx, 'C'),
      name: 'general',
      creator: owner.id,
      isPrivate: false,
      isGeneral: true,
      purpose: 'This is the one channel that will always include everyone.',
    });
    const random = newChannel(ctx, team, {
      id: slackId(ctx, 'C'),
      name: 'random',
      creator: owner.id,
      isPrivate: false,
      purpose: 'A place for non-work-related flimflam.',
    });
    ctx.store.put('channel', general.id, general);
    ctx.store.put('channel', random.id, random);
    for (const u of people) {
      addMembership(ctx, general.id, u.id);
      addMembership(ctx, random.id, u.id);
    }
    addMembership(ctx, general.id, botUser.id);
  });
}

export function currentTeam(ctx: TwinContext): Team {
  const team = ctx.store.list<Team>('team')[0];
  if (!team) throw new Error('Slack twin has no team record');
  return team;
}

const BOT_META = 'slack:bot_user';

function findBot(ctx: TwinContext): User | undefined {
  // Remembered so a call does not scan every user; checked again since records can be replaced.
  const remembered = ctx.store.getMeta(BOT_META);
  const cached = remembered ? getUser(ctx, remembered) : undefined;
  if (cached?.is_bot && !cached.deleted) return cached;
  const found = ctx.store.list<User>('user').find((u) => u.is_bot && !u.deleted);
  if (found) ctx.store.setMeta(BOT_META, found.id);
  return found;
}

/** The bot user the minted token belongs to (the first live bot user). */
export function botUser(ctx: TwinContext): User {
  const b = findBot(ctx);
  if (!b) throw new Error('Slack twin has no bot user');
  return b;
}

export function getUser(ctx: TwinContext, id: string): User | undefined {
  return ctx.store.get<User>('user', id);
}
