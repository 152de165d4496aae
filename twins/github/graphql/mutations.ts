// The mutations behind `gh repo create`, `gh issue create/close/reopen/comment/edit`, `gh pr create/merge/review/
// close/reopen/ready/edit`, labels and assignees, written through the same model calls as the REST
// routes (so webhooks, counters, closing keywords and Actions runs follow alike).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { type Json, getMembership, getUser, viewer } from '../model/accounts.js';
import { childKey } from '../model/repositories.js';
import { openRepository } from '../model/git.js';
import { createComment, createIssue, getIssue, saveIssue, updateIssue, type IssuePatch } from '../model/issues.js';
import { createPull, createReview, getPull, mergePull, requestReviewers, syncPullFromIssue, updatePull } from '../model/pulls.js';
import { afterPush } from '../model/pushes.js';
import { emitEvent } from '../model/webhooks.js';
import { GitHubError } from '../wire/errors.js';
import { GraphQLFailure } from './errors.js';
import { type Located, type Source, issue, locate, pullRequest, reactionContentOf, reactionFields, repository, subjectOf } from './nodes.js';
import { type Reactable, addReaction, listReactions, removeViewerReaction } from '../model/reactions.js';

type Input = Json;

function need(ctx: TwinContext, id: unknown, ...types: string[]): Located {
  const found = typeof id === 'string' ? locate(ctx, id) : undefined;
  if (!found || (types.length && !types.includes(found.type))) {
    throw new GraphQLFailure(`Could not resolve to a node with the global id of '${String(id)}'.`, 'NOT_FOUND');
  }
  return found;
}

function labelNames(ctx: TwinContext, ids: unknown): string[] | undefined {
  if (!Array.isArray(ids)) return undefined;
  return ids.map((id) => need(ctx, id, 'Label').body.name as string);
}

function logins(ctx: TwinContext, ids: unknown): string[] | undefined {
  if (!Array.isArray(ids)) return undefined;
  return ids.map((id) => need(ctx, id, 'User').body.login as string);
}

function milestoneNumber(ctx: TwinContext, id: unknown): number | null | undefined {
  if (id === undefined) return undefined;
  if (id === null) return null;
  return need(ctx, id, 'Milestone').body.number as number;
}

/** The issue half (every issue and pull request has one) of a subject. */
function issueHalf(ctx: TwinContext, found: Located): { repo: Json; issue: Json } {
  const repo = found.repo!;
  const i = getIssue(ctx, repo, found.body.number);
  if (!i) throw new GraphQLFailure('Could not resolve the issue.', 'NOT_FOUND');
  return { repo, issue: i };
}

/** Apply an issue patch to an issue or a pull request's issue half, keeping the pull request in step. */
function patchSubject(ctx: TwinContext, found: Located, patch: IssuePatch): Source {
  const { repo, issue: i } = issueHalf(ctx, found);
  const { issue: updated, events } = updateIssue(ctx, repo, i, patch);
  syncPullFromIssue(ctx, repo, updated, events);
  return subjectOf(ctx, repo, updated.number);
}

function withId(input: Input, payload: Source): Source {
  return { clientMutationId: input.clientMutationId ?? null, ...payload };
}

function pullOf(ctx: TwinContext, id: unknown): { repo: Json; pr: Json } {
  const found = need(ctx, id, 'PullRequest');
  return { repo: found.repo!, pr: getPull(ctx, found.repo!, found.body.number)! };
}

function setDraft(ctx: TwinContext, repo: Json, pr: Json, draft: boolean): Source {
  pr.draft = draft;
  ctx.store.put('pull_request', childKey(repo, pr.number), pr);
  const i = getIssue(ctx, repo, pr.number);
  if (i) {
    i.draft = draft;
    saveIssue(ctx, repo, i);
  }
  emitEvent(ctx, repo, 'pull_request', { action: draft ? 'converted_to_draft' : 'ready_for_review', number: pr.number, pull_request: pr });
  return pullRequest(ctx, repo, pr);
}

