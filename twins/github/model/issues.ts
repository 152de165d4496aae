// Issues (pull requests are issues too: they share the number space and appear in issue lists),
// their comments, lock state, list filters and the issue search qualifiers.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, issuesDisabled, notFound, validationFailed } from '../wire/errors.js';
import { type Json, getMembership, getUser, simpleAccount, viewer } from './accounts.js';
import { adjustOpenIssues, childKey } from './repositories.js';
import { getMilestone, labelsByName, recountMilestone } from './labels.js';
import { emitEvent } from './webhooks.js';
import { directRole, roleOf } from './collaborators.js';
import { dropReactions } from './reactions.js';
import { recordCrossReferences, recordIssueEvent } from './issue-events.js';
import { allHold, inRange, parseSearchQuery, scopedRepositories } from './search.js';

export function emptyReactions(url: string): Json {
  return { url, total_count: 0, '+1': 0, '-1': 0, laugh: 0, hooray: 0, confused: 0, heart: 0, rocket: 0, eyes: 0 };
}

export function issueKey(repo: Json, number: number): string {
  return childKey(repo, number);
}

export function authorAssociation(ctx: TwinContext, repo: Json, user: Json): string {
  if (repo.owner.login === user.login) return 'OWNER';
  if (repo.owner.type === 'Organization' && getMembership(ctx, repo.owner.login, user.login)) return 'MEMBER';
  if (directRole(ctx, repo, user.login)) return 'COLLABORATOR';
  return 'NONE';
}

export function requireIssuesEnabled(repo: Json): void {
  if (!repo.has_issues) throw issuesDisabled();
}

export function getIssue(ctx: TwinContext, repo: Json, number: number): Json | undefined {
  return ctx.store.get<Json>('issue', issueKey(repo, number));
}

export function requireIssue(ctx: TwinContext, repo: Json, number: number): Json {
  const issue = getIssue(ctx, repo, number);
  if (!issue) throw notFound();
  if (!issue.pull_request) requireIssuesEnabled(repo);
  return issue;
}

export function saveIssue(ctx: TwinContext, repo: Json, issue: Json): void {
  ctx.store.put('issue', issueKey(repo, issue.number), issue);
}

/** Users who can be assigned: the owner of a user repository, members of an org's, collaborators. */
function assignable(ctx: TwinContext, repo: Json, login: string): Json | undefined {
  const user = getUser(ctx, login);
  if (!user) return undefined;
  return roleOf(ctx, repo, user.login) ? user : undefined;
}

export function isAssignable(ctx: TwinContext, repo: Json, login: string): boolean {
  return !!assignable(ctx, repo, login);
}

function resolveAssignees(ctx: TwinContext, repo: Json, logins: string[], resource: string): Json[] {
  const out: Json[] = [];
  for (const login of logins) {
    const u = assignable(ctx, repo, login);
    if (!u) throw validationFailed({ resource, field: 'assignees', code: 'invalid', value: login });
    if (!out.some((x) => x.id === u.id)) out.push(simpleAccount(u));
  }
  return out.slice(0, 10);
}

function resolveMilestone(ctx: TwinContext, repo: Json, value: unknown, resource: string): Json | null {
  if (value === null || value === undefined) return null;
  const m = getMilestone(ctx, repo, Number(value));
  if (!m) throw validationFailed({ resource, field: 'milestone', code: 'invalid', value });
  return m;
}

export interface IssueInput {
  title: string;
  body?: string | null;
  assignee?: string | null;
  assignees?: string[];
  labels?: string[];
  milestone?: number | string | null;
}

