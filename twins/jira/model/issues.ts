// Issues: created in a project (keys `<KEY>-<n>` per project) with an issue type, summary, an ADF
// description, assignee, labels, priority and parent (sub-tasks and epic children); edited;
// moved through the workflow by transition id; assigned; deleted (with sub-tasks only when asked);
// found by JQL. Every change sends the matching webhook event.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { fieldError, issueNotFound, JiraError } from '../wire/errors.js';
import { evaluate, parseJql, type Jql, type JqlSubject } from './jql.js';
import {
  jiraTime,
  PRIORITIES,
  type Changelog,
  type Comment,
  type Component,
  type Issue,
  type IssueLink,
  type Watcher,
  type Worklog,
  type IssueType,
  type Project,
  type RemoteLink,
  type Status,
  type User,
  type Version,
} from './records.js';
import { userView, issueView } from './views.js';
import { autowatches } from './preferences.js';
import { emitEvent } from './webhooks.js';
import { STATUSES, viewer } from './workspace.js';

/** A project by id or by its key exactly as Jira keeps it (uppercase: `demo` names no project). */
export function findProject(ctx: TwinContext, idOrKey: string): Project | undefined {
  const p = findAnyProject(ctx, idOrKey);
  return p && !p.deleted ? p : undefined;
}

/** A project whether live or in the recycle bin (restoring one, keys that stay taken). */
export function findAnyProject(ctx: TwinContext, idOrKey: string): Project | undefined {
  return ctx.store.get<Project>('project', idOrKey) ?? ctx.store.list<Project>('project').find((p) => p.key === idOrKey);
}

/** The projects not in the recycle bin. */
export function liveProjects(ctx: TwinContext): Project[] {
  return ctx.store.list<Project>('project').filter((p) => !p.deleted);
}

/** Issues of a project in the recycle bin are out of reach until it is restored. */
export function isLive(ctx: TwinContext, issue: Issue): boolean {
  return !ctx.store.get<Project>('project', issue.projectId)?.deleted;
}

export function findIssue(ctx: TwinContext, idOrKey: string): Issue | undefined {
  const issue = ctx.store.get<Issue>('issue', idOrKey) ?? ctx.store.list<Issue>('issue').find((i) => i.key.toUpperCase() === idOrKey.toUpperCase());
  return issue && isLive(ctx, issue) ? issue : undefined;
}

export function requireIssue(ctx: TwinContext, idOrKey: string): Issue {
  const issue = findIssue(ctx, idOrKey);
  if (!issue) throw issueNotFound();
  return issue;
}

/** An ADF document, as v3 requires for rich-text fields. */
export function requireAdf(field: string, value: unknown): Record<string, unknown> {
  const doc = value as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc) || doc.type !== 'doc' || doc.version !== 1 || !Array.isArray(doc.content)) {
    throw fieldError(field, 'Operation value must be an Atlassian Document (see the Atlassian Document Format)');
  }
  return doc;
}

/** The plain text of an ADF document (JQL `~` searches it). */
export function adfText(node: unknown, depth = 0): string {
  if (!node || typeof node !== 'object' || depth > 50) return '';
  const n = node as { text?: unknown; content?: unknown };
  const own = typeof n.text === 'string' ? n.text : '';
  const children = Array.isArray(n.content) ? n.content.map((c) => adfText(c, depth + 1)).join(' ') : '';
  return `${own} ${children}`.trim();
}

function userRef(ctx: TwinContext, field: string, value: unknown): string | null {
  if (value === null) return null;
  const ref = value as { accountId?: unknown; id?: unknown } | undefined;
  const id = typeof ref?.accountId === 'string' ? ref.accountId : typeof ref?.id === 'string' ? ref.id : undefined;
  if (!id) throw fieldError(field, `Specify a valid value for ${field}`);
  if (id === '-1') return null;
  if (!ctx.store.has('user', id)) throw fieldError(field, `User '${id}' does not exist.`);
  return id;
}

