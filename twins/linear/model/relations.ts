// Issue relations: one issue blocks, duplicates, relates to or is similar to another (not itself);
// created, retyped or repointed, deleted; each issue lists its own (`relations`) and those that
// point at it (`inverseRelations`). One relation of a type between the same two issues.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { invalidInput, notFound } from '../wire/errors.js';
import { requireIssue } from './issues.js';
import { stamps, uuid, type IssueRelation } from './records.js';

const TYPES = new Set<IssueRelation['type']>(['blocks', 'duplicate', 'related', 'similar']);

export interface RelationInput {
  id?: string | null;
  issueId?: string | null;
  relatedIssueId?: string | null;
  type?: string | null;
}

export function requireRelation(ctx: TwinContext, id: string): IssueRelation {
  const found = ctx.store.get<IssueRelation>('issue_relation', id);
  if (!found) throw notFound('IssueRelation');
  return found;
}

function checked(ctx: TwinContext, r: Pick<IssueRelation, 'issueId' | 'relatedIssueId' | 'type'>, self?: string): void {
  if (!TYPES.has(r.type)) throw invalidInput('type must be one of blocks, duplicate, related, similar');
  if (r.issueId === r.relatedIssueId) throw invalidInput('An issue cannot be related to itself');
  const twin = ctx.store
    .list<IssueRelation>('issue_relation')
    .find((x) => x.id !== self && x.type === r.type && x.issueId === r.issueId && x.relatedIssueId === r.relatedIssueId);
  if (twin) throw invalidInput('The issues are already related this way');
}

export function createRelation(ctx: TwinContext, input: RelationInput): IssueRelation {
  const issueId = requireIssue(ctx, String(input.issueId ?? '')).id;
  const relatedIssueId = requireIssue(ctx, String(input.relatedIssueId ?? '')).id;
  const type = String(input.type ?? '') as IssueRelation['type'];
  checked(ctx, { issueId, relatedIssueId, type });
  if (input.id && ctx.store.has('issue_relation', input.id)) throw invalidInput('An issue relation with this id already exists');
  const relation: IssueRelation = { id: input.id || uuid(ctx), ...stamps(ctx), type, issueId, relatedIssueId };
  ctx.store.put('issue_relation', relation.id, relation);
  return relation;
}

export function updateRelation(ctx: TwinContext, id: string, input: RelationInput): IssueRelation {
  const r = requireRelation(ctx, id);
  const next: IssueRelation = {
    ...r,
    issueId: input.issueId ? requireIssue(ctx, input.issueId).id : r.issueId,
    relatedIssueId: input.relatedIssueId ? requireIssue(ctx, input.relatedIssueId).id : r.relatedIssueId,
    type: (input.type ?? r.type) as IssueRelation['type'],
    updatedAt: ctx.clock.now().toISOString(),
  };
  checked(ctx, next, r.id);
  ctx.store.put('issue_relation', r.id, next);
  return next;
}

export function deleteRelation(ctx: TwinContext, id: string): void {
  ctx.store.delete('issue_relation', requireRelation(ctx, id).id);
}