/** A new issue record; `pullRequest` marks the issue half of a pull request. */
export function createIssue(ctx: TwinContext, repo: Json, input: IssueInput, pullRequest?: Json): Json {
  if (!pullRequest) requireIssuesEnabled(repo);
  const me = viewer(ctx);
  const number = ctx.ids.sequence(`github:number:${repo.id}`);
  const id = nextId(ctx, 'issue');
  const at = now(ctx);
  const url = `${API}/repos/${repo.full_name}/issues/${number}`;
  const logins = [...(input.assignees ?? []), ...(input.assignee ? [input.assignee] : [])];
  const assignees = resolveAssignees(ctx, repo, logins, 'Issue');
  const milestone = resolveMilestone(ctx, repo, input.milestone, 'Issue');
  const issue: Json = {
    url,
    repository_url: `${API}/repos/${repo.full_name}`,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${WEB}/${repo.full_name}/${pullRequest ? 'pull' : 'issues'}/${number}`,
    id,
    node_id: nodeId(pullRequest ? 'PullRequest' : 'Issue', id),
    number,
    title: input.title,
    user: simpleAccount(me),
    labels: labelsByName(ctx, repo, input.labels ?? []),
    state: 'open',
    locked: false,
    assignee: assignees[0] ?? null,
    assignees,
    milestone,
    comments: 0,
    created_at: at,
    updated_at: at,
    closed_at: null,
    author_association: authorAssociation(ctx, repo, me),
    type: null,
    active_lock_reason: null,
    sub_issues_summary: { total: 0, completed: 0, percent_completed: 0 },
    body: input.body ?? null,
    closed_by: null,
    reactions: emptyReactions(`${url}/reactions`),
    timeline_url: `${url}/timeline`,
    performed_via_github_app: null,
    state_reason: null,
  };
  if (pullRequest) issue.pull_request = pullRequest;
  ctx.store.transaction(() => {
    saveIssue(ctx, repo, issue);
    adjustOpenIssues(ctx, repo, 1);
    recountMilestone(ctx, repo, milestone?.number);
    for (const a of assignees) recordIssueEvent(ctx, repo, number, 'assigned', { assignee: a, assigner: issue.user });
    for (const l of issue.labels) recordIssueEvent(ctx, repo, number, 'labeled', { label: { name: l.name, color: l.color } });
    if (milestone) recordIssueEvent(ctx, repo, number, 'milestoned', { milestone: { title: milestone.title } });
    recordCrossReferences(ctx, repo, number, issue.body, (n) => !!getIssue(ctx, repo, n));
  });
  if (!pullRequest) emitEvent(ctx, repo, 'issues', { action: 'opened', issue: presentIssue(ctx, repo, issue) });
  return issue;
}

/** The issue as the API answers it: the milestone with its live counts. */
export function presentIssue(ctx: TwinContext, repo: Json, issue: Json): Json {
  if (!issue.milestone) return issue;
  return { ...issue, milestone: getMilestone(ctx, repo, issue.milestone.number) ?? issue.milestone };
}

export interface IssuePatch {
  title?: string;
  body?: string | null;
  state?: 'open' | 'closed';
  state_reason?: 'completed' | 'not_planned' | 'reopened' | 'duplicate' | null;
  assignee?: string | null;
  assignees?: string[];
  labels?: string[];
  milestone?: number | string | null;
  /** The commit whose message (or merge) closes the issue, for the `closed` event. */
  closing_commit?: string;
}

type IssueEvent = { action: string; extra?: Json };

/**
 * Apply an update, keep counters current, and return the webhook actions it caused (in order).
 * Shared by issues and the issue half of pull requests; `quiet` skips the `issues` deliveries.
 */
export function updateIssue(ctx: TwinContext, repo: Json, issue: Json, patch: IssuePatch, quiet = false): { issue: Json; events: IssueEvent[] } {
  const me = viewer(ctx);
  const events: IssueEvent[] = [];
  const before = { title: issue.title, body: issue.body };
  const at = now(ctx);
  const oldMilestone = issue.milestone?.number as number | undefined;
  const wasOpen = issue.state === 'open';
  if (patch.title !== undefined && patch.title !== issue.title) issue.title = patch.title;
  if (patch.body !== undefined && patch.body !== issue.body) issue.body = patch.body;
  if (issue.title !== before.title || issue.body !== before.body) {
    const changes: Json = {};
    if (issue.title !== before.title) changes.title = { from: before.title };
    if (issue.body !== before.body) changes.body = { from: before.body };
    events.push({ action: 'edited', extra: { changes } });
  }
  if (patch.assignees !== undefined || patch.assignee !== undefined) {
    const logins = patch.assignees ?? (patch.assignee ? [patch.assignee] : []);
    const next = resolveAssignees(ctx, repo, logins, 'Issue');
    for (const a of next) if (!issue.assignees.some((x: Json) => x.id === a.id)) events.push({ action: 'assigned', extra: { assignee: a } });
    for (const a of issue.assignees) if (!next.some((x) => x.id === a.id)) events.push({ action: 'unassigned', extra: { assignee: a } });
    issue.assignees = next;
    issue.assignee = next[0] ?? null;
  }
  if (patch.labels !== undefined) {
    const next = labelsByName(ctx, repo, patch.labels);
    for (const l of next) if (!issue.labels.some((x: Json) => x.id === l.id)) events.push({ action: 'labeled', extra: { label: l } });
    for (const l of issue.labels) if (!next.some((x) => x.id === l.id)) events.push({ action: 'unlabeled', extra: { label: l } });
    issue.labels = next;
  }
  if (patch.milestone !== undefined) {
    const next = resolveMilestone(ctx, repo, patch.milestone, 'Issue');
    if ((next?.number ?? null) !== (issue.milestone?.number ?? null)) {
      events.push(next ? { action: 'milestoned', extra: { milestone: next } } : { action: 'demilestoned', extra: { milestone: issue.milestone } });
    }
    issue.milestone = next;
  }
  if (patch.state !== undefined && patch.state !== issue.state) {
    if (patch.state === 'closed') {
      issue.state = 'closed';
      issue.closed_at = at;
      issue.closed_by = simpleAccount(me);
      issue.state_reason = patch.state_reason ?? 'completed';
      events.push({ action: 'closed' });
    } else {
      issue.state = 'open';
      issue.closed_at = null;
      issue.closed_by = null;
      issue.state_reason = 'reopened';
      events.push({ action: 'reopened' });
    }
  } else if (patch.state_reason !== undefined && issue.state === 'closed' && patch.state_reason !== 'reopened') {
    issue.state_reason = patch.state_reason;
  }
  if (events.length) issue.updated_at = at;
  ctx.store.transaction(() => {
    recordUpdateEvents(ctx, repo, issue, events, before.title, patch.closing_commit);
    saveIssue(ctx, repo, issue);
    adjustOpenIssues(ctx, repo, (issue.state === 'open' ? 1 : 0) - (wasOpen ? 1 : 0));
    recountMilestone(ctx, repo, oldMilestone);
    if (issue.milestone && issue.milestone.number !== oldMilestone) recountMilestone(ctx, repo, issue.milestone.number);
  });
  if (!quiet && !issue.pull_request) {
    for (const e of events) emitEvent(ctx, repo, 'issues', { action: e.action, issue: presentIssue(ctx, repo, issue), ...e.extra });
  }
  return { issue, events };
}

/** The issue events an update leaves (a body edit leaves none; a title edit is `renamed`). */
function recordUpdateEvents(ctx: TwinContext, repo: Json, issue: Json, events: IssueEvent[], oldTitle: string, closingCommit?: string): void {
  const me = simpleAccount(viewer(ctx));
  for (const e of events) {
    const x = e.extra ?? {};
    switch (e.action) {
      case 'edited':
        if (x.changes?.title) recordIssueEvent(ctx, repo, issue.number, 'renamed', { rename: { from: oldTitle, to: issue.title } });
        break;
      case 'labeled':
      case 'unlabeled':
        recordIssueEvent(ctx, repo, issue.number, e.action, { label: { name: x.label.name, color: x.label.color } });
        break;
      case 'assigned':
      case 'unassigned':
        recordIssueEvent(ctx, repo, issue.number, e.action, { assignee: x.assignee, assigner: me });
        break;
      case 'milestoned':
      case 'demilestoned':
        recordIssueEvent(ctx, repo, issue.number, e.action, { milestone: { title: x.milestone?.title ?? '' } });
        break;
      case 'closed':
        recordIssueEvent(ctx, repo, issue.number, 'closed', { state_reason: issue.state_reason }, closingCommit ?? null);
        break;
      case 'reopened':
        recordIssueEvent(ctx, repo, issue.number, 'reopened', { state_reason: 'reopened' });
        break;
    }
  }
}

export function setLock(ctx: TwinContext, repo: Json, issue: Json, locked: boolean, reason?: string | null): void {
  if (locked && reason != null && !['off-topic', 'too heated', 'resolved', 'spam'].includes(reason)) {
    throw validationFailed({ resource: 'Issue', field: 'lock_reason', code: 'invalid', value: reason });
  }
  issue.locked = locked;
  issue.active_lock_reason = locked ? (reason ?? null) : null;
  issue.updated_at = now(ctx);
  saveIssue(ctx, repo, issue);
  recordIssueEvent(ctx, repo, issue.number, locked ? 'locked' : 'unlocked', { lock_reason: locked ? (reason ?? null) : null });
  if (!issue.pull_request) emitEvent(ctx, repo, 'issues', { action: locked ? 'locked' : 'unlocked', issue: presentIssue(ctx, repo, issue) });
}

export function repoIssues(ctx: TwinContext, repo: Json): Json[] {
  const prefix = childKey(repo, '');
  return ctx.store.listByPrefix<Json>('issue', prefix).map((r) => r.body);
}

export interface IssueFilter {
  state?: string;
  labels?: string;
  assignee?: string;
  creator?: string;
  mentioned?: string;
  milestone?: string;
  since?: string;
  sort?: string;
  direction?: string;
}

export function sortIssues(list: Json[], sort = 'created', direction?: string): Json[] {
  const dir = direction === 'asc' ? 1 : -1;
  const keyOf = (i: Json): number | string => (sort === 'updated' ? i.updated_at : sort === 'comments' ? i.comments : i.created_at);
  return [...list].sort((a, b) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    if (ka < kb) return -dir;
    if (ka > kb) return dir;
    return (a.number - b.number) * dir;
  });
}

/** `GET /repos/{o}/{r}/issues` filters, GitHub's defaults (open, created, desc). */
export function filterIssues(list: Json[], f: IssueFilter): Json[] {
  const state = f.state ?? 'open';
  const labels = f.labels
    ? f.labels
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean)
    : [];
  const since = f.since ? Date.parse(f.since) : undefined;
  const out = list.filter((i) => {
    if (state !== 'all' && i.state !== state) return false;
    if (labels.length && !labels.every((l) => i.labels.some((x: Json) => x.name.toLowerCase() === l))) return false;
    if (f.assignee !== undefined) {
      if (f.assignee === 'none' && i.assignees.length) return false;
      if (f.assignee === '*' && !i.assignees.length) return false;
      if (f.assignee !== 'none' && f.assignee !== '*' && !i.assignees.some((a: Json) => a.login.toLowerCase() === f.assignee!.toLowerCase())) return false;
    }
    if (f.creator !== undefined && i.user.login.toLowerCase() !== f.creator.toLowerCase()) return false;
    if (f.mentioned !== undefined && !`${i.title} ${i.body ?? ''}`.toLowerCase().includes(`@${f.mentioned.toLowerCase()}`)) return false;
    if (f.milestone !== undefined) {
      if (f.milestone === 'none' && i.milestone) return false;
      if (f.milestone === '*' && !i.milestone) return false;
      if (f.milestone !== 'none' && f.milestone !== '*' && String(i.milestone?.number) !== f.milestone) return false;
    }
    if (since !== undefined && !(Date.parse(i.updated_at) >= since)) return false;
    return true;
  });
  return sortIssues(out, f.sort, f.direction);
}

/** Which of the viewer's issues `GET /issues` lists (`filter`): assigned to them by default. */
export type ViewerIssueFilter = 'assigned' | 'created' | 'mentioned' | 'subscribed' | 'repos' | 'all';

/**
 * Issues and pull requests across `repos` (those the viewer can see) that concern the viewer as
 * `filter` says, with each one's repository: `GET /issues`, `/user/issues`, `/orgs/{org}/issues`.
 */
export function viewerIssues(ctx: TwinContext, repos: Json[], filter: ViewerIssueFilter, f: IssueFilter): { repo: Json; issue: Json }[] {
  const me = viewer(ctx).login.toLowerCase();
  const concerns = (i: Json): boolean => {
    const assigned = i.assignees.some((a: Json) => a.login.toLowerCase() === me);
    const created = i.user.login.toLowerCase() === me;
    const mentioned = `${i.title} ${i.body ?? ''}`.toLowerCase().includes(`@${me}`);
    switch (filter) {
      case 'assigned':
        return assigned;
      case 'created':
        return created;
      case 'mentioned':
        return mentioned;
      // Subscribed: what notifies the viewer without a watch (authored, assigned, mentioned).
      case 'subscribed':
        return assigned || created || mentioned;
      default:
        return true;
    }
  };
  const found: { repo: Json; issue: Json }[] = [];
  for (const repo of repos) {
    if (!repo.has_issues) continue;
    for (const issue of filterIssues(repoIssues(ctx, repo).filter(concerns), { ...f, sort: undefined, direction: undefined })) found.push({ repo, issue });
  }
  const sorted = sortIssues(
    found.map((x) => x.issue),
    f.sort,
    f.direction,
  );
  const order = new Map(sorted.map((issue, i) => [issue, i]));
  return found.sort((a, b) => order.get(a.issue)! - order.get(b.issue)!);
}

// ---- comments ----------------------------------------------------------------------------

function commentKey(repo: Json, id: number): string {
  return childKey(repo, id);
}

export function createComment(ctx: TwinContext, repo: Json, issue: Json, body: string): Json {
  const me = viewer(ctx);
  if (issue.locked && authorAssociation(ctx, repo, me) === 'NONE') {
    throw new GitHubError(403, 'Unable to create comment because issue is locked.');
  }
  const id = nextId(ctx, 'issue_comment');
  const at = now(ctx);
  const url = `${API}/repos/${repo.full_name}/issues/comments/${id}`;
  const comment = {
    url,
    html_url: `${issue.html_url}#issuecomment-${id}`,
    issue_url: issue.url,
    id,
    node_id: nodeId('IssueComment', id),
    user: simpleAccount(me),
    created_at: at,
    updated_at: at,
    author_association: authorAssociation(ctx, repo, me),
    body,
    reactions: emptyReactions(`${url}/reactions`),
    performed_via_github_app: null,
  };
  ctx.store.transaction(() => {
    ctx.store.put('issue_comment', commentKey(repo, id), comment);
    recordCrossReferences(ctx, repo, issue.number, body, (n) => !!getIssue(ctx, repo, n));
    issue.comments += 1;
    issue.updated_at = at;
    saveIssue(ctx, repo, issue);
  });
  emitEvent(ctx, repo, 'issue_comment', { action: 'created', issue: presentIssue(ctx, repo, issue), comment });
  return comment;
}

