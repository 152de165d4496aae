// The CI surface of a commit: commit statuses (the legacy per-context states), check suites and
// check runs (with annotations), and the combined view GitHub derives from both (the combined
// status of REST and GraphQL's `statusCheckRollup`). Actions runs (actions.ts) report through
// check suites and check runs exactly as the GitHub Actions app does.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, notFound, validationFailed } from '../wire/errors.js';
import { type Json, simpleAccount, viewer } from './accounts.js';
import { childKey } from './repositories.js';
import { getCommit, resolveCommitish } from './git.js';
import { listPulls } from './pulls.js';
import { emitEvent } from './webhooks.js';

export const STATUS_STATES = ['error', 'failure', 'pending', 'success'] as const;
export type StatusState = (typeof STATUS_STATES)[number];
export const CHECK_STATUSES = ['queued', 'in_progress', 'completed', 'waiting', 'requested', 'pending'] as const;
export const CHECK_CONCLUSIONS = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'stale', 'timed_out'] as const;

/** The app check runs belong to when no GitHub App made them (a key's own runs) and Actions' app. */
export const ACTIONS_APP: Json = {
  id: 15368,
  slug: 'github-actions',
  node_id: 'MDM6QXBwMTUzNjg=',
  owner: { login: 'github', id: 9919, node_id: 'MDEyOk9yZ2FuaXphdGlvbjk5MTk=', type: 'Organization', site_admin: false },
  name: 'GitHub Actions',
  description: 'Automate your workflow from idea to production',
  external_url: 'https://help.github.com/en/actions',
  html_url: 'https://github.com/apps/github-actions',
  created_at: '2018-07-30T09:30:17Z',
  updated_at: '2019-12-10T19:04:12Z',
  permissions: { actions: 'write', checks: 'write', contents: 'write', metadata: 'read', pull_requests: 'write', statuses: 'write' },
  events: ['check_run', 'check_suite', 'pull_request', 'push', 'workflow_dispatch'],
};

/** Check runs created with the twin's key answer as made by this app (GitHub lets only Apps create them). */
export const TWIN_APP: Json = {
  id: 1,
  slug: 'twin-ci',
  node_id: nodeId('App', 1),
  owner: { login: 'octo-org', type: 'Organization', site_admin: false },
  name: 'Twin CI',
  description: 'Check runs created with the twin key',
  external_url: 'https://github.com/apps/twin-ci',
  html_url: 'https://github.com/apps/twin-ci',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  permissions: { checks: 'write', metadata: 'read', statuses: 'write' },
  events: [],
};

