// Issues and labels over GraphQL: `issues`/`issue`/`searchIssues`, `issueCreate`, `issueUpdate`,
// `issueArchive`/`issueUnarchive`/`issueDelete`, `issueAddLabel`/`issueRemoveLabel`,
// `issueLabels`/`issueLabel`/`issueLabelCreate`, and the Issue type's relations.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { notFound } from '../wire/errors.js';
import type { Rec, TypeModel, TypeModels } from '../wire/types.js';
import { archiveIssue, createIssue, deleteIssue, findIssue, issueUrl, PRIORITY_LABELS, requireIssue, updateIssue, type IssueInput } from '../model/issues.js';
import { createLabel, deleteLabel, updateLabel } from '../model/labels.js';
import type { Issue } from '../model/records.js';
import { actor, all, byId, input, payload, related, str } from './common.js';

const issue = (r: Rec) => r as unknown as Issue;

function branchName(ctx: TwinContext, i: Issue): string {
  const who = i.assigneeId ? String(ctx.store.get<Rec>('user', i.assigneeId)?.displayName ?? 'user') : 'user';
  const slug = i.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return `${who}/${i.identifier.toLowerCase()}-${slug}`;
}

const issueModel: TypeModel = {
  computed: {
    url: (r, _a, ctx) => issueUrl(ctx, issue(r)),
    priorityLabel: (r) => PRIORITY_LABELS[issue(r).priority] ?? 'No priority',
    branchName: (r, _a, ctx) => branchName(ctx, issue(r)),
    boardOrder: (r) => issue(r).sortOrder,
    trashed: (r) => (r.trashed === true ? true : null),
  },
  one: {
    team: (r, ctx) => related(ctx, 'team', r.teamId),
    state: (r, ctx) => related(ctx, 'workflow_state', r.stateId),
    assignee: (r, ctx) => related(ctx, 'user', r.assigneeId),
    creator: (r, ctx) => related(ctx, 'user', r.creatorId),
    parent: (r, ctx) => related(ctx, 'issue', r.parentId),
    project: (r, ctx) => related(ctx, 'project', r.projectId),
    cycle: (r, ctx) => related(ctx, 'cycle', r.cycleId),
  },
  many: {
    children: (r, ctx) => all(ctx, 'issue').filter((i) => i.parentId === r.id),
    comments: (r, ctx) => all(ctx, 'comment').filter((c) => c.issueId === r.id),
    labels: (r, ctx) =>
      issue(r)
        .labelIds.map((id) => ctx.store.get<Rec>('issue_label', id))
        .filter((l): l is Rec => !!l),
  },
};

/**
 * Linear's full-text search over identifiers, titles and descriptions (case-insensitive words),
 * and comment bodies when `includeComments` asks.
 */
function searchMatches(i: Rec, term: string, comments: Rec[] = []): boolean {
  const hay = [i.identifier, i.title, i.description ?? '', ...comments.map((c) => c.body)].map(String).join(' ').toLowerCase();
  return term
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

export const issueModels: TypeModels = {
  Query: {
    computed: {
      issue: (_r, a, ctx) => requireIssue(ctx, str(a, 'id')),
      issueLabel: (_r, a, ctx) => byId(ctx, 'issue_label', 'IssueLabel', str(a, 'id')),
      // The issue a branch is for: its own branch name, else an identifier (`eng-12`) in the name.
      issueVcsBranchSearch: (_r, a, ctx) => {
        const name = str(a, 'branchName').toLowerCase();
        const issues = all(ctx, 'issue').filter((i) => !i.trashed);
        const exact = issues.find((i) => branchName(ctx, issue(i)).toLowerCase() === name);
        if (exact) return exact;
        const m = /([a-z][a-z0-9]*-\d+)/i.exec(name);
        return (m && issues.find((i) => String(i.identifier).toLowerCase() === m[1]!.toLowerCase())) || null;
      },
    },
    many: {
      issues: (_r, ctx) => all(ctx, 'issue').filter((i) => !i.trashed),
      searchIssues: (_r, ctx, a) => {
        const comments = a.includeComments === true ? all(ctx, 'comment') : [];
        const teamId = str(a, 'teamId');
        return all(ctx, 'issue').filter(
          (i) =>
            !i.trashed &&
            (teamId === '' || i.teamId === teamId) &&
            searchMatches(
              i,
              str(a, 'term'),
              comments.filter((c) => c.issueId === i.id),
            ),
        );
      },
      issueSearch: (_r, ctx, a) => all(ctx, 'issue').filter((i) => !i.trashed && (typeof a.query !== 'string' || searchMatches(i, a.query))),
      issueLabels: (_r, ctx) => all(ctx, 'issue_label'),
    },
  },
  Mutation: {
    computed: {
      issueCreate: (_r, a, ctx) => payload(ctx, { issue: createIssue(ctx, actor(ctx), input<IssueInput>(a)) }),
      issueUpdate: (_r, a, ctx) => payload(ctx, { issue: updateIssue(ctx, actor(ctx), str(a, 'id'), input<IssueInput>(a)) }),
      issueArchive: (_r, a, ctx) => payload(ctx, { entity: archiveIssue(ctx, actor(ctx), str(a, 'id'), true) }),
      issueUnarchive: (_r, a, ctx) => payload(ctx, { entity: archiveIssue(ctx, actor(ctx), str(a, 'id'), false) }),
      issueDelete: (_r, a, ctx) => payload(ctx, { entity: deleteIssue(ctx, actor(ctx), str(a, 'id')) }),
      issueAddLabel: (_r, a, ctx) => payload(ctx, { issue: updateIssue(ctx, actor(ctx), str(a, 'id'), { addedLabelIds: [str(a, 'labelId')] }) }),
      issueRemoveLabel: (_r, a, ctx) => {
        const found = findIssue(ctx, str(a, 'id'));
        if (!found) throw notFound('Issue');
        return payload(ctx, { issue: updateIssue(ctx, actor(ctx), found.id, { removedLabelIds: [str(a, 'labelId')] }) });
      },
      issueLabelCreate: (_r, a, ctx) => payload(ctx, { issueLabel: createLabel(ctx, actor(ctx), input(a)) }),
      issueLabelUpdate: (_r, a, ctx) => payload(ctx, { issueLabel: updateLabel(ctx, actor(ctx), str(a, 'id'), input(a)) }),
      issueLabelDelete: (_r, a, ctx) => {
        deleteLabel(ctx, actor(ctx), str(a, 'id'));
        return payload(ctx, { entityId: str(a, 'id') });
      },
    },
  },
  Issue: issueModel,
  IssueSearchResult: issueModel,
  IssueLabel: {
    one: { team: (l, ctx) => related(ctx, 'team', l.teamId) },
    many: { issues: (l, ctx) => all(ctx, 'issue').filter((i) => (i.labelIds as string[]).includes(String(l.id))) },
  },
};
