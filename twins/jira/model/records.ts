// Record kinds of the Jira twin and their stored shapes (ids are Jira's numeric strings, account
// ids Atlassian's 24-hex form), with the site's timestamp format (`2026-03-02T09:00:00.000+0000`).

import type { TwinContext } from '../../../twin-runtime/contract.js';

export const RESOURCES = [
  'site',
  'user',
  'project',
  'issue_type',
  'status',
  'issue',
  'comment',
  'changelog',
  'watcher',
  'vote',
  'issue_link',
  'webhook',
] as const;

export interface User {
  accountId: string;
  emailAddress: string;
  displayName: string;
  active: boolean;
  timeZone: string;
  /** The API token's own user. */
  viewer?: boolean;
}

export interface Project {
  id: string;
  key: string;
  name: string;
  description: string;
  leadAccountId: string;
  projectTypeKey: string;
  issueTypeIds: string[];
  /** In the recycle bin since (Jira's `deletedDate`), by whom; its key stays taken and it can be restored. */
  deleted?: { at: string; byAccountId: string };
}

export interface IssueType {
  id: string;
  name: string;
  description: string;
  subtask: boolean;
  hierarchyLevel: number;
}

export type StatusCategory = 'new' | 'indeterminate' | 'done';

export interface Status {
  id: string;
  name: string;
  category: StatusCategory;
  /** The transition that leads into this status (Jira's simplified workflow: every status reachable). */
  transitionId: string;
  transitionName: string;
}

export interface Issue {
  id: string;
  key: string;
  projectId: string;
  issueTypeId: string;
  statusId: string;
  summary: string;
  /** Atlassian Document Format (or null). */
  description: Record<string, unknown> | null;
  assigneeId: string | null;
  reporterId: string;
  creatorId: string;
  labels: string[];
  priorityId: string;
  parentId: string | null;
  duedate: string | null;
  created: string;
  updated: string;
  statuscategorychangedate: string;
  resolutiondate: string | null;
  /** Absent on issues stored before components and versions were modelled: none. */
  componentIds?: string[];
  fixVersionIds?: string[];
  versionIds?: string[];
}

/** A link from an issue to something outside Jira (a pull request, a document). */
export interface RemoteLink {
  id: string;
  issueId: string;
  globalId: string | null;
  relationship: string | null;
  application: Record<string, unknown> | null;
  object: Record<string, unknown>;
}

/** A saved JQL search. */
export interface Filter {
  id: string;
  name: string;
  description: string;
  jql: string;
  ownerAccountId: string;
  /** Who has it among their favourites (its owner, when created as a favourite). */
  favouriteOf: string[];
}

/** A part of a project issues can be filed against. */
export interface Component {
  id: string;
  projectId: string;
  name: string;
  description: string;
  leadAccountId: string | null;
  assigneeType: 'PROJECT_DEFAULT' | 'COMPONENT_LEAD' | 'PROJECT_LEAD' | 'UNASSIGNED';
}

/** A release of a project (issues fixed in it, issues it affects). */
export interface Version {
  id: string;
  projectId: string;
  name: string;
  description: string;
  released: boolean;
  archived: boolean;
  releaseDate: string | null;
  startDate: string | null;
}

export interface Comment {
  id: string;
  issueId: string;
  authorId: string;
  body: Record<string, unknown>;
  created: string;
  updated: string;
}

/** One change to an issue's fields (what `GET /issue/{key}/changelog` lists, oldest first). */
export interface Changelog {
  id: string;
  issueId: string;
  authorId: string;
  created: string;
  items: { field: string; fieldtype: string; from: string | null; fromString: string | null; to: string | null; toString: string | null }[];
}

/**
 * A link between two issues. As Jira's API has it, the `inward` issue is the subject of the type's
 * outward phrase: `{type: Blocks, inward: A, outward: B}` reads "A blocks B".
 */
export interface IssueLink {
  id: string;
  typeId: string;
  inwardIssueId: string;
  outwardIssueId: string;
}

/** Time logged on an issue. */
export interface Worklog {
  id: string;
  issueId: string;
  authorId: string;
  updateAuthorId: string;
  /** ADF, or null. */
  comment: Record<string, unknown> | null;
  started: string;
  timeSpentSeconds: number;
  created: string;
  updated: string;
}

/** Jira Cloud's default link types (every site starts with them). */
export const LINK_TYPES = [
  { id: '10000', name: 'Blocks', inward: 'is blocked by', outward: 'blocks' },
  { id: '10001', name: 'Cloners', inward: 'is cloned by', outward: 'clones' },
  { id: '10002', name: 'Duplicate', inward: 'is duplicated by', outward: 'duplicates' },
  { id: '10003', name: 'Relates', inward: 'relates to', outward: 'relates to' },
];

/** A user watching an issue (keyed `<issueId>:<accountId>`); a vote is kept the same way. */
export interface Watcher {
  issueId: string;
  accountId: string;
}

export interface Webhook {
  id: string;
  name: string;
  url: string;
  events: string[];
  jql: string | null;
  secret: string | null;
  enabled: boolean;
  created: string;
}

/** Jira's timestamp: milliseconds and a `+0000` offset. */
export function jiraTime(ctx: TwinContext): string {
  return ctx.clock.now().toISOString().replace('Z', '+0000');
}

export function numericId(ctx: TwinContext, kind: string, base = 10000): string {
  return String(base + ctx.ids.sequence(`id:${kind}`) - 1);
}

export const PRIORITIES = [
  { id: '1', name: 'Highest' },
  { id: '2', name: 'High' },
  { id: '3', name: 'Medium' },
  { id: '4', name: 'Low' },
  { id: '5', name: 'Lowest' },
];
