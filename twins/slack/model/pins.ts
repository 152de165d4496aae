// Pins and bookmarks of a conversation (what an incident channel keeps at hand). Pins are
// `pin` records `<channel>:<ts>`; bookmarks are `bookmark` records by id (`Bk…`).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError, invalidArguments } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { getMessage, messageView } from './messages.js';
import { findWhere, type Conversation, type User } from './records.js';
import { slackId } from './slack-ids.js';
import { currentTeam } from './workspace.js';

interface Pin {
  channel: string;
  ts: string;
  created: number;
  created_by: string;
}

function pinItem(ctx: TwinContext, p: Pin): Record<string, unknown> | undefined {
  const m = getMessage(ctx, p.channel, p.ts);
  if (!m) return undefined;
  return { type: 'message', created: p.created, created_by: p.created_by, channel: p.channel, message: { ...messageView(m), pinned_to: [p.channel] } };
}

export function pin(ctx: TwinContext, actor: User, c: Conversation, ts: string | undefined): void {
  if (!ts) throw new SlackError('no_item_specified');
  const m = getMessage(ctx, c.id, ts);
  if (!m || m.subtype === 'tombstone') throw new SlackError('message_not_found');
  if (ctx.store.has('pin', `${c.id}:${ts}`)) throw new SlackError('already_pinned');
  const p: Pin = { channel: c.id, ts, created: ctx.clock.nowSeconds(), created_by: actor.id };
  ctx.store.put('pin', `${c.id}:${ts}`, p);
  emitEvent(ctx, { type: 'pin_added', user: actor.id, channel_id: c.id, item: pinItem(ctx, p), pin_count: listPins(ctx, c).length }, { channel: c.id });
}

export function unpin(ctx: TwinContext, actor: User, c: Conversation, ts: string | undefined): void {
  if (!ts) throw new SlackError('no_item_specified');
  const p = ctx.store.get<Pin>('pin', `${c.id}:${ts}`);
  if (!p) throw new SlackError('no_pin');
  const item = pinItem(ctx, p);
  ctx.store.delete('pin', `${c.id}:${ts}`);
  emitEvent(
    ctx,
    { type: 'pin_removed', user: actor.id, channel_id: c.id, item, pin_count: listPins(ctx, c).length, has_pins: listPins(ctx, c).length > 0 },
    { channel: c.id },
  );
}

export function listPins(ctx: TwinContext, c: Conversation): Record<string, unknown>[] {
  return findWhere<Pin>(ctx.store, 'pin', 'channel', c.id)
    .map((p) => pinItem(ctx, p))
    .filter((x): x is Record<string, unknown> => !!x)
    .reverse();
}

// ---- bookmarks ---------------------------------------------------------------------------

export interface Bookmark {
  id: string;
  channel_id: string;
  title: string;
  link: string;
  emoji: string | null;
  icon_url: string | null;
  type: 'link';
  entity_id: null;
  date_created: number;
  date_updated: number;
  rank: string;
  last_updated_by_user_id: string;
  last_updated_by_team_id: string;
  shortcut_id: null;
  app_id: string | null;
}

const MAX_BOOKMARKS = 100;

function checkLink(link: string | undefined): string {
  if (!link) throw invalidArguments('missing required field: link');
  try {
    const u = new URL(link);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new SlackError('invalid_link');
  }
  return link;
}

export function addBookmark(ctx: TwinContext, actor: User, c: Conversation, input: { title?: string; type?: string; link?: string; emoji?: string }): Bookmark {
  if (!input.title) throw invalidArguments('missing required field: title');
  if (input.type !== 'link') throw new SlackError('invalid_bookmark_type');
  const existing = findWhere<Bookmark>(ctx.store, 'bookmark', 'channel_id', c.id);
  if (existing.length >= MAX_BOOKMARKS) throw new SlackError('too_many_bookmarks');
  const now = ctx.clock.nowSeconds();
  const b: Bookmark = {
    id: slackId(ctx, 'Bk'),
    channel_id: c.id,
    title: input.title,
    link: checkLink(input.link),
    emoji: input.emoji ?? null,
    icon_url: null,
    type: 'link',
    entity_id: null,
    date_created: now,
    date_updated: 0,
    rank: String.fromCharCode(85 + Math.min(existing.length, 5)),
    last_updated_by_user_id: actor.id,
    last_updated_by_team_id: currentTeam(ctx).id,
    shortcut_id: null,
    app_id: actor.is_bot ? (actor.profile.api_app_id ?? null) : null,
  };
  ctx.store.put('bookmark', b.id, b);
  return b;
}

export function getBookmark(ctx: TwinContext, c: Conversation, id: string | undefined): Bookmark {
  const b = id ? ctx.store.get<Bookmark>('bookmark', id) : undefined;
  if (!b || b.channel_id !== c.id) throw new SlackError('not_found');
  return b;
}

export function editBookmark(ctx: TwinContext, actor: User, b: Bookmark, changes: { title?: string; link?: string; emoji?: string }): Bookmark {
  const next: Bookmark = {
    ...b,
    ...(changes.title !== undefined ? { title: changes.title } : {}),
    ...(changes.link !== undefined ? { link: checkLink(changes.link) } : {}),
    ...(changes.emoji !== undefined ? { emoji: changes.emoji } : {}),
    date_updated: ctx.clock.nowSeconds(),
    last_updated_by_user_id: actor.id,
  };
  ctx.store.put('bookmark', b.id, next);
  return next;
}

export function listBookmarks(ctx: TwinContext, c: Conversation): Bookmark[] {
  return findWhere<Bookmark>(ctx.store, 'bookmark', 'channel_id', c.id);
}
