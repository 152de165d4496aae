// Deployments, their statuses, and environments. A deployment names a real commit (its `ref` is
// resolved when it is made); GitHub's two guards run first: `auto_merge` merges the default branch
// into a branch that lags it (202, no deployment) and `required_contexts` (every context by default)
// must have succeeded on the commit (409 with the failing contexts). A success status marks the
// environment's earlier successful deployments inactive (`auto_inactive`). Environments are made by
// their first deployment or by `PUT …/environments/{name}` with their protection rules.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, invalidRequest, notFound, validationFailed } from '../wire/errors.js';
import { type Json, simpleAccount, viewer } from './accounts.js';
import { childKey } from './repositories.js';
import { ancestors, branchHead, resolveCommitish } from './git.js';
import { checkRunsFor, latestStatuses } from './checks.js';
import { emitEvent } from './webhooks.js';
import { mergeIntoBranch } from './merges.js';
import { findTeam, simpleTeam } from './teams.js';

export const DEPLOYMENT = 'deployment';
export const DEPLOYMENT_STATUS = 'deployment_status';
export const ENVIRONMENT = 'environment';

const pad = (id: number) => String(id).padStart(12, '0');

export const DEPLOYMENT_STATES = ['error', 'failure', 'inactive', 'in_progress', 'queued', 'pending', 'success'] as const;
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number];

// ---- environments --------------------------------------------------------------------------

function environmentKey(repo: Json, name: string): string {
  return childKey(repo, name.toLowerCase());
}

export function listEnvironments(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store
    .listByPrefix<Json>(ENVIRONMENT, childKey(repo, ''))
    .map((r) => r.body)
    .sort((a, b) => a.id - b.id);
}

export function getEnvironment(ctx: TwinContext, repo: Json, name: string): Json | undefined {
  return ctx.store.get<Json>(ENVIRONMENT, environmentKey(repo, name));
}

export function requireEnvironment(ctx: TwinContext, repo: Json, name: string): Json {
  const e = getEnvironment(ctx, repo, name);
  if (!e) throw notFound();
  return e;
}

function environmentShape(repo: Json, id: number, name: string, at: string): Json {
  return {
    id,
    node_id: nodeId('Environment', id),
    name,
    url: `${API}/repos/${repo.full_name}/environments/${encodeURIComponent(name)}`,
    html_url: `${WEB}/${repo.full_name}/deployments/activity_log?environments_filter=${encodeURIComponent(name)}`,
    created_at: at,
    updated_at: at,
    protection_rules: [],
    deployment_branch_policy: null,
  };
}

/** The environment of that name, made when missing (a deployment's first use makes it). */
export function ensureEnvironment(ctx: TwinContext, repo: Json, name: string): Json {
  const existing = getEnvironment(ctx, repo, name);
  if (existing) return existing;
  if (!name || name.length > 255) throw validationFailed({ resource: 'Environment', field: 'name', code: 'invalid' });
  const e = environmentShape(repo, nextId(ctx, 'environment'), name, now(ctx));
  ctx.store.put(ENVIRONMENT, environmentKey(repo, name), e);
  return e;
}

function reviewerOf(ctx: TwinContext, repo: Json, r: Json): Json {
  if (r?.type === 'User') {
    const u = ctx.store.list<Json>('user').find((x) => x.id === r.id);
    if (!u) throw validationFailed({ resource: 'Environment', field: 'reviewers', code: 'invalid' });
    return { type: 'User', reviewer: simpleAccount(u) };
  }
  if (r?.type === 'Team') {
    const team = repo.owner.type === 'Organization' ? ctx.store.list<Json>('team').find((x) => x.id === r.id) : undefined;
    const found = team && findTeam(ctx, repo.owner.login, team.slug);
    if (!found) throw validationFailed({ resource: 'Environment', field: 'reviewers', code: 'invalid' });
    return { type: 'Team', reviewer: simpleTeam(found) };
  }
  throw invalidRequest(`For 'properties/type', ${JSON.stringify(r?.type)} is not one of ["User","Team"].`);
}

