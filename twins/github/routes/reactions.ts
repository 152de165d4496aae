// Reactions on issues, issue comments and pull request review comments: list (by content), create
// (201, or 200 with the viewer's existing reaction), delete.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { requireIssue, requireComment } from '../model/issues.js';
import { requireReviewComment } from '../model/pulls.js';
import { type Reactable, REACTION_CONTENTS, addReaction, deleteReaction, listReactions } from '../model/reactions.js';
import type { Json } from '../model/accounts.js';
import { jsonBody, numberParam, optEnum, page, queryString, repoOf, routes } from '../wire/http.js';

type Subject = (req: TwinRequest, ctx: TwinContext, repo: Json) => Reactable;

const SUBJECTS: { path: string; subject: Subject }[] = [
  {
    path: '/repos/{owner}/{repo}/issues/{issue_number}/reactions',
    subject: (req, ctx, repo) => ({ kind: 'issue', id: requireIssue(ctx, repo, numberParam(req, 'issue_number')).number }),
  },
  {
    path: '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
    subject: (req, ctx, repo) => ({ kind: 'issue_comment', id: requireComment(ctx, repo, numberParam(req, 'comment_id')).id }),
  },
  {
    path: '/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions',
    subject: (req, ctx, repo) => ({ kind: 'review_comment', id: requireReviewComment(ctx, repo, numberParam(req, 'comment_id')).id }),
  },
];

export const reactionRoutes: TwinRoute[] = SUBJECTS.flatMap(({ path, subject }) => [
  ...routes('GET', path, (req, ctx) => {
    const repo = repoOf(req, ctx);
    const content = optEnum({ content: queryString(req, 'content') }, 'content', REACTION_CONTENTS);
    return page(req, ctx, listReactions(ctx, repo, subject(req, ctx, repo), content));
  }),
  ...routes('POST', path, (req, ctx) => {
    const repo = repoOf(req, ctx);
    const { reaction, created } = addReaction(ctx, repo, subject(req, ctx, repo), jsonBody(req).content);
    return { status: created ? 201 : 200, body: reaction };
  }),
  ...routes('DELETE', `${path}/{reaction_id}`, (req, ctx) => {
    const repo = repoOf(req, ctx);
    deleteReaction(ctx, repo, subject(req, ctx, repo), numberParam(req, 'reaction_id'));
    return { status: 204 };
  }),
]);
