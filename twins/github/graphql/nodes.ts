// GraphQL objects over the REST records: each builder turns a stored record into a plain object
// whose properties are values or `(args) => value` thunks, read by the executor's field resolver
// (execute.ts). A field a builder does not define is answered with a GraphQL error naming it.
// Node ids are the records' REST `node_id`s, so `node(id:)` finds what REST returned.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { type Json, getMembership, getOrg, getUser, orgsOf, viewer } from '../model/accounts.js';
import { findRepository, repositoriesOwnedBy } from '../model/repositories.js';
import { listLabels, listMilestones, getLabel, getMilestone } from '../model/labels.js';
import { filterIssues, getIssue, listComments, repoIssues, searchIssues } from '../model/issues.js';
import { SearchQueryError, matchingAccounts, matchingRepositories, parseSearchQuery, type SearchQuery } from '../model/search.js';
import { roleOf } from '../model/collaborators.js';
import { timelineOf } from '../model/timeline.js';
import { type Reactable, type ReactionContent, REACTION_CONTENTS, listReactions } from '../model/reactions.js';
import {
  closingIssueNumbers,
  getPull,
  headRepositoryOf,
  listPulls,
  listReviewComments,
  listReviews,
  mergeableState,
  pullCommits,
  pullFiles,
} from '../model/pulls.js';
import { getProtection, mergeVerdict } from '../model/protection.js';
import { listForks } from '../model/forks.js';
import { languagesOf } from '../model/languages.js';
import { filesMatching, issueTemplates, pullRequestTemplates } from '../model/community.js';
import { branchHead, getCommit, getRef, history, listRefs, resolveCommitish, commitFiles, readBlob, tagCommit } from '../model/git.js';
import { parseTag, readObject } from '../model/git-objects.js';
import { latestRelease, listReleases, releaseByTag, releaseShape } from '../model/releases.js';
import { deploymentState, listDeploymentStatuses, listDeployments, listEnvironments } from '../model/deployments.js';
import { getSuite, rollup } from '../model/checks.js';
import { runOfSuite, workflowOfRun } from '../model/actions.js';
import { WEB } from '../model/identity.js';
import { GraphQLFailure } from './errors.js';

export type Source = Record<string, unknown>;
type Args = Json;

// ---- connections ---------------------------------------------------------------------------

const cursorOf = (i: number): string => Buffer.from(`cursor:v2:${i}`).toString('base64');

function indexOf(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string') return undefined;
  const m = /^cursor:v2:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  if (!m) throw new GraphQLFailure(`\`${cursor}\` does not appear to be a valid cursor.`, 'INVALID_CURSOR_ARGUMENTS');
  return Number(m[1]);
}

/** A Relay connection over `items` with GitHub's first/last/after/before rules (at most 100). */
export function connection<T>(items: T[], args: Args, node: (item: T) => Source): Source {
  for (const k of ['first', 'last']) {
    const v = args[k];
    if (v !== undefined && v !== null && (v < 0 || v > 100)) {
      throw new GraphQLFailure(`Requesting ${v} records on the connection exceeds the \`${k}\` limit of 100 records.`, 'EXCESSIVE_PAGINATION');
    }
  }
  let start = 0;
  let end = items.length;
  const after = indexOf(args.after);
  const before = indexOf(args.before);
  if (after !== undefined) start = Math.min(items.length, after + 1);
  if (before !== undefined) end = Math.max(start, Math.min(end, before));
  if (typeof args.first === 'number') end = Math.min(end, start + args.first);
  if (typeof args.last === 'number') start = Math.max(start, end - args.last);
  const slice = items.slice(start, end);
  const nodes = slice.map(node);
  return {
    totalCount: items.length,
    nodes,
    edges: nodes.map((n, i) => ({ cursor: cursorOf(start + i), node: n })),
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: slice.length ? cursorOf(start) : null,
      endCursor: slice.length ? cursorOf(end - 1) : null,
    },
  };
}

const empty = (args: Args) => connection([], args, () => ({}));

function ordered(list: Json[], orderBy: Args | undefined, fields: Record<string, string>): Json[] {
  if (!orderBy) return list;
  const key = fields[orderBy.field];
  if (!key) return list;
  const dir = orderBy.direction === 'DESC' ? -1 : 1;
  return [...list].sort((a, b) => (a[key] < b[key] ? -dir : a[key] > b[key] ? dir : 0));
}

const upper = (s: string | null | undefined): string | null => (s ? s.toUpperCase() : null);

// ---- accounts ------------------------------------------------------------------------------

/** A User or Organization (also used for every `author`, `assignee`… Actor). */
export function account(ctx: TwinContext, acc: Json): Source {
  const full = (acc.type === 'Organization' ? getOrg(ctx, acc.login) : getUser(ctx, acc.login)) ?? acc;
  const isOrg = full.type === 'Organization';
  const me = () => viewer(ctx).login as string;
  const common: Source = {
    __typename: isOrg ? 'Organization' : 'User',
    id: full.node_id,
    databaseId: full.id,
    login: full.login,
    name: full.name ?? null,
    email: full.email ?? (isOrg ? null : ''),
    avatarUrl: () => full.avatar_url,
    url: `${WEB}/${full.login}`,
    resourcePath: `/${full.login}`,
    createdAt: full.created_at,
    updatedAt: full.updated_at,
    location: full.location ?? null,
    websiteUrl: full.blog || null,
    twitterUsername: full.twitter_username ?? null,
    description: full.description ?? null,
    company: full.company ?? null,
    bio: full.bio ?? '',
    isSiteAdmin: false,
    isViewer: () => full.login === me(),
    isHireable: !!full.hireable,
    isEmployee: false,
    isVerified: !!full.is_verified,
    viewerIsFollowing: false,
    viewerCanFollow: () => full.login !== me(),
    viewerIsAMember: () => (isOrg ? !!getMembership(ctx, full.login, me()) : false),
    viewerCanAdminister: () => (isOrg ? getMembership(ctx, full.login, me())?.role === 'admin' : full.login === me()),
    // No API sets a user status here: none is truthful.
    status: null,
    // Pinned items have no API at all (GitHub's own UI pins them): none is truthful.
    pinnedItems: (args: Args) => empty(args),
    // followers, following, starredRepositories and gists are left out: the generic layer keeps
    // such records without this model reading them, so a GraphQL answer would be a guess.
    repository: (args: Args) => {
      const r = findRepository(ctx, full.login, args.name);
      return r ? repository(ctx, r) : null;
    },
    repositories: (args: Args) => {
      let list =
        full.login === me()
          ? ctx.store.list<Json>('repository').filter((r) => r.owner.login === me() || (args.ownerAffiliations ?? ['OWNER']).includes('ORGANIZATION_MEMBER'))
          : repositoriesOwnedBy(ctx, full.login);
      if (args.privacy) list = list.filter((r) => (args.privacy === 'PRIVATE') === r.private);
      if (args.isFork !== undefined && args.isFork !== null) list = list.filter((r) => !!r.fork === args.isFork);
      list = ordered(list, args.orderBy, { CREATED_AT: 'created_at', UPDATED_AT: 'updated_at', PUSHED_AT: 'pushed_at', NAME: 'name' });
      return connection(list, args, (r) => repository(ctx, r));
    },
    organizations: (args: Args) => connection(isOrg ? [] : orgsOf(ctx, full.login), args, (o) => account(ctx, getOrg(ctx, o.login) ?? o)),
    organization: (args: Args) => {
      const o = getOrg(ctx, args.login);
      return o && !isOrg ? account(ctx, o) : null;
    },
  };
  return common;
}

/** An account by login (a commit author's `user`, assignees…), or null. */
function accountByLogin(ctx: TwinContext, login: string | undefined): Source | null {
  if (!login) return null;
  const acc = getUser(ctx, login) ?? getOrg(ctx, login);
  return acc ? account(ctx, acc) : null;
}

// ---- repositories --------------------------------------------------------------------------

function permissionOf(ctx: TwinContext, repo: Json): string {
  return (roleOf(ctx, repo, viewer(ctx).login) ?? 'read').toUpperCase();
}

