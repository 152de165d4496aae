// How Jira shows its objects (users, projects, issue types, statuses, issues, comments), with
// `self` links on the twin's own URL.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import {
  LINK_TYPES,
  PRIORITIES,
  type Changelog,
  type IssueLink,
  type Comment,
  type Component,
  type Issue,
  type IssueType,
  type Project,
  type Status,
  type User,
  type Watcher,
  type Version,
  type Worklog,
} from './records.js';
import { viewer } from './workspace.js';

export const CATEGORY = {
  new: { id: 2, key: 'new', colorName: 'blue-gray', name: 'To Do' },
  indeterminate: { id: 4, key: 'indeterminate', colorName: 'yellow', name: 'In Progress' },
  done: { id: 3, key: 'done', colorName: 'green', name: 'Done' },
};

const api = (ctx: TwinContext) => `${ctx.baseUrl}/rest/api/3`;

export function userView(ctx: TwinContext, u: User): Record<string, unknown> {
  const avatar = `https://avatar-management.services.atlassian.com/default/${u.accountId}`;
  return {
    self: `${api(ctx)}/user?accountId=${u.accountId}`,
    accountId: u.accountId,
    accountType: 'atlassian',
    emailAddress: u.emailAddress,
    avatarUrls: { '48x48': `${avatar}/48`, '24x24': `${avatar}/24`, '16x16': `${avatar}/16`, '32x32': `${avatar}/32` },
    displayName: u.displayName,
    active: u.active,
    timeZone: u.timeZone,
  };
}

export function issueTypeView(ctx: TwinContext, t: IssueType): Record<string, unknown> {
  return {
    self: `${api(ctx)}/issuetype/${t.id}`,
    id: t.id,
    description: t.description,
    iconUrl: `${ctx.baseUrl}/images/icons/issuetypes/${t.name.toLowerCase()}.svg`,
    name: t.name,
    untranslatedName: t.name,
    subtask: t.subtask,
    hierarchyLevel: t.hierarchyLevel,
  };
}

export function statusView(ctx: TwinContext, s: Status): Record<string, unknown> {
  const c = CATEGORY[s.category];
  return {
    self: `${api(ctx)}/status/${s.id}`,
    description: '',
    iconUrl: `${ctx.baseUrl}/`,
    name: s.name,
    id: s.id,
    statusCategory: { self: `${api(ctx)}/statuscategory/${c.id}`, ...c },
  };
}

export function projectRef(ctx: TwinContext, p: Project): Record<string, unknown> {
  return { self: `${api(ctx)}/project/${p.id}`, id: p.id, key: p.key, name: p.name, projectTypeKey: p.projectTypeKey, simplified: false, avatarUrls: {} };
}

export function projectView(ctx: TwinContext, p: Project): Record<string, unknown> {
  const lead = ctx.store.get<User>('user', p.leadAccountId);
  return {
    expand: 'description,lead,issueTypes,url,projectKeys,permissions,insight',
    ...projectRef(ctx, p),
    description: p.description,
    lead: lead ? userView(ctx, lead) : null,
    issueTypes: p.issueTypeIds
      .map((id) => ctx.store.get<IssueType>('issue_type', id))
      .filter((t): t is IssueType => !!t)
      .map((t) => issueTypeView(ctx, t)),
    assigneeType: 'UNASSIGNED',
    ...(p.deleted ? trashFields(ctx, p.deleted) : {}),
    style: 'classic',
    isPrivate: false,
    properties: {},
  };
}

/** Jira Cloud keeps a deleted project in the recycle bin for 60 days. */
function trashFields(ctx: TwinContext, deleted: NonNullable<Project['deleted']>): Record<string, unknown> {
  const by = ctx.store.get<User>('user', deleted.byAccountId);
  const until = new Date(Date.parse(deleted.at.replace('+0000', 'Z')) + 60 * 86_400_000).toISOString().replace('Z', '+0000');
  return { deleted: true, deletedDate: deleted.at, ...(by ? { deletedBy: userView(ctx, by) } : {}), retentionTillDate: until };
}

export function commentView(ctx: TwinContext, c: Comment): Record<string, unknown> {
  const author = ctx.store.get<User>('user', c.authorId);
  const a = author ? userView(ctx, author) : null;
  return {
    self: `${api(ctx)}/issue/${c.issueId}/comment/${c.id}`,
    id: c.id,
    author: a,
    body: c.body,
    updateAuthor: a,
    created: c.created,
    updated: c.updated,
    jsdPublic: true,
  };
}