export function requireComment(ctx: TwinContext, repo: Json, id: number): Json {
  const c = ctx.store.get<Json>('issue_comment', commentKey(repo, id));
  if (!c) throw notFound();
  return c;
}

function issueOfComment(ctx: TwinContext, repo: Json, comment: Json): Json | undefined {
  const number = Number(String(comment.issue_url).split('/').pop());
  return getIssue(ctx, repo, number);
}

export function updateComment(ctx: TwinContext, repo: Json, id: number, body: string): Json {
  const c = requireComment(ctx, repo, id);
  const from = c.body;
  c.body = body;
  c.updated_at = now(ctx);
  ctx.store.put('issue_comment', commentKey(repo, id), c);
  const issue = issueOfComment(ctx, repo, c);
  if (issue) emitEvent(ctx, repo, 'issue_comment', { action: 'edited', changes: { body: { from } }, issue: presentIssue(ctx, repo, issue), comment: c });
  return c;
}

export function deleteComment(ctx: TwinContext, repo: Json, id: number): void {
  const c = requireComment(ctx, repo, id);
  const issue = issueOfComment(ctx, repo, c);
  ctx.store.transaction(() => {
    ctx.store.delete('issue_comment', commentKey(repo, id));
    dropReactions(ctx, repo, { kind: 'issue_comment', id });
    if (issue) {
      issue.comments = Math.max(0, issue.comments - 1);
      saveIssue(ctx, repo, issue);
    }
  });
  if (issue) emitEvent(ctx, repo, 'issue_comment', { action: 'deleted', issue: presentIssue(ctx, repo, issue), comment: c });
}

