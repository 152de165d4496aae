// Record kinds the Linear twin keeps and their stored shapes: Linear's scalar fields as the API
// returns them, plus the ids of related entities (`teamId`, `stateId`…) the resolvers follow.
// Ids are UUIDs, as on Linear, drawn from the twin's deterministic id source.

import type { TwinContext } from '../../../twin-runtime/contract.js';

export const RESOURCES = [
  'organization',
  'user',
  'team',
  'workflow_state',
  'issue_label',
  'issue',
  'comment',
  'attachment',
  'issue_relation',
  'project',
  'cycle',
  'webhook',
] as const;

interface Entity {
  id: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  [key: string]: unknown;
}

export interface Organization extends Entity {
  name: string;
  urlKey: string;
}

export interface User extends Entity {
  name: string;
  displayName: string;
  email: string;
  active: boolean;
  admin: boolean;
  guest: boolean;
  /** The key's own user (`viewer`). */
  viewer?: boolean;
}

export interface Team extends Entity {
  name: string;
  key: string;
  description: string | null;
  cyclesEnabled: boolean;
  issueEstimationType: string;
  memberIds: string[];
  private: boolean;
}

export type StateType = 'triage' | 'backlog' | 'unstarted' | 'started' | 'completed' | 'canceled';

export interface WorkflowState extends Entity {
  name: string;
  type: StateType;
  color: string;
  position: number;
  description: string | null;
  teamId: string;
}

export interface IssueLabel extends Entity {
  name: string;
  color: string;
  description: string | null;
  teamId: string | null;
  isGroup: boolean;
}

export interface Issue extends Entity {
  number: number;
  identifier: string;
  title: string;
  description: string | null;
  priority: number;
  estimate: number | null;
  dueDate: string | null;
  sortOrder: number;
  teamId: string;
  stateId: string;
  assigneeId: string | null;
  creatorId: string | null;
  parentId: string | null;
  projectId: string | null;
  cycleId: string | null;
  labelIds: string[];
  startedAt: string | null;
  completedAt: string | null;
  canceledAt: string | null;
}

export interface Comment extends Entity {
  body: string;
  issueId: string;
  userId: string | null;
  parentId: string | null;
  editedAt: string | null;
  /** Set when its thread is resolved (absent on comments stored before resolution was modelled). */
  resolvedAt?: string | null;
  resolvingUserId?: string | null;
  resolvingCommentId?: string | null;
}

export interface Project extends Entity {
  name: string;
  description: string;
  content: string | null;
  color: string;
  state: string;
  priority: number;
  teamIds: string[];
  leadId: string | null;
  memberIds: string[];
  startDate: string | null;
  targetDate: string | null;
  startedAt: string | null;
  completedAt: string | null;
  canceledAt: string | null;
  sortOrder: number;
}

export interface Cycle extends Entity {
  number: number;
  name: string | null;
  description: string | null;
  startsAt: string;
  endsAt: string;
  completedAt: string | null;
  teamId: string;
}

export interface Webhook extends Entity {
  url: string;
  label: string | null;
  enabled: boolean;
  secret: string;
  resourceTypes: string[];
  teamId: string | null;
  allPublicTeams: boolean;
  creatorId: string | null;
}

/** Two issues related: `issue` blocks, duplicates, relates to or is similar to `relatedIssue`. */
export interface IssueRelation extends Entity {
  type: 'blocks' | 'duplicate' | 'related' | 'similar';
  issueId: string;
  relatedIssueId: string;
}

/** A link on an issue (a PR, a support ticket, any URL); one per URL and issue. */
export interface Attachment extends Entity {
  issueId: string;
  creatorId: string | null;
  title: string;
  subtitle: string | null;
  url: string;
  metadata: Record<string, unknown>;
  iconUrl: string | null;
  groupBySource: boolean;
  sourceType: string | null;
}

/** A v4-shaped UUID from the twin's deterministic id source. */
export function uuid(ctx: TwinContext): string {
  const b = Buffer.from(ctx.ids.bytes(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Timestamps of a new entity (the environment clock, ISO 8601 with milliseconds as Linear sends). */
export function stamps(ctx: TwinContext): { createdAt: string; updatedAt: string; archivedAt: null } {
  const now = ctx.clock.now().toISOString();
  return { createdAt: now, updatedAt: now, archivedAt: null };
}
