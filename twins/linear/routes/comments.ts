// Comments over GraphQL: `comments`/`comment`, `commentCreate`/`commentUpdate`/`commentDelete`,
// `commentResolve`/`commentUnresolve`.

import type { TypeModels } from '../wire/types.js';
import { commentUrl, createComment, deleteComment, resolveComment, updateComment } from '../model/comments.js';
import type { Comment } from '../model/records.js';
import { actor, all, byId, input, payload, related, str } from './common.js';

export const commentModels: TypeModels = {
  Query: {
    computed: { comment: (_r, a, ctx) => byId(ctx, 'comment', 'Comment', str(a, 'id')) },
    many: { comments: (_r, ctx) => all(ctx, 'comment') },
  },
  Mutation: {
    computed: {
      commentCreate: (_r, a, ctx) => payload(ctx, { comment: createComment(ctx, actor(ctx), input(a)) }),
      commentUpdate: (_r, a, ctx) => payload(ctx, { comment: updateComment(ctx, actor(ctx), str(a, 'id'), input(a)) }),
      commentResolve: (_r, a, ctx) => payload(ctx, { comment: resolveComment(ctx, actor(ctx), str(a, 'id'), true, str(a, 'resolvingCommentId') || undefined) }),
      commentUnresolve: (_r, a, ctx) => payload(ctx, { comment: resolveComment(ctx, actor(ctx), str(a, 'id'), false) }),
      commentDelete: (_r, a, ctx) => {
        deleteComment(ctx, actor(ctx), str(a, 'id'));
        return payload(ctx, { entityId: str(a, 'id') });
      },
    },
  },
  Comment: {
    computed: { url: (c, _a, ctx) => commentUrl(ctx, c as unknown as Comment) },
    one: {
      issue: (c, ctx) => related(ctx, 'issue', c.issueId),
      user: (c, ctx) => related(ctx, 'user', c.userId),
      parent: (c, ctx) => related(ctx, 'comment', c.parentId),
      resolvingUser: (c, ctx) => related(ctx, 'user', c.resolvingUserId),
      resolvingComment: (c, ctx) => related(ctx, 'comment', c.resolvingCommentId),
    },
    many: { children: (c, ctx) => all(ctx, 'comment').filter((x) => x.parentId === c.id) },
  },
};
