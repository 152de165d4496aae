// GitHub Actions as a twin runs it: workflows are the `.github/workflows/*.yml|yaml` files of the
// repository; a `push`, a `pull_request` (opened, synchronize, reopened) or a `workflow_dispatch`
// creates a run for every workflow whose `on:` matches, with one job per `jobs:` entry and one step
// per `steps:` entry. Nothing is executed: a run's outcome and log text come from the twin-only
// `actions_outcome` record (see README "Actions"), default success. Runs report through a check
// suite of the GitHub Actions app and one check run per job, so statusCheckRollup and `gh pr
// checks` see them.

import { createRequire } from 'node:module';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, WEB, nextId, nodeId, now } from './identity.js';
import { GitHubError, notFound } from '../wire/errors.js';
import { type Json, simpleAccount, viewer } from './accounts.js';
import { childKey } from './repositories.js';
import { branchHead, commitFiles, getCommit, readBlob } from './git.js';
import { ACTIONS_APP, createCheckRun, createSuite, getSuite } from './checks.js';
import { emitEvent } from './webhooks.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';

const WORKFLOW_DIR = '.github/workflows/';
/** A workflow file larger than this is listed but not parsed (GitHub's limit is 512 KB). */
const MAX_WORKFLOW_BYTES = 512 * 1024;
/** Jobs and steps a run models at most (GitHub allows 256 jobs per workflow). */
const MAX_JOBS = 256;
const MAX_STEPS = 1000;

export const RUN_CONCLUSIONS = ['success', 'failure', 'cancelled', 'neutral', 'skipped', 'timed_out', 'action_required'] as const;

interface ParsedWorkflow {
  name: string;
  on: Record<string, Json | null>;
  jobs: { key: string; name: string; runsOn: string[]; steps: string[] }[];
}

// ---- reading workflow files -----------------------------------------------------------------

