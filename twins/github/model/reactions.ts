// Reactions on issues (and pull requests, through their issue half), issue comments and pull
// request review comments. One reaction per user, subject and content: reacting again answers the
// existing reaction (REST 200 instead of 201). The `reactions` rollup on the subject is recounted on
// every change, so REST bodies and GraphQL `reactionGroups` read the same numbers.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { nextId, nodeId, now } from './identity.js';
import { notFound, validationFailed } from '../wire/errors.js';
import { type Json, simpleAccount, viewer } from './accounts.js';
import { childKey } from './repositories.js';
import { emptyReactions } from './issues.js';

export const REACTION_CONTENTS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'] as const;
export type ReactionContent = (typeof REACTION_CONTENTS)[number];

export function isReactionContent(v: unknown): v is ReactionContent {
  return typeof v === 'string' && (REACTION_CONTENTS as readonly string[]).includes(v);
}

/** What can carry reactions: the record kind and key of its body (the body has a `reactions` rollup). */
export interface Reactable {
  kind: 'issue' | 'issue_comment' | 'review_comment';
  /** The issue number or the comment id. */
  id: number;
}

function subjectKey(repo: Json, s: Reactable): string {
  return childKey(repo, `${s.kind}:${s.id}:`);
}

function subjectBody(ctx: TwinContext, repo: Json, s: Reactable): Json {
  const body = ctx.store.get<Json>(s.kind, childKey(repo, s.id));
  if (!body) throw notFound();
  return body;
}

export function listReactions(ctx: TwinContext, repo: Json, s: Reactable, content?: ReactionContent): Json[] {
  subjectBody(ctx, repo, s);
  return ctx.store
    .listByPrefix<Json>('reaction', subjectKey(repo, s))
    .map((r) => r.body)
    .filter((r) => !content || r.content === content);
}

/** Recount the subject's rollup (and the pull request copying an issue's, if any). */
function recount(ctx: TwinContext, repo: Json, s: Reactable): void {
  const body = subjectBody(ctx, repo, s);
  const rollup = emptyReactions(body.reactions?.url ?? '');
  for (const r of ctx.store.listByPrefix<Json>('reaction', subjectKey(repo, s))) {
    rollup[r.body.content] += 1;
    rollup.total_count += 1;
  }
  body.reactions = rollup;
  ctx.store.put(s.kind, childKey(repo, s.id), body);
}

/** `POST …/reactions`: the reaction and whether it is new (201) or the viewer's existing one (200). */
export function addReaction(ctx: TwinContext, repo: Json, s: Reactable, content: unknown): { reaction: Json; created: boolean } {
  if (!isReactionContent(content)) {
    throw validationFailed({ resource: 'Reaction', field: 'content', code: 'invalid', value: content } as never);
  }
  const me = viewer(ctx);
  const existing = listReactions(ctx, repo, s).find((r) => r.user.id === me.id && r.content === content);
  if (existing) return { reaction: existing, created: false };
  const id = nextId(ctx, 'reaction');
  const reaction = { id, node_id: nodeId('Reaction', id), user: simpleAccount(me), content, created_at: now(ctx) };
  ctx.store.transaction(() => {
    ctx.store.put('reaction', `${subjectKey(repo, s)}${id}`, reaction);
    recount(ctx, repo, s);
  });
  return { reaction, created: true };
}

/** `DELETE …/reactions/{id}` (any reaction of the subject: the caller checks who may). */
export function deleteReaction(ctx: TwinContext, repo: Json, s: Reactable, id: number): void {
  subjectBody(ctx, repo, s);
  ctx.store.transaction(() => {
    if (!ctx.store.delete('reaction', `${subjectKey(repo, s)}${id}`)) throw notFound();
    recount(ctx, repo, s);
  });
}

/** The viewer's reaction of `content`, removed (GraphQL removeReaction); false when there was none. */
export function removeViewerReaction(ctx: TwinContext, repo: Json, s: Reactable, content: ReactionContent): boolean {
  const me = viewer(ctx);
  const mine = listReactions(ctx, repo, s).find((r) => r.user.id === me.id && r.content === content);
  if (!mine) return false;
  deleteReaction(ctx, repo, s, mine.id);
  return true;
}

/** Drop every reaction of a subject being deleted. */
export function dropReactions(ctx: TwinContext, repo: Json, s: Reactable): void {
  for (const r of ctx.store.listByPrefix('reaction', subjectKey(repo, s))) ctx.store.delete('reaction', r.external_id);
}
