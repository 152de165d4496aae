// Branch protection (`…/branches/{branch}/protection` and its parts) and repository rulesets
// (`…/rulesets`, `…/rules/branches/{branch}`). What they say is enforced in model/protection.ts.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { GitHubError, invalidRequest } from '../wire/errors.js';
import type { Json } from '../model/accounts.js';
import {
  type Protection,
  createRuleset,
  deleteProtection,
  deleteRuleset,
  flagShape,
  listRulesets,
  presentRuleset,
  protectionShape,
  putProtection,
  readReviewRule,
  readStatusChecks,
  requireProtection,
  requireRuleset,
  restrictionsShape,
  reviewsShape,
  rulesForBranch,
  rulesetSummary,
  saveProtection,
  statusChecksShape,
  updateRuleset,
} from '../model/protection.js';
import { jsonBody, numberParam, page, repoOf, routes, type Reply } from '../wire/http.js';

const BASE = '/repos/{owner}/{repo}/branches/{branch}/protection';

function protectionOf(req: TwinRequest, ctx: TwinContext): { repo: Json; p: Protection } {
  const repo = repoOf(req, ctx);
  return { repo, p: requireProtection(ctx, repo, req.params.branch!) };
}

/** A part of the protection that is switched off answers 404 with GitHub's sentence for it. */
function part<T>(value: T | null | undefined, missing: string): T {
  if (value === null || value === undefined) throw new GitHubError(404, missing);
  return value;
}

/** A string array body, or `{<field>: [...]}` (GitHub accepts both for contexts, users, teams, apps). */
function namesOf(req: TwinRequest, field: string): string[] {
  if (req.rawBody.length && req.bodyKind !== 'json') throw new GitHubError(400, 'Problems parsing JSON');
  const b = req.rawBody.length ? req.body : [];
  const list = Array.isArray(b) ? b : b && typeof b === 'object' ? (b as Json)[field] : undefined;
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) throw invalidRequest(`"${field}" wasn't supplied.`);
  if (list.length > 100) throw invalidRequest(`At most 100 ${field} may be given.`);
  return list as string[];
}

function edit(req: TwinRequest, ctx: TwinContext, change: (p: Protection, repo: Json) => Reply): Reply {
  const { repo, p } = protectionOf(req, ctx);
  const out = change(p, repo);
  saveProtection(ctx, repo, p);
  return out;
}

/** `…/contexts`, `…/restrictions/users|teams|apps`: add (POST), replace (PUT), remove (DELETE), read (GET). */
function listRoutes(
  path: string,
  field: string,
  get: (p: Protection) => string[] | undefined,
  set: (p: Protection, v: string[]) => void,
  shape: (ctx: TwinContext, repo: Json, p: Protection) => unknown,
  missing: string,
): TwinRoute[] {
  const current = (p: Protection) => part(get(p), missing);
  return [
    ...routes('GET', path, (req, ctx) => {
      const { repo, p } = protectionOf(req, ctx);
      current(p);
      return { body: shape(ctx, repo, p) };
    }),
    ...routes('POST', path, (req, ctx) =>
      edit(req, ctx, (p, repo) => {
        set(p, [...new Set([...current(p), ...namesOf(req, field)])]);
        return { body: shape(ctx, repo, p) };
      }),
    ),
    ...routes('PUT', path, (req, ctx) =>
      edit(req, ctx, (p, repo) => {
        current(p);
        set(p, [...new Set(namesOf(req, field))]);
        return { body: shape(ctx, repo, p) };
      }),
    ),
    ...routes('DELETE', path, (req, ctx) =>
      edit(req, ctx, (p, repo) => {
        const drop = new Set(namesOf(req, field));
        set(
          p,
          current(p).filter((x) => !drop.has(x)),
        );
        return { body: shape(ctx, repo, p) };
      }),
    ),
  ];
}

const CHECKS_OFF = 'Required status checks not enabled';
const REVIEWS_OFF = 'Pull request reviews not enabled';
const RESTRICTIONS_OFF = 'Push restrictions not enabled';

