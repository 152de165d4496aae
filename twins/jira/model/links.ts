// Issue links: two issues joined by one of the site's link types, created with an optional
// comment on the outward issue, read, deleted (model/issues.ts deletes them with either issue),
// and shown in each issue's `issuelinks` from its own side (model/views.ts).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { fieldError, JiraError } from '../wire/errors.js';
import { addComment } from './comments.js';
import { findIssue } from './issues.js';
import { LINK_TYPES, type IssueLink } from './records.js';

export type LinkType = (typeof LINK_TYPES)[number];

export function findLinkType(ref: unknown): LinkType | undefined {
  const r = (ref ?? {}) as { id?: unknown; name?: unknown };
  return LINK_TYPES.find((t) => t.id === r.id || (typeof r.name === 'string' && t.name.toLowerCase() === r.name.toLowerCase()));
}

function linkedIssue(ctx: TwinContext, field: string, ref: unknown): string {
  const r = (ref ?? {}) as { id?: unknown; key?: unknown };
  const idOrKey = typeof r.key === 'string' ? r.key : typeof r.id === 'string' ? r.id : '';
  const issue = findIssue(ctx, idOrKey);
  if (!issue) throw new JiraError(404, [`Issue does not exist or you do not have permission to see it.`], { [field]: `The issue '${idOrKey}' was not found.` });
  return issue.id;
}

export function createLink(ctx: TwinContext, input: { type?: unknown; inwardIssue?: unknown; outwardIssue?: unknown; comment?: unknown }): IssueLink {
  const type = findLinkType(input.type);
  if (!type) throw fieldError('issueLinkType', 'No issue link type with name or id given was found.');
  const inwardIssueId = linkedIssue(ctx, 'inwardIssue', input.inwardIssue);
  const outwardIssueId = linkedIssue(ctx, 'outwardIssue', input.outwardIssue);
  // Jira keeps one link of a type between the same two issues.
  const existing = ctx.store
    .list<IssueLink>('issue_link')
    .find((l) => l.typeId === type.id && l.inwardIssueId === inwardIssueId && l.outwardIssueId === outwardIssueId);
  if (existing) return existing;
  const comment = (input.comment ?? undefined) as { body?: unknown } | undefined;
  if (comment !== undefined) addComment(ctx, outwardIssueId, comment.body);
  const link: IssueLink = { id: String(10000 + ctx.ids.sequence('id:issue_link') - 1), typeId: type.id, inwardIssueId, outwardIssueId };
  ctx.store.put('issue_link', link.id, link);
  return link;
}

export function requireLink(ctx: TwinContext, id: string): IssueLink {
  const link = ctx.store.get<IssueLink>('issue_link', id);
  if (!link) throw new JiraError(404, [`No issue link with id '${id}' exists.`]);
  return link;
}

export function issueLinksOf(ctx: TwinContext, issueId: string): IssueLink[] {
  return ctx.store.list<IssueLink>('issue_link').filter((l) => l.inwardIssueId === issueId || l.outwardIssueId === issueId);
}