/** addReaction / removeReaction on an issue, a pull request or an issue comment. */
function react(ctx: TwinContext, input: Input, add: boolean): Source {
  const found = need(ctx, input.subjectId, 'Issue', 'PullRequest', 'IssueComment');
  const content = reactionContentOf(input.content);
  if (!content) throw new GraphQLFailure(`Argument 'content' has an invalid value (${String(input.content)}).`, 'UNPROCESSABLE');
  const repo = found.repo!;
  const target: Reactable = found.type === 'IssueComment' ? { kind: 'issue_comment', id: found.body.id } : { kind: 'issue', id: found.body.number };
  let reaction: Json | undefined;
  if (add) reaction = addReaction(ctx, repo, target, content).reaction;
  else {
    reaction = listReactions(ctx, repo, target).find((r) => r.content === content && r.user.login === viewer(ctx).login);
    removeViewerReaction(ctx, repo, target, content);
  }
  const subject: Source =
    found.type === 'IssueComment'
      ? ({ __typename: 'IssueComment', id: found.body.node_id, ...reactionFields(ctx, repo, target, (): Source => subject) } as Source)
      : subjectOf(ctx, repo, found.body.number);
  const groups = (subject.reactionGroups as () => Source[])();
  return withId(input, {
    reaction: reaction
      ? {
          __typename: 'Reaction',
          id: reaction.node_id,
          databaseId: reaction.id,
          content: input.content,
          createdAt: reaction.created_at,
          user: null,
          reactable: subject,
        }
      : null,
    subject,
    reactionGroups: groups,
  });
}

