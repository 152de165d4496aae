// Pull requests: opened from a branch of the same repository or of a fork (`owner:branch`), kept in step with their branches
// (head/base SHAs, commit and diff counts, mergeability), reviewed, commented on line by line, and
// merged (merge / squash / rebase) — merging closes the issues its description says it fixes.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, notFound, validationFailed } from '../wire/errors.js';
import { type Json, getUser, simpleAccount, viewer } from './accounts.js';
import { adjustOpenIssues, childKey, findRepository } from './repositories.js';
import {
  type Push,
  branchHead,
  commitFiles,
  commitsBetween,
  createCommit,
  diffFiles,
  getCommit,
  mergeBase,
  mergeFiles,
  putTree,
  setRef,
  treeFiles,
  commitModes,
  deleteRef,
  getRef,
  mergedTree,
} from './git.js';
import { authorAssociation, createIssue, emptyReactions, getIssue, isAssignable, saveIssue, updateIssue, type IssuePatch } from './issues.js';
import { emitEvent } from './webhooks.js';
import { ownValue } from '../../../twin-runtime/safe-input.js';
import { dropReactions } from './reactions.js';
import { recordIssueEvent } from './issue-events.js';
import { findTeam, simpleTeam, teamRepositoryRole } from './teams.js';
import { forkAncestors, repositoryInNetwork, shareGitObjects } from './forks.js';
import { mergeVerdict, refusal } from './protection.js';
import { NotSimulated } from '../../../twin-runtime/fidelity.js';

function pullKey(repo: Json, number: number): string {
  return childKey(repo, number);
}

export function getPull(ctx: TwinContext, repo: Json, number: number): Json | undefined {
  return ctx.store.get<Json>('pull_request', pullKey(repo, number));
}

export function requirePull(ctx: TwinContext, repo: Json, number: number): Json {
  const pr = getPull(ctx, repo, number);
  if (!pr) throw notFound();
  return pr;
}

export function listPulls(ctx: TwinContext, repo: Json): Json[] {
  const prefix = childKey(repo, '');
  return ctx.store.listByPrefix<Json>('pull_request', prefix).map((r) => r.body);
}

function savePull(ctx: TwinContext, repo: Json, pr: Json): void {
  ctx.store.put('pull_request', pullKey(repo, pr.number), pr);
}

function side(ctx: TwinContext, repo: Json, branch: string, sha: string): Json {
  return { label: `${repo.owner.login}:${branch}`, ref: branch, sha, user: repo.owner, repo: findRepository(ctx, repo.owner.login, repo.name) ?? repo };
}

/** The `pull-request-simple` fields (list answers) of a full pull request. */
export function simplePull(pr: Json): Json {
  const {
    merged,
    mergeable,
    rebaseable,
    mergeable_state,
    merged_by,
    comments,
    review_comments,
    maintainer_can_modify,
    commits,
    additions,
    deletions,
    changed_files,
    ...rest
  } = pr;
  return rest;
}

/** Recompute what depends on the branches: SHAs, counts, mergeability. */
export function refreshPull(ctx: TwinContext, repo: Json, pr: Json): void {
  if (pr.state === 'open') {
    const headRepo = headRepositoryOf(ctx, repo, pr);
    const head = headRepo ? branchHead(ctx, headRepo, pr.head.ref) : undefined;
    const base = branchHead(ctx, repo, pr.base.ref);
    // A fork's commits become readable in the base repository (GitHub's shared network store).
    if (head && headRepo && headRepo.id !== repo.id && head !== pr.head.sha) shareGitObjects(ctx, headRepo, repo);
    if (head) pr.head = side(ctx, headRepo!, pr.head.ref, head);
    if (base) pr.base = side(ctx, repo, pr.base.ref, base);
  }
  const headSha = pr.head.sha;
  const baseSha = pr.merged ? (pr.base_sha_at_merge ?? pr.base.sha) : pr.base.sha;
  const mb = mergeBase(ctx, repo, baseSha, headSha);
  const commits = commitsBetween(ctx, repo, mb ?? baseSha, headSha);
  const files = diffFiles(ctx, repo, commitFiles(ctx, repo, mb), commitFiles(ctx, repo, headSha));
  pr.commits = commits.length;
  pr.additions = files.reduce((n, f) => n + f.additions, 0);
  pr.deletions = files.reduce((n, f) => n + f.deletions, 0);
  pr.changed_files = files.length;
  if (pr.state === 'open') {
    const merged = mb ? mergeFiles(commitFiles(ctx, repo, mb), commitFiles(ctx, repo, baseSha), commitFiles(ctx, repo, headSha)) : undefined;
    pr.mergeable = !!merged;
    pr.rebaseable = !!merged;
    pr.mergeable_state = mergeableState(ctx, repo, pr);
  } else {
    pr.mergeable = null;
    pr.rebaseable = null;
    pr.mergeable_state = 'unknown';
  }
  delete pr.base_sha_at_merge;
  syncPullRefs(ctx, repo, pr);
}

