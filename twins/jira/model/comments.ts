// Comments on issues: ADF bodies, written as the token's user; `comment_created`/`_updated`/
// `_deleted` webhook events carry the comment and the issue.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { JiraError } from '../wire/errors.js';
import { requireAdf, requireIssue } from './issues.js';
import { jiraTime, type Comment } from './records.js';
import { commentView, issueView } from './views.js';
import { emitEvent } from './webhooks.js';
import { viewer } from './workspace.js';

function notify(ctx: TwinContext, name: string, comment: Comment): void {
  const issue = requireIssue(ctx, comment.issueId);
  emitEvent(
    ctx,
    name,
    { comment: commentView(ctx, comment), issue: issueView(ctx, issue, ['summary', 'status', 'issuetype', 'project', 'assignee', 'priority']) },
    () => true,
  );
}

export function addComment(ctx: TwinContext, issueIdOrKey: string, body: unknown): Comment {
  const issue = requireIssue(ctx, issueIdOrKey);
  const doc = requireAdf('comment', body);
  const now = jiraTime(ctx);
  const comment: Comment = {
    id: String(10000 + ctx.ids.sequence('id:comment') - 1),
    issueId: issue.id,
    authorId: viewer(ctx).accountId,
    body: doc,
    created: now,
    updated: now,
  };
  ctx.store.put('comment', comment.id, comment);
  notify(ctx, 'comment_created', comment);
  return comment;
}

export function findComment(ctx: TwinContext, issueIdOrKey: string, id: string): Comment {
  const issue = requireIssue(ctx, issueIdOrKey);
  const c = ctx.store.get<Comment>('comment', id);
  if (!c || c.issueId !== issue.id) throw new JiraError(404, [`Can not find a comment for id: ${id}.`]);
  return c;
}

export function updateComment(ctx: TwinContext, issueIdOrKey: string, id: string, body: unknown): Comment {
  const c = findComment(ctx, issueIdOrKey, id);
  c.body = requireAdf('comment', body);
  c.updated = jiraTime(ctx);
  ctx.store.put('comment', c.id, c);
  notify(ctx, 'comment_updated', c);
  return c;
}

export function deleteComment(ctx: TwinContext, issueIdOrKey: string, id: string): void {
  const c = findComment(ctx, issueIdOrKey, id);
  notify(ctx, 'comment_deleted', c);
  ctx.store.delete('comment', c.id);
}

export function issueComments(ctx: TwinContext, issueIdOrKey: string): Comment[] {
  const issue = requireIssue(ctx, issueIdOrKey);
  return ctx.store.list<Comment>('comment').filter((c) => c.issueId === issue.id);
}
