// Conversations: public and private channels (`C…`), IMs (`D…`) and group DMs (`G…`), their
// members, and the rules Slack applies to each change (names, archived channels, #general,
// who may see what). Every function acts as `actor` (a user id; the bot for Web API calls).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { postMessage } from './messages.js';
import { CONVERSATION_TYPES, conversationType, findWhere, type Conversation, type ConversationType, type Membership, type User } from './records.js';

export { CONVERSATION_TYPES, conversationType, eventChannelType, type ConversationType } from './records.js';
import { slackId } from './slack-ids.js';
import { addMembership, currentTeam, getUser, newChannel } from './workspace.js';

const MAX_NAME = 80;
const MAX_TOPIC = 250;

export function getConversation(ctx: TwinContext, id: string): Conversation | undefined {
  return ctx.store.get<Conversation>('channel', id);
}

export function isMember(ctx: TwinContext, channel: string, user: string): boolean {
  return ctx.store.has('member', `${channel}:${user}`);
}

/** Member user ids in join order. */
export function memberIds(ctx: TwinContext, channel: string): string[] {
  return findWhere<Membership>(ctx.store, 'member', 'channel', channel).map((m) => m.user);
}

/** Whether `actor` may see a conversation at all (private ones only by their members). */
function visible(ctx: TwinContext, c: Conversation, actor: string): boolean {
  return conversationType(c) === 'public_channel' || isMember(ctx, c.id, actor);
}

/**
 * The conversation a `channel` argument names: an id, or a public channel name (`#general`,
 * `general`). Private conversations the actor is not in do not exist for it.
 */
export function resolveConversation(ctx: TwinContext, arg: string | undefined, actor: string): Conversation {
  if (!arg) throw new SlackError('channel_not_found');
  let c = getConversation(ctx, arg);
  if (!c) {
    const name = arg.replace(/^#/, '');
    c = findWhere<Conversation>(ctx.store, 'channel', 'name', name).find((x) => !x.is_im && !x.is_mpim);
  }
  if (!c || !visible(ctx, c, actor)) throw new SlackError('channel_not_found');
  return c;
}

/** Same, for calls that need the actor inside (history, posting, topic…). */
export function resolveMemberConversation(ctx: TwinContext, arg: string | undefined, actor: string): Conversation {
  const c = resolveConversation(ctx, arg, actor);
  if (!isMember(ctx, c.id, actor)) throw new SlackError('not_in_channel');
  return c;
}

/** The conversation object as the API shows it to `actor`. */
export function conversationView(ctx: TwinContext, c: Conversation, actor: string, opts: { numMembers?: boolean } = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...c };
  if (!c.is_im) out.is_member = isMember(ctx, c.id, actor);
  if (c.is_im && c.user) out.is_user_deleted = getUser(ctx, c.user)?.deleted ?? false;
  if (opts.numMembers && !c.is_im) out.num_members = memberIds(ctx, c.id).length;
  return out;
}

function save(ctx: TwinContext, c: Conversation): void {
  c.updated = ctx.clock.nowMs();
  ctx.store.put('channel', c.id, c);
}

/** Slack's channel-name rules; answers the error code or undefined. */
export function nameError(name: string | undefined): string | undefined {
  if (!name) return 'invalid_name_required';
  if (name.length > MAX_NAME) return 'invalid_name_maxlength';
  if (!/^[a-z0-9_\-\u00C0-\uFFFF]+$/.test(name)) return 'invalid_name_specials';
  if (/^[-_]+$/.test(name)) return 'invalid_name_punctuation';
  return undefined;
}

function nameTaken(ctx: TwinContext, name: string, except?: string): boolean {
  return findWhere<Conversation>(ctx.store, 'channel', 'name', name).some((c) => c.id !== except && !c.is_im && !c.is_mpim);
}

function requireChannel(c: Conversation): void {
  if (c.is_im || c.is_mpim) throw new SlackError('method_not_supported_for_channel_type');
}

function requireNotArchived(c: Conversation): void {
  if (c.is_archived) throw new SlackError('is_archived');
}