/**
 * `mergeable_state` as of now: `dirty` on a conflict, `blocked` while the base branch's rules keep
 * it from merging (also when the viewer could bypass them), `clean` otherwise; `unknown` once closed.
 * Rules change without the pull request changing, so answers compute it when they are read.
 */
export function mergeableState(ctx: TwinContext, repo: Json, pr: Json): string {
  if (pr.state !== 'open') return 'unknown';
  if (pr.mergeable === false) return 'dirty';
  const verdict = mergeVerdict(ctx, repo, pr, 'squash');
  return verdict.refused.length || verdict.bypassed.length || verdict.unmodelled ? 'blocked' : 'clean';
}

/** A pull request as answered: its stored body with the live `mergeable_state`. */
export function presentPull(ctx: TwinContext, repo: Json, pr: Json): Json {
  return pr.state === 'open' ? { ...pr, mergeable_state: mergeableState(ctx, repo, pr) } : pr;
}

/**
 * `refs/pull/<n>/head` (the head commit, kept after the pull request closes) and, while it is open
 * and merges cleanly, `refs/pull/<n>/merge`: GitHub's test merge of the head into the base, whose
 * SHA is the open pull request's `merge_commit_sha`. Both are served over git and refused to pushes.
 */
function syncPullRefs(ctx: TwinContext, repo: Json, pr: Json): void {
  const headRef = `refs/pull/${pr.number}/head`;
  if (getRef(ctx, repo, headRef)?.object.sha !== pr.head.sha && getCommit(ctx, repo, pr.head.sha)) setRef(ctx, repo, headRef, pr.head.sha);
  const mergeRef = `refs/pull/${pr.number}/merge`;
  const current = getRef(ctx, repo, mergeRef);
  if (pr.state !== 'open' || !pr.mergeable) {
    if (current) deleteRef(ctx, repo, mergeRef);
    if (pr.state === 'open') pr.merge_commit_sha = null;
    return;
  }
  const parents = current ? getCommit(ctx, repo, current.object.sha)?.parents.map((p: Json) => p.sha) : undefined;
  if (parents?.[0] === pr.base.sha && parents[1] === pr.head.sha) {
    pr.merge_commit_sha = current!.object.sha;
    return;
  }
  const tree = mergedTree(ctx, repo, pr.base.sha, pr.head.sha);
  if (!tree) return;
  const author = getUser(ctx, pr.user.login) ?? pr.user;
  const test = createCommit(ctx, repo, {
    message: `Merge ${pr.head.sha} into ${pr.base.sha}`,
    tree,
    parents: [pr.base.sha, pr.head.sha],
    committer: { name: 'GitHub', email: 'noreply@github.com' },
    by: author,
  });
  setRef(ctx, repo, mergeRef, test.sha);
  pr.merge_commit_sha = test.sha;
}

/** The repository a pull request's head branch lives in (a fork for a cross-repository one). */
export function headRepositoryOf(ctx: TwinContext, repo: Json, pr: Json): Json | undefined {
  const head = pr.head.repo as Json | null | undefined;
  if (!head || head.id === repo.id) return repo;
  const found = findRepository(ctx, head.owner.login, head.name);
  return found?.id === head.id ? found : undefined;
}

export interface PullInput {
  title: string;
  head: string;
  base: string;
  body?: string | null;
  draft?: boolean;
  maintainer_can_modify?: boolean;
}

