// Watchers of an issue: its creator from the start (Jira's default preference), then whoever is
// added; `watches` on the issue counts them. Only an existing user can watch.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { JiraError } from '../wire/errors.js';
import { requireIssue } from './issues.js';
import type { User, Watcher } from './records.js';

const key = (issueId: string, accountId: string) => `${issueId}:${accountId}`;

export function issueWatchers(ctx: TwinContext, issueId: string): User[] {
  return ctx.store
    .list<Watcher>('watcher')
    .filter((w) => w.issueId === issueId)
    .map((w) => ctx.store.get<User>('user', w.accountId))
    .filter((u): u is User => !!u);
}

function requireUser(ctx: TwinContext, accountId: string): User {
  const user = ctx.store.get<User>('user', accountId);
  if (!user) throw new JiraError(404, [`The user with account ID '${accountId}' does not exist.`]);
  return user;
}

export function addWatcher(ctx: TwinContext, idOrKey: string, accountId: string): void {
  const issue = requireIssue(ctx, idOrKey);
  requireUser(ctx, accountId);
  ctx.store.put('watcher', key(issue.id, accountId), { issueId: issue.id, accountId });
}

export function removeWatcher(ctx: TwinContext, idOrKey: string, accountId: string): void {
  const issue = requireIssue(ctx, idOrKey);
  requireUser(ctx, accountId);
  ctx.store.delete('watcher', key(issue.id, accountId));
}
