// A repository's labels and milestones.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { validationFailed } from '../wire/errors.js';
import { type Json, viewer } from '../model/accounts.js';
import {
  createLabel,
  createMilestone,
  deleteLabel,
  deleteMilestone,
  listLabels,
  listMilestones,
  requireLabel,
  requireMilestone,
  updateLabel,
  updateMilestone,
} from '../model/labels.js';
import { jsonBody, numberParam, optEnum, optString, page, queryString, repoOf, requiredString, routes } from '../wire/http.js';

export const labelRoutes: TwinRoute[] = [
  // ---- repository labels -------------------------------------------------------------------
  ...routes('GET', '/repos/{owner}/{repo}/labels', (req, ctx) => page(req, ctx, listLabels(ctx, repoOf(req, ctx)))),
  ...routes('POST', '/repos/{owner}/{repo}/labels', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    return { status: 201, body: createLabel(ctx, repo, { name: requiredString(b, 'name'), color: b.color, description: optString(b, 'description') }) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/labels/{name}', (req, ctx) => ({ body: requireLabel(ctx, repoOf(req, ctx), req.params.name!) })),
  ...routes('PATCH', '/repos/{owner}/{repo}/labels/{name}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    return {
      body: updateLabel(ctx, repo, req.params.name!, {
        new_name: optString(b, 'new_name', false) ?? undefined,
        color: b.color,
        description: optString(b, 'description'),
      }),
    };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/labels/{name}', (req, ctx) => {
    deleteLabel(ctx, repoOf(req, ctx), req.params.name!);
    return { status: 204 };
  }),

  // ---- milestones --------------------------------------------------------------------------
  ...routes('GET', '/repos/{owner}/{repo}/milestones', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const state = queryString(req, 'state') ?? 'open';
    const list = listMilestones(ctx, repo).filter((m) => state === 'all' || m.state === state);
    return page(req, ctx, list);
  }),
  ...routes('POST', '/repos/{owner}/{repo}/milestones', (req, ctx) => {
    const repo = repoOf(req, ctx);
    const b = jsonBody(req);
    return {
      status: 201,
      body: createMilestone(ctx, repo, viewer(ctx), {
        title: requiredString(b, 'title'),
        state: optEnum(b, 'state', ['open', 'closed'] as const),
        description: optString(b, 'description'),
        due_on: dueOn(b),
      }),
    };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/milestones/{milestone_number}', (req, ctx) => ({
    body: requireMilestone(ctx, repoOf(req, ctx), numberParam(req, 'milestone_number')),
  })),
  ...routes('PATCH', '/repos/{owner}/{repo}/milestones/{milestone_number}', (req, ctx) => {
    const b = jsonBody(req);
    const patch = {
      title: optString(b, 'title', false) ?? undefined,
      state: optEnum(b, 'state', ['open', 'closed'] as const),
      description: optString(b, 'description'),
      due_on: dueOn(b),
    };
    return { body: updateMilestone(ctx, repoOf(req, ctx), numberParam(req, 'milestone_number'), patch) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/milestones/{milestone_number}', (req, ctx) => {
    deleteMilestone(ctx, repoOf(req, ctx), numberParam(req, 'milestone_number'));
    return { status: 204 };
  }),
];

/** `due_on`: an ISO 8601 timestamp (GitHub keeps the date, answered as `YYYY-MM-DDT07:00:00Z`-like instants). */
function dueOn(b: Json): string | null | undefined {
  const v = optString(b, 'due_on');
  if (v === undefined || v === null) return v;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw validationFailed({ resource: 'Milestone', field: 'due_on', code: 'invalid', value: v });
  return new Date(t).toISOString().replace('.000Z', 'Z');
}