function systemMessage(ctx: TwinContext, c: Conversation, user: User, subtype: string, text: string, extra: Record<string, unknown> = {}): void {
  postMessage(ctx, c, user, { text, subtype, extra });
}

function joinAs(ctx: TwinContext, c: Conversation, user: User, inviter?: string): void {
  addMembership(ctx, c.id, user.id);
  if (c.is_im) return;
  const channelType = c.is_private || c.is_mpim ? 'G' : 'C';
  emitEvent(
    ctx,
    { type: 'member_joined_channel', user: user.id, channel: c.id, channel_type: channelType, team: currentTeam(ctx).id, ...(inviter ? { inviter } : {}) },
    { channel: c.id },
  );
  systemMessage(ctx, c, user, 'channel_join', `<@${user.id}> has joined the channel`, inviter ? { inviter } : {});
}

function leaveAs(ctx: TwinContext, c: Conversation, user: User): void {
  // The event goes out while the bot is still a member, so it learns of its own departure too.
  const channelType = c.is_private || c.is_mpim ? 'G' : 'C';
  systemMessage(ctx, c, user, 'channel_leave', `<@${user.id}> has left the channel`);
  emitEvent(ctx, { type: 'member_left_channel', user: user.id, channel: c.id, channel_type: channelType, team: currentTeam(ctx).id }, { channel: c.id });
  ctx.store.delete('member', `${c.id}:${user.id}`);
}

export function createChannel(ctx: TwinContext, actor: User, name: string | undefined, isPrivate: boolean): Conversation {
  const bad = nameError(name);
  if (bad) throw new SlackError(bad);
  if (nameTaken(ctx, name!)) throw new SlackError('name_taken');
  return ctx.store.transaction(() => {
    const c = newChannel(ctx, currentTeam(ctx), { id: slackId(ctx, 'C'), name: name!, creator: actor.id, isPrivate });
    ctx.store.put('channel', c.id, c);
    addMembership(ctx, c.id, actor.id);
    if (!isPrivate) {
      emitEvent(ctx, {
        type: 'channel_created',
        channel: {
          id: c.id,
          name: c.name,
          created: c.created,
          creator: c.creator,
          is_channel: true,
          context_team_id: c.context_team_id,
          name_normalized: c.name,
        },
      });
    } else {
      emitEvent(ctx, { type: 'group_created', channel: { id: c.id, name: c.name, created: c.created, creator: c.creator } });
    }
    return c;
  });
}

export function joinChannel(ctx: TwinContext, actor: User, c: Conversation): { alreadyIn: boolean } {
  requireChannel(c);
  if (c.is_private) throw new SlackError('method_not_supported_for_channel_type');
  requireNotArchived(c);
  if (isMember(ctx, c.id, actor.id)) return { alreadyIn: true };
  ctx.store.transaction(() => joinAs(ctx, c, actor));
  return { alreadyIn: false };
}

export function leaveChannel(ctx: TwinContext, actor: User, c: Conversation): void {
  if (c.is_im) throw new SlackError('method_not_supported_for_channel_type');
  requireNotArchived(c);
  if (c.is_general) throw new SlackError('cant_leave_general');
  // Slack's one refusal without an error code: leaving where one is not.
  if (!isMember(ctx, c.id, actor.id)) throw new SlackError('not_in_channel', { not_in_channel: true }, false);
  if (memberIds(ctx, c.id).length === 1) throw new SlackError('last_member');
  ctx.store.transaction(() => leaveAs(ctx, c, actor));
}

export function inviteUsers(ctx: TwinContext, actor: User, c: Conversation, userIds: string[]): void {
  if (c.is_im) throw new SlackError('method_not_supported_for_channel_type');
  if (userIds.length === 0) throw new SlackError('no_user');
  if (userIds.length > 1000) throw new SlackError('too_many_users');
  requireNotArchived(c);
  if (!isMember(ctx, c.id, actor.id)) throw new SlackError('not_in_channel');
  const users: User[] = [];
  for (const id of userIds) {
    if (id === actor.id) throw new SlackError('cant_invite_self');
    const u = getUser(ctx, id);
    if (!u || u.deleted) throw new SlackError('user_not_found');
    if (isMember(ctx, c.id, id)) throw new SlackError('already_in_channel');
    users.push(u);
  }
  ctx.store.transaction(() => {
    for (const u of users) joinAs(ctx, c, u, actor.id);
  });
}

