// An issue's (or pull request's) timeline: its recorded events, its comments (`commented`), a pull
// request's commits (`committed`) and submitted reviews (`reviewed`), and the issues that mention
// it (`cross-referenced`), in the order they happened.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { Json } from './accounts.js';
import { childKey } from './repositories.js';
import { eventsOfIssue, presentIssueEvent } from './issue-events.js';
import { getIssue, listComments, presentIssue } from './issues.js';
import { getPull, listReviews, pullCommits } from './pulls.js';

interface Entry {
  at: string;
  /** Insertion order of the record behind the entry: ties within a second keep the order things happened. */
  order: number;
  item: Json;
}

export function timelineOf(ctx: TwinContext, repo: Json, issue: Json): Json[] {
  const entries: Entry[] = [];
  const seq = (kind: string, key: string) => ctx.store.cursorOf(kind, childKey(repo, key))?.seq ?? 0;
  const add = (at: string, order: number, item: Json) => entries.push({ at, order, item });
  for (const e of eventsOfIssue(ctx, repo, issue.number, true)) {
    if (e.event === 'cross-referenced') {
      const source = getIssue(ctx, repo, e.source_issue_number);
      if (!source) continue;
      add(e.created_at, seq('issue_event', `${issue.number}:${e.id}`), {
        event: 'cross-referenced',
        actor: e.actor,
        created_at: e.created_at,
        updated_at: e.created_at,
        source: { type: 'issue', issue: { ...presentIssue(ctx, repo, source), repository: repo } },
      });
    } else {
      add(e.created_at, seq('issue_event', `${issue.number}:${e.id}`), presentIssueEvent(e));
    }
  }
  for (const c of listComments(ctx, repo, issue)) add(c.created_at, seq('issue_comment', String(c.id)), { ...c, event: 'commented', actor: c.user });
  const pr = issue.pull_request ? getPull(ctx, repo, issue.number) : undefined;
  if (pr) {
    for (const c of pullCommits(ctx, repo, pr)) {
      add(c.committer.date, seq('commit', c.sha), {
        sha: c.sha,
        node_id: c.node_id,
        url: c.url,
        html_url: c.html_url,
        author: c.author,
        committer: c.committer,
        tree: c.tree,
        message: c.message,
        parents: c.parents,
        verification: c.verification,
        event: 'committed',
      });
    }
    for (const r of listReviews(ctx, repo, pr)) {
      if (r.state === 'PENDING' || !r.submitted_at) continue;
      add(r.submitted_at, seq('review', String(r.id)), { ...r, state: String(r.state).toLowerCase(), event: 'reviewed' });
    }
  }
  const byTime = (a: Entry, b: Entry) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.order - b.order);
  return entries.sort(byTime).map((e) => e.item);
}
