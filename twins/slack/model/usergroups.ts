// User groups (`S…`, mentioned as `<!subteam^S…>`): create, update, disable/enable, members.
// Changes fire subteam_created / subteam_updated / subteam_members_changed.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError } from '../wire/errors.js';
import { emitEvent } from './events.js';
import type { User } from './records.js';
import { slackId } from './slack-ids.js';
import { currentTeam, getUser } from './workspace.js';

export interface Usergroup {
  id: string;
  team_id: string;
  is_usergroup: true;
  is_subteam: true;
  name: string;
  description: string;
  handle: string;
  is_external: false;
  date_create: number;
  date_update: number;
  date_delete: number;
  auto_type: null;
  created_by: string;
  updated_by: string;
  deleted_by: string | null;
  prefs: { channels: string[]; groups: string[] };
  users: string[];
  user_count: number;
}

function all(ctx: TwinContext): Usergroup[] {
  return ctx.store.list<Usergroup>('usergroup');
}

function checkUnique(ctx: TwinContext, name: string | undefined, handle: string | undefined, except?: string): void {
  for (const g of all(ctx)) {
    if (g.id === except) continue;
    if (name !== undefined && g.name === name) throw new SlackError('name_already_exists');
    if (handle !== undefined && g.handle === handle) throw new SlackError('handle_already_exists');
  }
  if (handle !== undefined && !/^[a-z0-9._-]{1,21}$/.test(handle)) throw new SlackError('invalid_handle');
}

export function getUsergroup(ctx: TwinContext, id: string | undefined): Usergroup {
  const g = id ? ctx.store.get<Usergroup>('usergroup', id) : undefined;
  if (!g) throw new SlackError('no_such_subteam');
  return g;
}

export function createUsergroup(ctx: TwinContext, actor: User, input: { name: string; handle?: string; description?: string; channels: string[] }): Usergroup {
  const handle =
    input.handle ??
    input.name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .slice(0, 21);
  checkUnique(ctx, input.name, handle);
  const now = ctx.clock.nowSeconds();
  const g: Usergroup = {
    id: slackId(ctx, 'S'),
    team_id: currentTeam(ctx).id,
    is_usergroup: true,
    is_subteam: true,
    name: input.name,
    description: input.description ?? '',
    handle,
    is_external: false,
    date_create: now,
    date_update: now,
    date_delete: 0,
    auto_type: null,
    created_by: actor.id,
    updated_by: actor.id,
    deleted_by: null,
    prefs: { channels: input.channels, groups: [] },
    users: [],
    user_count: 0,
  };
  ctx.store.put('usergroup', g.id, g);
  emitEvent(ctx, { type: 'subteam_created', subteam: g });
  return g;
}

export function changeUsergroup(
  ctx: TwinContext,
  actor: User,
  g: Usergroup,
  changes: { name?: string; handle?: string; description?: string; channels?: string[]; enabled?: boolean },
): Usergroup {
  checkUnique(ctx, changes.name, changes.handle, g.id);
  if (changes.enabled === false && g.date_delete !== 0) throw new SlackError('already_disabled');
  if (changes.enabled === true && g.date_delete === 0) throw new SlackError('already_enabled');
  const now = ctx.clock.nowSeconds();
  const next: Usergroup = {
    ...g,
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.handle !== undefined ? { handle: changes.handle } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.channels !== undefined ? { prefs: { ...g.prefs, channels: changes.channels } } : {}),
    ...(changes.enabled === false ? { date_delete: now, deleted_by: actor.id } : {}),
    ...(changes.enabled === true ? { date_delete: 0, deleted_by: null } : {}),
    date_update: now,
    updated_by: actor.id,
  };
  ctx.store.put('usergroup', g.id, next);
  emitEvent(ctx, { type: 'subteam_updated', subteam: next });
  return next;
}

export function setMembers(ctx: TwinContext, actor: User, g: Usergroup, users: string[]): Usergroup {
  if (users.length === 0) throw new SlackError('no_users_provided');
  for (const u of users) {
    const found = getUser(ctx, u);
    if (!found || found.deleted) throw new SlackError('invalid_users');
  }
  const unique = [...new Set(users)];
  const added = unique.filter((u) => !g.users.includes(u));
  const removed = g.users.filter((u) => !unique.includes(u));
  const next: Usergroup = { ...g, users: unique, user_count: unique.length, date_update: ctx.clock.nowSeconds(), updated_by: actor.id };
  ctx.store.put('usergroup', g.id, next);
  emitEvent(ctx, {
    type: 'subteam_members_changed',
    subteam_id: g.id,
    team_id: g.team_id,
    date_previous_update: g.date_update,
    date_update: next.date_update,
    added_users: added,
    added_users_count: String(added.length),
    removed_users: removed,
    removed_users_count: String(removed.length),
  });
  return next;
}

export function listUsergroups(ctx: TwinContext, includeDisabled: boolean): Usergroup[] {
  return all(ctx).filter((g) => includeDisabled || g.date_delete === 0);
}
