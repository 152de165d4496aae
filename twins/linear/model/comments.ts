// Comments on issues (threads through `parentId`), written as the key's user; each change sends
// the `Comment` webhook.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidInput, notFound } from '../wire/errors.js';
import { requireIssue } from './issues.js';
import { stamps, uuid, type Comment, type Issue, type User } from './records.js';
import { emitWebhook, type WebhookAction } from './webhooks.js';
import { organization } from './workspace.js';

export function commentUrl(ctx: TwinContext, comment: Comment): string {
  const issue = ctx.store.get<Issue>('issue', comment.issueId);
  const shortId = comment.id.slice(0, 8);
  return `https://linear.app/${organization(ctx).urlKey}/issue/${issue?.identifier.toLowerCase() ?? 'unknown'}#comment-${shortId}`;
}

function notify(ctx: TwinContext, comment: Comment, action: WebhookAction, actor: User, updatedFrom?: Record<string, unknown>): void {
  const issue = ctx.store.get<Issue>('issue', comment.issueId);
  const data = {
    ...comment,
    ...(issue ? { issue: { id: issue.id, identifier: issue.identifier, title: issue.title, teamId: issue.teamId } } : {}),
    user: { id: actor.id, name: actor.name },
  };
  emitWebhook(ctx, { type: 'Comment', action, data, url: commentUrl(ctx, comment), teamIds: issue ? [issue.teamId] : [], actor, updatedFrom });
}

export function createComment(ctx: TwinContext, actor: User, input: { issueId?: string; body?: string; parentId?: string | null }): Comment {
  if (!input.issueId) throw invalidInput('issueId must be a UUID');
  const issue = requireIssue(ctx, input.issueId);
  if (!input.body || input.body.trim() === '') throw invalidInput('body should not be empty');
  if (input.parentId) {
    const parent = ctx.store.get<Comment>('comment', input.parentId);
    if (!parent || parent.issueId !== issue.id) throw notFound('Comment');
  }
  const comment: Comment = {
    id: uuid(ctx),
    ...stamps(ctx),
    body: input.body,
    issueId: issue.id,
    userId: actor.id,
    parentId: input.parentId ?? null,
    editedAt: null,
  };
  ctx.store.put('comment', comment.id, comment);
  notify(ctx, comment, 'create', actor);
  return comment;
}

export function updateComment(ctx: TwinContext, actor: User, id: string, input: { body?: string }): Comment {
  const comment = ctx.store.get<Comment>('comment', id);
  if (!comment) throw notFound('Comment');
  if (input.body !== undefined) {
    if (input.body.trim() === '') throw invalidInput('body should not be empty');
    const from = { body: comment.body, updatedAt: comment.updatedAt };
    const now = ctx.clock.now().toISOString();
    comment.body = input.body;
    comment.editedAt = now;
    comment.updatedAt = now;
    ctx.store.put('comment', comment.id, comment);
    notify(ctx, comment, 'update', actor, from);
  }
  return comment;
}

export function deleteComment(ctx: TwinContext, actor: User, id: string): void {
  const comment = ctx.store.get<Comment>('comment', id);
  if (!comment) throw notFound('Comment');
  ctx.store.delete('comment', id);
  notify(ctx, comment, 'remove', actor);
}

/** A comment thread resolved (optionally by one of its replies) or reopened. */
export function resolveComment(ctx: TwinContext, actor: User, id: string, resolved: boolean, resolvingCommentId?: string): Comment {
  const comment = ctx.store.get<Comment>('comment', id);
  if (!comment) throw notFound('Comment');
  if (comment.parentId) throw invalidInput('Only the first comment of a thread can be resolved');
  if (resolvingCommentId) {
    const by = ctx.store.get<Comment>('comment', resolvingCommentId);
    if (!by || by.parentId !== comment.id) throw notFound('Comment');
  }
  const now = ctx.clock.now().toISOString();
  const next: Comment = {
    ...comment,
    resolvedAt: resolved ? now : null,
    resolvingUserId: resolved ? actor.id : null,
    resolvingCommentId: resolved ? (resolvingCommentId ?? null) : null,
    updatedAt: now,
  };
  ctx.store.put('comment', comment.id, next);
  notify(ctx, next, 'update', actor, { resolvedAt: comment.resolvedAt ?? null, updatedAt: comment.updatedAt });
  return next;
}