interface Fields {
  [key: string]: unknown;
}

function issueTypeOf(ctx: TwinContext, project: Project, value: unknown): IssueType {
  const ref = (value ?? {}) as { id?: unknown; name?: unknown };
  const t = ctx.store
    .list<IssueType>('issue_type')
    .find((x) => x.id === ref.id || (typeof ref.name === 'string' && x.name.toLowerCase() === ref.name.toLowerCase()));
  if (!t || !project.issueTypeIds.includes(t.id)) throw fieldError('issuetype', 'Specify an issue type');
  return t;
}

function priorityOf(value: unknown): string {
  const ref = (value ?? {}) as { id?: unknown; name?: unknown };
  const p = PRIORITIES.find((x) => x.id === ref.id || (typeof ref.name === 'string' && x.name.toLowerCase() === ref.name.toLowerCase()));
  if (!p) throw fieldError('priority', 'Specify a valid priority');
  return p.id;
}

function labelsOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((l) => typeof l !== 'string' || /\s/.test(l) || l === ''))
    throw fieldError('labels', 'The label contains spaces or is not a string.');
  return [...new Set(value as string[])];
}

/** Component or version references of an issue field (`[{id}]` or `[{name}]`), all of the issue's project. */
function releaseRefs(ctx: TwinContext, field: string, kind: 'component' | 'version', projectId: string, value: unknown): string[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw fieldError(field, `${field} must be a list.`);
  const known = ctx.store.list<Component | Version>(kind).filter((x) => x.projectId === projectId);
  const ids = value.map((ref) => {
    const r = (ref ?? {}) as { id?: unknown; name?: unknown };
    const found = known.find((x) => x.id === String(r.id ?? '') || (typeof r.name === 'string' && x.name === r.name));
    if (!found) throw fieldError(field, `${kind === 'component' ? 'Component' : 'Version'} ${String(r.name ?? r.id)} is not valid.`);
    return found.id;
  });
  return [...new Set(ids)];
}

const RELEASE_FIELDS = {
  components: { slot: 'componentIds', kind: 'component' },
  fixVersions: { slot: 'fixVersionIds', kind: 'version' },
  versions: { slot: 'versionIds', kind: 'version' },
} as const;

function parentOf(ctx: TwinContext, project: Project, value: unknown, type: IssueType): string {
  const ref = (value ?? {}) as { key?: unknown; id?: unknown };
  const key = typeof ref.key === 'string' ? ref.key : typeof ref.id === 'string' ? ref.id : '';
  const parent = findIssue(ctx, key);
  if (!parent || parent.projectId !== project.id) throw fieldError('parent', 'Could not find issue by id or key.');
  const parentType = ctx.store.get<IssueType>('issue_type', parent.issueTypeId)!;
  if (type.subtask && parentType.subtask) throw fieldError('parent', 'A sub-task cannot be the parent of another sub-task.');
  return parent.id;
}

function event(ctx: TwinContext, name: string, issue: Issue, extra: Record<string, unknown>): void {
  const jqlSubject = subject(ctx, issue);
  emitEvent(ctx, name, { user: userView(ctx, viewer(ctx)), issue: issueView(ctx, issue), ...extra }, (jql) => {
    const parsed = parseJql(jql);
    return !parsed.where || evaluate(parsed.where, jqlSubject);
  });
}

