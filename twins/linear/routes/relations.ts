// Issue relations over GraphQL: `issueRelation`, `issueRelations`, `issueRelationCreate`,
// `issueRelationUpdate`, `issueRelationDelete`, and `Issue.relations` / `Issue.inverseRelations`.

import type { TypeModel, TypeModels } from '../wire/types.js';
import { createRelation, deleteRelation, requireRelation, updateRelation, type RelationInput } from '../model/relations.js';
import { all, input, payload, related, str } from './common.js';

const onIssue: TypeModel = {
  many: {
    relations: (i, ctx) => all(ctx, 'issue_relation').filter((r) => r.issueId === i.id),
    inverseRelations: (i, ctx) => all(ctx, 'issue_relation').filter((r) => r.relatedIssueId === i.id),
  },
};

export const relationModels: TypeModels = {
  Query: {
    computed: { issueRelation: (_r, a, ctx) => requireRelation(ctx, str(a, 'id')) },
    many: { issueRelations: (_r, ctx) => all(ctx, 'issue_relation') },
  },
  Mutation: {
    computed: {
      issueRelationCreate: (_r, a, ctx) => payload(ctx, { issueRelation: createRelation(ctx, input<RelationInput>(a)) }),
      issueRelationUpdate: (_r, a, ctx) => payload(ctx, { issueRelation: updateRelation(ctx, str(a, 'id'), input<RelationInput>(a)) }),
      issueRelationDelete: (_r, a, ctx) => {
        deleteRelation(ctx, str(a, 'id'));
        return payload(ctx, { entityId: str(a, 'id') });
      },
    },
  },
  IssueRelation: {
    one: {
      issue: (r, ctx) => related(ctx, 'issue', r.issueId),
      relatedIssue: (r, ctx) => related(ctx, 'issue', r.relatedIssueId),
    },
  },
  Issue: onIssue,
  IssueSearchResult: onIssue,
};
