// Votes on an issue: the caller's own vote, added or withdrawn; `votes` on the issue counts them.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { requireIssue } from './issues.js';
import type { User, Watcher } from './records.js';
import { viewer } from './workspace.js';

export function issueVoters(ctx: TwinContext, issueId: string): User[] {
  return ctx.store
    .list<Watcher>('vote')
    .filter((v) => v.issueId === issueId)
    .map((v) => ctx.store.get<User>('user', v.accountId))
    .filter((u): u is User => !!u);
}

export function vote(ctx: TwinContext, idOrKey: string, on: boolean): void {
  const issue = requireIssue(ctx, idOrKey);
  const me = viewer(ctx).accountId;
  if (on) ctx.store.put('vote', `${issue.id}:${me}`, { issueId: issue.id, accountId: me });
  else ctx.store.delete('vote', `${issue.id}:${me}`);
}