export function createIssue(ctx: TwinContext, fields: Fields): Issue {
  const ref = (fields.project ?? {}) as { key?: unknown; id?: unknown };
  const project = findProject(ctx, String(ref.key ?? ref.id ?? ''));
  if (!project) throw fieldError('project', 'Specify a valid project ID or key');
  const type = issueTypeOf(ctx, project, fields.issuetype);
  if (typeof fields.summary !== 'string' || fields.summary.trim() === '') throw fieldError('summary', 'You must specify a summary of the issue.');
  if (fields.summary.length > 255) throw fieldError('summary', 'Summary must be less than 255 characters.');
  if (type.subtask && !fields.parent) throw fieldError('parent', 'Given parent issue does not belong to appropriate hierarchy.');
  const now = jiraTime(ctx);
  const me = viewer(ctx);
  const n = ctx.ids.sequence(`issue:${project.id}`);
  const issue: Issue = {
    id: String(10000 + ctx.ids.sequence('id:issue') - 1),
    key: `${project.key}-${n}`,
    projectId: project.id,
    issueTypeId: type.id,
    statusId: STATUSES[0]!.id,
    summary: fields.summary,
    description: fields.description === undefined || fields.description === null ? null : requireAdf('description', fields.description),
    assigneeId: fields.assignee === undefined ? null : userRef(ctx, 'assignee', fields.assignee),
    reporterId: fields.reporter === undefined ? me.accountId : (userRef(ctx, 'reporter', fields.reporter) ?? me.accountId),
    creatorId: me.accountId,
    labels: fields.labels === undefined ? [] : labelsOf(fields.labels),
    priorityId: fields.priority === undefined ? '3' : priorityOf(fields.priority),
    parentId: fields.parent ? parentOf(ctx, project, fields.parent, type) : null,
    duedate: typeof fields.duedate === 'string' ? fields.duedate : null,
    componentIds: fields.components === undefined ? [] : releaseRefs(ctx, 'components', 'component', project.id, fields.components),
    fixVersionIds: fields.fixVersions === undefined ? [] : releaseRefs(ctx, 'fixVersions', 'version', project.id, fields.fixVersions),
    versionIds: fields.versions === undefined ? [] : releaseRefs(ctx, 'versions', 'version', project.id, fields.versions),
    created: now,
    updated: now,
    statuscategorychangedate: now,
    resolutiondate: null,
  };
  ctx.store.put('issue', issue.id, issue);
  // Jira's default preference: you watch the issues you create (unless you turned autowatch off).
  if (autowatches(ctx, me.accountId)) ctx.store.put('watcher', `${issue.id}:${me.accountId}`, { issueId: issue.id, accountId: me.accountId });
  event(ctx, 'jira:issue_created', issue, { issue_event_type_name: 'issue_created' });
  return issue;
}

type ChangeItem = Changelog['items'][number];

function changed(ctx: TwinContext, issue: Issue, items: ChangeItem[]): void {
  if (items.length === 0) return;
  issue.updated = jiraTime(ctx);
  ctx.store.put('issue', issue.id, issue);
  const entry: Changelog = {
    id: String(10000 + ctx.ids.sequence('id:changelog')),
    issueId: issue.id,
    authorId: viewer(ctx).accountId,
    created: issue.updated,
    items,
  };
  ctx.store.put('changelog', entry.id, entry);
  event(ctx, 'jira:issue_updated', issue, {
    issue_event_type_name: items.some((i) => i.field === 'status')
      ? 'issue_generic'
      : items.some((i) => i.field === 'assignee')
        ? 'issue_assigned'
        : 'issue_updated',
    changelog: { id: entry.id, items },
  });
}

const nameOf = (ctx: TwinContext, id: string | null) => (id ? (ctx.store.get<User>('user', id)?.displayName ?? null) : null);