export function kickUser(ctx: TwinContext, actor: User, c: Conversation, userId: string | undefined): void {
  if (c.is_im || c.is_mpim) throw new SlackError('method_not_supported_for_channel_type');
  if (!userId) throw new SlackError('user_not_found');
  if (userId === actor.id) throw new SlackError('cant_kick_self');
  if (c.is_general) throw new SlackError('cant_kick_from_general');
  requireNotArchived(c);
  if (!isMember(ctx, c.id, actor.id)) throw new SlackError('not_in_channel');
  const u = getUser(ctx, userId);
  if (!u) throw new SlackError('user_not_found');
  if (!isMember(ctx, c.id, userId)) throw new SlackError('not_in_channel');
  ctx.store.transaction(() => leaveAs(ctx, c, u));
}

export function archiveChannel(ctx: TwinContext, actor: User, c: Conversation): void {
  requireChannel(c);
  if (c.is_archived) throw new SlackError('already_archived');
  if (c.is_general) throw new SlackError('cant_archive_general');
  if (!isMember(ctx, c.id, actor.id)) throw new SlackError('not_in_channel');
  ctx.store.transaction(() => {
    systemMessage(ctx, c, actor, 'channel_archive', `<@${actor.id}> archived the channel`);
    emitEvent(ctx, { type: c.is_private ? 'group_archive' : 'channel_archive', channel: c.id, user: actor.id, is_moving: false }, { channel: c.id });
    c.is_archived = true;
    save(ctx, c);
  });
}

export function unarchiveChannel(ctx: TwinContext, actor: User, c: Conversation): void {
  requireChannel(c);
  if (!c.is_archived) throw new SlackError('not_archived');
  if (!isMember(ctx, c.id, actor.id)) throw new SlackError('not_in_channel');
  ctx.store.transaction(() => {
    c.is_archived = false;
    save(ctx, c);
    emitEvent(ctx, { type: c.is_private ? 'group_unarchive' : 'channel_unarchive', channel: c.id, user: actor.id }, { channel: c.id });
    systemMessage(ctx, c, actor, 'channel_unarchive', `<@${actor.id}> un-archived the channel`);
  });
}

export function renameChannel(ctx: TwinContext, actor: User, c: Conversation, name: string | undefined): void {
  requireChannel(c);
  requireNotArchived(c);
  if (!isMember(ctx, c.id, actor.id)) throw new SlackError('not_in_channel');
  const bad = nameError(name);
  if (bad) throw new SlackError(bad);
  if (name === c.name) return;
  if (nameTaken(ctx, name!, c.id)) throw new SlackError('name_taken');
  ctx.store.transaction(() => {
    const old = c.name!;
    c.previous_names = [old, ...(c.previous_names ?? [])];
    c.name = name!;
    c.name_normalized = name!;
    save(ctx, c);
    emitEvent(ctx, {
      type: c.is_private ? 'group_rename' : 'channel_rename',
      channel: { id: c.id, name: c.name, name_normalized: c.name, created: c.created, is_channel: !c.is_private, is_mpim: false },
    });
    systemMessage(ctx, c, actor, 'channel_name', `<@${actor.id}> renamed the channel from "${old}" to "${name}"`, { old_name: old, name });
  });
}

export function setTopicOrPurpose(ctx: TwinContext, actor: User, c: Conversation, which: 'topic' | 'purpose', value: string): void {
  requireNotArchived(c);
  if (!isMember(ctx, c.id, actor.id)) throw new SlackError('not_in_channel');
  if (value.length > MAX_TOPIC) throw new SlackError('too_long');
  ctx.store.transaction(() => {
    c[which] = { value, creator: actor.id, last_set: ctx.clock.nowSeconds() };
    save(ctx, c);
    const text = value === '' ? `<@${actor.id}> cleared the channel ${which}` : `<@${actor.id}> set the channel ${which}: ${value}`;
    systemMessage(ctx, c, actor, `channel_${which}`, text, { [which]: value });
  });
}