/** `PUT …/environments/{name}`: make or update it with its protection rules. */
export function putEnvironment(ctx: TwinContext, repo: Json, name: string, b: Json): Json {
  const e = ensureEnvironment(ctx, repo, name);
  const rules: Json[] = [];
  const rule = (type: string, extra: Json) => {
    const id = nextId(ctx, 'environment_rule');
    rules.push({ id, node_id: nodeId('DeploymentProtectionRule', id), type, ...extra });
  };
  if (b.wait_timer !== undefined && b.wait_timer !== null) {
    if (!Number.isInteger(b.wait_timer) || b.wait_timer < 0 || b.wait_timer > 43_200) {
      throw invalidRequest(`For 'properties/wait_timer', ${JSON.stringify(b.wait_timer)} is not a number between 0 and 43200.`);
    }
    if (b.wait_timer > 0) rule('wait_timer', { wait_timer: b.wait_timer });
  }
  if (Array.isArray(b.reviewers) && b.reviewers.length) {
    if (b.reviewers.length > 6)
      throw validationFailed({ resource: 'Environment', field: 'reviewers', code: 'invalid', message: 'At most 6 reviewers' } as never);
    rule('required_reviewers', { prevent_self_review: !!b.prevent_self_review, reviewers: (b.reviewers as Json[]).map((r) => reviewerOf(ctx, repo, r)) });
  }
  let policy: Json | null = null;
  if (b.deployment_branch_policy) {
    const p = b.deployment_branch_policy as Json;
    if (typeof p.protected_branches !== 'boolean' || typeof p.custom_branch_policies !== 'boolean' || p.protected_branches === p.custom_branch_policies) {
      throw new GitHubError(422, 'Invalid request.\n\nExactly one of "protected_branches" and "custom_branch_policies" must be true.');
    }
    policy = { protected_branches: p.protected_branches, custom_branch_policies: p.custom_branch_policies };
    rule('branch_policy', {});
  }
  e.protection_rules = rules;
  e.deployment_branch_policy = policy;
  e.updated_at = now(ctx);
  ctx.store.put(ENVIRONMENT, environmentKey(repo, name), e);
  return e;
}

export function deleteEnvironment(ctx: TwinContext, repo: Json, name: string): void {
  requireEnvironment(ctx, repo, name);
  ctx.store.delete(ENVIRONMENT, environmentKey(repo, name));
}

// ---- deployments ---------------------------------------------------------------------------

function deploymentKey(repo: Json, id: number): string {
  return childKey(repo, pad(id));
}

function statusKey(repo: Json, deploymentId: number, id: number): string {
  return childKey(repo, `${pad(deploymentId)}:${pad(id)}`);
}

/** Newest first, as GitHub lists them. */
export function listDeployments(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store
    .listByPrefix<Json>(DEPLOYMENT, childKey(repo, ''))
    .map((r) => r.body)
    .reverse();
}

export function requireDeployment(ctx: TwinContext, repo: Json, id: number): Json {
  const d = ctx.store.get<Json>(DEPLOYMENT, deploymentKey(repo, id));
  if (!d) throw notFound();
  return d;
}

/** A deployment's statuses, newest first. */
export function listDeploymentStatuses(ctx: TwinContext, repo: Json, d: Json): Json[] {
  return ctx.store
    .listByPrefix<Json>(DEPLOYMENT_STATUS, childKey(repo, `${pad(d.id)}:`))
    .map((r) => r.body)
    .reverse();
}

export function requireDeploymentStatus(ctx: TwinContext, repo: Json, d: Json, id: number): Json {
  const s = ctx.store.get<Json>(DEPLOYMENT_STATUS, statusKey(repo, d.id, id));
  if (!s) throw notFound();
  return s;
}

export interface DeploymentInput {
  ref: string;
  task?: string;
  auto_merge?: boolean;
  required_contexts?: string[];
  payload?: unknown;
  environment?: string;
  description?: string | null;
  transient_environment?: boolean;
  production_environment?: boolean;
}

/** The latest state of each commit status context and check run name on `sha`. */
function contextStates(ctx: TwinContext, repo: Json, sha: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of latestStatuses(ctx, repo, sha)) out.set(s.context, s.state);
  for (const r of checkRunsFor(ctx, repo, sha)) {
    out.set(r.name, r.status !== 'completed' ? 'pending' : ['success', 'neutral', 'skipped'].includes(r.conclusion) ? 'success' : r.conclusion);
  }
  return out;
}

export type DeploymentOutcome = { deployment: Json } | { merged: string };

/** `POST …/deployments`: a deployment, or (auto_merge) the merge GitHub made instead. */
export function createDeployment(ctx: TwinContext, repo: Json, input: DeploymentInput): DeploymentOutcome {
  let sha = resolveCommitish(ctx, repo, input.ref);
  if (!sha) throw new GitHubError(422, `No ref found for: ${input.ref}`);
  const branch = branchHead(ctx, repo, input.ref) ? input.ref : undefined;
  if ((input.auto_merge ?? true) && branch && branch !== repo.default_branch) {
    const main = branchHead(ctx, repo, repo.default_branch);
    if (main && !ancestors(ctx, repo, sha).has(main)) {
      try {
        mergeIntoBranch(ctx, repo, {
          base: branch,
          head: repo.default_branch,
          commit_message: `Auto-merged ${repo.default_branch} into ${branch} on deployment.`,
        });
      } catch (e) {
        if (e instanceof GitHubError && e.status === 409) throw new GitHubError(409, `Conflict merging ${repo.default_branch} into ${branch}.`);
        throw e;
      }
      return { merged: `Auto-merged ${repo.default_branch} into ${branch} on deployment.` };
    }
  }
  const states = contextStates(ctx, repo, sha);
  const required = input.required_contexts ?? [...states.keys()];
  const failing = required.map((context) => ({ context, state: states.get(context) ?? 'missing' })).filter((c) => c.state !== 'success');
  if (failing.length) {
    throw new GitHubError(409, `Conflict: Commit status checks failed for ${input.ref}.`, {
      errors: [{ contexts: failing, resource: 'Deployment', field: 'required_contexts', code: 'invalid' } as never],
    });
  }
  sha = sha!;
  const environment = input.environment ?? 'production';
  ensureEnvironment(ctx, repo, environment);
  const id = nextId(ctx, 'deployment');
  const at = now(ctx);
  const url = `${API}/repos/${repo.full_name}/deployments/${id}`;
  const d: Json = {
    url,
    id,
    node_id: nodeId('Deployment', id),
    sha,
    ref: input.ref,
    task: input.task ?? 'deploy',
    payload: input.payload ?? {},
    original_environment: environment,
    environment,
    description: input.description ?? null,
    creator: simpleAccount(viewer(ctx)),
    created_at: at,
    updated_at: at,
    statuses_url: `${url}/statuses`,
    repository_url: `${API}/repos/${repo.full_name}`,
    transient_environment: input.transient_environment ?? false,
    production_environment: input.production_environment ?? environment === 'production',
    performed_via_github_app: null,
  };
  ctx.store.put(DEPLOYMENT, deploymentKey(repo, id), d);
  emitEvent(ctx, repo, 'deployment', { action: 'created', deployment: d });
  return { deployment: d };
}