export const protectionRoutes: TwinRoute[] = [
  ...routes('GET', BASE, (req, ctx) => {
    const { repo, p } = protectionOf(req, ctx);
    return { body: protectionShape(ctx, repo, p) };
  }),
  ...routes('PUT', BASE, (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { body: protectionShape(ctx, repo, putProtection(ctx, repo, req.params.branch!, jsonBody(req))) };
  }),
  ...routes('DELETE', BASE, (req, ctx) => {
    deleteProtection(ctx, repoOf(req, ctx), req.params.branch!);
    return { status: 204 };
  }),
  // enforce_admins and required_signatures: a flag switched on (POST) or off (DELETE).
  ...(['enforce_admins', 'required_signatures'] as const).flatMap((name) => [
    ...routes('GET', `${BASE}/${name}`, (req, ctx) => {
      const { repo, p } = protectionOf(req, ctx);
      return { body: flagShape(repo, p, name) };
    }),
    ...routes('POST', `${BASE}/${name}`, (req, ctx) =>
      edit(req, ctx, (p, repo) => {
        p[name] = true;
        return { body: flagShape(repo, p, name) };
      }),
    ),
    ...routes('DELETE', `${BASE}/${name}`, (req, ctx) =>
      edit(req, ctx, (p) => {
        p[name] = false;
        return { status: 204 };
      }),
    ),
  ]),
  ...routes('GET', `${BASE}/required_status_checks`, (req, ctx) => {
    const { repo, p } = protectionOf(req, ctx);
    part(p.required_status_checks, CHECKS_OFF);
    return { body: statusChecksShape(repo, p) };
  }),
  ...routes('PATCH', `${BASE}/required_status_checks`, (req, ctx) =>
    edit(req, ctx, (p, repo) => {
      p.required_status_checks = readStatusChecks(jsonBody(req), 'required_status_checks', part(p.required_status_checks, CHECKS_OFF));
      return { body: statusChecksShape(repo, p) };
    }),
  ),
  ...routes('DELETE', `${BASE}/required_status_checks`, (req, ctx) =>
    edit(req, ctx, (p) => {
      p.required_status_checks = null;
      return { status: 204 };
    }),
  ),
  ...listRoutes(
    `${BASE}/required_status_checks/contexts`,
    'contexts',
    (p) => p.required_status_checks?.checks.map((c) => c.context),
    (p, v) => {
      const apps = new Map(p.required_status_checks!.checks.map((c) => [c.context, c.app_id]));
      p.required_status_checks!.checks = v.map((context) => ({ context, app_id: apps.get(context) ?? null }));
    },
    (_ctx, _repo, p) => p.required_status_checks!.checks.map((c) => c.context),
    CHECKS_OFF,
  ),
  ...routes('GET', `${BASE}/required_pull_request_reviews`, (req, ctx) => {
    const { repo, p } = protectionOf(req, ctx);
    part(p.required_pull_request_reviews, REVIEWS_OFF);
    return { body: reviewsShape(ctx, repo, p) };
  }),
  ...routes('PATCH', `${BASE}/required_pull_request_reviews`, (req, ctx) =>
    edit(req, ctx, (p, repo) => {
      p.required_pull_request_reviews = readReviewRule(jsonBody(req), 'required_pull_request_reviews', part(p.required_pull_request_reviews, REVIEWS_OFF));
      return { body: reviewsShape(ctx, repo, p) };
    }),
  ),
  ...routes('DELETE', `${BASE}/required_pull_request_reviews`, (req, ctx) =>
    edit(req, ctx, (p) => {
      part(p.required_pull_request_reviews, REVIEWS_OFF);
      p.required_pull_request_reviews = null;
      return { status: 204 };
    }),
  ),
  ...routes('GET', `${BASE}/restrictions`, (req, ctx) => {
    const { repo, p } = protectionOf(req, ctx);
    part(p.restrictions, RESTRICTIONS_OFF);
    return { body: restrictionsShape(ctx, repo, p) };
  }),
  ...routes('DELETE', `${BASE}/restrictions`, (req, ctx) =>
    edit(req, ctx, (p) => {
      p.restrictions = null;
      return { status: 204 };
    }),
  ),
  ...(['users', 'teams', 'apps'] as const).flatMap((kind) =>
    listRoutes(
      `${BASE}/restrictions/${kind}`,
      kind,
      (p) => p.restrictions?.[kind],
      (p, v) => {
        p.restrictions![kind] = v;
      },
      (ctx, repo, p) => restrictionsShape(ctx, repo, p)[kind],
      RESTRICTIONS_OFF,
    ),
  ),

  // ---- rulesets ----
  ...routes('GET', '/repos/{owner}/{repo}/rulesets', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return page(
      req,
      ctx,
      listRulesets(ctx, repo).map((r) => rulesetSummary(repo, r)),
    );
  }),
  ...routes('POST', '/repos/{owner}/{repo}/rulesets', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { status: 201, body: presentRuleset(ctx, repo, createRuleset(ctx, repo, jsonBody(req))) };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/rulesets/{ruleset_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { body: presentRuleset(ctx, repo, requireRuleset(ctx, repo, numberParam(req, 'ruleset_id'))) };
  }),
  ...routes('PUT', '/repos/{owner}/{repo}/rulesets/{ruleset_id}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return { body: presentRuleset(ctx, repo, updateRuleset(ctx, repo, numberParam(req, 'ruleset_id'), jsonBody(req))) };
  }),
  ...routes('DELETE', '/repos/{owner}/{repo}/rulesets/{ruleset_id}', (req, ctx) => {
    deleteRuleset(ctx, repoOf(req, ctx), numberParam(req, 'ruleset_id'));
    return { status: 204 };
  }),
  ...routes('GET', '/repos/{owner}/{repo}/rules/branches/{branch}', (req, ctx) => {
    const repo = repoOf(req, ctx);
    return page(req, ctx, rulesForBranch(ctx, repo, req.params.branch!));
  }),
];