/** conversations.open: the IM with one user or the group DM with 2–8; reopened when it exists. */
export function openConversation(ctx: TwinContext, actor: User, userIds: string[]): { conversation: Conversation; existed: boolean } {
  const others = [...new Set(userIds.filter((u) => u !== actor.id))];
  if (userIds.length === 0) throw new SlackError('users_list_not_supplied');
  if (others.length > 8) throw new SlackError('too_many_users');
  const users: User[] = [];
  for (const id of others) {
    const u = getUser(ctx, id);
    if (!u) throw new SlackError('user_not_found');
    if (u.deleted) throw new SlackError('user_disabled');
    users.push(u);
  }
  if (users.length === 0) throw new SlackError('not_enough_users');
  const team = currentTeam(ctx);
  const now = ctx.clock.nowSeconds();
  if (users.length === 1) {
    const other = users[0]!;
    const existing = findWhere<Conversation>(ctx.store, 'channel', 'user', other.id).find((c) => c.is_im && isMember(ctx, c.id, actor.id));
    if (existing) return { conversation: existing, existed: true };
    return ctx.store.transaction(() => {
      const im: Conversation = {
        id: slackId(ctx, 'D'),
        created: now,
        is_archived: false,
        is_im: true,
        is_org_shared: false,
        context_team_id: team.id,
        updated: ctx.clock.nowMs(),
        user: other.id,
        priority: 0,
      };
      ctx.store.put('channel', im.id, im);
      addMembership(ctx, im.id, actor.id);
      addMembership(ctx, im.id, other.id);
      return { conversation: im, existed: false };
    });
  }
  const everyone = [actor, ...users];
  const wanted = new Set(everyone.map((u) => u.id));
  const existing = ctx.store.list<Conversation>('channel').find((c) => {
    if (!c.is_mpim) return false;
    const ids = memberIds(ctx, c.id);
    return ids.length === wanted.size && ids.every((id) => wanted.has(id));
  });
  if (existing) return { conversation: existing, existed: true };
  return ctx.store.transaction(() => {
    const name = `mpdm-${everyone.map((u) => u.name).join('--')}-1`;
    const mpim: Conversation = {
      ...newChannel(ctx, team, { id: slackId(ctx, 'G'), name, creator: actor.id, isPrivate: true }),
      is_channel: false,
      is_group: false,
      is_mpim: true,
    };
    mpim.purpose = { value: `Group messaging with: ${everyone.map((u) => '@' + u.name).join(' ')}`, creator: actor.id, last_set: now };
    ctx.store.put('channel', mpim.id, mpim);
    for (const u of everyone) addMembership(ctx, mpim.id, u.id);
    return { conversation: mpim, existed: false };
  });
}

/** The IM between the actor and a user, opened on demand (chat.postMessage to a `U…` id). */
export function imWith(ctx: TwinContext, actor: User, userId: string): Conversation {
  return openConversation(ctx, actor, [userId]).conversation;
}

/** Conversations `actor` can list, filtered by type and archive state, in creation order. */
export function listConversations(ctx: TwinContext, actor: string, types: ConversationType[], excludeArchived: boolean): Conversation[] {
  return ctx.store
    .list<Conversation>('channel')
    .filter((c) => types.includes(conversationType(c)))
    .filter((c) => !(excludeArchived && c.is_archived))
    .filter((c) => visible(ctx, c, actor));
}

/** Conversations `user` is a member of that `actor` may see (users.conversations). */
export function userConversations(ctx: TwinContext, actor: string, user: string, types: ConversationType[], excludeArchived: boolean): Conversation[] {
  const ids = new Set(findWhere<Membership>(ctx.store, 'member', 'user', user).map((m) => m.channel));
  return listConversations(ctx, actor, types, excludeArchived).filter((c) => ids.has(c.id));
}

export function parseTypes(raw: string[], fallback: ConversationType[]): ConversationType[] {
  if (raw.length === 0) return fallback;
  for (const t of raw) if (!(CONVERSATION_TYPES as readonly string[]).includes(t)) throw new SlackError('invalid_types');
  return raw as ConversationType[];
}
