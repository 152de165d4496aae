// Record kinds of the SendGrid twin and their stored shapes, with SendGrid's timestamp formats
// (`updated_at` as `YYYY-MM-DD HH:MM:SS` on templates, unix seconds in events).

import type { TwinContext } from '../../../twin-runtime/contract.js';

export const RESOURCES = ['message', 'template', 'template_version', 'event_webhook', 'bounce', 'twin_settings'] as const;

export interface Address {
  email: string;
  name?: string;
}

export interface AttachmentMeta {
  filename: string;
  type: string | null;
  disposition: 'attachment' | 'inline';
  content_id: string | null;
  /** Decoded size in bytes (the content itself is not kept in the mailbox). */
  size: number;
}

/** A webhook event not sent yet: `processed`/`dropped` of a scheduled send, `delivered` or `bounce`. */
export interface PendingEvent {
  event: 'processed' | 'dropped' | 'delivered' | 'bounce';
  email: string;
  due_ms: number;
}

/**
 * One mailbox entry: one personalization of an accepted mail send (SendGrid renders and sends each
 * personalization as its own email, with its own `sg_message_id`).
 */
export interface MessageRecord {
  sg_message_id: string;
  x_message_id: string;
  personalization_index: number;
  status: 'scheduled' | 'processed' | 'delivered' | 'bounced' | 'dropped' | 'sandbox';
  sandbox: boolean;
  from: Address;
  reply_to: Address | null;
  reply_to_list: Address[];
  to: Address[];
  cc: Address[];
  bcc: Address[];
  subject: string;
  text: string | null;
  html: string | null;
  template_id: string | null;
  template_version_id: string | null;
  dynamic_template_data: Record<string, unknown> | null;
  substitutions: Record<string, string>;
  headers: Record<string, string>;
  attachments: AttachmentMeta[];
  categories: string[];
  custom_args: Record<string, string>;
  send_at: number | null;
  batch_id: string | null;
  created_at: string;
  /** Events sent so far, in order (`processed`, `delivered`, `open`…), per recipient. */
  events: { event: string; email: string; timestamp: number; sg_event_id: string }[];
  pending: PendingEvent[];
}

export interface TemplateRecord {
  id: string;
  name: string;
  generation: 'legacy' | 'dynamic';
  updated_at: string;
}

export interface TemplateVersionRecord {
  id: string;
  template_id: string;
  active: 0 | 1;
  name: string;
  subject: string;
  html_content: string;
  plain_content: string;
  generate_plain_content: boolean;
  editor: 'code' | 'design';
  test_data: string | null;
  thumbnail_url: string;
  updated_at: string;
}

/** SendGrid's `2026-03-02 09:00:00` (UTC). */
export function sgTime(ctx: TwinContext): string {
  return ctx.clock.now().toISOString().slice(0, 19).replace('T', ' ');
}

/** A lower-case UUID from the twin's id source (deterministic per twin seed). */
export function uuid(ctx: TwinContext): string {
  const h = ctx.ids.bytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A stored message as the twin wrote it, or undefined for a body edited into another shape through
 * the records API (such a record is skipped by the lifecycle and Email Activity, not a 500).
 */
export function asMessage(body: unknown): MessageRecord | undefined {
  const m = body as Partial<MessageRecord> | null;
  if (!m || typeof m !== 'object' || typeof m.sg_message_id !== 'string') return undefined;
  if (![m.to, m.cc, m.bcc, m.events, m.pending, m.categories].every(Array.isArray)) return undefined;
  if (!m.from || typeof m.from.email !== 'string' || !m.custom_args || typeof m.custom_args !== 'object') return undefined;
  return m as MessageRecord;
}