/** The commit a status or check names: a full SHA of the repository, or a ref resolved to one. */
export function requireSha(ctx: TwinContext, repo: Json, ref: string): string {
  const sha = resolveCommitish(ctx, repo, ref);
  if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`);
  return sha;
}

// ---- commit statuses ---------------------------------------------------------------------

export function createStatus(
  ctx: TwinContext,
  repo: Json,
  sha: string,
  input: { state: StatusState; target_url?: string | null; description?: string | null; context?: string },
): Json {
  if (!getCommit(ctx, repo, sha)) throw new GitHubError(422, `No commit found for SHA: ${sha}`);
  const id = nextId(ctx, 'status');
  const at = now(ctx);
  const status: Json = {
    url: `${API}/repos/${repo.full_name}/statuses/${sha}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${viewer(ctx).id}?v=4`,
    id,
    node_id: nodeId('StatusContext', id),
    state: input.state,
    description: input.description ?? null,
    target_url: input.target_url ?? null,
    context: input.context ?? 'default',
    created_at: at,
    updated_at: at,
    creator: simpleAccount(viewer(ctx)),
  };
  ctx.store.put('status', childKey(repo, `${sha}:${String(id).padStart(12, '0')}`), status);
  emitEvent(ctx, repo, 'status', {
    id,
    sha,
    name: repo.full_name,
    target_url: status.target_url,
    context: status.context,
    description: status.description,
    state: status.state,
    branches: [],
    created_at: at,
    updated_at: at,
    commit: { sha, url: `${API}/repos/${repo.full_name}/commits/${sha}`, html_url: `${WEB}/${repo.full_name}/commit/${sha}` },
  });
  return status;
}

/** Every status of a commit, newest first (as `GET …/commits/{ref}/statuses` lists them). */
export function listStatuses(ctx: TwinContext, repo: Json, sha: string): Json[] {
  return ctx.store
    .listByPrefix<Json>('status', childKey(repo, `${sha}:`))
    .map((r) => r.body)
    .reverse();
}

/** The latest status of each context (newest first), which is what combined views count. */
export function latestStatuses(ctx: TwinContext, repo: Json, sha: string): Json[] {
  const seen = new Set<string>();
  return listStatuses(ctx, repo, sha).filter((s) => !seen.has(s.context) && (seen.add(s.context), true));
}

/** `failure` when any context errored or failed, `pending` when any waits (or none exist), else `success`. */
export function combinedState(states: string[]): StatusState {
  if (states.some((s) => s === 'error' || s === 'failure')) return 'failure';
  if (states.length === 0 || states.some((s) => s === 'pending')) return 'pending';
  return 'success';
}

export function combinedStatus(ctx: TwinContext, repo: Json, sha: string): Json {
  const statuses = latestStatuses(ctx, repo, sha);
  return {
    state: combinedState(statuses.map((s) => s.state)),
    statuses,
    sha,
    total_count: statuses.length,
    repository: minimalRepository(repo),
    commit_url: `${API}/repos/${repo.full_name}/commits/${sha}`,
    url: `${API}/repos/${repo.full_name}/commits/${sha}/status`,
  };
}

function minimalRepository(repo: Json): Json {
  const { id, node_id, name, full_name, private: isPrivate, owner, html_url, description, fork, url } = repo;
  return { id, node_id, name, full_name, private: isPrivate, owner, html_url, description, fork, url };
}

// ---- check suites and runs ---------------------------------------------------------------

function suiteKey(repo: Json, id: number): string {
  return childKey(repo, `suite:${id}`);
}

function runKey(repo: Json, id: number): string {
  return childKey(repo, `run:${String(id).padStart(12, '0')}`);
}

/** Open pull requests whose head is `sha` (the `pull_requests` of suites and runs). */
function pullsAt(ctx: TwinContext, repo: Json, sha: string): Json[] {
  return listPulls(ctx, repo)
    .filter((p) => p.state === 'open' && p.head.sha === sha)
    .map((p) => ({
      url: p.url,
      id: p.id,
      number: p.number,
      head: { ref: p.head.ref, sha: p.head.sha, repo: { id: repo.id, url: repo.url, name: repo.name } },
      base: { ref: p.base.ref, sha: p.base.sha, repo: { id: repo.id, url: repo.url, name: repo.name } },
    }));
}

function branchAt(ctx: TwinContext, repo: Json, sha: string): string | null {
  const prefix = childKey(repo, 'refs/heads/');
  const hit = ctx.store.listByPrefix<Json>('ref', prefix).find((r) => r.body.object.sha === sha);
  return hit ? hit.body.ref.replace(/^refs\/heads\//, '') : null;
}

export function getSuite(ctx: TwinContext, repo: Json, id: number): Json | undefined {
  return ctx.store.get<Json>('check_suite', suiteKey(repo, id));
}

export function requireSuite(ctx: TwinContext, repo: Json, id: number): Json {
  const s = getSuite(ctx, repo, id);
  if (!s) throw notFound();
  return s;
}

export function listSuites(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store
    .listByPrefix<Json>('check_suite', childKey(repo, 'suite:'))
    .map((r) => r.body)
    .sort((a, b) => a.id - b.id);
}

/** The suite of `app` for `sha` (GitHub keeps one per app and commit unless an app asks for more). */
export function suiteFor(ctx: TwinContext, repo: Json, sha: string, app: Json, branch?: string | null): Json {
  const existing = listSuites(ctx, repo).find((s) => s.head_sha === sha && s.app.id === app.id && !s.workflow_run);
  if (existing) return existing;
  return createSuite(ctx, repo, sha, app, branch);
}

export function createSuite(ctx: TwinContext, repo: Json, sha: string, app: Json, branch?: string | null, workflowRun = false): Json {
  if (!getCommit(ctx, repo, sha)) throw new GitHubError(422, `No commit found for SHA: ${sha}`);
  const id = nextId(ctx, 'check_suite');
  const at = now(ctx);
  const suite: Json = {
    id,
    node_id: nodeId('CheckSuite', id),
    head_branch: branch ?? branchAt(ctx, repo, sha),
    head_sha: sha,
    status: 'queued',
    conclusion: null,
    url: `${API}/repos/${repo.full_name}/check-suites/${id}`,
    before: null,
    after: sha,
    pull_requests: pullsAt(ctx, repo, sha),
    app,
    repository: minimalRepository(repo),
    created_at: at,
    updated_at: at,
    rerequestable: true,
    runs_rerequestable: true,
    latest_check_runs_count: 0,
    check_runs_url: `${API}/repos/${repo.full_name}/check-suites/${id}/check-runs`,
    head_commit: headCommit(ctx, repo, sha),
    ...(workflowRun ? { workflow_run: true } : {}),
  };
  ctx.store.put('check_suite', suiteKey(repo, id), suite);
  return suite;
}

function headCommit(ctx: TwinContext, repo: Json, sha: string): Json | null {
  const c = getCommit(ctx, repo, sha);
  if (!c) return null;
  return {
    id: c.sha,
    tree_id: c.tree.sha,
    message: c.message,
    timestamp: c.committer.date,
    author: { name: c.author.name, email: c.author.email },
    committer: { name: c.committer.name, email: c.committer.email },
  };
}

/** A suite as answered (`workflow_run` is the twin's own marker, not GitHub's). */
export function presentSuite(suite: Json): Json {
  const { workflow_run: _marker, ...rest } = suite;
  return rest;
}

/** Recompute a suite's status and conclusion from its runs (GitHub's rule: worst conclusion wins). */
function settleSuite(ctx: TwinContext, repo: Json, suiteId: number): void {
  const suite = getSuite(ctx, repo, suiteId);
  if (!suite) return;
  const runs = listCheckRuns(ctx, repo).filter((r) => r.check_suite.id === suiteId);
  const before = suite.status;
  suite.latest_check_runs_count = runs.length;
  if (runs.length === 0) suite.status = 'queued';
  else if (runs.every((r) => r.status === 'completed')) suite.status = 'completed';
  else if (runs.some((r) => r.status === 'in_progress')) suite.status = 'in_progress';
  else suite.status = 'queued';
  suite.conclusion = suite.status === 'completed' ? worstConclusion(runs.map((r) => r.conclusion)) : null;
  suite.updated_at = now(ctx);
  ctx.store.put('check_suite', suiteKey(repo, suiteId), suite);
  if (before !== 'completed' && suite.status === 'completed') {
    emitEvent(ctx, repo, 'check_suite', { action: 'completed', check_suite: presentSuite(suite) });
  }
}

const SEVERITY: string[] = ['action_required', 'cancelled', 'timed_out', 'failure', 'stale', 'neutral', 'skipped', 'success'];

export function worstConclusion(conclusions: (string | null)[]): string {
  let worst = 'success';
  for (const c of conclusions) if (c && SEVERITY.indexOf(c) < SEVERITY.indexOf(worst)) worst = c;
  return worst;
}

export interface CheckRunInput {
  name: string;
  head_sha: string;
  details_url?: string | null;
  external_id?: string | null;
  status?: string;
  started_at?: string | null;
  conclusion?: string | null;
  completed_at?: string | null;
  output?: { title?: string | null; summary?: string; text?: string | null; annotations?: Json[] } | null;
  /** Actions runs name their suite; API-created runs go to the app's suite for the commit. */
  suite?: Json;
  app?: Json;
}

export function getCheckRun(ctx: TwinContext, repo: Json, id: number): Json | undefined {
  return ctx.store.get<Json>('check_run', runKey(repo, id));
}

export function requireCheckRun(ctx: TwinContext, repo: Json, id: number): Json {
  const r = getCheckRun(ctx, repo, id);
  if (!r) throw notFound();
  return r;
}

export function listCheckRuns(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store.listByPrefix<Json>('check_run', childKey(repo, 'run:')).map((r) => r.body);
}

/** The runs of a commit, latest per name and app first (what `filter=latest` answers). */
export function checkRunsFor(ctx: TwinContext, repo: Json, sha: string, filter: 'latest' | 'all' = 'latest'): Json[] {
  const all = listCheckRuns(ctx, repo)
    .filter((r) => r.head_sha === sha)
    .reverse();
  if (filter === 'all') return all;
  const seen = new Set<string>();
  return all.filter((r) => {
    const key = `${r.app.id}:${r.name}`;
    return !seen.has(key) && (seen.add(key), true);
  });
}

function validateAnnotations(list: Json[] | undefined): Json[] {
  if (!list) return [];
  if (list.length > 50)
    throw validationFailed({ resource: 'CheckRun', field: 'annotations', code: 'invalid', message: 'Only 50 annotations are allowed per request' } as never);
  return list.map((a) => {
    for (const f of ['path', 'annotation_level', 'message']) {
      if (typeof a[f] !== 'string') throw new GitHubError(422, `Invalid request.\n\n"${f}" wasn't supplied.`);
    }
    if (typeof a.start_line !== 'number' || typeof a.end_line !== 'number')
      throw new GitHubError(422, 'Invalid request.\n\n"start_line" and "end_line" are required integers.');
    if (!['notice', 'warning', 'failure'].includes(a.annotation_level)) {
      throw new GitHubError(
        422,
        `Invalid request.\n\nFor 'properties/annotation_level', ${JSON.stringify(a.annotation_level)} is not one of ["notice","warning","failure"].`,
      );
    }
    return {
      path: a.path,
      start_line: a.start_line,
      end_line: a.end_line,
      start_column: a.start_column ?? null,
      end_column: a.end_column ?? null,
      annotation_level: a.annotation_level,
      title: a.title ?? null,
      message: a.message,
      raw_details: a.raw_details ?? null,
    };
  });
}