/** Whether a deployment is active: its latest status is a success. */
function isActive(ctx: TwinContext, repo: Json, d: Json): boolean {
  return listDeploymentStatuses(ctx, repo, d)[0]?.state === 'success';
}

/** `DELETE …/deployments/{id}`: only an inactive one, or the environment's only deployment. */
export function deleteDeployment(ctx: TwinContext, repo: Json, d: Json): void {
  const sameEnv = listDeployments(ctx, repo).filter((x) => x.environment === d.environment);
  if (isActive(ctx, repo, d) && sameEnv.length > 1) {
    throw new GitHubError(422, 'We cannot delete an active deployment unless it is the only deployment in a given environment.');
  }
  for (const s of listDeploymentStatuses(ctx, repo, d)) ctx.store.delete(DEPLOYMENT_STATUS, statusKey(repo, d.id, s.id));
  ctx.store.delete(DEPLOYMENT, deploymentKey(repo, d.id));
}

export interface DeploymentStatusInput {
  state: DeploymentState;
  target_url?: string;
  log_url?: string;
  description?: string;
  environment?: string;
  environment_url?: string;
  auto_inactive?: boolean;
}

function addStatus(ctx: TwinContext, repo: Json, d: Json, input: DeploymentStatusInput): Json {
  const id = nextId(ctx, 'deployment_status');
  const at = now(ctx);
  const s: Json = {
    url: `${d.url}/statuses/${id}`,
    id,
    node_id: nodeId('DeploymentStatus', id),
    state: input.state,
    creator: simpleAccount(viewer(ctx)),
    description: input.description ?? '',
    environment: d.environment,
    target_url: input.target_url ?? input.log_url ?? '',
    created_at: at,
    updated_at: at,
    deployment_url: d.url,
    repository_url: d.repository_url,
    environment_url: input.environment_url ?? '',
    log_url: input.log_url ?? input.target_url ?? '',
    performed_via_github_app: null,
  };
  ctx.store.put(DEPLOYMENT_STATUS, statusKey(repo, d.id, id), s);
  d.updated_at = at;
  ctx.store.put(DEPLOYMENT, deploymentKey(repo, d.id), d);
  emitEvent(ctx, repo, 'deployment_status', { action: 'created', deployment_status: s, deployment: d });
  return s;
}

/** `POST …/deployments/{id}/statuses` (a new `environment` moves the deployment there). */
export function createDeploymentStatus(ctx: TwinContext, repo: Json, d: Json, input: DeploymentStatusInput): Json {
  if ((input.description ?? '').length > 140) {
    throw validationFailed({
      resource: 'DeploymentStatus',
      field: 'description',
      code: 'custom',
      message: 'description is too long (maximum is 140 characters)',
    } as never);
  }
  if (input.environment && input.environment !== d.environment) {
    ensureEnvironment(ctx, repo, input.environment);
    d.environment = input.environment;
  }
  const s = addStatus(ctx, repo, d, input);
  if (input.state === 'success' && (input.auto_inactive ?? true)) {
    for (const other of listDeployments(ctx, repo)) {
      if (other.id === d.id || other.environment !== d.environment || other.transient_environment || other.production_environment) continue;
      if (isActive(ctx, repo, other)) addStatus(ctx, repo, other, { state: 'inactive', description: '' });
    }
  }
  return s;
}

/** GraphQL's `DeploymentState` of a deployment. */
export function deploymentState(ctx: TwinContext, repo: Json, d: Json): string {
  const latest = listDeploymentStatuses(ctx, repo, d)[0];
  if (!latest) return 'PENDING';
  return latest.state === 'success' ? 'ACTIVE' : latest.state.toUpperCase();
}