export function repository(ctx: TwinContext, repo: Json): Source {
  const ownerAcc = getUser(ctx, repo.owner.login) ?? getOrg(ctx, repo.owner.login) ?? repo.owner;
  const defaultSha = () => branchHead(ctx, repo, repo.default_branch);
  return {
    __typename: 'Repository',
    id: repo.node_id,
    databaseId: repo.id,
    name: repo.name,
    nameWithOwner: repo.full_name,
    owner: () => account(ctx, ownerAcc),
    description: repo.description ?? null,
    shortDescriptionHTML: () => repo.description ?? '',
    descriptionHTML: () => repo.description ?? '',
    url: `${WEB}/${repo.full_name}`,
    resourcePath: `/${repo.full_name}`,
    homepageUrl: repo.homepage ?? null,
    sshUrl: `git@github.com:${repo.full_name}.git`,
    isPrivate: !!repo.private,
    visibility: (repo.visibility ?? (repo.private ? 'private' : 'public')).toUpperCase(),
    isFork: !!repo.fork,
    isArchived: !!repo.archived,
    isDisabled: !!repo.disabled,
    isTemplate: !!repo.is_template,
    isMirror: false,
    isLocked: false,
    isEmpty: () => !defaultSha(),
    isInOrganization: repo.owner.type === 'Organization',
    isSecurityPolicyEnabled: false,
    isUserConfigurationRepository: false,
    hasIssuesEnabled: !!repo.has_issues,
    hasWikiEnabled: !!repo.has_wiki,
    hasProjectsEnabled: !!repo.has_projects,
    hasDiscussionsEnabled: !!repo.has_discussions,
    mergeCommitAllowed: !!repo.allow_merge_commit,
    squashMergeAllowed: !!repo.allow_squash_merge,
    rebaseMergeAllowed: !!repo.allow_rebase_merge,
    autoMergeAllowed: !!repo.allow_auto_merge,
    deleteBranchOnMerge: !!repo.delete_branch_on_merge,
    forkingAllowed: repo.allow_forking ?? true,
    mergeQueue: null,
    createdAt: repo.created_at,
    updatedAt: repo.updated_at,
    pushedAt: repo.pushed_at ?? null,
    archivedAt: repo.archived ? (repo.archived_at ?? repo.updated_at) : null,
    diskUsage: repo.size ?? 0,
    stargazerCount: repo.stargazers_count ?? 0,
    forkCount: repo.forks_count ?? 0,
    forks: (args: Args) =>
      connection(
        ordered(listForks(ctx, repo), args.orderBy, { CREATED_AT: 'created_at', NAME: 'name', PUSHED_AT: 'pushed_at', UPDATED_AT: 'updated_at' }),
        args,
        (f) => repository(ctx, f),
      ),
    viewerPermission: () => permissionOf(ctx, repo),
    viewerCanAdminister: () => permissionOf(ctx, repo) === 'ADMIN',
    viewerCanPush: () => permissionOf(ctx, repo) !== 'READ',
    viewerHasStarred: false,
    viewerSubscription: 'SUBSCRIBED',
    viewerDefaultMergeMethod: repo.allow_merge_commit ? 'MERGE' : repo.allow_squash_merge ? 'SQUASH' : 'REBASE',
    parent: () => {
      const parent = repo.parent ? findRepository(ctx, repo.parent.owner.login, repo.parent.name) : undefined;
      return parent ? repository(ctx, parent) : null;
    },
    // No API here makes a repository from a template or a mirror: none is truthful.
    templateRepository: null,
    mirrorUrl: null,
    // Fields GitHub derives from community files: none when the file is absent, an honest refusal
    // when it is there (the twin does not read licenses, codes of conduct, security policies).
    licenseInfo: () => absentUnless(ctx, repo, /^(LICEN[CS]E|COPYING)(\.[^/]*)?$/i, 'licenseInfo', null),
    securityPolicyUrl: () => absentUnless(ctx, repo, /^(\.github\/|docs\/)?SECURITY(\.[^/]*)?$/i, 'securityPolicyUrl', null),
    primaryLanguage: async () => {
      const [top] = await languagesOf(ctx, repo);
      return top ? languageNode(top) : null;
    },
    openGraphImageUrl: `https://opengraph.githubassets.com/1/${repo.full_name}`,
    usesCustomOpenGraphImage: false,
    codeOfConduct: () => absentUnless(ctx, repo, /^(\.github\/|docs\/)?CODE_OF_CONDUCT(\.[^/]*)?$/i, 'codeOfConduct', null),
    contactLinks: () => absentUnless(ctx, repo, /^\.github\/ISSUE_TEMPLATE\/config\.ya?ml$/i, 'contactLinks', []),
    fundingLinks: () => absentUnless(ctx, repo, /^\.github\/FUNDING\.ya?ml$/i, 'fundingLinks', []),
    issueTemplates: () => {
      // Issue forms (`.yml`) are not read: a repository with one gets a refusal, not a shorter list.
      absentUnless(ctx, repo, /^\.github\/ISSUE_TEMPLATE\/[^/]+\.ya?ml$/i, 'issueTemplates', null, /config\.ya?ml$/i);
      return issueTemplates(ctx, repo).map((tpl) => ({ __typename: 'IssueTemplate', ...tpl }));
    },
    pullRequestTemplates: () =>
      pullRequestTemplates(ctx, repo).map((tpl) => ({ __typename: 'PullRequestTemplate', ...tpl, repository: () => repository(ctx, repo) })),
    latestRelease: () => {
      const r = latestRelease(ctx, repo);
      return r ? releaseNode(ctx, repo, r) : null;
    },
    release: (args: Args) => {
      const r = releaseByTag(ctx, repo, String(args.tagName)) ?? listReleases(ctx, repo).find((x) => x.tag_name === args.tagName);
      return r ? releaseNode(ctx, repo, r) : null;
    },
    languages: async (args: Args) => {
      let langs = await languagesOf(ctx, repo);
      if (args.orderBy?.direction === 'ASC') langs = [...langs].reverse();
      const out = connection(langs, args, languageNode);
      // A LanguageEdge carries its language's bytes.
      out.edges = (out.edges as { cursor: string; node: Source }[]).map((e) => ({ ...e, size: langs.find((l) => l.name === e.node.name)?.bytes ?? 0 }));
      out.totalSize = langs.reduce((n, l) => n + l.bytes, 0);
      return out;
    },
    repositoryTopics: (args: Args) =>
      connection(repo.topics ?? [], args, (t: string) => ({ __typename: 'RepositoryTopic', topic: { name: t }, url: `${WEB}/topics/${t}` })),
    // No API here makes a Projects (v2) project or a discussion: none is truthful. Classic projects
    // (the generic layer keeps them) are left out.
    projectsV2: (args: Args) => empty(args),
    discussions: (args: Args) => empty(args),
    releases: (args: Args) => {
      let list = listReleases(ctx, repo);
      if (args.orderBy?.field === 'NAME') list = [...list].sort((a, b) => String(a.name ?? a.tag_name).localeCompare(String(b.name ?? b.tag_name)));
      else list = [...list].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id));
      if (args.orderBy?.direction !== 'ASC') list.reverse();
      return connection(list, args, (r) => releaseNode(ctx, repo, r));
    },
    deployments: (args: Args) => {
      let list = listDeployments(ctx, repo);
      if (args.environments?.length) list = list.filter((d) => args.environments.includes(d.environment));
      if (args.orderBy?.direction !== 'DESC') list = [...list].reverse();
      return connection(list, args, (d) => deploymentNode(ctx, repo, d));
    },
    environments: (args: Args) => {
      let list = listEnvironments(ctx, repo);
      if (args.names?.length) list = list.filter((e) => args.names.includes(e.name));
      if (args.orderBy?.direction === 'DESC') list = [...list].reverse();
      return connection(list, args, (e) => environmentNode(e));
    },
    environment: (args: Args) => {
      const e = listEnvironments(ctx, repo).find((x) => x.name === args.name);
      return e ? environmentNode(e) : null;
    },
    defaultBranchRef: () => {
      const sha = defaultSha();
      return sha ? ref(ctx, repo, `refs/heads/${repo.default_branch}`, sha) : null;
    },
    ref: (args: Args) => {
      const name = String(args.qualifiedName);
      const full = name.startsWith('refs/') ? name : `refs/heads/${name}`;
      const r = listRefs(ctx, repo, full).find((x) => x.ref === full);
      return r ? ref(ctx, repo, r.ref, r.object.sha) : null;
    },
    refs: (args: Args) => {
      let list = listRefs(ctx, repo, args.refPrefix ?? 'refs/');
      if (args.query) list = list.filter((r) => r.ref.slice((args.refPrefix ?? '').length).includes(args.query));
      if (args.orderBy?.direction === 'DESC') list = [...list].reverse();
      return connection(list, args, (r) => ref(ctx, repo, r.ref, r.object.sha));
    },
    object: (args: Args) => {
      if (args.oid) return getCommit(ctx, repo, args.oid) ? commit(ctx, repo, args.oid) : null;
      const expr = String(args.expression ?? '');
      const colon = expr.indexOf(':');
      const sha = resolveCommitish(ctx, repo, colon >= 0 ? expr.slice(0, colon) || repo.default_branch : expr);
      if (!sha) return null;
      if (colon < 0) return commit(ctx, repo, sha);
      const path = expr.slice(colon + 1);
      const blobSha = commitFiles(ctx, repo, sha).get(path);
      if (!blobSha) return null;
      const bytes = readBlob(ctx, repo, blobSha);
      return {
        __typename: 'Blob',
        id: Buffer.from(`04:Blob${blobSha}`).toString('base64'),
        oid: blobSha,
        abbreviatedOid: blobSha.slice(0, 7),
        byteSize: bytes.length,
        isBinary: bytes.includes(0),
        isTruncated: false,
        text: bytes.includes(0) ? null : bytes.toString('utf8'),
        commitUrl: `${WEB}/${repo.full_name}/commit/${sha}`,
        repository: () => repository(ctx, repo),
      };
    },
    issues: (args: Args) => connection(issueList(ctx, repo, args, false), args, (i) => issue(ctx, repo, i)),
    issue: (args: Args) => {
      const i = getIssue(ctx, repo, args.number);
      if (!i || i.pull_request) throw new GraphQLFailure(`Could not resolve to an Issue with the number of ${args.number}.`, 'NOT_FOUND');
      return issue(ctx, repo, i);
    },
    issueOrPullRequest: (args: Args) => {
      const i = getIssue(ctx, repo, args.number);
      if (!i) throw new GraphQLFailure(`Could not resolve to an issue or pull request with the number of ${args.number}.`, 'NOT_FOUND');
      return i.pull_request ? pullRequest(ctx, repo, getPull(ctx, repo, i.number)!) : issue(ctx, repo, i);
    },
    pullRequests: (args: Args) => connection(pullList(ctx, repo, args), args, (p) => pullRequest(ctx, repo, p)),
    pullRequest: (args: Args) => {
      const p = getPull(ctx, repo, args.number);
      if (!p) throw new GraphQLFailure(`Could not resolve to a PullRequest with the number of ${args.number}.`, 'NOT_FOUND');
      return pullRequest(ctx, repo, p);
    },
    labels: (args: Args) => {
      let list = listLabels(ctx, repo);
      if (args.query) list = list.filter((l) => l.name.toLowerCase().includes(String(args.query).toLowerCase()));
      list = ordered(list, args.orderBy, { NAME: 'name', CREATED_AT: 'id' });
      return connection(list, args, (l) => label(ctx, repo, l));
    },
    label: (args: Args) => {
      const l = getLabel(ctx, repo, args.name);
      return l ? label(ctx, repo, l) : null;
    },
    milestones: (args: Args) => {
      let list = listMilestones(ctx, repo);
      if (args.states) list = list.filter((m) => args.states.includes(m.state.toUpperCase()));
      if (args.query) list = list.filter((m) => m.title.toLowerCase().includes(String(args.query).toLowerCase()));
      return connection(list, args, (m) => milestone(ctx, repo, m));
    },
    milestone: (args: Args) => {
      const m = getMilestone(ctx, repo, args.number);
      return m ? milestone(ctx, repo, m) : null;
    },
    assignableUsers: (args: Args) => connection(collaborators(ctx, repo, args.query), args, (u) => account(ctx, u)),
    mentionableUsers: (args: Args) => connection(collaborators(ctx, repo, args.query), args, (u) => account(ctx, u)),
    collaborators: (args: Args) => connection(collaborators(ctx, repo, args.query), args, (u) => account(ctx, u)),
  };
}