function issueRef(ctx: TwinContext, i: Issue): Record<string, unknown> {
  const status = ctx.store.get<Status>('status', i.statusId)!;
  const type = ctx.store.get<IssueType>('issue_type', i.issueTypeId)!;
  const priority = PRIORITIES.find((p) => p.id === i.priorityId)!;
  return {
    id: i.id,
    key: i.key,
    self: `${api(ctx)}/issue/${i.id}`,
    fields: {
      summary: i.summary,
      status: statusView(ctx, status),
      priority: { self: `${api(ctx)}/priority/${priority.id}`, ...priority },
      issuetype: issueTypeView(ctx, type),
    },
  };
}

export function linkTypeView(ctx: TwinContext, t: (typeof LINK_TYPES)[number]): Record<string, unknown> {
  return { id: t.id, name: t.name, inward: t.inward, outward: t.outward, self: `${api(ctx)}/issueLinkType/${t.id}` };
}

/** A link as `GET /issueLink/{id}` shows it: both issues. */
export function issueLinkView(ctx: TwinContext, l: IssueLink): Record<string, unknown> {
  const inward = ctx.store.get<Issue>('issue', l.inwardIssueId)!;
  const outward = ctx.store.get<Issue>('issue', l.outwardIssueId)!;
  return {
    id: l.id,
    self: `${api(ctx)}/issueLink/${l.id}`,
    type: linkTypeView(ctx, LINK_TYPES.find((t) => t.id === l.typeId)!),
    inwardIssue: issueRef(ctx, inward),
    outwardIssue: issueRef(ctx, outward),
  };
}

/** An issue's links from its own side: the other issue as `outwardIssue` when this one is the inward one. */
function issueLinksView(ctx: TwinContext, i: Issue): Record<string, unknown>[] {
  return ctx.store
    .list<IssueLink>('issue_link')
    .filter((l) => l.inwardIssueId === i.id || l.outwardIssueId === i.id)
    .map((l) => {
      const type = linkTypeView(ctx, LINK_TYPES.find((t) => t.id === l.typeId)!);
      const other = ctx.store.get<Issue>('issue', l.inwardIssueId === i.id ? l.outwardIssueId : l.inwardIssueId)!;
      return { id: l.id, self: `${api(ctx)}/issueLink/${l.id}`, type, [l.inwardIssueId === i.id ? 'outwardIssue' : 'inwardIssue']: issueRef(ctx, other) };
    });
}

function componentRef(ctx: TwinContext, c: Component): Record<string, unknown> {
  return { self: `${api(ctx)}/component/${c.id}`, id: c.id, name: c.name, ...(c.description ? { description: c.description } : {}) };
}

function versionRefs(ctx: TwinContext, ids: string[] = []): Record<string, unknown>[] {
  return ids
    .map((id) => ctx.store.get<Version>('version', id))
    .filter((v): v is Version => !!v)
    .map((v) => ({
      self: `${api(ctx)}/version/${v.id}`,
      id: v.id,
      ...(v.description ? { description: v.description } : {}),
      name: v.name,
      archived: v.archived,
      released: v.released,
      ...(v.releaseDate ? { releaseDate: v.releaseDate } : {}),
    }));
}

/** A component as `GET /component/{id}` shows it. */
export function componentView(ctx: TwinContext, c: Component): Record<string, unknown> {
  const project = ctx.store.get<Project>('project', c.projectId)!;
  const lead = c.leadAccountId ? ctx.store.get<User>('user', c.leadAccountId) : undefined;
  const realType = c.assigneeType === 'PROJECT_DEFAULT' ? 'UNASSIGNED' : c.assigneeType;
  return {
    ...componentRef(ctx, c),
    ...(lead ? { lead: userView(ctx, lead) } : {}),
    assigneeType: c.assigneeType,
    realAssigneeType: realType,
    isAssigneeTypeValid: true,
    project: project.key,
    projectId: Number(project.id),
  };
}

/** A version as `GET /version/{id}` shows it. */
export function versionView(ctx: TwinContext, v: Version): Record<string, unknown> {
  const today = new Date(ctx.clock.nowMs()).toISOString().slice(0, 10);
  return {
    ...versionRefs(ctx, [v.id])[0],
    ...(v.startDate ? { startDate: v.startDate } : {}),
    overdue: !v.released && v.releaseDate !== null && v.releaseDate < today,
    projectId: Number(v.projectId),
  };
}