export const mutations: Record<string, (ctx: TwinContext, input: Input) => Source> = {
  createRepository(ctx, input) {
    // `ownerId` names an organization (or the viewer); the viewer by default.
    const owner = input.ownerId === undefined || input.ownerId === null ? viewer(ctx) : need(ctx, input.ownerId, 'Organization', 'User').body;
    if (owner.type === 'Organization' && !getMembership(ctx, owner.login, viewer(ctx).login)) {
      throw new GraphQLFailure(`${viewer(ctx).login} does not have the correct permissions to execute \`CreateRepository\``, 'FORBIDDEN');
    }
    if (owner.type !== 'Organization' && owner.login !== viewer(ctx).login) {
      throw new GraphQLFailure('You can only create repositories for yourself or an organization you belong to.', 'FORBIDDEN');
    }
    const visibility = String(input.visibility ?? '').toLowerCase();
    if (!['public', 'private', 'internal'].includes(visibility))
      throw new GraphQLFailure(`Argument 'visibility' has an invalid value (${String(input.visibility)}).`, 'UNPROCESSABLE');
    try {
      const repo = openRepository(ctx, owner, {
        name: String(input.name ?? ''),
        description: typeof input.description === 'string' ? input.description : null,
        homepage: typeof input.homepageUrl === 'string' ? input.homepageUrl : null,
        visibility,
        private: visibility !== 'public',
        has_issues: input.hasIssuesEnabled ?? true,
        has_wiki: input.hasWikiEnabled ?? false,
        is_template: !!input.template,
      });
      return withId(input, { repository: repository(ctx, repo) });
    } catch (e) {
      // The REST model's 422 ("name already exists on this account") as GraphQL's own error.
      if (e instanceof GitHubError) {
        const detail = e.extra.errors?.[0];
        const said = typeof detail === 'string' ? detail : detail?.message;
        throw new GraphQLFailure(said ? said.charAt(0).toUpperCase() + said.slice(1) : e.message, 'UNPROCESSABLE');
      }
      throw e;
    }
  },
  createIssue(ctx, input) {
    const repo = need(ctx, input.repositoryId, 'Repository').body;
    if (!String(input.title ?? '').trim()) throw new GraphQLFailure("Title can't be blank", 'UNPROCESSABLE');
    const created = createIssue(ctx, repo, {
      title: String(input.title),
      body: input.body ?? null,
      assignees: logins(ctx, input.assigneeIds),
      labels: labelNames(ctx, input.labelIds),
      milestone: milestoneNumber(ctx, input.milestoneId),
    });
    return withId(input, { issue: issue(ctx, repo, created) });
  },
  updateIssue(ctx, input) {
    const found = need(ctx, input.id, 'Issue');
    return withId(input, {
      issue: patchSubject(ctx, found, {
        title: input.title ?? undefined,
        body: input.body ?? undefined,
        state: input.state ? (String(input.state).toLowerCase() as 'open' | 'closed') : undefined,
        assignees: logins(ctx, input.assigneeIds),
        labels: labelNames(ctx, input.labelIds),
        milestone: milestoneNumber(ctx, input.milestoneId),
      }),
    });
  },
  closeIssue(ctx, input) {
    const found = need(ctx, input.issueId, 'Issue');
    const reason = input.stateReason ? String(input.stateReason).toLowerCase() : 'completed';
    return withId(input, { issue: patchSubject(ctx, found, { state: 'closed', state_reason: reason as IssuePatch['state_reason'] }) });
  },
  reopenIssue(ctx, input) {
    return withId(input, { issue: patchSubject(ctx, need(ctx, input.issueId, 'Issue'), { state: 'open' }) });
  },
  addComment(ctx, input) {
    const found = need(ctx, input.subjectId, 'Issue', 'PullRequest');
    if (!String(input.body ?? '').trim()) throw new GraphQLFailure("Body can't be blank", 'UNPROCESSABLE');
    const { repo, issue: i } = issueHalf(ctx, found);
    createComment(ctx, repo, i, String(input.body));
    syncPullFromIssue(ctx, repo, i, []);
    const subject = subjectOf(ctx, repo, i.number);
    const node = (subject.comments as (a: Input) => Source)({ last: 1 });
    const edge = (node.edges as Source[])[0] ?? { cursor: null, node: null };
    return withId(input, { commentEdge: edge, subject, timelineEdge: edge });
  },
  addReaction(ctx, input) {
    return react(ctx, input, true);
  },
  removeReaction(ctx, input) {
    return react(ctx, input, false);
  },
  addLabelsToLabelable(ctx, input) {
    const found = need(ctx, input.labelableId, 'Issue', 'PullRequest');
    const { issue: i } = issueHalf(ctx, found);
    const names = [...i.labels.map((l: Json) => l.name), ...(labelNames(ctx, input.labelIds) ?? [])];
    return withId(input, { labelable: patchSubject(ctx, found, { labels: names }) });
  },
  removeLabelsFromLabelable(ctx, input) {
    const found = need(ctx, input.labelableId, 'Issue', 'PullRequest');
    const { issue: i } = issueHalf(ctx, found);
    const drop = new Set((labelNames(ctx, input.labelIds) ?? []).map((n) => n.toLowerCase()));
    return withId(input, {
      labelable: patchSubject(ctx, found, { labels: i.labels.map((l: Json) => l.name).filter((n: string) => !drop.has(n.toLowerCase())) }),
    });
  },
  addAssigneesToAssignable(ctx, input) {
    const found = need(ctx, input.assignableId, 'Issue', 'PullRequest');
    const { issue: i } = issueHalf(ctx, found);
    return withId(input, {
      assignable: patchSubject(ctx, found, { assignees: [...i.assignees.map((a: Json) => a.login), ...(logins(ctx, input.assigneeIds) ?? [])] }),
    });
  },
  removeAssigneesFromAssignable(ctx, input) {
    const found = need(ctx, input.assignableId, 'Issue', 'PullRequest');
    const { issue: i } = issueHalf(ctx, found);
    const drop = new Set(logins(ctx, input.assigneeIds) ?? []);
    return withId(input, { assignable: patchSubject(ctx, found, { assignees: i.assignees.map((a: Json) => a.login).filter((l: string) => !drop.has(l)) }) });
  },
  createPullRequest(ctx, input) {
    const repo = need(ctx, input.repositoryId, 'Repository').body;
    const pr = createPull(ctx, repo, {
      title: String(input.title ?? ''),
      head: String(input.headRefName ?? ''),
      base: String(input.baseRefName ?? ''),
      body: input.body ?? null,
      draft: !!input.draft,
      maintainer_can_modify: input.maintainerCanModify ?? true,
    });
    return withId(input, { pullRequest: pullRequest(ctx, repo, pr) });
  },
  updatePullRequest(ctx, input) {
    const { repo, pr } = pullOf(ctx, input.pullRequestId);
    updatePull(ctx, repo, pr, {
      title: input.title ?? undefined,
      body: input.body ?? undefined,
      base: input.baseRefName ?? undefined,
      state: input.state ? (String(input.state).toLowerCase() as 'open' | 'closed') : undefined,
      maintainer_can_modify: input.maintainerCanModify ?? undefined,
    });
    const found = need(ctx, input.pullRequestId, 'PullRequest');
    if (input.assigneeIds || input.labelIds || input.milestoneId !== undefined) {
      patchSubject(ctx, found, {
        assignees: logins(ctx, input.assigneeIds),
        labels: labelNames(ctx, input.labelIds),
        milestone: milestoneNumber(ctx, input.milestoneId),
      });
    }
    return withId(input, { pullRequest: pullRequest(ctx, repo, getPull(ctx, repo, pr.number)!) });
  },
  closePullRequest(ctx, input) {
    const { repo, pr } = pullOf(ctx, input.pullRequestId);
    return withId(input, { pullRequest: pullRequest(ctx, repo, updatePull(ctx, repo, pr, { state: 'closed' })) });
  },
  reopenPullRequest(ctx, input) {
    const { repo, pr } = pullOf(ctx, input.pullRequestId);
    return withId(input, { pullRequest: pullRequest(ctx, repo, updatePull(ctx, repo, pr, { state: 'open' })) });
  },
  markPullRequestReadyForReview(ctx, input) {
    const { repo, pr } = pullOf(ctx, input.pullRequestId);
    return withId(input, { pullRequest: setDraft(ctx, repo, pr, false) });
  },
  convertPullRequestToDraft(ctx, input) {
    const { repo, pr } = pullOf(ctx, input.pullRequestId);
    return withId(input, { pullRequest: setDraft(ctx, repo, pr, true) });
  },
  mergePullRequest(ctx, input) {
    const { repo, pr } = pullOf(ctx, input.pullRequestId);
    const method = String(input.mergeMethod ?? 'MERGE').toLowerCase() as 'merge' | 'squash' | 'rebase';
    try {
      const { push } = mergePull(ctx, repo, pr, {
        merge_method: method,
        commit_title: input.commitHeadline ?? undefined,
        commit_message: input.commitBody ?? undefined,
        sha: input.expectedHeadOid ?? undefined,
      });
      afterPush(ctx, repo, push);
    } catch (e) {
      if (e instanceof GitHubError)
        throw new GraphQLFailure(e.message === 'Pull Request is not mergeable' ? 'Pull request is not mergeable' : e.message, 'UNPROCESSABLE');
      throw e;
    }
    return withId(input, { pullRequest: pullRequest(ctx, repo, getPull(ctx, repo, pr.number)!) });
  },
  addPullRequestReview(ctx, input) {
    const { repo, pr } = pullOf(ctx, input.pullRequestId);
    const review = createReview(ctx, repo, pr, { event: input.event ?? undefined, body: input.body ?? null, commit_id: input.commitOID ?? undefined });
    const node = pullRequest(ctx, repo, getPull(ctx, repo, pr.number)!);
    const reviews = (node.reviews as (a: Input) => Source)({});
    const match = (reviews.nodes as Source[]).find((r) => r.databaseId === review.id) ?? null;
    return withId(input, { pullRequestReview: match, reviewEdge: match ? { cursor: null, node: match } : null });
  },
  requestReviews(ctx, input) {
    const { repo, pr } = pullOf(ctx, input.pullRequestId);
    const users = (logins(ctx, input.userIds) ?? []).filter((l) => getUser(ctx, l));
    requestReviewers(ctx, repo, pr, users);
    return withId(input, { pullRequest: pullRequest(ctx, repo, getPull(ctx, repo, pr.number)!), requestedReviewersEdge: null });
  },
};