/** Who may be assigned: the owner, or the members of the owning organization. */
function collaborators(ctx: TwinContext, repo: Json, query?: string): Json[] {
  const list =
    repo.owner.type === 'Organization'
      ? ctx.store
          .list<Json>('membership')
          .filter((m) => m.organization?.login === repo.owner.login)
          .map((m) => getUser(ctx, m.user.login))
          .filter((u): u is Json => !!u)
      : [getUser(ctx, repo.owner.login)].filter((u): u is Json => !!u);
  const q = query?.toLowerCase();
  return q ? list.filter((u) => u.login.toLowerCase().includes(q) || (u.name ?? '').toLowerCase().includes(q)) : list;
}

const ISSUE_ORDER = { CREATED_AT: 'created_at', UPDATED_AT: 'updated_at', COMMENTS: 'comments' };

function issueList(ctx: TwinContext, repo: Json, args: Args, _prs: boolean): Json[] {
  const f = args.filterBy ?? {};
  const states: string[] | undefined = args.states ?? f.states;
  let list = repoIssues(ctx, repo).filter((i) => !i.pull_request);
  if (states?.length) list = list.filter((i) => states.includes(i.state.toUpperCase()));
  list = filterIssues(list, {
    state: 'all',
    assignee: f.assignee ?? undefined,
    creator: f.createdBy ?? undefined,
    mentioned: f.mentioned ?? undefined,
    milestone: f.milestoneNumber ?? f.milestone ?? undefined,
    since: f.since ?? undefined,
  });
  const labels: string[] | undefined = args.labels ?? f.labels;
  if (labels?.length) list = list.filter((i) => labels.every((n) => i.labels.some((l: Json) => l.name.toLowerCase() === n.toLowerCase())));
  return ordered(list, args.orderBy, ISSUE_ORDER);
}

function pullList(ctx: TwinContext, repo: Json, args: Args): Json[] {
  let list = listPulls(ctx, repo);
  if (args.states?.length) list = list.filter((p) => args.states.includes(pullState(p)));
  if (args.headRefName) list = list.filter((p) => p.head.ref === args.headRefName);
  if (args.baseRefName) list = list.filter((p) => p.base.ref === args.baseRefName);
  if (args.labels?.length) list = list.filter((p) => args.labels.every((n: string) => p.labels.some((l: Json) => l.name.toLowerCase() === n.toLowerCase())));
  return ordered(list, args.orderBy, ISSUE_ORDER);
}

// ---- fields derived from files, protection, review threads, closers ------------------------

/** `none` when no default-branch file matches `pattern` (minus `except`), else an honest refusal of `field`. */
function absentUnless<T>(ctx: TwinContext, repo: Json, pattern: RegExp, field: string, none: T, except?: RegExp): T {
  const files = filesMatching(ctx, repo, pattern).filter((f) => !except?.test(f));
  if (!files.length) return none;
  throw new GraphQLFailure(
    `The GitHub twin does not serve the field '${field}' of type 'Repository' (it does not read ${files[0]}).`,
    'TWIN_UNSUPPORTED_FIELD',
  );
}

function languageNode(l: { name: string; color: string | null }): Source {
  return { __typename: 'Language', id: Buffer.from(`08:Language${l.name}`).toString('base64'), name: l.name, color: l.color };
}

/** The classic protection of a branch as GraphQL's BranchProtectionRule (pattern = the branch). */
function branchProtectionRule(ctx: TwinContext, repo: Json, name: string): Source | null {
  const p = getProtection(ctx, repo, name);
  if (!p) return null;
  const reviews = p.required_pull_request_reviews;
  const checks = p.required_status_checks;
  return {
    __typename: 'BranchProtectionRule',
    id: Buffer.from(`020:BranchProtectionRule${repo.id}:${name}`).toString('base64'),
    pattern: name,
    isAdminEnforced: p.enforce_admins,
    requiresApprovingReviews: !!reviews,
    requiredApprovingReviewCount: reviews?.required_approving_review_count ?? null,
    dismissesStaleReviews: !!reviews?.dismiss_stale_reviews,
    requiresCodeOwnerReviews: !!reviews?.require_code_owner_reviews,
    requireLastPushApproval: !!reviews?.require_last_push_approval,
    requiresStatusChecks: !!checks,
    requiresStrictStatusChecks: !!checks?.strict,
    requiredStatusCheckContexts: checks?.checks.map((c) => c.context) ?? [],
    requiredStatusChecks: checks?.checks.map((c) => ({ context: c.context, app: null })) ?? [],
    requiresLinearHistory: p.required_linear_history,
    allowsForcePushes: p.allow_force_pushes,
    allowsDeletions: p.allow_deletions,
    blocksCreations: p.block_creations,
    requiresCommitSignatures: p.required_signatures,
    requiresConversationResolution: p.required_conversation_resolution,
    lockBranch: p.lock_branch,
    lockAllowsFetchAndMerge: p.allow_fork_syncing,
    restrictsPushes: !!p.restrictions,
    restrictsReviewDismissals: !!reviews?.dismissal_restrictions,
    repository: () => repository(ctx, repo),
  };
}

function reviewCommentNode(ctx: TwinContext, repo: Json, c: Json): Source {
  return {
    __typename: 'PullRequestReviewComment',
    id: c.node_id,
    databaseId: c.id,
    body: c.body,
    bodyText: c.body,
    bodyHTML: c.body,
    path: c.path,
    line: c.line,
    originalLine: c.original_line,
    startLine: c.start_line,
    diffHunk: c.diff_hunk,
    author: () => accountByLogin(ctx, c.user?.login),
    authorAssociation: c.author_association,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
    publishedAt: c.created_at,
    url: c.html_url,
    outdated: false,
    state: 'SUBMITTED',
    replyTo: () => {
      const parent = c.in_reply_to_id ? listReviewComments(ctx, repo).find((x) => x.id === c.in_reply_to_id) : undefined;
      return parent ? reviewCommentNode(ctx, repo, parent) : null;
    },
    commit: () => (getCommit(ctx, repo, c.commit_id) ? commit(ctx, repo, c.commit_id) : null),
    originalCommit: () => (getCommit(ctx, repo, c.original_commit_id) ? commit(ctx, repo, c.original_commit_id) : null),
    repository: () => repository(ctx, repo),
    viewerDidAuthor: c.user?.login === viewer(ctx).login,
    ...reactionFields(ctx, repo, { kind: 'review_comment', id: c.id }, () => reviewCommentNode(ctx, repo, c)),
  };
}

/** A pull request's review threads: each first comment with its replies, oldest first. */
function reviewThreads(ctx: TwinContext, repo: Json, p: Json): Json[][] {
  const comments = listReviewComments(ctx, repo, p);
  const rootOf = (c: Json): number => {
    let at = c;
    for (let i = 0; at.in_reply_to_id && i < 1000; i++) at = comments.find((x) => x.id === at.in_reply_to_id) ?? { id: at.in_reply_to_id };
    return at.id;
  };
  const threads = new Map<number, Json[]>();
  for (const c of comments) {
    const root = rootOf(c);
    threads.set(root, [...(threads.get(root) ?? []), c]);
  }
  return [...threads.values()];
}

