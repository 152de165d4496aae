// Record kinds of the Notion twin and their stored shapes. Ids are UUIDs (v4 layout, from the
// twin's deterministic id source); times are ISO strings cut to the minute, as Notion reports them.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { RichText } from './rich-text.js';

export const RESOURCES = [
  'workspace',
  'user',
  'page',
  'database',
  'data_source',
  'block',
  'children',
  'comment',
  'webhook_subscription',
  'file_upload',
  'view',
  'view_query',
] as const;

export interface User {
  id: string;
  type: 'person' | 'bot';
  name: string;
  avatar_url: string | null;
  email?: string;
  /** The integration's own bot user (`users.me`). */
  me?: boolean;
}

export interface Workspace {
  id: string;
  name: string;
}

export type Parent =
  | { type: 'workspace' }
  | { type: 'page_id'; page_id: string }
  | { type: 'block_id'; block_id: string }
  | { type: 'data_source_id'; data_source_id: string; database_id: string };

export interface Stamps {
  created_time: string;
  last_edited_time: string;
  created_by: string;
  last_edited_by: string;
  in_trash: boolean;
}

export interface Page extends Stamps {
  id: string;
  parent: Parent;
  icon: unknown;
  cover: unknown;
  /** Values by property id (`title` for the title). */
  values: Record<string, unknown>;
  is_locked: boolean;
}

export interface Database extends Stamps {
  id: string;
  parent: Parent;
  title: RichText[];
  description: RichText[];
  icon: unknown;
  cover: unknown;
  is_inline: boolean;
  is_locked: boolean;
  data_source_ids: string[];
}

export interface SelectOption {
  id: string;
  name: string;
  color: string;
  description: string | null;
}

export interface PropertySchema {
  id: string;
  name: string;
  type: string;
  description: string | null;
  /** The type's configuration as Notion shows it (`options`, `format`, `expression`…). */
  config: Record<string, unknown>;
}

export interface DataSource extends Stamps {
  id: string;
  database_id: string;
  title: RichText[];
  description: RichText[];
  icon: unknown;
  /** In schema order; names are unique (case-sensitive), the title property has id `title`. */
  properties: PropertySchema[];
}

export interface Block extends Stamps {
  id: string;
  parent: Parent;
  type: string;
  /** The type's content (`{rich_text, color}` for a paragraph…). */
  content: Record<string, unknown>;
}

/** The ordered children of a page or block (key: the container's id). */
export interface Children {
  ids: string[];
}

export interface Comment {
  id: string;
  page_id: string | null;
  block_id: string | null;
  discussion_id: string;
  rich_text: RichText[];
  created_time: string;
  last_edited_time: string;
  created_by: string;
}

export interface WebhookSubscription {
  id: string;
  url: string;
  event_types: string[];
  verification_token: string;
  created_time: string;
}

/** A v4-layout UUID from the twin's deterministic bytes. */
export function newId(ctx: TwinContext): string {
  const b = Buffer.from(ctx.ids.bytes(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Notion reports created/edited times to the minute. */
export function notionTime(ctx: TwinContext): string {
  const ms = ctx.clock.nowMs();
  return new Date(ms - (ms % 60_000)).toISOString();
}

export function stamps(ctx: TwinContext, by: string): Stamps {
  const now = notionTime(ctx);
  return { created_time: now, last_edited_time: now, created_by: by, last_edited_by: by, in_trash: false };
}

export function touch(ctx: TwinContext, s: Stamps, by: string): void {
  s.last_edited_time = notionTime(ctx);
  s.last_edited_by = by;
}
