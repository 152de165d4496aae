// Merges the API makes on a branch: `POST …/merges` (a branch or commit into a branch) and a pull
// request's `update-branch` (its base into its head). Both write a real merge commit (two parents,
// the three-way merged tree) and move the branch as a push would, within its branch rules.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { GitHubError } from '../wire/errors.js';
import { type Json, viewer } from './accounts.js';
import { type Push, ancestors, branchHead, createCommit, mergedTree, resolveCommitish, setRef } from './git.js';
import { refuseRefUpdate } from './protection.js';
import { afterPush } from './pushes.js';
import { headRepositoryOf, refreshPull } from './pulls.js';
import { shareGitObjects } from './forks.js';

/**
 * `POST …/merges`: merge `head` (a branch or commit) into branch `base`. Undefined when `head` is
 * already in `base` (GitHub answers 204); otherwise the merge commit, after the push it made ran.
 */
export function mergeIntoBranch(ctx: TwinContext, repo: Json, input: { base: string; head: string; commit_message?: string }): Json | undefined {
  const baseSha = branchHead(ctx, repo, input.base);
  if (!baseSha) throw new GitHubError(404, 'Base does not exist');
  const headSha = resolveCommitish(ctx, repo, input.head);
  if (!headSha) throw new GitHubError(404, 'Head does not exist');
  if (ancestors(ctx, repo, baseSha).has(headSha)) return undefined;
  const tree = mergedTree(ctx, repo, baseSha, headSha);
  if (!tree) throw new GitHubError(409, 'Merge conflict');
  const commit = createCommit(ctx, repo, {
    message: input.commit_message ?? `Merge ${input.head} into ${input.base}`,
    tree,
    parents: [baseSha, headSha],
    by: viewer(ctx),
  });
  const ref = `refs/heads/${input.base}`;
  refuseRefUpdate(ctx, repo, { ref, before: baseSha, after: commit.sha }, 409);
  setRef(ctx, repo, ref, commit.sha);
  afterPush(ctx, repo, pushOf(ctx, repo, ref, baseSha, commit));
  return commit;
}

/** The push a merge commit makes: the merge and the commits it brings that the branch lacked. */
function pushOf(ctx: TwinContext, repo: Json, ref: string, before: string, merge: Json): Push {
  const had = ancestors(ctx, repo, before);
  const brought = [...ancestors(ctx, repo, merge.parents[1].sha)].filter((s) => !had.has(s));
  const commits = brought
    .map((sha) => ctx.store.get<Json>('commit', `${repo.id}:${sha}`))
    .filter((c): c is Json => !!c)
    .sort((a, b) => (a.committer.date < b.committer.date ? -1 : a.committer.date > b.committer.date ? 1 : 0));
  return { ref, before, after: merge.sha, commits: [...commits, merge] };
}

/**
 * `PUT …/pulls/{n}/update-branch`: merge the base branch into the pull request's head branch (in
 * the head repository, a fork's too), as GitHub's "Update branch" does.
 */
export function updatePullBranch(ctx: TwinContext, repo: Json, pr: Json, expectedHeadSha?: string): void {
  if (pr.state !== 'open') throw new GitHubError(422, 'Pull request is not open.');
  refreshPull(ctx, repo, pr);
  if (expectedHeadSha && expectedHeadSha !== pr.head.sha) throw new GitHubError(422, 'expected_head_sha does not match the pull request head SHA.');
  const headRepo = headRepositoryOf(ctx, repo, pr);
  if (!headRepo) throw new GitHubError(422, 'The head repository of this pull request no longer exists.');
  const headSha = pr.head.sha as string;
  const baseSha = pr.base.sha as string;
  if (ancestors(ctx, repo, headSha).has(baseSha)) throw new GitHubError(422, 'There are no new commits on the base branch.');
  // The base branch's commits become readable where the head branch lives.
  if (headRepo.id !== repo.id) shareGitObjects(ctx, repo, headRepo);
  const tree = mergedTree(ctx, headRepo, headSha, baseSha);
  if (!tree) throw new GitHubError(422, 'merge conflict between base and head');
  const commit = createCommit(ctx, headRepo, {
    message: `Merge branch '${pr.base.ref}' into ${pr.head.ref}`,
    tree,
    parents: [headSha, baseSha],
    by: viewer(ctx),
  });
  const ref = `refs/heads/${pr.head.ref}`;
  refuseRefUpdate(ctx, headRepo, { ref, before: headSha, after: commit.sha }, 422);
  setRef(ctx, headRepo, ref, commit.sha);
  afterPush(ctx, headRepo, pushOf(ctx, headRepo, ref, headSha, commit));
}