function reviewThreadNode(ctx: TwinContext, repo: Json, p: Json, thread: Json[], pr: () => Source): Source {
  const first = thread[0]!;
  return {
    __typename: 'PullRequestReviewThread',
    id: Buffer.from(`023:PullRequestReviewThread${first.id}`).toString('base64'),
    path: first.path,
    line: first.line,
    originalLine: first.original_line,
    startLine: first.start_line,
    diffSide: first.side ?? 'RIGHT',
    // No API here resolves a thread (resolveReviewThread is not served): open is truthful.
    isResolved: false,
    resolvedBy: null,
    isCollapsed: false,
    isOutdated: first.commit_id !== p.head.sha,
    viewerCanResolve: true,
    viewerCanUnresolve: false,
    viewerCanReply: true,
    subjectType: 'LINE',
    comments: (args: Args) => connection(thread, args, (c) => reviewCommentNode(ctx, repo, c)),
    pullRequest: pr,
    repository: () => repository(ctx, repo),
  };
}

/** What closed an issue: the pull request whose merge did, or the commit that did. */
function closerOf(ctx: TwinContext, repo: Json, e: Json): Source | null {
  if (!e.commit_id) return null;
  const byMerge = listPulls(ctx, repo).find((p) => p.merged && p.merge_commit_sha === e.commit_id);
  if (byMerge) return pullRequest(ctx, repo, byMerge);
  return getCommit(ctx, repo, e.commit_id) ? commit(ctx, repo, e.commit_id) : null;
}

// ---- deployments ---------------------------------------------------------------------------

function environmentNode(e: Json): Source {
  return {
    __typename: 'Environment',
    id: e.node_id,
    databaseId: e.id,
    name: e.name,
    isPinned: false,
    pinnedPosition: null,
  };
}

function deploymentStatusNode(ctx: TwinContext, _repo: Json, s: Json, d: () => Source): Source {
  return {
    __typename: 'DeploymentStatus',
    id: s.node_id,
    state: String(s.state).toUpperCase(),
    description: s.description || null,
    environment: s.environment,
    environmentUrl: s.environment_url || null,
    logUrl: s.log_url || null,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
    creator: () => accountByLogin(ctx, s.creator?.login),
    deployment: d,
  };
}

function deploymentNode(ctx: TwinContext, repo: Json, d: Json): Source {
  const statuses = () => listDeploymentStatuses(ctx, repo, d);
  const self: Source = {
    __typename: 'Deployment',
    id: d.node_id,
    databaseId: d.id,
    environment: d.environment,
    originalEnvironment: d.original_environment,
    state: () => deploymentState(ctx, repo, d),
    task: d.task,
    description: d.description,
    payload: typeof d.payload === 'string' ? d.payload : JSON.stringify(d.payload),
    commitOid: d.sha,
    commit: () => commit(ctx, repo, d.sha),
    ref: () => {
      const sha = branchHead(ctx, repo, d.ref);
      return sha ? ref(ctx, repo, `refs/heads/${d.ref}`, sha) : null;
    },
    createdAt: d.created_at,
    updatedAt: d.updated_at,
    creator: () => accountByLogin(ctx, d.creator?.login),
    repository: () => repository(ctx, repo),
    latestStatus: () => {
      const s = statuses()[0];
      return s ? deploymentStatusNode(ctx, repo, s, () => self) : null;
    },
    latestEnvironment: d.environment,
    statuses: (args: Args) => connection(statuses(), args, (s) => deploymentStatusNode(ctx, repo, s, () => self)),
  };
  return self;
}

// ---- releases ------------------------------------------------------------------------------

function releaseNode(ctx: TwinContext, repo: Json, r: Json): Source {
  const shaped = releaseShape(ctx, repo, r);
  const tagSha = () => getRef(ctx, repo, `refs/tags/${r.tag_name}`)?.object.sha as string | undefined;
  const self: Source = {
    __typename: 'Release',
    id: r.node_id,
    databaseId: r.id,
    name: r.name,
    tagName: r.tag_name,
    description: r.body,
    descriptionHTML: () => r.body ?? '',
    shortDescriptionHTML: () => r.body ?? '',
    isDraft: !!r.draft,
    isPrerelease: !!r.prerelease,
    isLatest: () => latestRelease(ctx, repo)?.id === r.id,
    isImmutable: false,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    publishedAt: r.published_at,
    url: shaped.html_url,
    resourcePath: new URL(shaped.html_url).pathname,
    tagCommit: () => {
      const sha = tagCommit(ctx, repo, r.tag_name);
      return sha ? commit(ctx, repo, sha) : null;
    },
    tag: () => {
      const sha = tagSha();
      return sha ? ref(ctx, repo, `refs/tags/${r.tag_name}`, sha) : null;
    },
    author: () => accountByLogin(ctx, r.author?.login),
    repository: () => repository(ctx, repo),
    releaseAssets: (args: Args) => {
      let list = shaped.assets as Json[];
      if (args.name) list = list.filter((a) => a.name === args.name);
      return connection(list, args, (a) => ({
        __typename: 'ReleaseAsset',
        id: a.node_id,
        name: a.name,
        size: a.size,
        contentType: a.content_type,
        downloadCount: a.download_count,
        downloadUrl: a.browser_download_url,
        url: a.url,
        digest: a.digest,
        createdAt: a.created_at,
        updatedAt: a.updated_at,
        uploadedBy: () => accountByLogin(ctx, a.uploader?.login),
        release: () => self,
      }));
    },
    reactionGroups: [],
    viewerCanReact: true,
  };
  return self;
}

// ---- refs and commits ----------------------------------------------------------------------

/** What a ref points to: a commit, or an annotated tag object (with its target). */
function refTarget(ctx: TwinContext, repo: Json, sha: string): Source {
  const o = readObject(ctx, repo, sha, 'commit');
  if (o?.type !== 'tag') return commit(ctx, repo, sha);
  const t = parseTag(o.content);
  return {
    __typename: 'Tag',
    id: Buffer.from(`03:Tag${repo.id}:${sha}`).toString('base64'),
    oid: sha,
    abbreviatedOid: sha.slice(0, 7),
    name: t.tag,
    message: t.message,
    tagger: t.tagger ? () => signature(ctx, t.tagger as unknown as Json) : null,
    target: () => refTarget(ctx, repo, t.object),
    commitUrl: `${WEB}/${repo.full_name}/commit/${t.object}`,
    repository: () => repository(ctx, repo),
  };
}