function asList(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/** The `on:` of a workflow as a map of event → filter (null when the event has no filter). */
function triggers(on: unknown): Record<string, Json | null> {
  const out: Record<string, Json | null> = {};
  if (typeof on === 'string') out[on] = null;
  else if (Array.isArray(on)) for (const e of asList(on)) out[e] = null;
  else if (on && typeof on === 'object') {
    for (const [k, v] of Object.entries(on)) out[k] = v && typeof v === 'object' ? (v as Json) : null;
  }
  return out;
}

/** The yaml package, loaded with the first workflow file read (not at the twin's start). */
const require = createRequire(import.meta.url);
const yaml = loadOnce(() => require('yaml') as typeof import('yaml'));

function parseWorkflow(path: string, text: string): ParsedWorkflow | undefined {
  if (text.length > MAX_WORKFLOW_BYTES) return undefined;
  let doc: unknown;
  try {
    doc = yaml().parse(text, { maxAliasCount: 100 });
  } catch {
    return undefined;
  }
  if (!doc || typeof doc !== 'object') return undefined;
  const d = doc as Json;
  const jobs: ParsedWorkflow['jobs'] = [];
  if (d.jobs && typeof d.jobs === 'object') {
    for (const [key, job] of Object.entries(d.jobs as Json).slice(0, MAX_JOBS)) {
      const j = (job && typeof job === 'object' ? job : {}) as Json;
      const steps = (Array.isArray(j.steps) ? j.steps : []).slice(0, MAX_STEPS).map((s: unknown, i: number) => {
        const st = (s && typeof s === 'object' ? s : {}) as Json;
        if (typeof st.name === 'string') return st.name;
        if (typeof st.uses === 'string') return `Run ${st.uses}`;
        if (typeof st.run === 'string') return `Run ${st.run.split('\n')[0]}`;
        return `Step ${i + 1}`;
      });
      jobs.push({ key, name: typeof j.name === 'string' ? j.name : key, runsOn: asList(j['runs-on']), steps });
    }
  }
  return { name: typeof d.name === 'string' ? d.name : path, on: triggers(d.on ?? d.true), jobs };
}

/** The workflow files of a commit: path → parsed (undefined when the file does not parse). */
function workflowFiles(ctx: TwinContext, repo: Json, sha: string | undefined): Map<string, ParsedWorkflow | undefined> {
  const out = new Map<string, ParsedWorkflow | undefined>();
  for (const [path, blob] of commitFiles(ctx, repo, sha)) {
    if (!path.startsWith(WORKFLOW_DIR) || !/\.ya?ml$/.test(path) || path.slice(WORKFLOW_DIR.length).includes('/')) continue;
    out.set(path, parseWorkflow(path, readBlob(ctx, repo, blob).toString('utf8')));
  }
  return out;
}

function workflowKey(repo: Json, path: string): string {
  return childKey(repo, `workflow:${path}`);
}

/** The workflow record of a file (created the first time the twin sees the file). */
function workflowRecord(ctx: TwinContext, repo: Json, path: string, parsed: ParsedWorkflow | undefined): Json {
  const existing = ctx.store.get<Json>('workflow', workflowKey(repo, path));
  const name = parsed?.name ?? path;
  if (existing) {
    if (existing.name !== name) {
      existing.name = name;
      existing.updated_at = now(ctx);
      ctx.store.put('workflow', workflowKey(repo, path), existing);
    }
    return existing;
  }
  const id = nextId(ctx, 'workflow');
  const at = now(ctx);
  const wf: Json = {
    id,
    node_id: nodeId('Workflow', id),
    name,
    path,
    state: 'active',
    created_at: at,
    updated_at: at,
    url: `${API}/repos/${repo.full_name}/actions/workflows/${id}`,
    html_url: `${WEB}/${repo.full_name}/blob/${repo.default_branch}/${path}`,
    badge_url: `${WEB}/${repo.full_name}/workflows/${encodeURIComponent(name)}/badge.svg`,
  };
  ctx.store.put('workflow', workflowKey(repo, path), wf);
  return wf;
}

/** Workflows of the default branch (plus every one the twin has seen run), oldest first. */
export function listWorkflows(ctx: TwinContext, repo: Json): Json[] {
  for (const [path, parsed] of workflowFiles(ctx, repo, branchHead(ctx, repo, repo.default_branch))) workflowRecord(ctx, repo, path, parsed);
  return ctx.store
    .listByPrefix<Json>('workflow', childKey(repo, 'workflow:'))
    .map((r) => r.body)
    .sort((a, b) => a.id - b.id);
}

/** A workflow by numeric id or by file name (`ci.yml`), as the REST API accepts either. */
export function requireWorkflow(ctx: TwinContext, repo: Json, idOrFile: string): Json {
  const wf = listWorkflows(ctx, repo).find((w) => String(w.id) === idOrFile || w.path === `${WORKFLOW_DIR}${idOrFile}` || w.path === idOrFile);
  if (!wf) throw notFound();
  return wf;
}

// ---- filters -------------------------------------------------------------------------------

/** GitHub's filter patterns: `*` within a segment, `**` across, `?`, a leading `!` negates. */
function globMatches(pattern: string, value: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '.';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`).test(value);
}

function passes(filter: Json | null, key: string, value: string): boolean {
  if (!filter) return true;
  const include = asList(filter[key]);
  const exclude = asList(filter[`${key}-ignore`]);
  if (include.length) {
    let ok = false;
    for (const p of include) ok = p.startsWith('!') ? ok && !globMatches(p.slice(1), value) : ok || globMatches(p, value);
    return ok;
  }
  if (exclude.length) return !exclude.some((p) => globMatches(p, value));
  return true;
}

// ---- outcomes set through the twin -----------------------------------------------------------

export interface Outcome {
  conclusion: string;
  /** The job that ends with `conclusion` (default: every job). */
  job?: string;
  /** The step of that job that ends with it (default: its last step). */
  step?: string;
  /** Log text of the failing step. */
  log?: string;
}

/**
 * The twin-only `actions_outcome` record decides how runs end: key `<owner>/<repo>:<workflow file>`
 * (e.g. `octocat/app:ci.yml`) for one workflow, or `<owner>/<repo>` for all; body
 * `{conclusion, job?, step?, log?}`. Without one every run succeeds.
 */
function outcomeFor(ctx: TwinContext, repo: Json, path: string): Outcome {
  const base = repo.full_name.toLowerCase();
  const file = path.slice(WORKFLOW_DIR.length);
  const rec = ctx.store.get<Json>('actions_outcome', `${base}:${file}`) ?? ctx.store.get<Json>('actions_outcome', base);
  const conclusion = typeof rec?.conclusion === 'string' && (RUN_CONCLUSIONS as readonly string[]).includes(rec.conclusion) ? rec.conclusion : 'success';
  return {
    conclusion,
    job: typeof rec?.job === 'string' ? rec.job : undefined,
    step: typeof rec?.step === 'string' ? rec.step : undefined,
    log: typeof rec?.log === 'string' ? rec.log : undefined,
  };
}

// ---- runs ----------------------------------------------------------------------------------

function runKey(repo: Json, id: number): string {
  return childKey(repo, `workflow_run:${String(id).padStart(12, '0')}`);
}

function jobKey(repo: Json, id: number): string {
  return childKey(repo, `workflow_job:${String(id).padStart(12, '0')}`);
}

export function getRun(ctx: TwinContext, repo: Json, id: number): Json | undefined {
  return ctx.store.get<Json>('workflow_run', runKey(repo, id));
}

export function requireRun(ctx: TwinContext, repo: Json, id: number): Json {
  const r = getRun(ctx, repo, id);
  if (!r) throw notFound();
  return r;
}

/** Runs of the repository, newest first. */
export function listRuns(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store
    .listByPrefix<Json>('workflow_run', childKey(repo, 'workflow_run:'))
    .map((r) => r.body)
    .reverse();
}

export function jobsOf(ctx: TwinContext, repo: Json, run: Json, attempt?: number): Json[] {
  return ctx.store
    .listByPrefix<Json>('workflow_job', childKey(repo, 'workflow_job:'))
    .map((r) => r.body)
    .filter((j) => j.run_id === run.id && (attempt === undefined || j.run_attempt === attempt));
}

export function requireJob(ctx: TwinContext, repo: Json, id: number): Json {
  const j = ctx.store.get<Json>('workflow_job', jobKey(repo, id));
  if (!j) throw notFound();
  return j;
}

/** A job as answered (its log is served by the logs endpoints). */
export function presentJob(job: Json): Json {
  const { log: _log, ...rest } = job;
  return rest;
}

function timestampLine(at: string, text: string): string {
  return `${at.replace('Z', '.0000000Z')} ${text}`;
}

interface Trigger {
  event: 'push' | 'pull_request' | 'workflow_dispatch';
  sha: string;
  branch: string;
  title: string;
  pullRequests: Json[];
}

/** Create the jobs, check runs and logs of one attempt of a run, all settled at once. */
function runAttempt(ctx: TwinContext, repo: Json, run: Json, parsed: ParsedWorkflow | undefined): void {
  const outcome = outcomeFor(ctx, repo, run.path);
  const at = now(ctx);
  const suite = getSuite(ctx, repo, run.check_suite_id)!;
  const jobs = parsed?.jobs.length ? parsed.jobs : [{ key: 'build', name: 'build', runsOn: ['ubuntu-latest'], steps: [] }];
  const conclusions: string[] = [];
  for (const spec of jobs) {
    const failing = outcome.conclusion !== 'success' && (!outcome.job || outcome.job === spec.name || outcome.job === spec.key);
    const conclusion = failing ? outcome.conclusion : 'success';
    conclusions.push(conclusion);
    const names = ['Set up job', ...spec.steps, 'Complete job'];
    const failAt = failing ? Math.max(1, outcome.step ? names.indexOf(outcome.step) : names.length - 2) : -1;
    const steps = names.map((name, i) => {
      const skipped = failAt >= 1 && i > failAt && i < names.length - 1;
      const stepConclusion = i === failAt ? conclusion : skipped ? 'skipped' : 'success';
      return { name, status: 'completed', conclusion: stepConclusion, number: i + 1, started_at: at, completed_at: at };
    });
    const lines: string[] = [];
    for (const s of steps) {
      if (s.conclusion === 'skipped') continue;
      lines.push(timestampLine(at, `##[group]${s.name}`));
      if (s.number - 1 === failAt) {
        for (const l of (outcome.log ?? `Error: Process completed with exit code 1.`).split('\n')) lines.push(timestampLine(at, l));
        lines.push(timestampLine(at, `##[error]Process completed with exit code 1.`));
      }
      lines.push(timestampLine(at, '##[endgroup]'));
    }
    const check = createCheckRun(ctx, repo, {
      name: spec.name,
      head_sha: run.head_sha,
      status: 'completed',
      conclusion,
      details_url: `${WEB}/${repo.full_name}/actions/runs/${run.id}/job/0`,
      suite,
      app: ACTIONS_APP,
      output:
        conclusion === 'success'
          ? { title: null, summary: null as never, text: null }
          : { title: `${spec.name}`, summary: outcome.log?.split('\n')[0] ?? 'Process completed with exit code 1.', text: null },
    });
    const id = check.id as number; // GitHub gives a job the id of its check run
    check.details_url = `${WEB}/${repo.full_name}/actions/runs/${run.id}/job/${id}`;
    ctx.store.put('check_run', childKey(repo, `run:${String(id).padStart(12, '0')}`), check);
    const job: Json = {
      id,
      run_id: run.id,
      workflow_name: run.name,
      head_branch: run.head_branch,
      run_url: run.url,
      run_attempt: run.run_attempt,
      node_id: nodeId('WorkflowJob', id),
      head_sha: run.head_sha,
      url: `${API}/repos/${repo.full_name}/actions/jobs/${id}`,
      html_url: `${WEB}/${repo.full_name}/actions/runs/${run.id}/job/${id}`,
      status: 'completed',
      conclusion,
      created_at: at,
      started_at: at,
      completed_at: at,
      name: spec.name,
      steps,
      check_run_url: `${API}/repos/${repo.full_name}/check-runs/${id}`,
      labels: spec.runsOn,
      runner_id: 1,
      runner_name: 'GitHub Actions 1',
      runner_group_id: 1,
      runner_group_name: 'GitHub Actions',
      log: lines.join('\n') + '\n',
    };
    ctx.store.put('workflow_job', jobKey(repo, id), job);
    emitEvent(ctx, repo, 'workflow_job', { action: 'completed', workflow_job: presentJob(job) });
  }
  const worst = conclusions.find((c) => c !== 'success') ?? 'success';
  run.status = 'completed';
  run.conclusion = worst;
  run.updated_at = at;
  run.run_started_at = at;
  ctx.store.put('workflow_run', runKey(repo, run.id), run);
  emitEvent(ctx, repo, 'workflow_run', { action: 'completed', workflow_run: run, workflow: workflowRecord(ctx, repo, run.path, parsed) });
}