export function editIssue(ctx: TwinContext, idOrKey: string, fields: Fields, update: Fields = {}): Issue {
  const issue = requireIssue(ctx, idOrKey);
  const project = ctx.store.get<Project>('project', issue.projectId)!;
  const items: ChangeItem[] = [];
  const change = (field: string, from: string | null, to: string | null, fromString = from, toText = to) => {
    if (from !== to) items.push({ field, fieldtype: 'jira', from, fromString, to, toString: toText });
  };
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    switch (key) {
      case 'summary':
        if (typeof value !== 'string' || value.trim() === '') throw fieldError('summary', 'You must specify a summary of the issue.');
        change('summary', issue.summary, value);
        issue.summary = value;
        break;
      case 'description': {
        const doc = value === null ? null : requireAdf('description', value);
        change('description', adfText(issue.description), adfText(doc));
        issue.description = doc;
        break;
      }
      case 'assignee': {
        const to = userRef(ctx, 'assignee', value);
        change('assignee', issue.assigneeId, to, nameOf(ctx, issue.assigneeId), nameOf(ctx, to));
        issue.assigneeId = to;
        break;
      }
      case 'labels': {
        const to = value === null ? [] : labelsOf(value);
        change('labels', issue.labels.join(' '), to.join(' '));
        issue.labels = to;
        break;
      }
      case 'priority': {
        const to = priorityOf(value);
        change('priority', issue.priorityId, to);
        issue.priorityId = to;
        break;
      }
      case 'parent': {
        const to = value === null ? null : parentOf(ctx, project, value, ctx.store.get<IssueType>('issue_type', issue.issueTypeId)!);
        change('parent', issue.parentId, to);
        issue.parentId = to;
        break;
      }
      case 'duedate':
        if (value !== null && typeof value !== 'string') throw fieldError('duedate', 'Error parsing date string');
        change('duedate', issue.duedate, (value as string | null) ?? null);
        issue.duedate = (value as string | null) ?? null;
        break;
      case 'components':
      case 'fixVersions':
      case 'versions': {
        const { slot, kind } = RELEASE_FIELDS[key];
        const to = releaseRefs(ctx, key, kind, project.id, value);
        const before = issue[slot] ?? [];
        change(key, before.join(',') || null, to.join(',') || null);
        issue[slot] = to;
        break;
      }
      default:
        throw fieldError(key, `Field '${key}' cannot be set. It is not on the appropriate screen, or unknown.`);
    }
  }
  // `update: {labels: [{add: "x"}, {remove: "y"}]}` as Jira's edit operations.
  const labelOps = update.labels;
  if (labelOps !== undefined) {
    if (!Array.isArray(labelOps)) throw fieldError('labels', 'Operation must be an array.');
    const before = issue.labels.join(' ');
    for (const op of labelOps as Record<string, unknown>[]) {
      if (typeof op?.add === 'string') issue.labels = [...new Set([...issue.labels, ...labelsOf([op.add])])];
      else if (typeof op?.remove === 'string') issue.labels = issue.labels.filter((l) => l !== op.remove);
      else if (Array.isArray(op?.set)) issue.labels = labelsOf(op.set);
    }
    change('labels', before, issue.labels.join(' '));
  }
  changed(ctx, issue, items);
  return issue;
}

export function availableTransitions(ctx: TwinContext, issue: Issue): Status[] {
  return ctx.store.list<Status>('status').filter((s) => s.id !== issue.statusId);
}

export function transitionIssue(ctx: TwinContext, idOrKey: string, transitionId: string, fields: Fields = {}): Issue {
  const issue = requireIssue(ctx, idOrKey);
  const target = availableTransitions(ctx, issue).find((s) => s.transitionId === transitionId);
  if (!target) throw new JiraError(400, [`Transition id '${transitionId}' is not valid for this issue.`]);
  const from = ctx.store.get<Status>('status', issue.statusId)!;
  const now = jiraTime(ctx);
  issue.statusId = target.id;
  if (from.category !== target.category) issue.statuscategorychangedate = now;
  issue.resolutiondate = target.category === 'done' ? now : null;
  if (Object.keys(fields).length > 0) editIssue(ctx, issue.id, fields);
  const fresh = {
    ...(ctx.store.get<Issue>('issue', issue.id) ?? issue),
    statusId: issue.statusId,
    statuscategorychangedate: issue.statuscategorychangedate,
    resolutiondate: issue.resolutiondate,
  };
  changed(ctx, fresh, [{ field: 'status', fieldtype: 'jira', from: from.id, fromString: from.name, to: target.id, toString: target.name }]);
  return fresh;
}

