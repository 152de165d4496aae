// GitHub Actions: workflows, runs, jobs, logs (a 302 to a short-lived zip or text URL, as GitHub
// serves them), dispatch and re-run.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { notFound } from '../wire/errors.js';
import type { Json } from '../model/accounts.js';
import { requireRepository } from '../model/repositories.js';
import {
  dispatchWorkflow,
  jobsOf,
  listRuns,
  listWorkflows,
  presentJob,
  requireJob,
  requireRun,
  requireWorkflow,
  rerun,
  runLogFiles,
} from '../model/actions.js';
import { jsonBody, numberParam, page, queryString, repoOf, requiredString, routes } from '../wire/http.js';
import { checkSignature, signedUrl } from '../wire/signed-urls.js';
import { loadOnce } from '../../../twin-runtime/load-once.js';

/** archiver, loaded on the first log download (it is ~190 ms of a twin's start otherwise). */
const loadArchiver = loadOnce(() => import('archiver'));

async function zip(files: { name: string; text: string }[]): Promise<Buffer> {
  const { ZipArchive } = await loadArchiver();
  return new Promise((resolve, reject) => {
    const archive = new ZipArchive({ zlib: { level: 6 } });
    const chunks: Buffer[] = [];
    archive.on('data', (c: Buffer) => chunks.push(c));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
    for (const f of files) archive.append(f.text, { name: f.name, date: new Date(0) });
    void archive.finalize();
  });
}

function runOf(req: TwinRequest, ctx: TwinContext): { repo: Json; run: Json } {
  const repo = repoOf(req, ctx);
  return { repo, run: requireRun(ctx, repo, numberParam(req, 'run_id')) };
}

function filterRuns(req: TwinRequest, runs: Json[]): Json[] {
  let out = runs;
  const branch = queryString(req, 'branch');
  const event = queryString(req, 'event');
  const status = queryString(req, 'status');
  const sha = queryString(req, 'head_sha');
  if (branch) out = out.filter((r) => r.head_branch === branch);
  if (event) out = out.filter((r) => r.event === event);
  if (sha) out = out.filter((r) => r.head_sha === sha);
  if (status) out = out.filter((r) => r.status === status || r.conclusion === status);
  return out;
}

export const actionRoutes: TwinRoute[] = [
  ...routes('GET', '/repos/{owner}/{repo}/actions/workflows', (req, ctx) => {
    const list = listWorkflows(ctx, repoOf(req, ctx));
    return page(req, ctx, list, (workflows) => ({ total_count: list.length, workflows }));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}', (req, ctx) => ({
    body: requireWorkflow(ctx, repoOf(req, ctx), req.params.workflow_id!),
  })),
  ...routes('POST', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const wf = requireWorkflow(ctx, repo, req.params.workflow_id!);
    dispatchWorkflow(ctx, repo, wf, requiredString(jsonBody(req), 'ref'));
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const wf = requireWorkflow(ctx, repo, req.params.workflow_id!);
    const list = filterRuns(
      req,
      listRuns(ctx, repo).filter((r) => r.workflow_id === wf.id),
    );
    return page(req, ctx, list, (workflow_runs) => ({ total_count: list.length, workflow_runs }));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/actions/runs', (req, ctx) => {
    const list = filterRuns(req, listRuns(ctx, repoOf(req, ctx)));
    return page(req, ctx, list, (workflow_runs) => ({ total_count: list.length, workflow_runs }));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}', (req, ctx) => ({ body: runOf(req, ctx).run })),
  ...routes('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs', (req, ctx) => {
    const { repo, run } = runOf(req, ctx);
    const all = queryString(req, 'filter') === 'all';
    const list = jobsOf(ctx, repo, run, all ? undefined : run.run_attempt).map(presentJob);
    return page(req, ctx, list, (jobs) => ({ total_count: list.length, jobs }));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs', (req, ctx) => {
    const { repo, run } = runOf(req, ctx);
    const list = jobsOf(ctx, repo, run, numberParam(req, 'attempt_number')).map(presentJob);
    return page(req, ctx, list, (jobs) => ({ total_count: list.length, jobs }));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/actions/jobs/{job_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { body: presentJob(requireJob(ctx, repo, numberParam(req, 'job_id'))) };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun', (req, ctx) => {
    const { repo, run } = runOf(req, ctx);
    rerun(ctx, repo, run);
    return { status: 201, body: {} };
  }),
  ...routes('POST', '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs', (req, ctx) => {
    const { repo, run } = runOf(req, ctx);
    rerun(ctx, repo, run);
    return { status: 201, body: {} };
  }),
  // Logs: a 302 to a signed download URL, as GitHub answers.
  ...routes('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/logs', (req, ctx) => {
    const { repo, run } = runOf(req, ctx);
    return { status: 302, headers: { location: signedUrl(ctx, `/_twin-logs/${repo.full_name}/runs/${run.id}/${run.run_attempt}.zip`) } };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/actions/jobs/{job_id}/logs', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const job = requireJob(ctx, repo, numberParam(req, 'job_id'));
    return { status: 302, headers: { location: signedUrl(ctx, `/_twin-logs/${repo.full_name}/jobs/${job.id}.txt`) } };
  }),
  {
    method: 'GET',
    path: '/_twin-logs/{owner}/{repo}/runs/{run_id}/{attempt}',
    public: true,
    unmetered: true,
    handler: async (req, ctx) => {
      checkSignature(req, ctx);
      const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
      const run = requireRun(ctx, repo, numberParam(req, 'run_id'));
      const attempt = Number(/^(\d+)\.zip$/.exec(req.params.attempt!)?.[1]);
      if (!attempt || attempt > run.run_attempt) throw notFound();
      const body = await zip(runLogFiles(ctx, repo, { ...run, run_attempt: attempt }));
      return { status: 200, headers: { 'content-type': 'application/zip', 'content-disposition': `attachment; filename=logs_${run.id}.zip` }, body };
    },
  },
  {
    method: 'GET',
    path: '/_twin-logs/{owner}/{repo}/jobs/{job}',
    public: true,
    unmetered: true,
    handler: (req, ctx) => {
      checkSignature(req, ctx);
      const repo = requireRepository(ctx, req.params.owner!, req.params.repo!);
      const id = Number(/^(\d+)\.txt$/.exec(req.params.job!)?.[1]);
      if (!id) throw notFound();
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: String(requireJob(ctx, repo, id).log) };
    },
  },
];