function createRun(ctx: TwinContext, repo: Json, path: string, parsed: ParsedWorkflow | undefined, trigger: Trigger): Json {
  const wf = workflowRecord(ctx, repo, path, parsed);
  const id = nextId(ctx, 'workflow_run');
  const at = now(ctx);
  const number = ctx.ids.sequence(`github:run_number:${repo.id}:${wf.id}`);
  const suite = createSuite(ctx, repo, trigger.sha, ACTIONS_APP, trigger.branch, true);
  const commit = getCommit(ctx, repo, trigger.sha);
  const me = simpleAccount(viewer(ctx));
  const url = `${API}/repos/${repo.full_name}/actions/runs/${id}`;
  const run: Json = {
    id,
    name: wf.name,
    node_id: nodeId('WorkflowRun', id),
    head_branch: trigger.branch,
    head_sha: trigger.sha,
    path,
    display_title: trigger.title,
    run_number: number,
    event: trigger.event,
    status: 'queued',
    conclusion: null,
    workflow_id: wf.id,
    check_suite_id: suite.id,
    check_suite_node_id: suite.node_id,
    url,
    html_url: `${WEB}/${repo.full_name}/actions/runs/${id}`,
    pull_requests: trigger.pullRequests,
    created_at: at,
    updated_at: at,
    actor: me,
    run_attempt: 1,
    referenced_workflows: [],
    run_started_at: at,
    triggering_actor: me,
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${API}/repos/${repo.full_name}/check-suites/${suite.id}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    previous_attempt_url: null,
    workflow_url: wf.url,
    head_commit: commit
      ? {
          id: commit.sha,
          tree_id: commit.tree.sha,
          message: commit.message,
          timestamp: commit.committer.date,
          author: { name: commit.author.name, email: commit.author.email },
          committer: { name: commit.committer.name, email: commit.committer.email },
        }
      : null,
    repository: {
      id: repo.id,
      node_id: repo.node_id,
      name: repo.name,
      full_name: repo.full_name,
      private: repo.private,
      owner: repo.owner,
      html_url: repo.html_url,
      url: repo.url,
    },
    head_repository: {
      id: repo.id,
      node_id: repo.node_id,
      name: repo.name,
      full_name: repo.full_name,
      private: repo.private,
      owner: repo.owner,
      html_url: repo.html_url,
      url: repo.url,
    },
  };
  ctx.store.put('workflow_run', runKey(repo, id), run);
  emitEvent(ctx, repo, 'workflow_run', { action: 'requested', workflow_run: run, workflow: wf });
  runAttempt(ctx, repo, run, parsed);
  return getRun(ctx, repo, id)!;
}