export function listComments(ctx: TwinContext, repo: Json, issue?: Json): Json[] {
  const prefix = childKey(repo, '');
  return ctx.store
    .listByPrefix<Json>('issue_comment', prefix)
    .filter((r) => !issue || r.body.issue_url === issue.url)
    .map((r) => r.body);
}

// ---- search ------------------------------------------------------------------------------

/**
 * Issue and pull request search (`GET /search/issues`, GraphQL `search(type: ISSUE)`) with GitHub's
 * qualifiers; throws SearchQueryError for a query GitHub refuses.
 */
export function searchIssues(ctx: TwinContext, q: string, sort?: string, order?: string): Json[] {
  const query = parseSearchQuery(q);
  const results: Json[] = [];
  for (const repo of scopedRepositories(ctx, query)) {
    for (const issue of repoIssues(ctx, repo)) {
      if (!issue.pull_request && !repo.has_issues) continue;
      if (!allHold(query, (t) => matchQualifier(issue, t.key, t.value))) continue;
      const text = `${issue.title} ${issue.body ?? ''}`.toLowerCase();
      if (!query.words.every((w) => text.includes(w))) continue;
      results.push({ ...presentIssue(ctx, repo, issue), score: 1 });
    }
  }
  if (!sort) return sortIssues(results, 'created', order ?? 'desc');
  return sortIssues(results, sort, order ?? 'desc');
}