/** Every field of an issue as `GET /issue/{key}` shows it (the `fields` parameter picks from these). */
export function issueFields(ctx: TwinContext, i: Issue): Record<string, unknown> {
  const user = (id: string | null) => {
    const u = id ? ctx.store.get<User>('user', id) : undefined;
    return u ? userView(ctx, u) : null;
  };
  const project = ctx.store.get<Project>('project', i.projectId)!;
  const status = ctx.store.get<Status>('status', i.statusId)!;
  const type = ctx.store.get<IssueType>('issue_type', i.issueTypeId)!;
  const priority = PRIORITIES.find((p) => p.id === i.priorityId)!;
  const parent = i.parentId ? ctx.store.get<Issue>('issue', i.parentId) : undefined;
  const comments = ctx.store.list<Comment>('comment').filter((c) => c.issueId === i.id);
  const subtasks = ctx.store.list<Issue>('issue').filter((x) => x.parentId === i.id);
  const watchers = ctx.store.list<Watcher>('watcher').filter((w) => w.issueId === i.id);
  const votes = ctx.store.list<Watcher>('vote').filter((v) => v.issueId === i.id);
  const logged = ctx.store.list<Worklog>('worklog').filter((w) => w.issueId === i.id);
  const timespent = logged.reduce((sum, w) => sum + w.timeSpentSeconds, 0);
  return {
    summary: i.summary,
    description: i.description,
    issuetype: issueTypeView(ctx, type),
    project: projectRef(ctx, project),
    status: statusView(ctx, status),
    statuscategorychangedate: i.statuscategorychangedate,
    priority: {
      self: `${api(ctx)}/priority/${priority.id}`,
      iconUrl: `${ctx.baseUrl}/images/icons/priorities/${priority.name.toLowerCase()}.svg`,
      ...priority,
    },
    assignee: user(i.assigneeId),
    reporter: user(i.reporterId),
    creator: user(i.creatorId),
    labels: i.labels,
    created: i.created,
    updated: i.updated,
    duedate: i.duedate,
    resolution:
      status.category === 'done'
        ? { self: `${api(ctx)}/resolution/10000`, id: '10000', description: 'Work has been completed on this issue.', name: 'Done' }
        : null,
    resolutiondate: i.resolutiondate,
    timespent: logged.length ? timespent : null,
    aggregatetimespent: logged.length ? timespent : null,
    ...(parent ? { parent: issueRef(ctx, parent) } : {}),
    subtasks: subtasks.map((s) => issueRef(ctx, s)),
    comment: {
      comments: comments.map((c) => commentView(ctx, c)),
      self: `${api(ctx)}/issue/${i.id}/comment`,
      maxResults: comments.length,
      total: comments.length,
      startAt: 0,
    },
    watches: {
      self: `${api(ctx)}/issue/${i.key}/watchers`,
      watchCount: watchers.length,
      isWatching: watchers.some((w) => w.accountId === viewer(ctx).accountId),
    },
    votes: { self: `${api(ctx)}/issue/${i.key}/votes`, votes: votes.length, hasVoted: votes.some((v) => v.accountId === viewer(ctx).accountId) },
    issuelinks: issueLinksView(ctx, i),
    components: (i.componentIds ?? [])
      .map((id) => ctx.store.get<Component>('component', id))
      .filter((c): c is Component => !!c)
      .map((c) => componentRef(ctx, c)),
    fixVersions: versionRefs(ctx, i.fixVersionIds),
    versions: versionRefs(ctx, i.versionIds),
  };
}

/** Fields Jira counts as navigable (what `*navigable`, the search default, returns). */
const NOT_NAVIGABLE = new Set(['comment', 'watches', 'votes']);

/** The issue with the fields a `fields` parameter asks for (`*all`, `*navigable`, names, `-name`). */
export function issueView(ctx: TwinContext, i: Issue, fields: string[] = ['*all']): Record<string, unknown> {
  const all = issueFields(ctx, i);
  let keep = new Set<string>();
  for (const f of fields) {
    if (f === '*all') {
      for (const k of Object.keys(all)) keep.add(k);
    } else if (f === '*navigable') {
      for (const k of Object.keys(all)) if (!NOT_NAVIGABLE.has(k)) keep.add(k);
    } else if (f.startsWith('-')) keep.delete(f.slice(1));
    else if (f !== 'id' && f !== 'key') keep.add(f);
  }
  if (fields.length === 0) keep = new Set(Object.keys(all));
  const picked: Record<string, unknown> = {};
  for (const k of keep) if (Object.hasOwn(all, k)) picked[k] = all[k];
  return {
    expand: 'renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations',
    id: i.id,
    self: `${api(ctx)}/issue/${i.id}`,
    key: i.key,
    fields: picked,
  };
}

/** One entry of an issue's history, as `GET /issue/{key}/changelog` and `expand=changelog` show it. */
export function changelogView(ctx: TwinContext, c: Changelog): Record<string, unknown> {
  const author = ctx.store.get<User>('user', c.authorId);
  return {
    id: c.id,
    ...(author ? { author: userView(ctx, author) } : {}),
    created: c.created,
    items: c.items.map((item) => ({ ...item, fieldId: item.field })),
  };
}
