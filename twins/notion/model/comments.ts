// Comments on pages and blocks: a new comment opens a discussion (or answers one by
// `discussion_id`); lists read a page's or block's comments oldest first.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, notFound, NotionError, validation } from '../wire/errors.js';
import { bodyId, canonicalId, field, isObject } from '../wire/params.js';
import { containerKind, refs, userRef } from './access.js';
import { newId, notionTime, type Comment } from './records.js';
import { richText } from './rich-text.js';
import { emitEvent } from './webhooks.js';
import { me } from './workspace.js';

export function createComment(ctx: TwinContext, body: Record<string, unknown>): Comment {
  const rt = richText(field(body, 'rich_text'), 'rich_text', refs(ctx));
  if (rt.length === 0) throw bodyInvalid('rich_text', 'should be defined', field(body, 'rich_text'));
  let pageId: string | null = null;
  let blockId: string | null = null;
  let discussion: string;
  const parent = field(body, 'parent');
  const discussionId = field(body, 'discussion_id');
  if (discussionId !== undefined) {
    const d = canonicalId(discussionId);
    const first = d ? ctx.store.list<Comment>('comment').find((c) => c.discussion_id === d) : undefined;
    if (!first) throw validation(`Could not find discussion with ID: ${String(discussionId)}.`);
    ({ page_id: pageId, block_id: blockId, discussion_id: discussion } = first);
  } else if (isObject(parent)) {
    if (field(parent, 'page_id') !== undefined) {
      pageId = bodyId(field(parent, 'page_id'), 'parent.page_id');
      if (containerKind(ctx, pageId) !== 'page') throw notFound('page', pageId);
    } else {
      blockId = bodyId(field(parent, 'block_id'), 'parent.block_id');
      if (containerKind(ctx, blockId) !== 'block') throw notFound('block', blockId);
    }
    discussion = newId(ctx);
  } else throw bodyInvalid('parent', 'should be defined', parent);
  const now = notionTime(ctx);
  const comment: Comment = {
    id: newId(ctx),
    page_id: pageId,
    block_id: blockId,
    discussion_id: discussion,
    rich_text: rt,
    created_time: now,
    last_edited_time: now,
    created_by: me(ctx).id,
  };
  ctx.store.put('comment', comment.id, comment);
  commentEvent(ctx, 'comment.created', comment);
  return comment;
}

function commentEvent(ctx: TwinContext, type: string, c: Comment): void {
  emitEvent(ctx, {
    type,
    entity: { id: c.id, type: 'comment' },
    data: { page_id: c.page_id ?? c.block_id, parent: c.page_id ? { id: c.page_id, type: 'page' } : { id: c.block_id, type: 'block' } },
  });
}

export function commentsOn(ctx: TwinContext, id: string): Comment[] {
  if (!containerKind(ctx, id)) throw notFound('block', id);
  return ctx.store.list<Comment>('comment').filter((c) => c.page_id === id || c.block_id === id);
}

export function commentView(c: Comment): Record<string, unknown> {
  return {
    object: 'comment',
    id: c.id,
    parent: c.page_id ? { type: 'page_id', page_id: c.page_id } : { type: 'block_id', block_id: c.block_id },
    discussion_id: c.discussion_id,
    created_time: c.created_time,
    last_edited_time: c.last_edited_time,
    created_by: userRef(c.created_by),
    rich_text: c.rich_text,
    display_name: { type: 'integration', resolved_name: null },
  };
}

export function getComment(ctx: TwinContext, id: string): Comment {
  const c = ctx.store.get<Comment>('comment', id);
  if (!c) throw notFound('comment', id);
  return c;
}

/** Only the integration's own comments can be edited or deleted (as Notion allows). */
function own(ctx: TwinContext, c: Comment): void {
  if (c.created_by !== me(ctx).id) throw new NotionError(403, 'restricted_resource', 'Insufficient permissions for this endpoint.');
}

export function updateComment(ctx: TwinContext, id: string, body: Record<string, unknown>): Comment {
  const c = getComment(ctx, id);
  own(ctx, c);
  const markdown = field(body, 'markdown');
  const rt =
    typeof markdown === 'string'
      ? richText([{ text: { content: markdown } }], 'markdown', refs(ctx))
      : richText(field(body, 'rich_text'), 'rich_text', refs(ctx));
  if (rt.length === 0) throw bodyInvalid('rich_text', 'should be defined', field(body, 'rich_text'));
  c.rich_text = rt;
  c.last_edited_time = notionTime(ctx);
  ctx.store.put('comment', c.id, c);
  commentEvent(ctx, 'comment.updated', c);
  return c;
}

export function deleteComment(ctx: TwinContext, id: string): Comment {
  const c = getComment(ctx, id);
  own(ctx, c);
  ctx.store.delete('comment', c.id);
  commentEvent(ctx, 'comment.deleted', c);
  return c;
}