export function ref(ctx: TwinContext, repo: Json, name: string, sha: string): Source {
  const short = name.replace(/^refs\/(heads|tags)\//, '');
  return {
    __typename: 'Ref',
    id: Buffer.from(`03:Ref${repo.id}:${name}`).toString('base64'),
    name: short,
    prefix: name.slice(0, name.length - short.length),
    target: () => refTarget(ctx, repo, sha),
    repository: () => repository(ctx, repo),
    associatedPullRequests: (args: Args) => connection(pullList(ctx, repo, { ...args, headRefName: short }), args, (p) => pullRequest(ctx, repo, p)),
    branchProtectionRule: () => (name.startsWith('refs/heads/') ? branchProtectionRule(ctx, repo, short) : null),
  };
}

function signature(ctx: TwinContext, s: Json): Source {
  const login = /^(?:\d+\+)?([A-Za-z0-9-]+)@users\.noreply\.github\.com$/.exec(s.email)?.[1];
  return {
    name: s.name,
    email: s.email,
    date: s.date,
    user: () => accountByLogin(ctx, login ?? ctx.store.list<Json>('user').find((u) => u.email && u.email === s.email)?.login),
    avatarUrl: () => '',
  };
}

export function commit(ctx: TwinContext, repo: Json, sha: string): Source {
  const c = getCommit(ctx, repo, sha);
  if (!c) throw new GraphQLFailure(`Could not resolve to a Commit with the oid ${sha}.`, 'NOT_FOUND');
  const [headline, ...rest] = String(c.message).split('\n');
  return {
    __typename: 'Commit',
    id: c.node_id,
    oid: sha,
    abbreviatedOid: sha.slice(0, 7),
    message: c.message,
    messageHeadline: headline ?? '',
    messageBody: rest.join('\n').replace(/^\n+/, ''),
    committedDate: c.committer.date,
    authoredDate: c.author.date,
    pushedDate: c.committer.date,
    author: () => signature(ctx, c.author),
    committer: () => signature(ctx, c.committer),
    authors: (args: Args) => connection([c.author], args, (a) => signature(ctx, a)),
    url: `${WEB}/${repo.full_name}/commit/${sha}`,
    commitUrl: `${WEB}/${repo.full_name}/commit/${sha}`,
    resourcePath: `/${repo.full_name}/commit/${sha}`,
    tree: { __typename: 'Tree', oid: c.tree.sha, id: Buffer.from(`04:Tree${c.tree.sha}`).toString('base64') },
    parents: (args: Args) => connection(c.parents, args, (p: Json) => commit(ctx, repo, p.sha)),
    history: (args: Args) => connection(history(ctx, repo, sha), args, (h) => commit(ctx, repo, h.sha)),
    repository: () => repository(ctx, repo),
    // Unsigned commits have none; a signed one's signature is not verified by the twin.
    signature: () => {
      if (c.verification?.reason === 'unsigned') return null;
      throw new GraphQLFailure(
        "The GitHub twin does not serve the field 'signature' of type 'Commit' for signed commits (it verifies no signature).",
        'TWIN_UNSUPPORTED_FIELD',
      );
    },
    statusCheckRollup: () => statusCheckRollup(ctx, repo, sha),
    status: () => legacyStatus(ctx, repo, sha),
    checkSuites: (args: Args) =>
      connection(
        ctx.store
          .listByPrefix<Json>('check_suite', `${repo.id}:suite:`)
          .map((r) => r.body)
          .filter((s) => s.head_sha === sha),
        args,
        (s) => checkSuite(ctx, repo, s),
      ),
    associatedPullRequests: (args: Args) =>
      connection(
        listPulls(ctx, repo).filter((p) => p.head.sha === sha || p.merge_commit_sha === sha),
        args,
        (p) => pullRequest(ctx, repo, p),
      ),
  };
}

function legacyStatus(ctx: TwinContext, repo: Json, sha: string): Source | null {
  const r = rollup(ctx, repo, sha);
  if (!r?.statuses.length) return null;
  return {
    __typename: 'Status',
    id: Buffer.from(`06:Status${sha}`).toString('base64'),
    state: r.statuses.some((s) => s.state === 'failure' || s.state === 'error')
      ? 'FAILURE'
      : r.statuses.some((s) => s.state === 'pending')
        ? 'PENDING'
        : 'SUCCESS',
    contexts: r.statuses.map((s) => statusContext(ctx, repo, s, sha)),
    commit: () => commit(ctx, repo, sha),
  };
}

function statusCheckRollup(ctx: TwinContext, repo: Json, sha: string): Source | null {
  const r = rollup(ctx, repo, sha);
  if (!r) return null;
  const contexts: Source[] = [...r.checkRuns.map((c) => checkRun(ctx, repo, c)), ...r.statuses.map((s) => statusContext(ctx, repo, s, sha))];
  return {
    __typename: 'StatusCheckRollup',
    id: Buffer.from(`017:StatusCheckRollup${sha}`).toString('base64'),
    state: r.state,
    commit: () => commit(ctx, repo, sha),
    contexts: (args: Args) => {
      const conn = connection(contexts, args, (x) => x);
      return {
        ...conn,
        checkRunCount: r.checkRuns.length,
        statusContextCount: r.statuses.length,
        checkRunCountsByState: Object.entries(groupBy(r.checkRuns.map((c) => (c.status === 'completed' ? c.conclusion : c.status).toUpperCase()))).map(
          ([state, count]) => ({ state, count }),
        ),
        statusContextCountsByState: Object.entries(groupBy(r.statuses.map((s) => s.state.toUpperCase()))).map(([state, count]) => ({ state, count })),
      };
    },
  };
}

function groupBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

export function statusContext(ctx: TwinContext, repo: Json, s: Json, sha: string): Source {
  return {
    __typename: 'StatusContext',
    id: s.node_id,
    context: s.context,
    state: s.state.toUpperCase(),
    description: s.description,
    targetUrl: s.target_url,
    avatarUrl: s.avatar_url,
    createdAt: s.created_at,
    creator: () => accountByLogin(ctx, s.creator?.login),
    commit: () => commit(ctx, repo, sha),
    isRequired: () => false,
  };
}

export function checkRun(ctx: TwinContext, repo: Json, c: Json): Source {
  return {
    __typename: 'CheckRun',
    id: c.node_id,
    databaseId: c.id,
    name: c.name,
    status: c.status.toUpperCase(),
    conclusion: upper(c.conclusion),
    startedAt: c.started_at,
    completedAt: c.completed_at,
    detailsUrl: c.details_url,
    externalId: c.external_id,
    url: c.html_url,
    permalink: c.html_url,
    resourcePath: new URL(c.html_url).pathname,
    title: c.output?.title ?? null,
    summary: c.output?.summary ?? null,
    text: c.output?.text ?? null,
    isRequired: () => false,
    annotations: (args: Args) =>
      connection(c.annotations ?? [], args, (a: Json) => ({
        path: a.path,
        message: a.message,
        title: a.title,
        rawDetails: a.raw_details,
        annotationLevel: a.annotation_level.toUpperCase(),
        location: { start: { line: a.start_line, column: a.start_column }, end: { line: a.end_line, column: a.end_column } },
      })),
    checkSuite: () => {
      const s = getSuite(ctx, repo, c.check_suite.id);
      return s ? checkSuite(ctx, repo, s) : null;
    },
    repository: () => repository(ctx, repo),
  };
}

function checkSuite(ctx: TwinContext, repo: Json, s: Json): Source {
  return {
    __typename: 'CheckSuite',
    id: s.node_id,
    databaseId: s.id,
    status: s.status.toUpperCase(),
    conclusion: upper(s.conclusion),
    createdAt: s.created_at,
    updatedAt: s.updated_at,
    branch: () => {
      const sha = s.head_branch ? branchHead(ctx, repo, s.head_branch) : undefined;
      return sha ? ref(ctx, repo, `refs/heads/${s.head_branch}`, sha) : null;
    },
    app: { __typename: 'App', id: s.app.node_id, databaseId: s.app.id, name: s.app.name, slug: s.app.slug, url: s.app.html_url, logoUrl: () => '' },
    commit: () => commit(ctx, repo, s.head_sha),
    repository: () => repository(ctx, repo),
    checkRuns: (args: Args) =>
      connection(
        ctx.store
          .listByPrefix<Json>('check_run', `${repo.id}:run:`)
          .map((r) => r.body)
          .filter((r) => r.check_suite.id === s.id),
        args,
        (r) => checkRun(ctx, repo, r),
      ),
    workflowRun: () => {
      const run = runOfSuite(ctx, repo, s.id);
      if (!run) return null;
      const wf = workflowOfRun(ctx, repo, run);
      return {
        __typename: 'WorkflowRun',
        id: run.node_id,
        databaseId: run.id,
        runNumber: run.run_number,
        event: run.event,
        url: run.html_url,
        resourcePath: new URL(run.html_url).pathname,
        createdAt: run.created_at,
        updatedAt: run.updated_at,
        workflow: wf
          ? {
              __typename: 'Workflow',
              id: wf.node_id,
              databaseId: wf.id,
              name: wf.name,
              url: wf.html_url,
              resourcePath: new URL(wf.html_url).pathname,
              state: 'ACTIVE',
              createdAt: wf.created_at,
              updatedAt: wf.updated_at,
            }
          : null,
        checkSuite: () => checkSuite(ctx, repo, s),
      };
    },
  };
}

// ---- labels and milestones -----------------------------------------------------------------

export function label(ctx: TwinContext, repo: Json, l: Json): Source {
  return {
    __typename: 'Label',
    id: l.node_id,
    name: l.name,
    color: l.color,
    description: l.description ?? null,
    isDefault: !!l.default,
    url: `${WEB}/${repo.full_name}/labels/${encodeURIComponent(l.name)}`,
    resourcePath: `/${repo.full_name}/labels/${encodeURIComponent(l.name)}`,
    repository: () => repository(ctx, repo),
    issues: (args: Args) => connection(issueList(ctx, repo, { ...args, labels: [l.name] }, false), args, (i) => issue(ctx, repo, i)),
    pullRequests: (args: Args) => connection(pullList(ctx, repo, { ...args, labels: [l.name] }), args, (p) => pullRequest(ctx, repo, p)),
  };
}

export function milestone(ctx: TwinContext, repo: Json, m: Json): Source {
  const total = m.open_issues + m.closed_issues;
  return {
    __typename: 'Milestone',
    id: m.node_id,
    number: m.number,
    title: m.title,
    description: m.description ?? null,
    state: m.state.toUpperCase(),
    closed: m.state === 'closed',
    closedAt: m.closed_at ?? null,
    dueOn: m.due_on ?? null,
    createdAt: m.created_at,
    updatedAt: m.updated_at,
    url: `${WEB}/${repo.full_name}/milestone/${m.number}`,
    resourcePath: `/${repo.full_name}/milestone/${m.number}`,
    progressPercentage: total ? (m.closed_issues / total) * 100 : 0,
    repository: () => repository(ctx, repo),
    issues: (args: Args) =>
      connection(issueList(ctx, repo, { ...args, filterBy: { milestoneNumber: String(m.number) } }, false), args, (i) => issue(ctx, repo, i)),
  };
}

// ---- issues, pull requests, comments, reviews -----------------------------------------------

/** An organization team (as a requested reviewer). */
function teamNode(ctx: TwinContext, team: Json): Source {
  const org = getOrg(ctx, String(team.html_url).split('/orgs/')[1]?.split('/')[0] ?? '');
  return {
    __typename: 'Team',
    id: team.node_id,
    databaseId: team.id,
    name: team.name,
    slug: team.slug,
    combinedSlug: `${org?.login ?? ''}/${team.slug}`,
    description: team.description,
    privacy: String(team.privacy).toUpperCase(),
    url: team.html_url,
    resourcePath: new URL(team.html_url).pathname,
    organization: () => (org ? account(ctx, org) : null),
  };
}

// ---- reactions -----------------------------------------------------------------------------

/** REST reaction content → GraphQL `ReactionContent`. */
const REACTION_ENUM: Record<ReactionContent, string> = {
  '+1': 'THUMBS_UP',
  '-1': 'THUMBS_DOWN',
  laugh: 'LAUGH',
  hooray: 'HOORAY',
  confused: 'CONFUSED',
  heart: 'HEART',
  rocket: 'ROCKET',
  eyes: 'EYES',
};

export function reactionContentOf(value: unknown): ReactionContent | undefined {
  return REACTION_CONTENTS.find((c) => REACTION_ENUM[c] === value);
}

function reactionNode(ctx: TwinContext, r: Json, subject: () => Source): Source {
  return {
    __typename: 'Reaction',
    id: r.node_id,
    databaseId: r.id,
    content: REACTION_ENUM[r.content as ReactionContent],
    createdAt: r.created_at,
    user: () => accountByLogin(ctx, r.user?.login),
    reactable: subject,
  };
}

/** `reactionGroups` and `reactions` of a reactable, read from the same records as REST. */
export function reactionFields(ctx: TwinContext, repo: Json, subject: Reactable, self: () => Source): Source {
  const all = () => listReactions(ctx, repo, subject);
  return {
    viewerCanReact: true,
    reactionGroups: () => {
      const list = all();
      const me = viewer(ctx).id;
      return REACTION_CONTENTS.map((content) => {
        const of = list.filter((r) => r.content === content);
        const users = (args: Args) => connection(of, args, (r: Json) => accountByLogin(ctx, r.user?.login) ?? account(ctx, r.user));
        return {
          __typename: 'ReactionGroup',
          content: REACTION_ENUM[content],
          createdAt: of[0]?.created_at ?? null,
          viewerHasReacted: of.some((r) => r.user.id === me),
          users,
          reactors: users,
          subject: self,
        };
      });
    },
    reactions: (args: Args) => {
      const content = reactionContentOf(args.content);
      const list = all().filter((r) => !content || r.content === content);
      return { ...connection(list, args, (r: Json) => reactionNode(ctx, r, self)), viewerHasReacted: list.some((r) => r.user.id === viewer(ctx).id) };
    },
  };
}

function comment(ctx: TwinContext, repo: Json, c: Json, parent: () => Source): Source {
  return {
    __typename: 'IssueComment',
    id: c.node_id,
    databaseId: c.id,
    body: c.body,
    bodyText: c.body,
    bodyHTML: c.body,
    author: () => accountByLogin(ctx, c.user?.login),
    authorAssociation: c.author_association,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
    publishedAt: c.created_at,
    lastEditedAt: c.updated_at !== c.created_at ? c.updated_at : null,
    includesCreatedEdit: c.updated_at !== c.created_at,
    isMinimized: false,
    minimizedReason: null,
    url: c.html_url,
    viewerDidAuthor: c.user?.login === viewer(ctx).login,
    viewerCanUpdate: true,
    viewerCanDelete: true,
    ...reactionFields(ctx, repo, { kind: 'issue_comment', id: c.id }, () => comment(ctx, repo, c, parent)),
    issue: parent,
    pullRequest: () => {
      const n = Number(String(c.issue_url).split('/').pop());
      const p = getPull(ctx, repo, n);
      return p ? pullRequest(ctx, repo, p) : null;
    },
    repository: () => repository(ctx, repo),
  };
}

/** The fields issues and pull requests share (Issue, PullRequest: Assignable, Labelable, Comment…). */
function issueFields(ctx: TwinContext, repo: Json, i: Json, self: () => Source): Source {
  return {
    number: i.number,
    title: i.title,
    titleHTML: i.title,
    body: i.body ?? '',
    bodyText: i.body ?? '',
    bodyHTML: i.body ?? '',
    url: i.html_url,
    resourcePath: new URL(i.html_url).pathname,
    closed: i.state === 'closed',
    closedAt: i.closed_at,
    createdAt: i.created_at,
    updatedAt: i.updated_at,
    publishedAt: i.created_at,
    lastEditedAt: null,
    locked: !!i.locked,
    activeLockReason: upper(i.active_lock_reason)?.replace(' ', '_') ?? null,
    author: () => accountByLogin(ctx, i.user?.login),
    authorAssociation: i.author_association,
    viewerDidAuthor: () => i.user?.login === viewer(ctx).login,
    viewerCanUpdate: true,
    viewerCanSubscribe: true,
    viewerSubscription: 'SUBSCRIBED',
    includesCreatedEdit: false,
    isPinned: false,
    repository: () => repository(ctx, repo),
    assignees: (args: Args) => connection(i.assignees ?? [], args, (a: Json) => account(ctx, a)),
    // Labels embedded in issues are kept current by the label model (renames, deletions).
    labels: (args: Args) => connection(i.labels ?? [], args, (l: Json) => label(ctx, repo, l)),
    milestone: () => {
      if (!i.milestone) return null;
      return milestone(ctx, repo, getMilestone(ctx, repo, i.milestone.number) ?? i.milestone);
    },
    comments: (args: Args) => {
      const list = listComments(ctx, repo, getIssue(ctx, repo, i.number) ?? i);
      return connection(list, args, (c) => comment(ctx, repo, c, self));
    },
    participants: (args: Args) => connection([i.user], args, (u: Json) => account(ctx, u)),
    ...reactionFields(ctx, repo, { kind: 'issue', id: i.number }, self),
    // Nothing here puts an issue on a project (classic or v2): none is truthful. (`gh issue view`
    // asks for both.) Edit histories are not kept, so `userContentEdits` is left out.
    projectCards: (args: Args) => empty(args),
    projectItems: (args: Args) => empty(args),
    projectsV2: (args: Args) => empty(args),
    timelineItems: (args: Args) => {
      const issueRecord = getIssue(ctx, repo, i.number) ?? i;
      const wanted = Array.isArray(args.itemTypes) && args.itemTypes.length ? new Set(args.itemTypes as string[]) : undefined;
      const since = typeof args.since === 'string' ? args.since : undefined;
      const items = timelineOf(ctx, repo, issueRecord)
        .filter((e) => !since || String(e.created_at ?? e.submitted_at ?? e.committer?.date ?? '') >= since)
        .map((e) => timelineNode(ctx, repo, e, self))
        .filter((n): n is Source => !!n && (!wanted || wanted.has(screamingSnake(String(n.__typename)))));
      const page = connection(items, args, (n) => n);
      return { ...page, filteredCount: items.length, pageCount: items.length, updatedAt: i.updated_at };
    },
  };
}

/** `LabeledEvent` → `LABELED_EVENT` (the `itemTypes` enum spelling). */
function screamingSnake(typename: string): string {
  return typename.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** GraphQL type names of the REST timeline's events. */
const TIMELINE_TYPES: Record<string, string> = {
  labeled: 'LabeledEvent',
  unlabeled: 'UnlabeledEvent',
  assigned: 'AssignedEvent',
  unassigned: 'UnassignedEvent',
  closed: 'ClosedEvent',
  reopened: 'ReopenedEvent',
  renamed: 'RenamedTitleEvent',
  locked: 'LockedEvent',
  unlocked: 'UnlockedEvent',
  milestoned: 'MilestonedEvent',
  demilestoned: 'DemilestonedEvent',
  referenced: 'ReferencedEvent',
  'cross-referenced': 'CrossReferencedEvent',
  merged: 'MergedEvent',
  review_requested: 'ReviewRequestedEvent',
  review_request_removed: 'ReviewRequestRemovedEvent',
};

/** One REST timeline entry (model/timeline.ts) as its GraphQL node; undefined for kinds not mapped. */
function timelineNode(ctx: TwinContext, repo: Json, e: Json, subject: () => Source): Source | undefined {
  if (e.event === 'commented') return comment(ctx, repo, e, subject);
  if (e.event === 'reviewed') return reviewNode(ctx, repo, { ...e, state: String(e.state).toUpperCase() }, subject);
  if (e.event === 'committed') {
    return {
      __typename: 'PullRequestCommit',
      id: nodeIdOf('PullRequestCommit', e.sha),
      commit: () => commit(ctx, repo, e.sha),
      url: e.html_url,
      resourcePath: new URL(e.html_url).pathname,
      pullRequest: subject,
    };
  }
  const typename = Object.hasOwn(TIMELINE_TYPES, e.event) ? TIMELINE_TYPES[e.event] : undefined;
  if (!typename) return undefined;
  const base: Source = {
    __typename: typename,
    id: e.node_id ?? nodeIdOf(typename, `${e.event}:${e.created_at}`),
    createdAt: e.created_at,
    actor: () => (e.actor ? account(ctx, e.actor) : null),
  };
  const subjectFields = { labelable: subject, assignable: subject, closable: subject, lockable: subject, subject, pullRequest: subject };
  const commitOf = () => (e.commit_id && getCommit(ctx, repo, e.commit_id) ? commit(ctx, repo, e.commit_id) : null);
  switch (e.event) {
    case 'labeled':
    case 'unlabeled': {
      const full = ctx.store
        .listByPrefix<Json>('label', `${repo.id}:`)
        .map((r) => r.body)
        .find((l) => l.name === e.label?.name);
      return {
        ...base,
        ...subjectFields,
        label: () => label(ctx, repo, full ?? { ...e.label, id: 0, node_id: '', description: null, default: false, url: '' }),
      };
    }
    case 'assigned':
    case 'unassigned':
      return {
        ...base,
        ...subjectFields,
        assignee: () => (e.assignee ? account(ctx, e.assignee) : null),
        user: () => (e.assignee ? account(ctx, e.assignee) : null),
      };
    case 'closed':
      return {
        ...base,
        ...subjectFields,
        closer: () => closerOf(ctx, repo, e),
        stateReason: e.state_reason ? String(e.state_reason).toUpperCase() : null,
        url: e.url,
        resourcePath: new URL(e.url).pathname,
      };
    case 'reopened':
      return { ...base, ...subjectFields, stateReason: 'REOPENED' };
    case 'renamed':
      return { ...base, ...subjectFields, previousTitle: e.rename?.from ?? '', currentTitle: e.rename?.to ?? '' };
    case 'locked':
      return { ...base, ...subjectFields, lockReason: e.lock_reason ? String(e.lock_reason).toUpperCase().replace(' ', '_') : null };
    case 'milestoned':
    case 'demilestoned':
      return { ...base, ...subjectFields, milestoneTitle: e.milestone?.title ?? '' };
    case 'referenced':
      return { ...base, ...subjectFields, commit: commitOf, commitRepository: () => repository(ctx, repo), isCrossRepository: false, isDirectReference: true };
    case 'cross-referenced':
      return {
        ...base,
        target: subject,
        source: () => subjectOf(ctx, repo, e.source.issue.number),
        isCrossRepository: false,
        willCloseTarget: false,
        referencedAt: e.created_at,
        url: e.source.issue.html_url,
        resourcePath: new URL(e.source.issue.html_url).pathname,
      };
    case 'merged':
      return { ...base, ...subjectFields, commit: commitOf, mergeRefName: '', url: e.url, resourcePath: new URL(e.url).pathname };
    case 'review_requested':
    case 'review_request_removed':
      return {
        ...base,
        ...subjectFields,
        requestedReviewer: () => (e.requested_team ? teamNode(ctx, e.requested_team) : e.requested_reviewer ? account(ctx, e.requested_reviewer) : null),
      };
    default:
      return { ...base, ...subjectFields };
  }
}

function nodeIdOf(type: string, key: string): string {
  return Buffer.from(`0${type.length}:${type}${key}`).toString('base64');
}

export function issue(ctx: TwinContext, repo: Json, i: Json): Source {
  const self: Source = {
    __typename: 'Issue',
    id: i.node_id,
    databaseId: i.id,
    state: i.state.toUpperCase(),
    stateReason: upper(i.state_reason),
    // Sub-issues and task-list tracking are not modelled: trackedIssues, trackedInIssues,
    // subIssues and parent are left out.
    closedByPullRequestsReferences: (args: Args) => {
      let list = listPulls(ctx, repo).filter((p) => closingIssueNumbers(p.body).includes(i.number));
      if (!args.includeClosedPrs) list = list.filter((p) => p.state === 'open' || p.merged);
      return connection(list, args, (p) => pullRequest(ctx, repo, p));
    },
  };
  Object.assign(
    self,
    issueFields(ctx, repo, i, () => self),
  );
  return self;
}

function pullState(p: Json): string {
  return p.merged ? 'MERGED' : p.state.toUpperCase();
}

function reviewNode(ctx: TwinContext, repo: Json, r: Json, pr: () => Source): Source {
  return {
    __typename: 'PullRequestReview',
    id: r.node_id,
    databaseId: r.id,
    author: () => accountByLogin(ctx, r.user?.login),
    authorAssociation: r.author_association,
    body: r.body ?? '',
    bodyText: r.body ?? '',
    bodyHTML: r.body ?? '',
    state: r.state,
    submittedAt: r.submitted_at ?? null,
    createdAt: r.submitted_at ?? null,
    updatedAt: r.submitted_at ?? null,
    publishedAt: r.submitted_at ?? null,
    lastEditedAt: null,
    includesCreatedEdit: false,
    url: r.html_url,
    commit: () => (r.commit_id && getCommit(ctx, repo, r.commit_id) ? commit(ctx, repo, r.commit_id) : null),
    comments: (args: Args) =>
      connection(
        listReviewComments(ctx, repo).filter((x) => x.pull_request_review_id === r.id),
        args,
        (x) => reviewCommentNode(ctx, repo, x),
      ),
    // Reviews take no reactions here (no API reacts to one): none is truthful.
    reactionGroups: [],
    pullRequest: pr,
    repository: () => repository(ctx, repo),
    viewerDidAuthor: r.user?.login === viewer(ctx).login,
  };
}

export function pullRequest(ctx: TwinContext, repo: Json, p: Json): Source {
  const i = getIssue(ctx, repo, p.number) ?? p;
  const reviews = () => listReviews(ctx, repo, p).filter((r) => r.state !== 'PENDING');
  const latestReviews = () => {
    const byUser = new Map<string, Json>();
    for (const r of reviews()) if (r.state !== 'COMMENTED' || !byUser.has(r.user.login)) byUser.set(r.user.login, r);
    return [...byUser.values()];
  };
  const self: Source = {
    __typename: 'PullRequest',
    id: p.node_id,
    databaseId: p.id,
    state: pullState(p),
    isDraft: !!p.draft,
    merged: !!p.merged,
    mergedAt: p.merged_at,
    mergedBy: () => accountByLogin(ctx, p.merged_by?.login),
    mergeCommit: () => (p.merge_commit_sha && getCommit(ctx, repo, p.merge_commit_sha) ? commit(ctx, repo, p.merge_commit_sha) : null),
    mergeable: p.mergeable === true ? 'MERGEABLE' : p.mergeable === false ? 'CONFLICTING' : 'UNKNOWN',
    mergeStateStatus: () => {
      const state = mergeableState(ctx, repo, p);
      return state === 'clean' ? 'CLEAN' : state === 'dirty' ? 'DIRTY' : state === 'blocked' ? 'BLOCKED' : 'UNKNOWN';
    },
    canBeRebased: !!p.rebaseable,
    headRefName: p.head.ref,
    headRefOid: p.head.sha,
    baseRefName: p.base.ref,
    baseRefOid: p.base.sha,
    headRef: () => {
      const headRepo = headRepositoryOf(ctx, repo, p);
      const sha = headRepo ? branchHead(ctx, headRepo, p.head.ref) : undefined;
      return sha ? ref(ctx, headRepo!, `refs/heads/${p.head.ref}`, sha) : null;
    },
    baseRef: () => {
      const sha = branchHead(ctx, repo, p.base.ref);
      return sha ? ref(ctx, repo, `refs/heads/${p.base.ref}`, sha) : null;
    },
    headRepository: () => {
      const headRepo = headRepositoryOf(ctx, repo, p);
      return headRepo ? repository(ctx, headRepo) : null;
    },
    headRepositoryOwner: () => account(ctx, p.head.repo?.owner ?? repo.owner),
    baseRepository: () => repository(ctx, repo),
    isCrossRepository: (p.head.repo?.id ?? repo.id) !== repo.id,
    maintainerCanModify: !!p.maintainer_can_modify,
    additions: p.additions,
    deletions: p.deletions,
    changedFiles: p.changed_files,
    permalink: p.html_url,
    revertUrl: `${p.html_url}/revert`,
    autoMergeRequest: null,
    isInMergeQueue: false,
    isMergeQueueEnabled: false,
    mergeQueueEntry: null,
    reviewDecision: () => {
      const latest = latestReviews();
      if (latest.some((r) => r.state === 'CHANGES_REQUESTED')) return 'CHANGES_REQUESTED';
      // A branch rule asking for more approvals than the pull request has.
      if (p.state === 'open' && mergeVerdict(ctx, repo, p, 'squash').refused.some((m) => /approving reviews? (is|are) required/.test(m)))
        return 'REVIEW_REQUIRED';
      if (latest.some((r) => r.state === 'APPROVED')) return 'APPROVED';
      return null;
    },
    commits: (args: Args) =>
      connection(pullCommits(ctx, repo, p), args, (c) => ({
        __typename: 'PullRequestCommit',
        id: Buffer.from(`017:PullRequestCommit${p.id}:${c.sha}`).toString('base64'),
        commit: commit(ctx, repo, c.sha),
        url: `${p.html_url}/commits/${c.sha}`,
        resourcePath: `${new URL(p.html_url).pathname}/commits/${c.sha}`,
        pullRequest: () => self,
      })),
    files: (args: Args) =>
      connection(pullFiles(ctx, repo, p), args, (f) => ({
        __typename: 'PullRequestChangedFile',
        path: f.filename,
        additions: f.additions,
        deletions: f.deletions,
        changeType: f.status === 'added' ? 'ADDED' : f.status === 'removed' ? 'DELETED' : f.status === 'renamed' ? 'RENAMED' : 'MODIFIED',
        viewerViewedState: 'UNVIEWED',
      })),
    reviews: (args: Args) => {
      let list = reviews();
      if (args.states?.length) list = list.filter((r) => args.states.includes(r.state));
      if (args.author) list = list.filter((r) => r.user.login === args.author);
      return connection(list, args, (r) => reviewNode(ctx, repo, r, () => self));
    },
    latestReviews: (args: Args) => connection(latestReviews(), args, (r) => reviewNode(ctx, repo, r, () => self)),
    latestOpinionatedReviews: (args: Args) =>
      connection(
        latestReviews().filter((r) => r.state !== 'COMMENTED'),
        args,
        (r) => reviewNode(ctx, repo, r, () => self),
      ),
    reviewRequests: (args: Args) =>
      connection(
        [
          ...(p.requested_reviewers ?? []).map((u: Json) => ({ key: `${u.id}`, reviewer: () => account(ctx, u) })),
          ...(p.requested_teams ?? []).map((tm: Json) => ({ key: `team${tm.id}`, reviewer: () => teamNode(ctx, tm) })),
        ],
        args,
        (r: { key: string; reviewer: () => Source }) => ({
          __typename: 'ReviewRequest',
          id: Buffer.from(`013:ReviewRequest${p.id}:${r.key}`).toString('base64'),
          asCodeOwner: false,
          requestedReviewer: r.reviewer,
        }),
      ),
    reviewThreads: (args: Args) => connection(reviewThreads(ctx, repo, p), args, (thread) => reviewThreadNode(ctx, repo, p, thread, () => self)),
    closingIssuesReferences: (args: Args) => {
      const list = closingIssueNumbers(p.body)
        .map((n) => getIssue(ctx, repo, n))
        .filter((x): x is Json => !!x && !x.pull_request);
      return connection(list, args, (x) => issue(ctx, repo, x));
    },
    statusCheckRollup: () => statusCheckRollup(ctx, repo, p.head.sha),
    // The test merge commit GitHub keeps at refs/pull/<n>/merge while the pull request is open.
    potentialMergeCommit: () =>
      p.state === 'open' && p.merge_commit_sha && getCommit(ctx, repo, p.merge_commit_sha) ? commit(ctx, repo, p.merge_commit_sha) : null,
    checksResourcePath: `${new URL(p.html_url).pathname}/checks`,
    checksUrl: `${p.html_url}/checks`,
  };
  Object.assign(
    self,
    issueFields(ctx, repo, { ...i, html_url: p.html_url, node_id: p.node_id }, () => self),
  );
  return self;
}

// ---- search and nodes ----------------------------------------------------------------------

/** A repository by its REST URL (`…/repos/{owner}/{name}`). */
function repoOfUrl(ctx: TwinContext, url: string): Json | undefined {
  const m = /\/repos\/([^/]+)\/([^/]+)/.exec(url);
  return m ? findRepository(ctx, m[1]!, m[2]!) : undefined;
}

type PullFilter = (ctx: TwinContext, repo: Json, p: Json) => boolean;

/**
 * The search qualifiers only pull requests have (`review-requested:`, `reviewed-by:`, `head:`,
 * `base:`, `draft:`), taken out of the query as filters; `@me` names the viewer everywhere.
 */
function pullQualifiers(ctx: TwinContext, query: string): { rest: string; pullFilters: PullFilter[] } {
  const me = viewer(ctx).login as string;
  const pullFilters: PullFilter[] = [];
  const kept: string[] = [];
  for (const token of query.split(/\s+/).filter(Boolean)) {
    const t = token.replace(/:@me$/i, `:${me}`);
    const m = /^(review-requested|reviewed-by|head|base|draft):(.+)$/i.exec(t);
    if (!m) {
      kept.push(t);
      continue;
    }
    const v = m[2]!.toLowerCase();
    switch (m[1]!.toLowerCase()) {
      case 'review-requested':
        pullFilters.push((_c, _r, p) => (p.requested_reviewers ?? []).some((u: Json) => u.login.toLowerCase() === v));
        break;
      case 'reviewed-by':
        pullFilters.push((c, r, p) => listReviews(c, r, p).some((x) => x.user?.login?.toLowerCase() === v));
        break;
      case 'head':
        pullFilters.push((_c, _r, p) => p.head.ref.toLowerCase() === v);
        break;
      case 'base':
        pullFilters.push((_c, _r, p) => p.base.ref.toLowerCase() === v);
        break;
      default:
        pullFilters.push((_c, _r, p) => !!p.draft === (v === 'true'));
    }
  }
  return { rest: kept.join(' '), pullFilters };
}

/** A search query as the REST search reads it; a query GitHub refuses is a GraphQL error. */
function parsedSearch(q: string): SearchQuery {
  try {
    return parseSearchQuery(q);
  } catch (e) {
    if (e instanceof SearchQueryError) throw new GraphQLFailure(e.message, 'INVALID');
    throw e;
  }
}

export function search(ctx: TwinContext, args: Args): Source {
  const type = args.type as string;
  let items: Source[] = [];
  let issueCount = 0;
  let repositoryCount = 0;
  let userCount = 0;
  if (type === 'ISSUE' || type === 'ISSUE_ADVANCED') {
    const { rest, pullFilters } = pullQualifiers(ctx, String(args.query ?? ''));
    parsedSearch(rest);
    const results = searchIssues(ctx, rest);
    items = results.flatMap((r) => {
      const repo = repoOfUrl(ctx, r.repository_url);
      if (!repo) return [];
      if (r.pull_request) {
        const p = getPull(ctx, repo, r.number);
        return p && pullFilters.every((f) => f(ctx, repo, p)) ? [pullRequest(ctx, repo, p)] : [];
      }
      if (pullFilters.length) return [];
      return [issue(ctx, repo, getIssue(ctx, repo, r.number) ?? r)];
    });
    issueCount = items.length;
  } else if (type === 'REPOSITORY') {
    items = matchingRepositories(ctx, parsedSearch(String(args.query ?? ''))).map((r) => repository(ctx, r));
    repositoryCount = items.length;
  } else if (type === 'USER') {
    items = matchingAccounts(ctx, parsedSearch(String(args.query ?? ''))).map((u) => account(ctx, u));
    userCount = items.length;
  } else {
    throw new GraphQLFailure(`The twin does not search ${type} yet.`, 'UNSUPPORTED');
  }
  return { ...connection(items, args, (x) => x), issueCount, repositoryCount, userCount, wikiCount: 0, codeCount: 0, discussionCount: 0 };
}

/** Decode a legacy node id `0<len>:<Type><id>`; undefined when it is not one. */
export function decodeNodeId(id: string): { type: string; id: string } | undefined {
  let text: string;
  try {
    text = Buffer.from(id, 'base64').toString('utf8');
  } catch {
    return undefined;
  }
  const m = /^0(\d+):([A-Za-z]+)(.+)$/.exec(text);
  if (!m || m[2]!.length !== Number(m[1])) return undefined;
  return { type: m[2]!, id: m[3]! };
}

export interface Located {
  type: string;
  body: Json;
  repo?: Json;
}

/** The record behind a node id (with its repository for repository children), or undefined. */
export function locate(ctx: TwinContext, nodeId: string): Located | undefined {
  const d = decodeNodeId(nodeId);
  if (!d) return undefined;
  const byNodeId = (resource: string) => ctx.store.list<Json>(resource).find((r) => r.node_id === nodeId);
  const child = (type: string, resource: string, urlField: string): Located | undefined => {
    const body = byNodeId(resource);
    const repo = body && repoOfUrl(ctx, String(body[urlField]));
    return body && repo ? { type, body, repo } : undefined;
  };
  switch (d.type) {
    case 'User': {
      const body = byNodeId('user');
      return body && { type: 'User', body };
    }
    case 'Organization': {
      const body = byNodeId('org');
      return body && { type: 'Organization', body };
    }
    case 'Repository': {
      const body = byNodeId('repository');
      return body && { type: 'Repository', body, repo: body };
    }
    case 'Issue':
      return child('Issue', 'issue', 'repository_url');
    case 'PullRequest': {
      const pr = child('PullRequest', 'pull_request', 'url');
      if (pr) return pr;
      // The issue half of a pull request carries its own PullRequest-typed id.
      const half = child('PullRequest', 'issue', 'repository_url');
      const body = half && getPull(ctx, half.repo!, half.body.number);
      return half && body ? { type: 'PullRequest', body, repo: half.repo } : undefined;
    }
    case 'Label':
      return child('Label', 'label', 'url');
    case 'Milestone':
      return child('Milestone', 'milestone', 'url');
    case 'IssueComment':
      return child('IssueComment', 'issue_comment', 'url');
    case 'PullRequestReview':
      return child('PullRequestReview', 'review', 'pull_request_url');
    case 'CheckRun':
      return child('CheckRun', 'check_run', 'url');
    default:
      return undefined;
  }
}

/** The GraphQL object behind a node id, or undefined. */
export function findNode(ctx: TwinContext, nodeId: string): Source | undefined {
  const found = locate(ctx, nodeId);
  if (!found) return undefined;
  const { type, body, repo } = found;
  switch (type) {
    case 'User':
    case 'Organization':
      return account(ctx, body);
    case 'Repository':
      return repository(ctx, body);
    case 'Issue':
      return issue(ctx, repo!, body);
    case 'PullRequest':
      return pullRequest(ctx, repo!, body);
    case 'Label':
      return label(ctx, repo!, body);
    case 'Milestone':
      return milestone(ctx, repo!, body);
    case 'IssueComment':
      return comment(ctx, repo!, body, () => subjectOf(ctx, repo!, Number(String(body.issue_url).split('/').pop())));
    case 'PullRequestReview': {
      const number = Number(String(body.pull_request_url).split('/').pop());
      return reviewNode(ctx, repo!, body, () => subjectOf(ctx, repo!, number));
    }
    case 'CheckRun':
      return checkRun(ctx, repo!, body);
    default:
      return undefined;
  }
}

/** An issue or pull request by number, as its GraphQL object. */
export function subjectOf(ctx: TwinContext, repo: Json, number: number): Source {
  const i = getIssue(ctx, repo, number);
  if (!i) throw new GraphQLFailure(`Could not resolve to an issue or pull request with the number of ${number}.`, 'NOT_FOUND');
  const p = i.pull_request ? getPull(ctx, repo, number) : undefined;
  return p ? pullRequest(ctx, repo, p) : issue(ctx, repo, i);
}
