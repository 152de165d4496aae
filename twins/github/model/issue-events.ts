// Issue events, recorded as they happen (labeled, assigned, milestoned, renamed, closed, reopened,
// locked, merged, referenced by a commit, review requests, and cross-references from other issues,
// which only the timeline shows). Keyed `<repository id>:<issue number>:<event id>` so one issue's
// events are one range read, oldest first as GitHub lists them.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, nextId, nodeId, now } from './identity.js';
import { type Json, simpleAccount, viewer } from './accounts.js';
import { childKey } from './repositories.js';

const ISSUE_EVENT = 'issue_event';

/** Events GitHub's timeline shows but `…/issues/{n}/events` does not. */
const TIMELINE_ONLY = new Set(['cross-referenced']);

/** Record one event on an issue (or a pull request's issue half); `extra` holds its own fields. */
export function recordIssueEvent(ctx: TwinContext, repo: Json, issueNumber: number, event: string, extra: Json = {}, commitId: string | null = null): Json {
  const id = nextId(ctx, 'issue_event');
  const body: Json = {
    id,
    node_id: nodeId(eventNodeType(event), id),
    url: `${API}/repos/${repo.full_name}/issues/events/${id}`,
    actor: simpleAccount(viewer(ctx)),
    event,
    commit_id: commitId,
    commit_url: commitId ? `${API}/repos/${repo.full_name}/commits/${commitId}` : null,
    created_at: now(ctx),
    performed_via_github_app: null,
    ...extra,
    issue_number: issueNumber,
  };
  ctx.store.put(ISSUE_EVENT, childKey(repo, `${issueNumber}:${id}`), body);
  return body;
}

/** GraphQL type names behind the events' node ids (LabeledEvent, ClosedEvent…). */
function eventNodeType(event: string): string {
  const camel = event
    .split(/[-_]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  return `${camel}Event`;
}

/** The stored event as REST shows it (the issue number is the twin's own index field). */
function present(e: Json): Json {
  const { issue_number: _n, ...rest } = e;
  return rest;
}

/** `GET …/issues/{n}/events`, oldest first. */
export function eventsOfIssue(ctx: TwinContext, repo: Json, issueNumber: number, withTimelineOnly = false): Json[] {
  return ctx.store
    .listByPrefix<Json>(ISSUE_EVENT, childKey(repo, `${issueNumber}:`))
    .map((r) => r.body)
    .filter((e) => withTimelineOnly || !TIMELINE_ONLY.has(e.event))
    .map(withTimelineOnly ? (e) => e : present);
}

/** `GET …/issues/events` (each with its `issue_number` for the caller to embed the issue), oldest first. */
export function eventsOfRepository(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store
    .listByPrefix<Json>(ISSUE_EVENT, childKey(repo, ''))
    .map((r) => r.body)
    .filter((e) => !TIMELINE_ONLY.has(e.event))
    .sort((a, b) => a.id - b.id);
}

export function findIssueEvent(ctx: TwinContext, repo: Json, id: number): Json | undefined {
  return eventsOfRepository(ctx, repo).find((e) => e.id === id);
}

export { present as presentIssueEvent };

/** `#12` mentions in a text (same-repository references). */
export function mentionedIssueNumbers(text: string | null | undefined): number[] {
  const out = new Set<number>();
  for (const m of (text ?? '').matchAll(/(?:^|[^\w/#&])#(\d{1,9})\b/g)) out.add(Number(m[1]));
  return [...out];
}

/** Another issue or pull request mentioned these: each gets a `cross-referenced` timeline entry. */
export function recordCrossReferences(
  ctx: TwinContext,
  repo: Json,
  sourceNumber: number,
  text: string | null | undefined,
  exists: (n: number) => boolean,
): void {
  for (const n of mentionedIssueNumbers(text)) {
    if (n === sourceNumber || !exists(n)) continue;
    recordIssueEvent(ctx, repo, n, 'cross-referenced', { source_issue_number: sourceNumber });
  }
}