function headline(message: string | undefined): string {
  return (message ?? '').split('\n')[0] ?? '';
}

/**
 * Runs for a repository event: the webhook layer calls this for every event it emits, so a push
 * from any source (contents API, refs API, merges, git push) and a pull request opened or updated
 * start the workflows that listen for it. Other events are ignored.
 */
export function triggerActions(ctx: TwinContext, repo: Json, event: string, payload: Json): void {
  if (event === 'push') {
    const ref = String(payload.ref ?? '');
    if (!ref.startsWith('refs/heads/') || payload.deleted || /^0+$/.test(String(payload.after ?? '0'))) return;
    const branch = ref.slice('refs/heads/'.length);
    const sha = String(payload.after);
    for (const [path, parsed] of workflowFiles(ctx, repo, sha)) {
      if (!parsed || !('push' in parsed.on)) continue;
      const filter = parsed.on.push ?? null;
      if (filter && (filter.tags || filter['tags-ignore']) && !filter.branches && !filter['branches-ignore']) continue;
      if (!passes(filter, 'branches', branch)) continue;
      createRun(ctx, repo, path, parsed, { event: 'push', sha, branch, title: headline(getCommit(ctx, repo, sha)?.message), pullRequests: [] });
    }
    return;
  }
  if (event === 'pull_request' && ['opened', 'synchronize', 'reopened'].includes(String(payload.action))) {
    const pr = payload.pull_request as Json;
    const sha = pr.head.sha as string;
    for (const [path, parsed] of workflowFiles(ctx, repo, sha)) {
      if (!parsed || !('pull_request' in parsed.on)) continue;
      const filter = parsed.on.pull_request ?? null;
      const types = filter ? asList(filter.types) : [];
      if (types.length ? !types.includes(String(payload.action)) : false) continue;
      if (!passes(filter, 'branches', pr.base.ref)) continue;
      createRun(ctx, repo, path, parsed, {
        event: 'pull_request',
        sha,
        branch: pr.head.ref,
        title: pr.title,
        pullRequests: [{ url: pr.url, id: pr.id, number: pr.number, head: { ref: pr.head.ref, sha }, base: { ref: pr.base.ref, sha: pr.base.sha } }],
      });
    }
  }
}