export function deleteIssue(ctx: TwinContext, idOrKey: string, deleteSubtasks: boolean): void {
  const issue = requireIssue(ctx, idOrKey);
  const subtasks = ctx.store.list<Issue>('issue').filter((i) => i.parentId === issue.id);
  if (subtasks.length > 0 && !deleteSubtasks) throw new JiraError(400, ['The issue has subtasks. Set deleteSubtasks to true to delete them with the issue.']);
  for (const s of subtasks) deleteIssue(ctx, s.id, true);
  event(ctx, 'jira:issue_deleted', issue, { issue_event_type_name: 'issue_deleted' });
  purgeIssue(ctx, issue);
}

/** An issue and everything kept about it, gone (no event: its deletion or its project's says so). */
export function purgeIssue(ctx: TwinContext, issue: Issue): void {
  for (const c of ctx.store.list<Comment>('comment').filter((c) => c.issueId === issue.id)) ctx.store.delete('comment', c.id);
  for (const c of ctx.store.list<Changelog>('changelog').filter((c) => c.issueId === issue.id)) ctx.store.delete('changelog', c.id);
  for (const l of ctx.store.list<IssueLink>('issue_link').filter((l) => l.inwardIssueId === issue.id || l.outwardIssueId === issue.id))
    ctx.store.delete('issue_link', l.id);
  for (const r of ctx.store.list<RemoteLink>('remote_link').filter((r) => r.issueId === issue.id)) ctx.store.delete('remote_link', r.id);
  for (const w of ctx.store.list<Worklog>('worklog').filter((w) => w.issueId === issue.id)) ctx.store.delete('worklog', w.id);
  for (const v of ctx.store.list<Watcher>('vote').filter((v) => v.issueId === issue.id)) ctx.store.delete('vote', `${v.issueId}:${v.accountId}`);
  for (const w of ctx.store.list<Watcher>('watcher').filter((w) => w.issueId === issue.id)) ctx.store.delete('watcher', `${w.issueId}:${w.accountId}`);
  ctx.store.delete('issue', issue.id);
}

/** What JQL sees of an issue. */
export function subject(ctx: TwinContext, issue: Issue): JqlSubject {
  const project = ctx.store.get<Project>('project', issue.projectId)!;
  const status = ctx.store.get<Status>('status', issue.statusId)!;
  const type = ctx.store.get<IssueType>('issue_type', issue.issueTypeId)!;
  const priority = PRIORITIES.find((p) => p.id === issue.priorityId)!;
  const person = (id: string | null) => {
    const u = id ? ctx.store.get<User>('user', id) : undefined;
    return u ? [u.accountId, u.emailAddress, u.displayName] : [];
  };
  const time = (v: string | null) => (v ? [Date.parse(v.replace('+0000', 'Z'))] : []);
  const parent = issue.parentId ? ctx.store.get<Issue>('issue', issue.parentId) : undefined;
  const comments = () =>
    ctx.store
      .list<Comment>('comment')
      .filter((c) => c.issueId === issue.id)
      .map((c) => adfText(c.body));
  const categoryName = { new: 'To Do', indeterminate: 'In Progress', done: 'Done' }[status.category];
  const names = (kind: 'component' | 'version', ids: string[] = []) =>
    ids.flatMap((id) => {
      const x = ctx.store.get<Component | Version>(kind, id);
      return x ? [x.name, x.id] : [];
    });
  return {
    viewerAccountId: viewer(ctx).accountId,
    now: ctx.clock.nowMs(),
    values(field) {
      switch (field) {
        case 'project':
          return { values: [project.key, project.id, project.name], kind: 'id' };
        case 'key':
        case 'issuekey':
        case 'id':
          return { values: [issue.key, issue.id], kind: 'id' };
        case 'summary':
          return { values: [issue.summary], kind: 'text' };
        case 'description':
          return { values: issue.description ? [adfText(issue.description)] : [], kind: 'text' };
        case 'comment':
          return { values: comments(), kind: 'text' };
        case 'text':
          return { values: [issue.summary, adfText(issue.description), ...comments()], kind: 'text' };
        case 'status':
          return { values: [status.name, status.id], kind: 'id' };
        case 'statuscategory':
          return { values: [categoryName, status.category], kind: 'id' };
        case 'assignee':
          return { values: person(issue.assigneeId), kind: 'id' };
        case 'reporter':
          return { values: person(issue.reporterId), kind: 'id' };
        case 'creator':
          return { values: person(issue.creatorId), kind: 'id' };
        case 'labels':
          return { values: issue.labels, kind: 'id' };
        case 'priority':
          return { values: [priority.name, priority.id], kind: 'id' };
        case 'type':
        case 'issuetype':
          return { values: [type.name, type.id], kind: 'id' };
        case 'parent':
          return { values: parent ? [parent.key, parent.id] : [], kind: 'id' };
        case 'created':
        case 'createddate':
          return { values: time(issue.created), kind: 'date' };
        case 'updated':
        case 'updateddate':
          return { values: time(issue.updated), kind: 'date' };
        case 'resolved':
        case 'resolutiondate':
          return { values: time(issue.resolutiondate), kind: 'date' };
        case 'component':
          return { values: names('component', issue.componentIds), kind: 'id' };
        case 'fixversion':
          return { values: names('version', issue.fixVersionIds), kind: 'id' };
        case 'affectedversion':
          return { values: names('version', issue.versionIds), kind: 'id' };
        case 'duedate':
        case 'due':
          return { values: issue.duedate ? [Date.parse(`${issue.duedate}T00:00:00Z`)] : [], kind: 'date' };
        default:
          return undefined;
      }
    },
  };
}

