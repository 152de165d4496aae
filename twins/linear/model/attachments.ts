// Attachments: links on an issue (`attachmentCreate`, `attachmentLinkURL`), one per URL and issue —
// creating one again with the same `url` and `issueId` updates it, as Linear documents; updated
// (`attachmentUpdate`), deleted, found by id or by URL. Every change sends the `Attachment`
// webhook to hooks subscribed to that resource type.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidInput, notFound } from '../wire/errors.js';
import { requireIssue } from './issues.js';
import { stamps, uuid, type Attachment, type Issue, type User } from './records.js';
import { emitWebhook, type WebhookAction } from './webhooks.js';

export interface AttachmentInput {
  id?: string | null;
  issueId?: string;
  title?: string | null;
  subtitle?: string | null;
  url?: string;
  metadata?: Record<string, unknown> | null;
  iconUrl?: string | null;
  groupBySource?: boolean | null;
}

export function requireAttachment(ctx: TwinContext, id: string): Attachment {
  const found = ctx.store.get<Attachment>('attachment', id);
  if (!found) throw notFound('Attachment');
  return found;
}

function notify(ctx: TwinContext, a: Attachment, action: WebhookAction, actor: User, updatedFrom?: Record<string, unknown>): void {
  const issue = ctx.store.get<Issue>('issue', a.issueId);
  emitWebhook(ctx, { type: 'Attachment', action, data: { ...a }, url: a.url, teamIds: issue ? [issue.teamId] : [], actor, updatedFrom });
}

function checkedUrl(url: unknown): string {
  if (typeof url !== 'string' || !URL.canParse(url)) throw invalidInput('url must be a URL address');
  return url;
}

/** Create an attachment, or update the issue's attachment with the same URL. */
export function createAttachment(ctx: TwinContext, actor: User, input: AttachmentInput): Attachment {
  const issue = requireIssue(ctx, String(input.issueId ?? ''));
  const url = checkedUrl(input.url);
  if (typeof input.title !== 'string' || input.title.trim() === '') throw invalidInput('title should not be empty');
  const existing = ctx.store.list<Attachment>('attachment').find((a) => a.issueId === issue.id && a.url === url);
  if (existing) return updateAttachment(ctx, actor, existing.id, { ...input, title: input.title });
  if (input.id && ctx.store.has('attachment', input.id)) throw invalidInput('An attachment with this id already exists');
  const attachment: Attachment = {
    id: input.id || uuid(ctx),
    ...stamps(ctx),
    issueId: issue.id,
    creatorId: actor.id,
    title: input.title,
    subtitle: input.subtitle ?? null,
    url,
    metadata: input.metadata ?? {},
    iconUrl: input.iconUrl ?? null,
    groupBySource: input.groupBySource ?? false,
    sourceType: null,
  };
  ctx.store.put('attachment', attachment.id, attachment);
  notify(ctx, attachment, 'create', actor);
  return attachment;
}

/** `attachmentLinkURL`: with no integration configured, a basic attachment titled by its URL unless told. */
export function linkUrl(ctx: TwinContext, actor: User, input: { issueId?: string; url?: string; title?: string | null; id?: string | null }): Attachment {
  const url = checkedUrl(input.url);
  return createAttachment(ctx, actor, { id: input.id ?? null, issueId: input.issueId, url, title: input.title || url });
}

export function updateAttachment(ctx: TwinContext, actor: User, id: string, input: AttachmentInput): Attachment {
  const a = requireAttachment(ctx, id);
  if (input.title !== undefined && (typeof input.title !== 'string' || input.title.trim() === '')) throw invalidInput('title should not be empty');
  const from = { title: a.title, subtitle: a.subtitle, metadata: a.metadata, updatedAt: a.updatedAt };
  if (typeof input.title === 'string') a.title = input.title;
  if (input.subtitle !== undefined) a.subtitle = input.subtitle;
  if (input.metadata !== undefined) a.metadata = input.metadata ?? {};
  if (input.iconUrl !== undefined) a.iconUrl = input.iconUrl;
  a.updatedAt = ctx.clock.now().toISOString();
  ctx.store.put('attachment', a.id, a);
  notify(ctx, a, 'update', actor, from);
  return a;
}

export function deleteAttachment(ctx: TwinContext, actor: User, id: string): void {
  const a = requireAttachment(ctx, id);
  ctx.store.delete('attachment', id);
  notify(ctx, a, 'remove', actor);
}