/** `POST …/actions/workflows/{id}/dispatches`: a run of the workflow as the ref has it. */
export function dispatchWorkflow(ctx: TwinContext, repo: Json, wf: Json, ref: string): Json {
  const branch = ref.replace(/^refs\/heads\//, '');
  const sha = branchHead(ctx, repo, branch);
  if (!sha) throw new GitHubError(422, `No ref found for: ${ref}`);
  const parsed = workflowFiles(ctx, repo, sha).get(wf.path);
  if (!parsed) throw new GitHubError(404, 'Not Found');
  if (!('workflow_dispatch' in parsed.on)) throw new GitHubError(422, "Workflow does not have 'workflow_dispatch' trigger");
  return createRun(ctx, repo, wf.path, parsed, { event: 'workflow_dispatch', sha, branch, title: parsed.name, pullRequests: [] });
}

/** `POST …/runs/{id}/rerun` (every job) and `…/rerun-failed-jobs`: a new attempt, outcome read afresh. */
export function rerun(ctx: TwinContext, repo: Json, run: Json): Json {
  if (run.status !== 'completed') throw new GitHubError(403, 'This workflow is already running');
  const parsed = workflowFiles(ctx, repo, run.head_sha).get(run.path);
  run.run_attempt += 1;
  run.previous_attempt_url = `${run.url}/attempts/${run.run_attempt - 1}`;
  run.status = 'queued';
  run.conclusion = null;
  ctx.store.put('workflow_run', runKey(repo, run.id), run);
  runAttempt(ctx, repo, run, parsed);
  return getRun(ctx, repo, run.id)!;
}

/** The workflow run a check suite belongs to (GraphQL `CheckSuite.workflowRun`). */
export function runOfSuite(ctx: TwinContext, repo: Json, suiteId: number): Json | undefined {
  return listRuns(ctx, repo).find((r) => r.check_suite_id === suiteId);
}

export function workflowOfRun(ctx: TwinContext, repo: Json, run: Json): Json | undefined {
  return ctx.store.get<Json>('workflow', workflowKey(repo, run.path));
}

/** The log files of an attempt as GitHub's zip has them: `<n>_<job>.txt` and `<job>/<n>_<step>.txt`. */
export function runLogFiles(ctx: TwinContext, repo: Json, run: Json): { name: string; text: string }[] {
  const files: { name: string; text: string }[] = [];
  const safe = (s: string) => s.replace(/[\\/:*?"<>|]/g, '');
  jobsOf(ctx, repo, run, run.run_attempt).forEach((job, i) => {
    files.push({ name: `${i}_${safe(job.name)}.txt`, text: job.log });
    const groups = String(job.log).split(/(?=^\S+ ##\[group\])/m);
    for (const step of job.steps) {
      const text = groups.find((g) => g.includes(`##[group]${step.name}\n`)) ?? '';
      if (step.conclusion !== 'skipped') files.push({ name: `${safe(job.name)}/${step.number}_${safe(step.name)}.txt`, text });
    }
  });
  return files;
}