function applyState(run: Json, input: Pick<CheckRunInput, 'status' | 'conclusion' | 'started_at' | 'completed_at'>, at: string): void {
  if (input.conclusion) {
    run.status = 'completed';
    run.conclusion = input.conclusion;
  } else if (input.status) {
    run.status = input.status;
    if (input.status !== 'completed') run.conclusion = null;
  }
  if (run.status === 'completed' && !run.conclusion) {
    throw validationFailed({
      resource: 'CheckRun',
      field: 'conclusion',
      code: 'missing_field',
      message: 'conclusion is required when status is completed',
    } as never);
  }
  if (input.started_at !== undefined) run.started_at = input.started_at;
  if (input.completed_at !== undefined) run.completed_at = input.completed_at;
  if (run.status === 'completed' && !run.completed_at) run.completed_at = at;
}

export function createCheckRun(ctx: TwinContext, repo: Json, input: CheckRunInput): Json {
  if (!input.name.trim()) throw validationFailed({ resource: 'CheckRun', field: 'name', code: 'missing_field' });
  if (!getCommit(ctx, repo, input.head_sha))
    throw validationFailed({ resource: 'CheckRun', field: 'head_sha', code: 'invalid', message: 'No commit found for SHA: ' + input.head_sha } as never);
  const app = input.app ?? TWIN_APP;
  const suite = input.suite ?? suiteFor(ctx, repo, input.head_sha, app);
  const id = nextId(ctx, 'check_run');
  const at = now(ctx);
  const url = `${API}/repos/${repo.full_name}/check-runs/${id}`;
  const annotations = validateAnnotations(input.output?.annotations);
  const run: Json = {
    id,
    name: input.name,
    node_id: nodeId('CheckRun', id),
    head_sha: input.head_sha,
    external_id: input.external_id ?? '',
    url,
    html_url: `${WEB}/${repo.full_name}/runs/${id}`,
    details_url: input.details_url ?? `${WEB}/${repo.full_name}/runs/${id}`,
    status: 'queued',
    conclusion: null,
    started_at: input.started_at ?? at,
    completed_at: null,
    output: {
      title: input.output?.title ?? null,
      summary: input.output?.summary ?? null,
      text: input.output?.text ?? null,
      annotations_count: annotations.length,
      annotations_url: `${url}/annotations`,
    },
    check_suite: { id: suite.id },
    app,
    pull_requests: pullsAt(ctx, repo, input.head_sha),
    annotations,
  };
  applyState(run, { ...input, started_at: undefined }, at);
  ctx.store.put('check_run', runKey(repo, id), run);
  settleSuite(ctx, repo, suite.id);
  emitEvent(ctx, repo, 'check_run', { action: 'created', check_run: presentCheckRun(ctx, repo, run) });
  if (run.status === 'completed') emitEvent(ctx, repo, 'check_run', { action: 'completed', check_run: presentCheckRun(ctx, repo, run) });
  return run;
}

