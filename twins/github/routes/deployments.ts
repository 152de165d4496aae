// Deployments, deployment statuses and environments (the rules they carry are in model/deployments.ts).

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { invalidRequest } from '../wire/errors.js';
import type { Json } from '../model/accounts.js';
import {
  DEPLOYMENT_STATES,
  createDeployment,
  createDeploymentStatus,
  deleteDeployment,
  deleteEnvironment,
  listDeploymentStatuses,
  listDeployments,
  listEnvironments,
  putEnvironment,
  requireDeployment,
  requireDeploymentStatus,
  requireEnvironment,
} from '../model/deployments.js';
import { jsonBody, numberParam, optBool, optEnum, optString, optStringArray, page, queryString, repoOf, requiredString, routes } from '../wire/http.js';

function deploymentOf(req: TwinRequest, ctx: TwinContext): { repo: Json; deployment: Json } {
  const repo = repoOf(req, ctx);
  return { repo, deployment: requireDeployment(ctx, repo, numberParam(req, 'deployment_id')) };
}

export const deploymentRoutes: TwinRoute[] = [
  ...routes('GET', '/repos/{owner}/{repo}/deployments', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const filters: [string, string | undefined][] = ['sha', 'ref', 'task', 'environment'].map((k) => [k, queryString(req, k)]);
    const list = listDeployments(ctx, repo).filter((d) => filters.every(([k, v]) => v === undefined || d[k] === v));
    return page(req, ctx, list);
  }),
  ...routes('POST', '/repos/{owner}/{repo}/deployments', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    const payload = b.payload;
    if (payload !== undefined && payload !== null && typeof payload !== 'object' && typeof payload !== 'string') {
      throw invalidRequest(`For 'properties/payload', ${JSON.stringify(payload)} is not an object or a string.`);
    }
    const out = createDeployment(ctx, repo, {
      ref: requiredString(b, 'ref'),
      task: optString(b, 'task', false) ?? undefined,
      auto_merge: optBool(b, 'auto_merge'),
      required_contexts: optStringArray(b, 'required_contexts'),
      payload: payload ?? undefined,
      environment: optString(b, 'environment', false) ?? undefined,
      description: optString(b, 'description'),
      transient_environment: optBool(b, 'transient_environment'),
      production_environment: optBool(b, 'production_environment'),
    });
    if ('merged' in out) return { status: 202, body: { message: out.merged } };
    return { status: 201, body: out.deployment };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/deployments/{deployment_id}', (req, ctx) => ({ body: deploymentOf(req, ctx).deployment })),
  ...routes('DELETE', '/repos/{owner}/{repo}/deployments/{deployment_id}', (req, ctx) => {
    const { repo, deployment } = deploymentOf(req, ctx);
    deleteDeployment(ctx, repo, deployment);
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/deployments/{deployment_id}/statuses', (req, ctx) => {
    const { repo, deployment } = deploymentOf(req, ctx);
    return page(req, ctx, listDeploymentStatuses(ctx, repo, deployment));
  }),
  ...routes('POST', '/repos/{owner}/{repo}/deployments/{deployment_id}/statuses', (req, ctx) => {
    const { repo, deployment } = deploymentOf(req, ctx);
    const b = jsonBody(req);
    const state = optEnum(b, 'state', DEPLOYMENT_STATES);
    if (!state) throw invalidRequest('"state" wasn\'t supplied.');
    const status = createDeploymentStatus(ctx, repo, deployment, {
      state,
      target_url: optString(b, 'target_url', false) ?? undefined,
      log_url: optString(b, 'log_url', false) ?? undefined,
      description: optString(b, 'description', false) ?? undefined,
      environment: optString(b, 'environment', false) ?? undefined,
      environment_url: optString(b, 'environment_url', false) ?? undefined,
      auto_inactive: optBool(b, 'auto_inactive'),
    });
    return { status: 201, body: status };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/deployments/{deployment_id}/statuses/{status_id}', (req, ctx) => {
    const { repo, deployment } = deploymentOf(req, ctx);
    return { body: requireDeploymentStatus(ctx, repo, deployment, numberParam(req, 'status_id')) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/environments', (req, ctx) => {
    const list = listEnvironments(ctx, repoOf(req, ctx));
    return page(req, ctx, list, (environments) => ({ total_count: list.length, environments }));
  }),
  ...routes('GET', '/repos/{owner}/{repo}/environments/{environment_name}', (req, ctx) => ({
    body: requireEnvironment(ctx, repoOf(req, ctx), req.params.environment_name!),
  })),
  ...routes('PUT', '/repos/{owner}/{repo}/environments/{environment_name}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { body: putEnvironment(ctx, repo, req.params.environment_name!, req.rawBody.length ? jsonBody(req) : {}) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/environments/{environment_name}', (req, ctx) => {
    deleteEnvironment(ctx, repoOf(req, ctx), req.params.environment_name!);
    return { status: 204 };
  }),
];