export function createPull(ctx: TwinContext, repo: Json, input: PullInput): Json {
  const me = viewer(ctx);
  const headBranch = input.head.includes(':') ? input.head.split(':').slice(1).join(':') : input.head;
  const headOwner = input.head.includes(':') ? input.head.split(':')[0]! : repo.owner.login;
  const baseSha = branchHead(ctx, repo, input.base);
  if (!baseSha) throw validationFailed({ resource: 'PullRequest', field: 'base', code: 'invalid' });
  const headRepo = repositoryInNetwork(ctx, headOwner, repo);
  const headSha = headRepo ? branchHead(ctx, headRepo, headBranch) : undefined;
  if (!headSha || !headRepo) throw validationFailed({ resource: 'PullRequest', field: 'head', code: 'invalid' });
  if (headRepo.id !== repo.id) shareGitObjects(ctx, headRepo, repo);
  const label = `${headRepo.owner.login}:${headBranch}`;
  if (listPulls(ctx, repo).some((p) => p.state === 'open' && p.head.label.toLowerCase() === label.toLowerCase() && p.base.ref === input.base)) {
    throw validationFailed({ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${label}.` });
  }
  if (commitsBetween(ctx, repo, baseSha, headSha).length === 0) {
    throw validationFailed({ resource: 'PullRequest', code: 'custom', message: `No commits between ${input.base} and ${headBranch}` });
  }
  const url = (n: number) => `${API}/repos/${repo.full_name}/pulls/${n}`;
  // The issue half takes the next number; its pull_request links are filled in once it is known.
  const issue = createIssue(
    ctx,
    repo,
    { title: input.title, body: input.body ?? null },
    {
      url: '',
      html_url: '',
      diff_url: '',
      patch_url: '',
      merged_at: null,
    },
  );
  const number = issue.number as number;
  issue.pull_request = {
    url: url(number),
    html_url: `${WEB}/${repo.full_name}/pull/${number}`,
    diff_url: `${WEB}/${repo.full_name}/pull/${number}.diff`,
    patch_url: `${WEB}/${repo.full_name}/pull/${number}.patch`,
    merged_at: null,
  };
  issue.draft = !!input.draft;
  saveIssue(ctx, repo, issue);
  const id = nextId(ctx, 'pull_request');
  const self = url(number);
  const pr: Json = {
    url: self,
    id,
    node_id: nodeId('PullRequest', id),
    html_url: issue.pull_request.html_url,
    diff_url: issue.pull_request.diff_url,
    patch_url: issue.pull_request.patch_url,
    issue_url: issue.url,
    number,
    state: 'open',
    locked: false,
    title: input.title,
    user: simpleAccount(me),
    body: input.body ?? null,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: null,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    labels: [],
    milestone: null,
    draft: !!input.draft,
    commits_url: `${self}/commits`,
    review_comments_url: `${self}/comments`,
    review_comment_url: `${API}/repos/${repo.full_name}/pulls/comments{/number}`,
    comments_url: issue.comments_url,
    statuses_url: `${API}/repos/${repo.full_name}/statuses/${headSha}`,
    head: side(ctx, headRepo, headBranch, headSha),
    base: side(ctx, repo, input.base, baseSha),
    _links: {
      self: { href: self },
      html: { href: issue.pull_request.html_url },
      issue: { href: issue.url },
      comments: { href: issue.comments_url },
      review_comments: { href: `${self}/comments` },
      review_comment: { href: `${API}/repos/${repo.full_name}/pulls/comments{/number}` },
      commits: { href: `${self}/commits` },
      statuses: { href: `${API}/repos/${repo.full_name}/statuses/${headSha}` },
    },
    author_association: authorAssociation(ctx, repo, me),
    auto_merge: null,
    active_lock_reason: null,
    merged: false,
    mergeable: true,
    rebaseable: true,
    mergeable_state: 'clean',
    merged_by: null,
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: input.maintainer_can_modify ?? false,
    commits: 0,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
  refreshPull(ctx, repo, pr);
  savePull(ctx, repo, pr);
  emitEvent(ctx, repo, 'pull_request', { action: 'opened', number, pull_request: pr });
  return pr;
}

/** Copy the fields a pull request shares with its issue half. */
function syncFromIssue(pr: Json, issue: Json): void {
  for (const f of [
    'title',
    'body',
    'state',
    'locked',
    'active_lock_reason',
    'labels',
    'assignee',
    'assignees',
    'milestone',
    'comments',
    'updated_at',
    'closed_at',
  ]) {
    pr[f] = issue[f];
  }
}

/** After an issue endpoint changed the issue half of a pull request. */
export function syncPullFromIssue(ctx: TwinContext, repo: Json, issue: Json, events: { action: string; extra?: Json }[]): void {
  if (!issue.pull_request) return;
  const pr = getPull(ctx, repo, issue.number);
  if (!pr) return;
  syncFromIssue(pr, issue);
  refreshPull(ctx, repo, pr);
  savePull(ctx, repo, pr);
  for (const e of events) emitEvent(ctx, repo, 'pull_request', { action: e.action, number: pr.number, pull_request: pr, ...e.extra });
}

export function updatePull(
  ctx: TwinContext,
  repo: Json,
  pr: Json,
  patch: { title?: string; body?: string | null; state?: 'open' | 'closed'; base?: string; maintainer_can_modify?: boolean },
): Json {
  if (pr.merged && patch.state === 'open') {
    throw validationFailed({
      resource: 'PullRequest',
      field: 'state',
      code: 'custom',
      message: 'state cannot be changed. The pull request has been merged.',
    } as never);
  }
  const issue = getIssue(ctx, repo, pr.number)!;
  const issuePatch: IssuePatch = { title: patch.title, body: patch.body, state: patch.state };
  if (patch.state === 'closed') issuePatch.state_reason = null;
  const { events } = updateIssue(ctx, repo, issue, issuePatch, true);
  if (patch.state === 'closed' && issue.state_reason) {
    issue.state_reason = null;
    saveIssue(ctx, repo, issue);
  }
  if (patch.base !== undefined && patch.base !== pr.base.ref) {
    const sha = branchHead(ctx, repo, patch.base);
    if (!sha) throw validationFailed({ resource: 'PullRequest', field: 'base', code: 'invalid' });
    pr.base = side(ctx, repo, patch.base, sha);
    events.push({ action: 'edited', extra: { changes: { base: { ref: { from: pr.base.ref } } } } });
  }
  if (patch.maintainer_can_modify !== undefined) pr.maintainer_can_modify = patch.maintainer_can_modify;
  syncFromIssue(pr, issue);
  refreshPull(ctx, repo, pr);
  savePull(ctx, repo, pr);
  for (const e of events) emitEvent(ctx, repo, 'pull_request', { action: e.action, number: pr.number, pull_request: pr, ...e.extra });
  return pr;
}

/** A branch moved: open pull requests on it follow (and get a `synchronize` when it is their head). */
export function onBranchMoved(ctx: TwinContext, repo: Json, push: Push): void {
  const branch = push.ref.replace(/^refs\/heads\//, '');
  const follow = (base: Json, pr: Json): void => {
    const before = pr.head.sha;
    refreshPull(ctx, base, pr);
    savePull(ctx, base, pr);
    if (pr.head.repo?.id === repo.id && pr.head.ref === branch && before !== pr.head.sha) {
      emitEvent(ctx, base, 'pull_request', { action: 'synchronize', number: pr.number, before, after: pr.head.sha, pull_request: pr });
    }
  };
  for (const pr of listPulls(ctx, repo)) {
    if (pr.state !== 'open') continue;
    const headHere = pr.head.ref === branch && (pr.head.repo?.id ?? repo.id) === repo.id;
    if (headHere || pr.base.ref === branch) follow(repo, pr);
  }
  // A fork's branch may be the head of pull requests in the repositories it was forked from.
  if (repo.fork) {
    for (const base of forkAncestors(ctx, repo)) {
      for (const pr of listPulls(ctx, base)) {
        if (pr.state === 'open' && pr.head.repo?.id === repo.id && pr.head.ref === branch) follow(base, pr);
      }
    }
  }
}

export function pullCommits(ctx: TwinContext, repo: Json, pr: Json): Json[] {
  const baseSha = pr.base.sha;
  const mb = mergeBase(ctx, repo, baseSha, pr.head.sha);
  return commitsBetween(ctx, repo, mb ?? baseSha, pr.head.sha);
}

export function pullFiles(ctx: TwinContext, repo: Json, pr: Json): Json[] {
  const mb = mergeBase(ctx, repo, pr.base.sha, pr.head.sha);
  return diffFiles(ctx, repo, commitFiles(ctx, repo, mb), commitFiles(ctx, repo, pr.head.sha));
}

const CLOSING = /\b(?:close|closes|closed|fix|fixes|fixed|resolve|resolves|resolved)\s*:?\s+#(\d+)\b/gi;

export function closingIssueNumbers(text: string | null | undefined): number[] {
  const out = new Set<number>();
  for (const m of (text ?? '').matchAll(CLOSING)) out.add(Number(m[1]));
  return [...out];
}

export interface MergeInput {
  merge_method?: 'merge' | 'squash' | 'rebase';
  commit_title?: string;
  commit_message?: string;
  sha?: string;
}

/** `PUT /repos/{o}/{r}/pulls/{n}/merge`. Returns the merge result and the push it made. */
export function mergePull(ctx: TwinContext, repo: Json, pr: Json, input: MergeInput): { result: Json; push: Push } {
  const me = viewer(ctx);
  refreshPull(ctx, repo, pr);
  if (pr.state !== 'open' || pr.merged || !pr.mergeable) {
    throw new GitHubError(405, 'Pull Request is not mergeable');
  }
  if (input.sha && input.sha !== pr.head.sha) {
    throw new GitHubError(409, 'Head branch was modified. Review and try the merge again.');
  }
  const method = input.merge_method ?? 'merge';
  const allowed = method === 'merge' ? repo.allow_merge_commit : method === 'squash' ? repo.allow_squash_merge : repo.allow_rebase_merge;
  if (!allowed) throw new GitHubError(405, `${method[0]!.toUpperCase()}${method.slice(1)} merges are not allowed on this repository.`);
  // The base branch's protection and rulesets (the viewer bypasses them as an admin where allowed).
  const verdict = mergeVerdict(ctx, repo, pr, method);
  if (verdict.unmodelled) throw new NotSimulated('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', verdict.unmodelled);
  if (verdict.refused.length) throw refusal(verdict, 405);
  const baseSha = pr.base.sha;
  const headSha = pr.head.sha;
  const mb = mergeBase(ctx, repo, baseSha, headSha);
  const merged = mergeFiles(commitFiles(ctx, repo, mb), commitFiles(ctx, repo, baseSha), commitFiles(ctx, repo, headSha))!;
  const modes = new Map([...commitModes(ctx, repo, baseSha), ...commitModes(ctx, repo, headSha)]);
  const commits = commitsBetween(ctx, repo, mb ?? baseSha, headSha);
  const created: Json[] = [];
  let tip = baseSha;
  if (method === 'merge') {
    const title = input.commit_title ?? `Merge pull request #${pr.number} from ${pr.head.label.replace(':', '/')}`;
    const message = `${title}\n\n${input.commit_message ?? pr.title}`;
    const c = createCommit(ctx, repo, { message, tree: putTree(ctx, repo, merged, modes), parents: [baseSha, headSha], by: me });
    created.push(c);
    tip = c.sha;
  } else if (method === 'squash') {
    const title = input.commit_title ?? `${pr.title} (#${pr.number})`;
    const detail = input.commit_message ?? commits.map((c) => `* ${c.message}`).join('\n\n');
    const c = createCommit(ctx, repo, {
      message: detail ? `${title}\n\n${detail}` : title,
      tree: putTree(ctx, repo, merged, modes),
      parents: [baseSha],
      by: me,
    });
    created.push(c);
    tip = c.sha;
  } else {
    // Replay each commit's own changes on top of the base, keeping messages and authors.
    let files = commitFiles(ctx, repo, baseSha);
    for (const c of commits) {
      const parent = commitFiles(ctx, repo, c.parents[0]?.sha);
      const next = mergeFiles(parent, files, treeFiles(ctx, repo, c.tree.sha)) ?? treeFiles(ctx, repo, c.tree.sha);
      files = next;
      const nc = createCommit(ctx, repo, { message: c.message, tree: putTree(ctx, repo, files, modes), parents: [tip], author: c.author, by: me });
      created.push(nc);
      tip = nc.sha;
    }
  }
  const at = now(ctx);
  setRef(ctx, repo, `refs/heads/${pr.base.ref}`, tip);
  deleteRef(ctx, repo, `refs/pull/${pr.number}/merge`);
  const issue = getIssue(ctx, repo, pr.number)!;
  issue.state = 'closed';
  issue.closed_at = at;
  issue.updated_at = at;
  issue.closed_by = simpleAccount(me);
  issue.pull_request = { ...issue.pull_request, merged_at: at };
  saveIssue(ctx, repo, issue);
  recordIssueEvent(ctx, repo, pr.number, 'merged', {}, tip);
  recordIssueEvent(ctx, repo, pr.number, 'closed', { state_reason: null }, tip);
  adjustOpenIssues(ctx, repo, -1);
  syncFromIssue(pr, issue);
  pr.merged = true;
  pr.merged_at = at;
  pr.merged_by = simpleAccount(me);
  pr.merge_commit_sha = tip;
  pr.base_sha_at_merge = baseSha;
  pr.base = { ...pr.base, sha: baseSha };
  refreshPull(ctx, repo, pr);
  savePull(ctx, repo, pr);
  emitEvent(ctx, repo, 'pull_request', { action: 'closed', number: pr.number, pull_request: pr });
  // Closing keywords only act when merging into the default branch, as on GitHub.
  if (pr.base.ref === repo.default_branch) {
    const texts = [pr.body, ...commits.map((c) => c.message)];
    for (const n of new Set(texts.flatMap(closingIssueNumbers))) {
      const target = getIssue(ctx, repo, n);
      if (!target || target.pull_request || target.state !== 'open') continue;
      updateIssue(ctx, repo, target, { state: 'closed', state_reason: 'completed', closing_commit: tip });
    }
  }
  return {
    result: { sha: tip, merged: true, message: 'Pull Request successfully merged' },
    push: { ref: `refs/heads/${pr.base.ref}`, before: baseSha, after: tip, commits: created },
  };
}

// ---- requested reviewers -----------------------------------------------------------------

export function requestReviewers(ctx: TwinContext, repo: Json, pr: Json, logins: string[], teamSlugs: string[] = []): Json {
  const added: Json[] = [];
  const addedTeams: Json[] = [];
  for (const slug of teamSlugs) {
    // A team reviews when it has a role on the repository (GitHub's "not a collaborator" otherwise).
    const team = repo.owner.type === 'Organization' ? findTeam(ctx, repo.owner.login, slug) : undefined;
    if (!team || !teamRepositoryRole(ctx, team, repo)) {
      throw new GitHubError(
        422,
        `Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the ${repo.full_name} repository.`,
      );
    }
    pr.requested_teams = pr.requested_teams ?? [];
    if (!pr.requested_teams.some((t: Json) => t.id === team.id)) {
      const simple = simpleTeam(team);
      pr.requested_teams.push(simple);
      addedTeams.push(simple);
    }
  }
  for (const login of logins) {
    if (login.toLowerCase() === pr.user.login.toLowerCase()) {
      throw new GitHubError(422, 'Review cannot be requested from pull request author.');
    }
    const user = getUser(ctx, login);
    if (!user || !isAssignable(ctx, repo, login)) {
      throw new GitHubError(
        422,
        `Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the ${repo.full_name} repository.`,
      );
    }
    if (!pr.requested_reviewers.some((r: Json) => r.id === user.id)) {
      const simple = simpleAccount(user);
      pr.requested_reviewers.push(simple);
      added.push(simple);
    }
  }
  savePull(ctx, repo, pr);
  const requester = simpleAccount(viewer(ctx));
  for (const r of added) recordIssueEvent(ctx, repo, pr.number, 'review_requested', { review_requester: requester, requested_reviewer: r });
  for (const team of addedTeams) {
    recordIssueEvent(ctx, repo, pr.number, 'review_requested', { review_requester: requester, requested_team: team });
    emitEvent(ctx, repo, 'pull_request', { action: 'review_requested', number: pr.number, pull_request: pr, requested_team: team });
  }
  for (const r of added) emitEvent(ctx, repo, 'pull_request', { action: 'review_requested', number: pr.number, pull_request: pr, requested_reviewer: r });
  return pr;
}

export function removeRequestedReviewers(ctx: TwinContext, repo: Json, pr: Json, logins: string[], teamSlugs: string[] = []): Json {
  const dropTeams = new Set(teamSlugs.map((s) => s.toLowerCase()));
  const removedTeams = (pr.requested_teams ?? []).filter((t: Json) => dropTeams.has(t.slug));
  pr.requested_teams = (pr.requested_teams ?? []).filter((t: Json) => !dropTeams.has(t.slug));
  const drop = new Set(logins.map((l) => l.toLowerCase()));
  const removed = pr.requested_reviewers.filter((r: Json) => drop.has(r.login.toLowerCase()));
  pr.requested_reviewers = pr.requested_reviewers.filter((r: Json) => !drop.has(r.login.toLowerCase()));
  savePull(ctx, repo, pr);
  const requester = simpleAccount(viewer(ctx));
  for (const r of removed) recordIssueEvent(ctx, repo, pr.number, 'review_request_removed', { review_requester: requester, requested_reviewer: r });
  for (const team of removedTeams) {
    recordIssueEvent(ctx, repo, pr.number, 'review_request_removed', { review_requester: requester, requested_team: team });
    emitEvent(ctx, repo, 'pull_request', { action: 'review_request_removed', number: pr.number, pull_request: pr, requested_team: team });
  }
  for (const r of removed)
    emitEvent(ctx, repo, 'pull_request', { action: 'review_request_removed', number: pr.number, pull_request: pr, requested_reviewer: r });
  return pr;
}

// ---- reviews -----------------------------------------------------------------------------

const REVIEW_STATES: Record<string, string> = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' };
/** The state a review `event` from the request leads to (only the table's own entries: not `constructor`). */
const reviewState = (event: string): string | undefined => ownValue(REVIEW_STATES, event) as string | undefined;

function reviewKey(repo: Json, id: number): string {
  return childKey(repo, id);
}

export function listReviews(ctx: TwinContext, repo: Json, pr: Json): Json[] {
  const prefix = childKey(repo, '');
  return ctx.store
    .listByPrefix<Json>('review', prefix)
    .filter((r) => r.body.pull_request_url === pr.url)
    .map((r) => r.body);
}

export function requireReview(ctx: TwinContext, repo: Json, pr: Json, id: number): Json {
  const r = ctx.store.get<Json>('review', reviewKey(repo, id));
  if (!r || r.pull_request_url !== pr.url) throw notFound();
  return r;
}

function checkReviewBody(event: string | undefined, body: string | undefined | null): void {
  if ((event === 'REQUEST_CHANGES' || event === 'COMMENT') && !body) {
    throw new GitHubError(422, 'Unprocessable Entity', {
      errors: [`Review body is required for ${event === 'COMMENT' ? 'comment' : 'request changes'} reviews`],
    });
  }
}

export interface ReviewCommentInput {
  path: string;
  body: string;
  line?: number;
  position?: number;
  side?: 'LEFT' | 'RIGHT';
  start_line?: number;
  start_side?: 'LEFT' | 'RIGHT';
  in_reply_to?: number;
  commit_id?: string;
}

export function createReview(
  ctx: TwinContext,
  repo: Json,
  pr: Json,
  input: { event?: string; body?: string | null; commit_id?: string; comments?: ReviewCommentInput[] },
): Json {
  const me = viewer(ctx);
  if (input.event !== undefined && !reviewState(input.event)) {
    throw validationFailed({ resource: 'PullRequestReview', field: 'event', code: 'invalid', value: input.event });
  }
  checkReviewBody(input.event, input.body);
  const commitId = input.commit_id ?? pr.head.sha;
  if (!getCommit(ctx, repo, commitId)) throw new GitHubError(422, 'Unprocessable Entity', { errors: ['Commit not found'] });
  const id = nextId(ctx, 'review');
  const html = `${pr.html_url}#pullrequestreview-${id}`;
  const review: Json = {
    id,
    node_id: nodeId('PullRequestReview', id),
    user: simpleAccount(me),
    body: input.body ?? '',
    state: input.event ? reviewState(input.event) : 'PENDING',
    html_url: html,
    pull_request_url: pr.url,
    author_association: authorAssociation(ctx, repo, me),
    _links: { html: { href: html }, pull_request: { href: pr.url } },
    commit_id: commitId,
  };
  if (input.event) review.submitted_at = now(ctx);
  ctx.store.transaction(() => {
    ctx.store.put('review', reviewKey(repo, id), review);
    for (const c of input.comments ?? []) createReviewComment(ctx, repo, pr, { ...c, commit_id: commitId }, review, true);
  });
  if (input.event) emitEvent(ctx, repo, 'pull_request_review', { action: 'submitted', review, pull_request: pr });
  return review;
}

export function submitReview(ctx: TwinContext, repo: Json, pr: Json, id: number, input: { event: string; body?: string | null }): Json {
  const review = requireReview(ctx, repo, pr, id);
  if (review.state !== 'PENDING') {
    throw new GitHubError(422, 'Unprocessable Entity', { errors: ['Can not submit a non-pending review'] });
  }
  if (!reviewState(input.event)) throw validationFailed({ resource: 'PullRequestReview', field: 'event', code: 'invalid', value: input.event });
  const body = input.body ?? review.body;
  checkReviewBody(input.event, body);
  review.body = body ?? '';
  review.state = reviewState(input.event);
  review.submitted_at = now(ctx);
  ctx.store.put('review', reviewKey(repo, id), review);
  emitEvent(ctx, repo, 'pull_request_review', { action: 'submitted', review, pull_request: pr });
  return review;
}

export function deletePendingReview(ctx: TwinContext, repo: Json, pr: Json, id: number): Json {
  const review = requireReview(ctx, repo, pr, id);
  if (review.state !== 'PENDING') throw new GitHubError(422, 'Unprocessable Entity', { errors: ['Can not delete a non-pending review'] });
  ctx.store.delete('review', reviewKey(repo, id));
  return review;
}

// ---- review comments ---------------------------------------------------------------------

function reviewCommentKey(repo: Json, id: number): string {
  return childKey(repo, id);
}

export function listReviewComments(ctx: TwinContext, repo: Json, pr?: Json): Json[] {
  const prefix = childKey(repo, '');
  return ctx.store
    .listByPrefix<Json>('review_comment', prefix)
    .filter((r) => !pr || r.body.pull_request_url === pr.url)
    .map((r) => r.body);
}

export function requireReviewComment(ctx: TwinContext, repo: Json, id: number): Json {
  const c = ctx.store.get<Json>('review_comment', reviewCommentKey(repo, id));
  if (!c) throw notFound();
  return c;
}

export function createReviewComment(ctx: TwinContext, repo: Json, pr: Json, input: ReviewCommentInput, review?: Json, quiet = false): Json {
  const me = viewer(ctx);
  let parent: Json | undefined;
  if (input.in_reply_to !== undefined) {
    parent = requireReviewComment(ctx, repo, input.in_reply_to);
  }
  const path = parent?.path ?? input.path;
  const file = pullFiles(ctx, repo, pr).find((f) => f.filename === path);
  if (!file) {
    throw validationFailed({
      resource: 'PullRequestReviewComment',
      code: 'custom',
      field: 'pull_request_review_thread.path',
      message: 'could not be resolved',
    } as never);
  }
  if (!review) {
    // A lone comment is a one-comment COMMENTED review, as GitHub records it.
    const rid = nextId(ctx, 'review');
    const html = `${pr.html_url}#pullrequestreview-${rid}`;
    review = {
      id: rid,
      node_id: nodeId('PullRequestReview', rid),
      user: simpleAccount(me),
      body: '',
      state: 'COMMENTED',
      html_url: html,
      pull_request_url: pr.url,
      author_association: authorAssociation(ctx, repo, me),
      _links: { html: { href: html }, pull_request: { href: pr.url } },
      submitted_at: now(ctx),
      commit_id: input.commit_id ?? pr.head.sha,
    };
    ctx.store.put('review', childKey(repo, rid), review);
  }
  const id = nextId(ctx, 'review_comment');
  const at = now(ctx);
  const url = `${API}/repos/${repo.full_name}/pulls/comments/${id}`;
  const html = `${pr.html_url}#discussion_r${id}`;
  const line = parent?.line ?? input.line ?? null;
  const commitId = input.commit_id ?? pr.head.sha;
  const comment: Json = {
    url,
    pull_request_review_id: review.id,
    id,
    node_id: nodeId('PullRequestReviewComment', id),
    diff_hunk: (file.patch ?? '').split('\n').slice(0, 4).join('\n'),
    path,
    position: input.position ?? line,
    original_position: input.position ?? line,
    commit_id: commitId,
    original_commit_id: commitId,
    user: simpleAccount(me),
    body: input.body,
    created_at: at,
    updated_at: at,
    html_url: html,
    pull_request_url: pr.url,
    author_association: authorAssociation(ctx, repo, me),
    _links: { self: { href: url }, html: { href: html }, pull_request: { href: pr.url } },
    reactions: emptyReactions(`${url}/reactions`),
    start_line: input.start_line ?? null,
    original_start_line: input.start_line ?? null,
    start_side: input.start_line ? (input.start_side ?? 'RIGHT') : null,
    line,
    original_line: line,
    side: input.side ?? 'RIGHT',
    subject_type: 'line',
  };
  if (parent) comment.in_reply_to_id = parent.id;
  ctx.store.put('review_comment', reviewCommentKey(repo, id), comment);
  pr.review_comments = (pr.review_comments ?? 0) + 1;
  savePull(ctx, repo, pr);
  if (!quiet) emitEvent(ctx, repo, 'pull_request_review_comment', { action: 'created', comment, pull_request: pr });
  return comment;
}

export function updateReviewComment(ctx: TwinContext, repo: Json, id: number, body: string): Json {
  const c = requireReviewComment(ctx, repo, id);
  c.body = body;
  c.updated_at = now(ctx);
  ctx.store.put('review_comment', reviewCommentKey(repo, id), c);
  return c;
}

export function deleteReviewComment(ctx: TwinContext, repo: Json, id: number): void {
  const c = requireReviewComment(ctx, repo, id);
  ctx.store.delete('review_comment', reviewCommentKey(repo, id));
  dropReactions(ctx, repo, { kind: 'review_comment', id });
  const number = Number(String(c.pull_request_url).split('/').pop());
  const pr = getPull(ctx, repo, number);
  if (pr) {
    pr.review_comments = Math.max(0, (pr.review_comments ?? 1) - 1);
    savePull(ctx, repo, pr);
  }
}