export function updateCheckRun(ctx: TwinContext, repo: Json, run: Json, patch: Partial<CheckRunInput>): Json {
  const at = now(ctx);
  const wasCompleted = run.status === 'completed';
  if (patch.name !== undefined) run.name = patch.name;
  if (patch.details_url !== undefined) run.details_url = patch.details_url;
  if (patch.external_id !== undefined) run.external_id = patch.external_id;
  if (patch.output) {
    const added = validateAnnotations(patch.output.annotations);
    run.annotations = [...(run.annotations ?? []), ...added];
    run.output = {
      ...run.output,
      ...(patch.output.title !== undefined ? { title: patch.output.title } : {}),
      ...(patch.output.summary !== undefined ? { summary: patch.output.summary } : {}),
      ...(patch.output.text !== undefined ? { text: patch.output.text } : {}),
      annotations_count: run.annotations.length,
    };
  }
  applyState(run, patch, at);
  ctx.store.put('check_run', runKey(repo, run.id), run);
  settleSuite(ctx, repo, run.check_suite.id);
  if (!wasCompleted && run.status === 'completed') emitEvent(ctx, repo, 'check_run', { action: 'completed', check_run: presentCheckRun(ctx, repo, run) });
  return run;
}

/** A check run as answered: its suite embedded, annotations behind their own endpoint. */
export function presentCheckRun(ctx: TwinContext, repo: Json, run: Json): Json {
  const { annotations: _a, ...rest } = run;
  const suite = getSuite(ctx, repo, run.check_suite.id);
  return { ...rest, check_suite: suite ? { id: suite.id } : run.check_suite, pull_requests: pullsAt(ctx, repo, run.head_sha) };
}

export function annotationsOf(run: Json): Json[] {
  return run.annotations ?? [];
}

// ---- the combined view -------------------------------------------------------------------

export type RollupState = 'ERROR' | 'EXPECTED' | 'FAILURE' | 'PENDING' | 'SUCCESS';

/** What GraphQL's `statusCheckRollup` counts for a commit: latest check runs and latest statuses. */
export function rollup(ctx: TwinContext, repo: Json, sha: string): { state: RollupState; checkRuns: Json[]; statuses: Json[] } | undefined {
  const checkRuns = checkRunsFor(ctx, repo, sha);
  const statuses = latestStatuses(ctx, repo, sha);
  if (!checkRuns.length && !statuses.length) return undefined;
  const states: string[] = statuses.map((s) => s.state);
  for (const r of checkRuns) {
    if (r.status !== 'completed') states.push('pending');
    else states.push(['success', 'neutral', 'skipped'].includes(r.conclusion) ? 'success' : 'failure');
  }
  const state = states.some((s) => s === 'error') ? 'ERROR' : (combinedState(states).toUpperCase() as RollupState);
  return { state, checkRuns, statuses };
}
