// Emoji reactions on messages: one `reaction` record per message and emoji, listing who reacted.

import { readFileSync } from 'node:fs';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError } from '../wire/errors.js';
import { emitEvent } from './events.js';
import { getMessage } from './messages.js';
import { CUSTOM_EMOJI } from './workspace.js';
import { findWhere, type Conversation, type Message, type Reaction, type User } from './records.js';

const MAX_REACTIONS_PER_MESSAGE = 23;

function key(channel: string, ts: string, name: string): string {
  return `${channel}:${ts}:${name}`;
}

/** Slack's standard emoji (pinned from emoji-data: vocabulary/emoji-names.json), read on first use. */
let standardEmoji: Set<string> | undefined;

function isKnownEmoji(name: string): boolean {
  standardEmoji ??= new Set((JSON.parse(readFileSync(new URL('../vocabulary/emoji-names.json', import.meta.url), 'utf8')) as { names: string[] }).names);
  return standardEmoji.has(name) || CUSTOM_EMOJI.has(name);
}

/**
 * Emoji names as Slack accepts them: a standard emoji under any of its names (`thumbsup`, `+1`) or
 * one of the workspace's custom emoji, with an optional `::skin-tone-2`…`6`; anything else is
 * `invalid_name`, as Slack answers it.
 */
export function normalizeReactionName(raw: string | undefined): string {
  if (!raw) throw new SlackError('invalid_name');
  const name = raw.replace(/^:|:$/g, '');
  const m = /^([a-z0-9_+'-]+)(::skin-tone-[2-6])?$/.exec(name);
  if (!m || name.length > 100 || !isKnownEmoji(m[1]!)) throw new SlackError('invalid_name');
  return name;
}

function target(ctx: TwinContext, c: Conversation, ts: string | undefined): Message {
  if (!ts) throw new SlackError('no_item_specified');
  const m = getMessage(ctx, c.id, ts);
  if (!m || m.subtype === 'tombstone') throw new SlackError('message_not_found');
  return m;
}

function itemEvent(c: Conversation, m: Message): Record<string, unknown> {
  return { item: { type: 'message', channel: c.id, ts: m.ts }, item_user: m.user };
}

export function addReaction(ctx: TwinContext, actor: User, c: Conversation, ts: string | undefined, rawName: string | undefined): void {
  const m = target(ctx, c, ts);
  const name = normalizeReactionName(rawName);
  if (c.is_archived) throw new SlackError('is_archived');
  const existing = ctx.store.get<Reaction>('reaction', key(c.id, m.ts, name));
  if (existing?.users.includes(actor.id)) throw new SlackError('already_reacted');
  ctx.store.transaction(() => {
    if (existing) {
      existing.users.push(actor.id);
      existing.count = existing.users.length;
      ctx.store.put('reaction', key(c.id, m.ts, name), existing);
    } else {
      const onMessage = listReactions(ctx, c.id, m.ts).length;
      if (onMessage >= MAX_REACTIONS_PER_MESSAGE) throw new SlackError('too_many_reactions');
      const r: Reaction = { channel: c.id, ts: m.ts, name, users: [actor.id], count: 1 };
      ctx.store.put('reaction', key(c.id, m.ts, name), r);
    }
    emitEvent(ctx, { type: 'reaction_added', user: actor.id, reaction: name, ...itemEvent(c, m) }, { channel: c.id });
  });
}

export function removeReaction(ctx: TwinContext, actor: User, c: Conversation, ts: string | undefined, rawName: string | undefined): void {
  const m = target(ctx, c, ts);
  const name = normalizeReactionName(rawName);
  const existing = ctx.store.get<Reaction>('reaction', key(c.id, m.ts, name));
  if (!existing?.users.includes(actor.id)) throw new SlackError('no_reaction');
  ctx.store.transaction(() => {
    existing.users = existing.users.filter((u) => u !== actor.id);
    existing.count = existing.users.length;
    if (existing.count === 0) ctx.store.delete('reaction', key(c.id, m.ts, name));
    else ctx.store.put('reaction', key(c.id, m.ts, name), existing);
    emitEvent(ctx, { type: 'reaction_removed', user: actor.id, reaction: name, ...itemEvent(c, m) }, { channel: c.id });
  });
}

export function listReactions(ctx: TwinContext, channel: string, ts: string): Reaction[] {
  return findWhere<Reaction>(ctx.store, 'reaction', 'channel', channel).filter((r) => r.ts === ts);
}

export function reactionTarget(ctx: TwinContext, c: Conversation, ts: string | undefined): Message {
  return target(ctx, c, ts);
}
