// Record kinds the Slack twin keeps, their body shapes (as the Web API returns them, plus the few
// keys the twin needs to find them again), and filtered reads straight from the record table.

import type Database from 'better-sqlite3';
import type { RecordStore } from '../../../twin-runtime/record-store.js';

export const RESOURCES = [
  'team',
  'user',
  'channel',
  'member',
  'message',
  'reaction',
  'scheduled_message',
  'setting',
  'token',
  'trigger',
  'response_url',
  'view',
  'ephemeral_message',
  'file',
  'pin',
  'bookmark',
  'usergroup',
  'reminder',
  'assistant_thread',
  'oauth_code',
] as const;

export interface Team {
  id: string;
  name: string;
  domain: string;
  email_domain: string;
  url?: string;
  icon: Record<string, unknown>;
  [key: string]: unknown;
}

export interface UserProfile {
  real_name: string;
  display_name: string;
  email?: string;
  bot_id?: string;
  api_app_id?: string;
  [key: string]: unknown;
}

export interface User {
  id: string;
  team_id: string;
  name: string;
  deleted: boolean;
  real_name: string;
  is_bot: boolean;
  profile: UserProfile;
  [key: string]: unknown;
}

export interface Topic {
  value: string;
  creator: string;
  last_set: number;
}

/** A conversation (public or private channel, IM, group DM) as conversations.info shows it. */
export interface Conversation {
  id: string;
  name?: string;
  created: number;
  creator?: string;
  is_channel?: boolean;
  is_group?: boolean;
  is_im?: boolean;
  is_mpim?: boolean;
  is_private?: boolean;
  is_archived?: boolean;
  is_general?: boolean;
  /** IMs: the other party. */
  user?: string;
  topic?: Topic;
  purpose?: Topic;
  previous_names?: string[];
  [key: string]: unknown;
}

/** Membership of one user in one conversation; external id `<channel>:<user>`. */
export interface Membership {
  channel: string;
  user: string;
  joined: number;
}

/** A message as history shows it, plus `channel`; external id `<channel>:<ts>`. */
export interface Message {
  type: 'message';
  channel: string;
  ts: string;
  text: string;
  user?: string;
  subtype?: string;
  thread_ts?: string;
  reply_count?: number;
  reply_users?: string[];
  reply_users_count?: number;
  latest_reply?: string;
  [key: string]: unknown;
}

/** One emoji on one message; external id `<channel>:<ts>:<name>`. */
export interface Reaction {
  channel: string;
  ts: string;
  name: string;
  users: string[];
  count: number;
}

export interface ScheduledMessage {
  id: string;
  channel_id: string;
  post_at: number;
  date_created: number;
  text: string;
  /** What is posted when the clock passes `post_at` (not shown by chat.scheduledMessages.list). */
  user: string;
  blocks?: unknown;
  attachments?: unknown;
  thread_ts?: string;
  reply_broadcast?: boolean;
  metadata?: unknown;
}

const statements = new WeakMap<RecordStore, Map<string, Database.Statement>>();

function prepared(store: RecordStore, sql: string): Database.Statement {
  let cache = statements.get(store);
  if (!cache) statements.set(store, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, (stmt = store.db.prepare(sql)));
  return stmt;
}

/** Records of a kind whose top-level `field` equals `value`, in insertion order. */
export function findWhere<T>(store: RecordStore, resource: string, field: string, value: string): T[] {
  if (!/^[a-z_]+$/.test(field)) throw new Error(`bad field name ${field}`);
  const rows = prepared(store, `SELECT body FROM records WHERE resource = ? AND json_extract(body, '$.${field}') = ? ORDER BY seq`).all(resource, value) as {
    body: string;
  }[];
  return rows.map((r) => JSON.parse(r.body) as T);
}

// ---- conversation kinds (conversations.ts and messages.ts both read them)

export type ConversationType = 'public_channel' | 'private_channel' | 'mpim' | 'im';
export const CONVERSATION_TYPES: readonly ConversationType[] = ['public_channel', 'private_channel', 'mpim', 'im'];

export function conversationType(c: Conversation): ConversationType {
  if (c.is_im) return 'im';
  if (c.is_mpim) return 'mpim';
  return c.is_private ? 'private_channel' : 'public_channel';
}

/** `channel_type` of message events: channel, group (private), im, mpim. */
export function eventChannelType(c: Conversation): string {
  return { public_channel: 'channel', private_channel: 'group', mpim: 'mpim', im: 'im' }[conversationType(c)];
}