function matchQualifier(issue: Json, key: string, value: string): boolean | undefined {
  const v = value.toLowerCase();
  switch (key) {
    case 'is':
      if (v === 'open' || v === 'closed') return issue.state === v;
      if (v === 'issue') return !issue.pull_request;
      if (v === 'pr' || v === 'pull-request') return !!issue.pull_request;
      if (v === 'merged') return !!issue.pull_request?.merged_at;
      if (v === 'unmerged') return !!issue.pull_request && !issue.pull_request.merged_at;
      if (v === 'locked') return issue.locked;
      if (v === 'unlocked') return !issue.locked;
      return undefined;
    case 'state':
      return issue.state === v;
    case 'type':
      return v === 'pr' ? !!issue.pull_request : v === 'issue' ? !issue.pull_request : undefined;
    case 'label':
      return v.split(',').some((name) => issue.labels.some((l: Json) => l.name.toLowerCase() === name));
    case 'author':
      return issue.user.login.toLowerCase() === v;
    case 'assignee':
      return issue.assignees.some((a: Json) => a.login.toLowerCase() === v);
    case 'no':
      if (v === 'label') return issue.labels.length === 0;
      if (v === 'assignee') return issue.assignees.length === 0;
      if (v === 'milestone') return !issue.milestone;
      return undefined;
    case 'milestone':
      return issue.milestone?.title.toLowerCase() === v;
    case 'in':
      return undefined;
    case 'created':
      return inRange(issue.created_at, v);
    case 'updated':
      return inRange(issue.updated_at, v);
    case 'closed':
      return inRange(issue.closed_at, v);
    case 'comments':
      return inRange(issue.comments, v);
    case 'merged':
      return inRange(issue.pull_request?.merged_at, v);
    case 'draft':
      return issue.pull_request ? String(!!issue.draft) === v : undefined;
    case 'reason':
      return (issue.state_reason ?? '').replace('_', ' ') === v.replace('_', ' ') || issue.state_reason === v.replace(' ', '_');
    default:
      return undefined;
  }
}
