// Attachments over GraphQL: `attachment`, `attachments`, `attachmentsForURL`, `attachmentIssue`,
// `attachmentCreate`, `attachmentLinkURL`, `attachmentUpdate`, `attachmentDelete`, and
// `Issue.attachments`.

import type { TypeModels } from '../wire/types.js';
import { createAttachment, deleteAttachment, linkUrl, requireAttachment, updateAttachment, type AttachmentInput } from '../model/attachments.js';
import { requireIssue } from '../model/issues.js';
import { actor, all, input, payload, related, str } from './common.js';

export const attachmentModels: TypeModels = {
  Query: {
    computed: {
      attachment: (_r, a, ctx) => requireAttachment(ctx, str(a, 'id')),
      attachmentIssue: (_r, a, ctx) => requireIssue(ctx, requireAttachment(ctx, str(a, 'id')).issueId),
    },
    many: {
      attachments: (_r, ctx) => all(ctx, 'attachment'),
      attachmentsForURL: (_r, ctx, a) => all(ctx, 'attachment').filter((x) => x.url === str(a, 'url')),
    },
  },
  Mutation: {
    computed: {
      attachmentCreate: (_r, a, ctx) => payload(ctx, { attachment: createAttachment(ctx, actor(ctx), input<AttachmentInput>(a)) }),
      attachmentLinkURL: (_r, a, ctx) =>
        payload(ctx, {
          attachment: linkUrl(ctx, actor(ctx), { issueId: str(a, 'issueId'), url: str(a, 'url'), title: str(a, 'title') || null, id: str(a, 'id') || null }),
        }),
      attachmentUpdate: (_r, a, ctx) => payload(ctx, { attachment: updateAttachment(ctx, actor(ctx), str(a, 'id'), input<AttachmentInput>(a)) }),
      attachmentDelete: (_r, a, ctx) => {
        deleteAttachment(ctx, actor(ctx), str(a, 'id'));
        return payload(ctx, { entityId: str(a, 'id') });
      },
    },
  },
  Attachment: {
    one: {
      issue: (x, ctx) => related(ctx, 'issue', x.issueId),
      creator: (x, ctx) => related(ctx, 'user', x.creatorId),
    },
  },
  Issue: { many: { attachments: (i, ctx) => all(ctx, 'attachment').filter((x) => x.issueId === i.id) } },
  IssueSearchResult: { many: { attachments: (i, ctx) => all(ctx, 'attachment').filter((x) => x.issueId === i.id) } },
};
