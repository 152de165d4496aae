// What follows a branch moving (contents API, ref updates, merges, git push): open pull requests
// catch up (`synchronize`), hooks receive a `push` event, commits landing on the default branch
// close the issues they name with a closing keyword, and whoever registered in `onPush` runs.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { WEB } from './identity.js';
import { type Json, viewer } from './accounts.js';
import { type Push, commitFiles } from './git.js';
import { closingIssueNumbers, getPull, onBranchMoved } from './pulls.js';
import { getIssue, updateIssue } from './issues.js';
import { emitEvent } from './webhooks.js';
import { eventsOfIssue, mentionedIssueNumbers, recordIssueEvent } from './issue-events.js';

const ZERO = '0000000000000000000000000000000000000000';

function pushCommit(ctx: TwinContext, repo: Json, c: Json): Json {
  const before = commitFiles(ctx, repo, c.parents[0]?.sha);
  const after = commitFiles(ctx, repo, c.sha);
  const added: string[] = [];
  const removed: string[] = [];
  const modified: string[] = [];
  for (const [p, sha] of after) {
    if (!before.has(p)) added.push(p);
    else if (before.get(p) !== sha) modified.push(p);
  }
  for (const p of before.keys()) if (!after.has(p)) removed.push(p);
  const username = /^(?:\d+\+)?([A-Za-z0-9-]+)@users\.noreply\.github\.com$/.exec(c.author.email)?.[1];
  return {
    id: c.sha,
    tree_id: c.tree.sha,
    distinct: true,
    message: c.message,
    timestamp: c.committer.date,
    url: `${WEB}/${repo.full_name}/commit/${c.sha}`,
    author: { name: c.author.name, email: c.author.email, ...(username ? { username } : {}) },
    committer: { name: c.committer.name, email: c.committer.email, ...(username ? { username } : {}) },
    added,
    removed,
    modified,
  };
}

/**
 * Listeners run after every push (any ref, including deletions, inside the request's transaction),
 * e.g. Actions runs triggered on push. A listener that throws rolls the push back.
 */
export type PushListener = (ctx: TwinContext, repo: Json, push: Push) => void;
export const onPush: PushListener[] = [];

/** Commits that reach the default branch close the open issues they name ("Fixes #12"). */
function closeNamedIssues(ctx: TwinContext, repo: Json, push: Push): void {
  if (push.ref !== `refs/heads/${repo.default_branch}`) return;
  for (const c of push.commits) {
    for (const n of closingIssueNumbers(c.message)) {
      const issue = getIssue(ctx, repo, n);
      if (!issue || issue.pull_request || issue.state !== 'open') continue;
      updateIssue(ctx, repo, issue, { state: 'closed', state_reason: 'completed', closing_commit: c.sha });
    }
  }
}

/** A pushed commit naming `#n` leaves a `referenced` event on that issue (once per commit). */
function recordReferences(ctx: TwinContext, repo: Json, push: Push): void {
  for (const c of push.commits) {
    for (const n of mentionedIssueNumbers(c.message)) {
      const issue = getIssue(ctx, repo, n);
      // A merge commit names its own pull request ("Merge pull request #n"): no reference there.
      if (!issue || (issue.pull_request && getPull(ctx, repo, n)?.merge_commit_sha === c.sha)) continue;
      if (eventsOfIssue(ctx, repo, n).some((e) => e.event === 'referenced' && e.commit_id === c.sha)) continue;
      recordIssueEvent(ctx, repo, n, 'referenced', {}, c.sha);
    }
  }
}

export function afterPush(ctx: TwinContext, repo: Json, push: Push): void {
  onBranchMoved(ctx, repo, push);
  recordReferences(ctx, repo, push);
  closeNamedIssues(ctx, repo, push);
  const me = viewer(ctx);
  const commits = push.commits.map((c) => pushCommit(ctx, repo, c));
  const deleted = push.after === ZERO;
  emitEvent(ctx, repo, 'push', {
    ref: push.ref,
    before: push.before ?? ZERO,
    after: push.after,
    created: push.before === null,
    deleted,
    forced: !!push.forced,
    base_ref: null,
    compare: `${WEB}/${repo.full_name}/compare/${(push.before ?? ZERO).slice(0, 12)}...${push.after.slice(0, 12)}`,
    commits,
    head_commit: commits[commits.length - 1] ?? null,
    pusher: { name: me.login, email: me.email ?? null },
  });
  for (const listener of onPush) listener(ctx, repo, push);
}

export { ZERO };
