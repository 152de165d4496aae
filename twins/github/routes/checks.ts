// Commit statuses, check runs and check suites: what CI reports about a commit.

import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError } from '../wire/errors.js';
import type { Json } from '../model/accounts.js';
import {
  CHECK_CONCLUSIONS,
  CHECK_STATUSES,
  STATUS_STATES,
  annotationsOf,
  checkRunsFor,
  combinedStatus,
  createCheckRun,
  createStatus,
  listCheckRuns,
  listStatuses,
  listSuites,
  presentCheckRun,
  presentSuite,
  requireCheckRun,
  requireSha,
  requireSuite,
  suiteFor,
  TWIN_APP,
  updateCheckRun,
  type CheckRunInput,
} from '../model/checks.js';
import { jsonBody, numberParam, optEnum, optString, page, queryString, repoOf, requiredString, routes } from '../wire/http.js';

function output(b: Json): CheckRunInput['output'] {
  const o = b.output;
  if (o === undefined || o === null) return undefined;
  if (typeof o !== 'object' || Array.isArray(o))
    throw new GitHubError(422, `Invalid request.\n\nFor 'properties/output', ${JSON.stringify(o)} is not an object.`);
  const annotations = (o as Json).annotations;
  if (annotations !== undefined && !Array.isArray(annotations))
    throw new GitHubError(422, `Invalid request.\n\nFor 'properties/annotations', ${JSON.stringify(annotations)} is not an array.`);
  return {
    title: optString(o as Json, 'title'),
    summary: optString(o as Json, 'summary', false) ?? undefined,
    text: optString(o as Json, 'text'),
    annotations: annotations as Json[] | undefined,
  };
}

function checkRunFields(b: Json): Partial<CheckRunInput> {
  return {
    details_url: optString(b, 'details_url'),
    external_id: optString(b, 'external_id'),
    status: optEnum(b, 'status', CHECK_STATUSES),
    conclusion: optEnum(b, 'conclusion', CHECK_CONCLUSIONS),
    started_at: optString(b, 'started_at'),
    completed_at: optString(b, 'completed_at'),
    output: output(b),
  };
}

function filterParam(req: TwinRequest): 'latest' | 'all' {
  return queryString(req, 'filter') === 'all' ? 'all' : 'latest';
}

export const checkRoutes: TwinRoute[] = [
  // ---- commit statuses ---------------------------------------------------------------------
  ...routes('POST', '/repos/{owner}/{repo}/statuses/{sha}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const state = optEnum(b, 'state', STATUS_STATES);
    if (!state) throw new GitHubError(422, 'Invalid request.\n\n"state" wasn\'t supplied.');
    const status = createStatus(ctx, repo, req.params.sha!, {
      state,
      target_url: optString(b, 'target_url'),
      description: optString(b, 'description'),
      context: optString(b, 'context', false) ?? undefined,
    });
    return { status: 201, body: status };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/commits/{ref}/statuses', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return page(req, ctx, listStatuses(ctx, repo, requireSha(ctx, repo, req.params.ref!)));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/commits/{ref}/status', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const combined = combinedStatus(ctx, repo, requireSha(ctx, repo, req.params.ref!));
    const paged = page(req, ctx, combined.statuses as Json[]);
    return { body: { ...combined, statuses: paged.body }, headers: paged.headers };
  }),

  // ---- check runs --------------------------------------------------------------------------
  ...routes('POST', '/repos/{owner}/{repo}/check-runs', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const run = createCheckRun(ctx, repo, { ...checkRunFields(b), name: requiredString(b, 'name'), head_sha: requiredString(b, 'head_sha') });
    return { status: 201, body: presentCheckRun(ctx, repo, run) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/check-runs/{check_run_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { body: presentCheckRun(ctx, repo, requireCheckRun(ctx, repo, numberParam(req, 'check_run_id'))) };
  }),
  ...routes('PATCH', '/repos/{owner}/{repo}/check-runs/{check_run_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const run = requireCheckRun(ctx, repo, numberParam(req, 'check_run_id'));
    const b = jsonBody(req);
    const name = optString(b, 'name', false) ?? undefined;
    return { body: presentCheckRun(ctx, repo, updateCheckRun(ctx, repo, run, { ...checkRunFields(b), ...(name ? { name } : {}) })) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return page(req, ctx, annotationsOf(requireCheckRun(ctx, repo, numberParam(req, 'check_run_id'))));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/commits/{ref}/check-runs', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const sha = requireSha(ctx, repo, req.params.ref!);
    let runs = checkRunsFor(ctx, repo, sha, filterParam(req));
    const name = queryString(req, 'check_name');
    const status = queryString(req, 'status');
    if (name) runs = runs.filter((r) => r.name === name);
    if (status) runs = runs.filter((r) => r.status === status);
    const list = runs.map((r) => presentCheckRun(ctx, repo, r));
    return page(req, ctx, list, (check_runs) => ({ total_count: list.length, check_runs }));
  }),

  // ---- check suites ------------------------------------------------------------------------
  ...routes('POST', '/repos/{owner}/{repo}/check-suites', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const sha = requireSha(ctx, repo, requiredString(jsonBody(req), 'head_sha'));
    const existing = listSuites(ctx, repo).some((s) => s.head_sha === sha && s.app.id === TWIN_APP.id && !s.workflow_run);
    return { status: existing ? 200 : 201, body: presentSuite(suiteFor(ctx, repo, sha, TWIN_APP)) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/check-suites/{check_suite_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { body: presentSuite(requireSuite(ctx, repo, numberParam(req, 'check_suite_id'))) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/check-suites/{check_suite_id}/check-runs', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const suite = requireSuite(ctx, repo, numberParam(req, 'check_suite_id'));
    const list = listCheckRuns(ctx, repo)
      .filter((r) => r.check_suite.id === suite.id)
      .reverse()
      .map((r) => presentCheckRun(ctx, repo, r));
    return page(req, ctx, list, (check_runs) => ({ total_count: list.length, check_runs }));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/commits/{ref}/check-suites', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const sha = requireSha(ctx, repo, req.params.ref!);
    const list = listSuites(ctx, repo)
      .filter((s) => s.head_sha === sha)
      .map(presentSuite);
    return page(req, ctx, list, (check_suites) => ({ total_count: list.length, check_suites }));
  }),
];