function sortKey(ctx: TwinContext, issue: Issue, field: string): string | number {
  switch (field) {
    case 'key':
    case 'issuekey': {
      const [p, n] = issue.key.split('-');
      return `${p}-${String(n).padStart(10, '0')}`;
    }
    case 'priority':
      return Number(issue.priorityId);
    case 'summary':
      return issue.summary.toLowerCase();
    case 'status':
      return ctx.store.get<Status>('status', issue.statusId)!.name;
    case 'updated':
      return issue.updated;
    case 'duedate':
      return issue.duedate ?? '9999';
    case 'assignee':
      return nameOf(ctx, issue.assigneeId) ?? '~';
    default: // 'created' and any other key
      return issue.created;
  }
}

const SORTABLE = new Set(['key', 'issuekey', 'priority', 'summary', 'status', 'updated', 'duedate', 'assignee', 'created', 'id']);

/** Every issue matching a JQL query, in its ORDER BY (default: created DESC, then key DESC). */
export function searchIssues(ctx: TwinContext, jqlText: string): Issue[] {
  const jql: Jql = parseJql(jqlText);
  for (const o of jql.orderBy)
    if (!SORTABLE.has(o.field))
      throw new JiraError(400, [`Error in the JQL Query: Field '${o.field}' does not exist or you do not have permission to view it.`]);
  const order = jql.orderBy.length > 0 ? jql.orderBy : [{ field: 'created', direction: 'DESC' as const }];
  const all = ctx.store.list<Issue>('issue').filter((i) => isLive(ctx, i));
  const hits = jql.where ? all.filter((i) => evaluate(jql.where!, subject(ctx, i))) : all;
  return hits
    .map((issue, n) => ({ issue, n }))
    .sort((a, b) => {
      for (const o of order) {
        const x = sortKey(ctx, a.issue, o.field);
        const y = sortKey(ctx, b.issue, o.field);
        if (x !== y) return (x < y ? -1 : 1) * (o.direction === 'DESC' ? -1 : 1);
      }
      // Ties (one instant) keep creation order in the direction of the first sort key.
      return order[0]!.direction === 'DESC' ? b.n - a.n : a.n - b.n;
    })
    .map((x) => x.issue);
}
