// Branch protection and repository rulesets, enforced on every way a branch moves: git push, the
// contents API, the Git Data refs API, the merges API, update-branch and the pull request merge.
// Both become "policies" for a ref (what must hold, and whether the viewer may bypass them), read
// by one evaluator, so a rule means the same thing on every write path:
//   - a direct update (push, contents, refs, merges) is refused where a pull request is required,
//     where required status checks have not passed on the new tip, on a force push or a deletion
//     the policy forbids, a merge commit under linear history, an unsigned commit where signatures
//     are required (the twin verifies no signature), a creation or update a ruleset restricts;
//   - a pull request merge is refused (405) until it has its approving reviews (stale ones dismissed
//     where asked), its required checks passed on the head, its head up to date when `strict`, and no
//     merge commit under linear history.
// An admin bypasses classic protection unless `enforce_admins`; a ruleset is bypassed only by the
// actors its `bypass_actors` name (the repository admin role, or organization admins).

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { API, nextId, nodeId, now } from './identity.js';
import { GitHubError, invalidRequest, notFound, validationFailed } from '../wire/errors.js';
import { type Json, getUser, simpleAccount, viewer } from './accounts.js';
import { childKey } from './repositories.js';
import { ancestors, branchHead, commitsBetween, getCommit } from './git.js';
import { roleOf } from './collaborators.js';
import { checkRunsFor, latestStatuses } from './checks.js';
import { listReviewComments, listReviews } from './pulls.js';
import { findTeam, simpleTeam } from './teams.js';
import { globMatches } from './patterns.js';

export const PROTECTION_DOCS = 'https://docs.github.com/articles/about-protected-branches';
export const RULES_DOCS = 'https://docs.github.com/repositories/configuring-branches-and-merges-in-your-repository/managing-rulesets/about-rulesets';

// ---- classic branch protection -------------------------------------------------------------

export interface StatusCheckRule {
  strict: boolean;
  checks: { context: string; app_id: number | null }[];
}

export interface ReviewRule {
  dismiss_stale_reviews: boolean;
  require_code_owner_reviews: boolean;
  required_approving_review_count: number;
  require_last_push_approval: boolean;
  dismissal_restrictions?: { users: string[]; teams: string[] };
}

/** The `branch_protection` record (key `<repository id>:<branch>`). */
export interface Protection {
  branch: string;
  required_status_checks: StatusCheckRule | null;
  enforce_admins: boolean;
  required_pull_request_reviews: ReviewRule | null;
  restrictions: { users: string[]; teams: string[]; apps: string[] } | null;
  required_signatures: boolean;
  required_linear_history: boolean;
  allow_force_pushes: boolean;
  allow_deletions: boolean;
  block_creations: boolean;
  required_conversation_resolution: boolean;
  lock_branch: boolean;
  allow_fork_syncing: boolean;
}

function protectionKey(repo: Json, branch: string): string {
  return childKey(repo, branch);
}

export function getProtection(ctx: TwinContext, repo: Json, branch: string): Protection | undefined {
  return ctx.store.get<Protection>('branch_protection', protectionKey(repo, branch)) as Protection | undefined;
}

export function requireProtection(ctx: TwinContext, repo: Json, branch: string): Protection {
  requireBranch(ctx, repo, branch);
  const p = getProtection(ctx, repo, branch);
  if (!p) throw new GitHubError(404, 'Branch not protected');
  return p;
}

export function saveProtection(ctx: TwinContext, repo: Json, p: Protection): void {
  ctx.store.put('branch_protection', protectionKey(repo, p.branch), p as unknown as Json);
}

export function deleteProtection(ctx: TwinContext, repo: Json, branch: string): void {
  requireProtection(ctx, repo, branch);
  ctx.store.delete('branch_protection', protectionKey(repo, branch));
}

export function requireBranch(ctx: TwinContext, repo: Json, branch: string): string {
  const sha = branchHead(ctx, repo, branch);
  if (!sha) throw new GitHubError(404, 'Branch not found');
  return sha;
}

const asBool = (v: unknown, field: string): boolean => {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalidRequest(`For 'properties/${field}', ${JSON.stringify(v)} is not a boolean.`);
  return v;
};

const asStrings = (v: unknown, field: string): string[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    throw invalidRequest(`For 'properties/${field}', ${JSON.stringify(v)} is not an array of strings.`);
  return v as string[];
};

export function readStatusChecks(v: unknown, field = 'required_status_checks', base?: StatusCheckRule): StatusCheckRule {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalidRequest(`For 'properties/${field}', ${JSON.stringify(v)} is not an object.`);
  const b = v as Json;
  const strict = b.strict === undefined && base ? base.strict : asBool(b.strict, `${field}/strict`);
  let checks = base?.checks ?? [];
  if (b.checks !== undefined) {
    if (!Array.isArray(b.checks)) throw invalidRequest(`For 'properties/${field}/checks', ${JSON.stringify(b.checks)} is not an array.`);
    checks = (b.checks as Json[]).map((c) => {
      if (!c || typeof c.context !== 'string') throw invalidRequest(`"context" wasn't supplied.`);
      if (c.app_id !== undefined && c.app_id !== null && !Number.isInteger(c.app_id))
        throw invalidRequest(`For 'properties/app_id', ${JSON.stringify(c.app_id)} is not an integer.`);
      return { context: c.context as string, app_id: (c.app_id as number | null | undefined) ?? null };
    });
  } else if (b.contexts !== undefined) checks = asStrings(b.contexts, `${field}/contexts`).map((context) => ({ context, app_id: null }));
  else if (!base) throw invalidRequest(`"contexts" wasn't supplied.`);
  if (b.strict === undefined && !base) throw invalidRequest(`"strict" wasn't supplied.`);
  return { strict, checks };
}

export function readReviewRule(v: unknown, field = 'required_pull_request_reviews', base?: ReviewRule): ReviewRule {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalidRequest(`For 'properties/${field}', ${JSON.stringify(v)} is not an object.`);
  const b = v as Json;
  const count = b.required_approving_review_count ?? base?.required_approving_review_count ?? 1;
  if (!Number.isInteger(count) || count < 0 || count > 6) {
    throw invalidRequest(`For 'properties/required_approving_review_count', ${JSON.stringify(count)} is not a number between 0 and 6.`);
  }
  const out: ReviewRule = {
    dismiss_stale_reviews:
      b.dismiss_stale_reviews === undefined ? (base?.dismiss_stale_reviews ?? false) : asBool(b.dismiss_stale_reviews, 'dismiss_stale_reviews'),
    require_code_owner_reviews:
      b.require_code_owner_reviews === undefined
        ? (base?.require_code_owner_reviews ?? false)
        : asBool(b.require_code_owner_reviews, 'require_code_owner_reviews'),
    required_approving_review_count: count,
    require_last_push_approval:
      b.require_last_push_approval === undefined
        ? (base?.require_last_push_approval ?? false)
        : asBool(b.require_last_push_approval, 'require_last_push_approval'),
  };
  const dr = b.dismissal_restrictions;
  if (dr && typeof dr === 'object')
    out.dismissal_restrictions = { users: asStrings((dr as Json).users, 'users'), teams: asStrings((dr as Json).teams, 'teams') };
  else if (base?.dismissal_restrictions && dr === undefined) out.dismissal_restrictions = base.dismissal_restrictions;
  return out;
}

export function readRestrictions(repo: Json, v: unknown): Protection['restrictions'] {
  if (v === null) return null;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalidRequest(`For 'properties/restrictions', ${JSON.stringify(v)} is not an object.`);
  if (repo.owner.type !== 'Organization')
    throw validationFailed({
      resource: 'Protection',
      field: 'restrictions',
      code: 'invalid',
      message: 'Only organization repositories can have users and team restrictions',
    } as never);
  const b = v as Json;
  if (b.users === undefined) throw invalidRequest(`"users" wasn't supplied.`);
  if (b.teams === undefined) throw invalidRequest(`"teams" wasn't supplied.`);
  return { users: asStrings(b.users, 'restrictions/users'), teams: asStrings(b.teams, 'restrictions/teams'), apps: asStrings(b.apps, 'restrictions/apps') };
}

/** `PUT …/branches/{branch}/protection`: the whole protection replaced (the four nullable keys are required). */
export function putProtection(ctx: TwinContext, repo: Json, branch: string, b: Json): Protection {
  requireBranch(ctx, repo, branch);
  for (const k of ['required_status_checks', 'enforce_admins', 'required_pull_request_reviews', 'restrictions']) {
    if (!(k in b)) throw invalidRequest(`"${k}" wasn't supplied.`);
  }
  const forcePushes = b.allow_force_pushes;
  const p: Protection = {
    branch,
    required_status_checks: b.required_status_checks === null ? null : readStatusChecks(b.required_status_checks),
    enforce_admins: asBool(b.enforce_admins, 'enforce_admins'),
    required_pull_request_reviews: b.required_pull_request_reviews === null ? null : readReviewRule(b.required_pull_request_reviews),
    restrictions: readRestrictions(repo, b.restrictions),
    // Signatures are switched on through their own endpoint; a PUT keeps what was set.
    required_signatures: getProtection(ctx, repo, branch)?.required_signatures ?? false,
    required_linear_history: asBool(b.required_linear_history, 'required_linear_history'),
    allow_force_pushes: forcePushes === null ? false : asBool(forcePushes, 'allow_force_pushes'),
    allow_deletions: asBool(b.allow_deletions, 'allow_deletions'),
    block_creations: asBool(b.block_creations, 'block_creations'),
    required_conversation_resolution: asBool(b.required_conversation_resolution, 'required_conversation_resolution'),
    lock_branch: asBool(b.lock_branch, 'lock_branch'),
    allow_fork_syncing: asBool(b.allow_fork_syncing, 'allow_fork_syncing'),
  };
  saveProtection(ctx, repo, p);
  return p;
}

// ---- shapes --------------------------------------------------------------------------------

function protectionUrl(repo: Json, branch: string): string {
  return `${API}/repos/${repo.full_name}/branches/${encodeURIComponent(branch)}/protection`;
}

export function statusChecksShape(repo: Json, p: Protection): Json {
  const url = `${protectionUrl(repo, p.branch)}/required_status_checks`;
  const rule = p.required_status_checks!;
  return { url, strict: rule.strict, contexts: rule.checks.map((c) => c.context), contexts_url: `${url}/contexts`, checks: rule.checks };
}

function accounts(ctx: TwinContext, logins: string[]): Json[] {
  return logins
    .map((l) => getUser(ctx, l))
    .filter((u): u is Json => !!u)
    .map(simpleAccount);
}

function teams(ctx: TwinContext, repo: Json, slugs: string[]): Json[] {
  if (repo.owner.type !== 'Organization') return [];
  return slugs
    .map((s) => findTeam(ctx, repo.owner.login, s))
    .filter((t): t is Json => !!t)
    .map(simpleTeam);
}

function apps(ctx: TwinContext, slugs: string[]): Json[] {
  const all = ctx.store.list<Json>('app');
  return slugs
    .map((s) => all.find((a) => a.slug === s))
    .filter((a): a is Json => !!a)
    .map(({ public_key: _k, ...a }) => a);
}

export function reviewsShape(ctx: TwinContext, repo: Json, p: Protection): Json {
  const r = p.required_pull_request_reviews!;
  const url = `${protectionUrl(repo, p.branch)}/required_pull_request_reviews`;
  const out: Json = {
    url,
    dismiss_stale_reviews: r.dismiss_stale_reviews,
    require_code_owner_reviews: r.require_code_owner_reviews,
    required_approving_review_count: r.required_approving_review_count,
    require_last_push_approval: r.require_last_push_approval,
  };
  if (r.dismissal_restrictions) {
    out.dismissal_restrictions = {
      url: `${url}/dismissal_restrictions`,
      users_url: `${url}/dismissal_restrictions/users`,
      teams_url: `${url}/dismissal_restrictions/teams`,
      users: accounts(ctx, r.dismissal_restrictions.users),
      teams: teams(ctx, repo, r.dismissal_restrictions.teams),
      apps: [],
    };
  }
  return out;
}

export function restrictionsShape(ctx: TwinContext, repo: Json, p: Protection): Json {
  const url = `${protectionUrl(repo, p.branch)}/restrictions`;
  const r = p.restrictions!;
  return {
    url,
    users_url: `${url}/users`,
    teams_url: `${url}/teams`,
    apps_url: `${url}/apps`,
    users: accounts(ctx, r.users),
    teams: teams(ctx, repo, r.teams),
    apps: apps(ctx, r.apps),
  };
}

export function flagShape(repo: Json, p: Protection, name: 'enforce_admins' | 'required_signatures'): Json {
  return { url: `${protectionUrl(repo, p.branch)}/${name}`, enabled: p[name] };
}

/** The `branch-protection` answer of `GET …/protection` (null parts left out, as GitHub does). */
export function protectionShape(ctx: TwinContext, repo: Json, p: Protection): Json {
  const out: Json = { url: protectionUrl(repo, p.branch) };
  if (p.required_status_checks) out.required_status_checks = statusChecksShape(repo, p);
  if (p.required_pull_request_reviews) out.required_pull_request_reviews = reviewsShape(ctx, repo, p);
  out.required_signatures = flagShape(repo, p, 'required_signatures');
  out.enforce_admins = flagShape(repo, p, 'enforce_admins');
  out.required_linear_history = { enabled: p.required_linear_history };
  out.allow_force_pushes = { enabled: p.allow_force_pushes };
  out.allow_deletions = { enabled: p.allow_deletions };
  out.block_creations = { enabled: p.block_creations };
  out.required_conversation_resolution = { enabled: p.required_conversation_resolution };
  out.lock_branch = { enabled: p.lock_branch };
  out.allow_fork_syncing = { enabled: p.allow_fork_syncing };
  if (p.restrictions) out.restrictions = restrictionsShape(ctx, repo, p);
  return out;
}

/** `protected` and `protection` of a branch answer. */
export function branchProtectionSummary(ctx: TwinContext, repo: Json, branch: string): { protected: boolean; protection: Json } {
  const p = getProtection(ctx, repo, branch);
  const rules = policiesFor(ctx, repo, `refs/heads/${branch}`);
  const checks = p?.required_status_checks?.checks ?? [];
  return {
    protected: rules.length > 0,
    protection: {
      enabled: rules.length > 0,
      required_status_checks: {
        enforcement_level: !p?.required_status_checks ? 'off' : p.enforce_admins ? 'everyone' : 'non_admins',
        contexts: checks.map((c) => c.context),
        checks,
      },
    },
  };
}

// ---- rulesets ------------------------------------------------------------------------------

export const RULE_TYPES = [
  'creation',
  'update',
  'deletion',
  'required_linear_history',
  'required_signatures',
  'pull_request',
  'required_status_checks',
  'non_fast_forward',
] as const;
export type RuleType = (typeof RULE_TYPES)[number];

function rulesetKey(repo: Json, id: number): string {
  return childKey(repo, String(id).padStart(10, '0'));
}

export function listRulesets(ctx: TwinContext, repo: Json): Json[] {
  return ctx.store.listByPrefix<Json>('ruleset', childKey(repo, '')).map((r) => r.body);
}

export function requireRuleset(ctx: TwinContext, repo: Json, id: number): Json {
  const r = ctx.store.get<Json>('ruleset', rulesetKey(repo, id));
  if (!r) throw notFound();
  return r;
}

function readRefNameCondition(v: unknown): { include: string[]; exclude: string[] } {
  const c = (v as Json | undefined)?.ref_name;
  if (c === undefined) return { include: [], exclude: [] };
  if (!c || typeof c !== 'object') throw invalidRequest(`For 'properties/conditions/ref_name', ${JSON.stringify(c)} is not an object.`);
  const include = asStrings((c as Json).include, 'conditions/ref_name/include');
  const exclude = asStrings((c as Json).exclude, 'conditions/ref_name/exclude');
  if (include.length + exclude.length > 1000) throw invalidRequest('A ruleset may name at most 1000 ref patterns.');
  return { include, exclude };
}

function readRules(v: unknown): Json[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidRequest(`For 'properties/rules', ${JSON.stringify(v)} is not an array.`);
  return (v as Json[]).map((rule) => {
    if (!rule || typeof rule.type !== 'string') throw invalidRequest(`"type" wasn't supplied.`);
    if (!(RULE_TYPES as readonly string[]).includes(rule.type)) {
      throw invalidRequest(`For 'properties/rules/items/properties/type', ${JSON.stringify(rule.type)} is not one of ${JSON.stringify(RULE_TYPES)}.`);
    }
    const p = (rule.parameters ?? {}) as Json;
    if (rule.type === 'pull_request') {
      const count = p.required_approving_review_count ?? 0;
      if (!Number.isInteger(count) || count < 0 || count > 10)
        throw invalidRequest(`For 'properties/required_approving_review_count', ${JSON.stringify(count)} is not a number between 0 and 10.`);
      return {
        type: rule.type,
        parameters: {
          required_approving_review_count: count,
          dismiss_stale_reviews_on_push: asBool(p.dismiss_stale_reviews_on_push, 'dismiss_stale_reviews_on_push'),
          require_code_owner_review: asBool(p.require_code_owner_review, 'require_code_owner_review'),
          require_last_push_approval: asBool(p.require_last_push_approval, 'require_last_push_approval'),
          required_review_thread_resolution: asBool(p.required_review_thread_resolution, 'required_review_thread_resolution'),
          ...(Array.isArray(p.allowed_merge_methods) ? { allowed_merge_methods: asStrings(p.allowed_merge_methods, 'allowed_merge_methods') } : {}),
        },
      };
    }
    if (rule.type === 'required_status_checks') {
      if (!Array.isArray(p.required_status_checks)) throw invalidRequest(`"required_status_checks" wasn't supplied.`);
      return {
        type: rule.type,
        parameters: {
          strict_required_status_checks_policy: asBool(p.strict_required_status_checks_policy, 'strict_required_status_checks_policy'),
          ...(p.do_not_enforce_on_create !== undefined ? { do_not_enforce_on_create: asBool(p.do_not_enforce_on_create, 'do_not_enforce_on_create') } : {}),
          required_status_checks: (p.required_status_checks as Json[]).map((c) => {
            if (!c || typeof c.context !== 'string') throw invalidRequest(`"context" wasn't supplied.`);
            return { context: c.context, ...(Number.isInteger(c.integration_id) ? { integration_id: c.integration_id } : {}) };
          }),
        },
      };
    }
    if (rule.type === 'update')
      return { type: rule.type, parameters: { update_allows_fetch_and_merge: asBool(p.update_allows_fetch_and_merge, 'update_allows_fetch_and_merge') } };
    return { type: rule.type };
  });
}

const ENFORCEMENTS = ['disabled', 'active', 'evaluate'] as const;

function readBypassActors(v: unknown): Json[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidRequest(`For 'properties/bypass_actors', ${JSON.stringify(v)} is not an array.`);
  return (v as Json[]).map((a) => {
    const types = ['Integration', 'OrganizationAdmin', 'RepositoryRole', 'Team', 'DeployKey'];
    if (!a || !types.includes(a.actor_type))
      throw invalidRequest(
        `For 'properties/bypass_actors/items/properties/actor_type', ${JSON.stringify(a?.actor_type)} is not one of ${JSON.stringify(types)}.`,
      );
    return { actor_id: a.actor_id ?? null, actor_type: a.actor_type, bypass_mode: a.bypass_mode === 'pull_request' ? 'pull_request' : 'always' };
  });
}

function rulesetShape(repo: Json, r: Json): Json {
  return {
    ...r,
    _links: { self: { href: `${API}/repos/${repo.full_name}/rulesets/${r.id}` }, html: { href: `https://github.com/${repo.full_name}/rules/${r.id}` } },
  };
}

/** A ruleset as `GET …/rulesets/{id}` answers it, with whether the viewer may bypass it. */
export function presentRuleset(ctx: TwinContext, repo: Json, r: Json): Json {
  return { ...rulesetShape(repo, r), current_user_can_bypass: canBypassRuleset(ctx, repo, r) ? 'always' : 'never' };
}

/** The summary `GET …/rulesets` lists. */
export function rulesetSummary(repo: Json, r: Json): Json {
  const { rules: _rules, conditions: _c, bypass_actors: _b, current_user_can_bypass: _cu, ...rest } = rulesetShape(repo, r);
  return rest;
}

export function createRuleset(ctx: TwinContext, repo: Json, b: Json): Json {
  if (typeof b.name !== 'string' || !b.name) throw invalidRequest(`"name" wasn't supplied.`);
  if (!ENFORCEMENTS.includes(b.enforcement))
    throw invalidRequest(`For 'properties/enforcement', ${JSON.stringify(b.enforcement)} is not one of ${JSON.stringify(ENFORCEMENTS)}.`);
  const target = b.target ?? 'branch';
  if (!['branch', 'tag', 'push'].includes(target))
    throw invalidRequest(`For 'properties/target', ${JSON.stringify(target)} is not one of ["branch","tag","push"].`);
  if (listRulesets(ctx, repo).some((r) => r.name === b.name)) {
    throw validationFailed({ resource: 'Ruleset', field: 'name', code: 'already_exists', message: 'Name must be unique' } as never);
  }
  const id = nextId(ctx, 'ruleset');
  const at = now(ctx);
  const r: Json = {
    id,
    name: b.name,
    target,
    source_type: 'Repository',
    source: repo.full_name,
    enforcement: b.enforcement,
    bypass_actors: readBypassActors(b.bypass_actors),
    conditions: { ref_name: readRefNameCondition(b.conditions) },
    rules: readRules(b.rules),
    node_id: nodeId('RepositoryRuleset', id),
    created_at: at,
    updated_at: at,
  };
  ctx.store.put('ruleset', rulesetKey(repo, id), r);
  return r;
}

export function updateRuleset(ctx: TwinContext, repo: Json, id: number, b: Json): Json {
  const r = requireRuleset(ctx, repo, id);
  if (b.name !== undefined) {
    if (typeof b.name !== 'string' || !b.name) throw invalidRequest(`For 'properties/name', ${JSON.stringify(b.name)} is not a string.`);
    if (listRulesets(ctx, repo).some((x) => x.name === b.name && x.id !== id))
      throw validationFailed({ resource: 'Ruleset', field: 'name', code: 'already_exists', message: 'Name must be unique' } as never);
    r.name = b.name;
  }
  if (b.enforcement !== undefined) {
    if (!ENFORCEMENTS.includes(b.enforcement))
      throw invalidRequest(`For 'properties/enforcement', ${JSON.stringify(b.enforcement)} is not one of ${JSON.stringify(ENFORCEMENTS)}.`);
    r.enforcement = b.enforcement;
  }
  if (b.target !== undefined) r.target = b.target;
  if (b.bypass_actors !== undefined) r.bypass_actors = readBypassActors(b.bypass_actors);
  if (b.conditions !== undefined) r.conditions = { ref_name: readRefNameCondition(b.conditions) };
  if (b.rules !== undefined) r.rules = readRules(b.rules);
  r.updated_at = now(ctx);
  ctx.store.put('ruleset', rulesetKey(repo, id), r);
  return r;
}

export function deleteRuleset(ctx: TwinContext, repo: Json, id: number): void {
  requireRuleset(ctx, repo, id);
  ctx.store.delete('ruleset', rulesetKey(repo, id));
}

function isAdmin(ctx: TwinContext, repo: Json): boolean {
  return roleOf(ctx, repo, viewer(ctx).login) === 'admin';
}

function canBypassRuleset(ctx: TwinContext, repo: Json, r: Json): boolean {
  if (!isAdmin(ctx, repo)) return false;
  return (r.bypass_actors as Json[]).some(
    (a) =>
      (a.actor_type === 'RepositoryRole' && (a.actor_id === 5 || a.actor_id === null)) ||
      (a.actor_type === 'OrganizationAdmin' && repo.owner.type === 'Organization'),
  );
}

/** Whether a ruleset's `ref_name` condition takes in `ref` (`~ALL`, `~DEFAULT_BRANCH`, fnmatch patterns). */
function rulesetApplies(repo: Json, r: Json, ref: string): boolean {
  const target = r.target === 'tag' ? 'refs/tags/' : 'refs/heads/';
  if (!ref.startsWith(target)) return false;
  const matches = (pattern: string) =>
    pattern === '~ALL' ||
    (pattern === '~DEFAULT_BRANCH' && ref === `refs/heads/${repo.default_branch}`) ||
    globMatches(pattern.startsWith('refs/') ? pattern : `${target}${pattern}`, ref);
  const { include, exclude } = r.conditions?.ref_name ?? { include: [], exclude: [] };
  return include.some(matches) && !exclude.some(matches);
}

/** `GET …/rules/branches/{branch}`: every active rule that applies to the branch, with its ruleset. */
export function rulesForBranch(ctx: TwinContext, repo: Json, branch: string): Json[] {
  const ref = `refs/heads/${branch}`;
  return listRulesets(ctx, repo)
    .filter((r) => r.enforcement === 'active' && rulesetApplies(repo, r, ref))
    .flatMap((r) => (r.rules as Json[]).map((rule) => ({ ...rule, ruleset_source_type: 'Repository', ruleset_source: repo.full_name, ruleset_id: r.id })));
}

// ---- policies and their evaluation ---------------------------------------------------------

export interface Policy {
  source: 'protection' | 'ruleset';
  /** Whether the viewer bypasses it (the twin acts as one user). */
  bypass: boolean;
  reviews?: { count: number; dismissStale: boolean; threads: boolean };
  checks?: { contexts: StatusCheckRule['checks']; strict: boolean };
  linear: boolean;
  forcePush: 'allow' | 'deny';
  deletion: 'allow' | 'deny';
  creation: 'allow' | 'deny';
  update: 'allow' | 'deny';
  signatures: boolean;
}

/** What holds for `ref`: its branch protection and the active rulesets that take it in. */
export function policiesFor(ctx: TwinContext, repo: Json, ref: string): Policy[] {
  const out: Policy[] = [];
  if (ref.startsWith('refs/heads/')) {
    const p = getProtection(ctx, repo, ref.slice('refs/heads/'.length));
    if (p) {
      out.push({
        source: 'protection',
        bypass: !p.enforce_admins && isAdmin(ctx, repo),
        ...(p.required_pull_request_reviews
          ? {
              reviews: {
                count: p.required_pull_request_reviews.required_approving_review_count,
                dismissStale: p.required_pull_request_reviews.dismiss_stale_reviews,
                threads: p.required_conversation_resolution,
              },
            }
          : {}),
        ...(p.required_status_checks?.checks.length ? { checks: { contexts: p.required_status_checks.checks, strict: p.required_status_checks.strict } } : {}),
        linear: p.required_linear_history,
        forcePush: p.allow_force_pushes ? 'allow' : 'deny',
        deletion: p.allow_deletions ? 'allow' : 'deny',
        creation: 'allow',
        update: p.lock_branch ? 'deny' : 'allow',
        signatures: p.required_signatures,
      });
    }
  }
  for (const r of listRulesets(ctx, repo)) {
    if (r.enforcement !== 'active' || !rulesetApplies(repo, r, ref)) continue;
    const rules = r.rules as Json[];
    const has = (type: string) => rules.find((x) => x.type === type);
    const pr = has('pull_request');
    const sc = has('required_status_checks');
    out.push({
      source: 'ruleset',
      bypass: canBypassRuleset(ctx, repo, r),
      ...(pr
        ? {
            reviews: {
              count: pr.parameters.required_approving_review_count,
              dismissStale: pr.parameters.dismiss_stale_reviews_on_push,
              threads: pr.parameters.required_review_thread_resolution,
            },
          }
        : {}),
      ...(sc?.parameters.required_status_checks.length
        ? {
            checks: {
              contexts: (sc.parameters.required_status_checks as Json[]).map((c) => ({ context: c.context, app_id: c.integration_id ?? null })),
              strict: sc.parameters.strict_required_status_checks_policy,
            },
          }
        : {}),
      linear: !!has('required_linear_history'),
      forcePush: has('non_fast_forward') ? 'deny' : 'allow',
      deletion: has('deletion') ? 'deny' : 'allow',
      creation: has('creation') ? 'deny' : 'allow',
      update: has('update') ? 'deny' : 'allow',
      signatures: !!has('required_signatures'),
    });
  }
  return out;
}

/** The state of a required check on a commit: the latest status of that context or check run of that name. */
function checkState(
  ctx: TwinContext,
  repo: Json,
  sha: string,
  check: { context: string; app_id: number | null },
): 'success' | 'pending' | 'failure' | 'missing' {
  const run = checkRunsFor(ctx, repo, sha).find((r) => r.name === check.context && (check.app_id === null || r.app?.id === check.app_id));
  if (run) {
    if (run.status !== 'completed') return 'pending';
    return ['success', 'neutral', 'skipped'].includes(run.conclusion) ? 'success' : 'failure';
  }
  if (check.app_id !== null && check.app_id !== undefined) return 'missing';
  const status = latestStatuses(ctx, repo, sha).find((s) => s.context === check.context);
  if (!status) return 'missing';
  return status.state === 'success' ? 'success' : status.state === 'pending' ? 'pending' : 'failure';
}

/** GitHub's sentences for required checks that have not passed on `sha`. */
export function unmetChecks(ctx: TwinContext, repo: Json, sha: string, contexts: StatusCheckRule['checks']): string[] {
  const unmet = contexts.map((c) => ({ c, state: checkState(ctx, repo, sha, c) })).filter((x) => x.state !== 'success');
  if (!unmet.length) return [];
  if (unmet.length === 1) {
    const { c, state } = unmet[0]!;
    return [`Required status check "${c.context}" ${state === 'failure' ? 'is failing' : 'is expected'}.`];
  }
  const failing = unmet.filter((x) => x.state === 'failure').length;
  return [`${unmet.length} of ${contexts.length} required status checks ${failing === unmet.length ? 'are failing' : 'are expected'}.`];
}

export interface RefUpdate {
  ref: string;
  /** The current tip (null: the ref is being created). */
  before: string | null;
  /** The new tip (null: the ref is being deleted). */
  after: string | null;
}

export interface Verdict {
  /** Sentences of the rules that refuse the update (empty: it may go ahead). */
  refused: string[];
  /** Which kind of rule refused it (the wording of the refusal differs). */
  source?: 'protection' | 'ruleset';
  /** Sentences of rules the viewer bypassed (git push reports them). */
  bypassed: string[];
  /** A rule the twin cannot judge (the caller refuses honestly with NotSimulated). */
  unmodelled?: string;
}

function pushSentences(ctx: TwinContext, repo: Json, u: RefUpdate, p: Policy): string[] {
  const out: string[] = [];
  if (u.after === null) {
    if (p.deletion === 'deny') out.push('Cannot delete this branch');
    return out;
  }
  if (u.before === null && p.creation === 'deny') out.push('Cannot create ref due to creations being restricted.');
  if (u.before !== null && p.update === 'deny') out.push('Cannot update this protected ref.');
  if (u.before !== null && p.forcePush === 'deny' && !ancestors(ctx, repo, u.after).has(u.before)) out.push('Cannot force-push to this branch');
  if (p.reviews) out.push('Changes must be made through a pull request.');
  if (p.checks) out.push(...unmetChecks(ctx, repo, u.after, p.checks.contexts));
  const fresh = u.before ? commitsBetween(ctx, repo, u.before, u.after) : [getCommit(ctx, repo, u.after)].filter((c): c is Json => !!c);
  if (p.linear && fresh.some((c) => c.parents.length > 1)) out.push('This branch must not contain merge commits.');
  if (p.signatures && fresh.length) out.push('Commits must have verified signatures.');
  return out;
}

function verdictOf(policies: Policy[], sentences: (p: Policy) => string[]): Verdict {
  const refused: string[] = [];
  const bypassed: string[] = [];
  let source: Verdict['source'];
  for (const p of policies) {
    const s = sentences(p);
    if (!s.length) continue;
    if (p.bypass) bypassed.push(...s);
    else {
      refused.push(...s);
      source ??= p.source;
    }
  }
  return { refused: [...new Set(refused)], bypassed: [...new Set(bypassed)], ...(source ? { source } : {}) };
}

/** A ref moved directly (push, contents, refs, merges API): what the policies on it say. */
export function checkRefUpdate(ctx: TwinContext, repo: Json, u: RefUpdate): Verdict {
  const policies = policiesFor(ctx, repo, u.ref);
  if (!policies.length) return { refused: [], bypassed: [] };
  return verdictOf(policies, (p) => pushSentences(ctx, repo, u, p));
}

/** A refused verdict as the REST API answers it: the protection's sentences, or GitHub's rule-violation summary. */
export function refusal(v: Verdict, status: number): GitHubError {
  if (v.source === 'ruleset') {
    return new GitHubError(status, `Repository rule violations found\n\n${v.refused.join('\n\n')}\n\n`, { documentation_url: RULES_DOCS });
  }
  return new GitHubError(status, v.refused.join(' '), { documentation_url: PROTECTION_DOCS });
}

/** The refusal of a direct update through the REST API (contents, refs, merges): `status` as that API answers. */
export function refuseRefUpdate(ctx: TwinContext, repo: Json, u: RefUpdate, status: number): void {
  const v = checkRefUpdate(ctx, repo, u);
  if (v.refused.length) throw refusal(v, status);
}

/** Approving reviews that count for the head: the latest review of each reviewer, approvals on an older head dismissed where asked. */
function approvals(ctx: TwinContext, repo: Json, pr: Json, dismissStale: boolean): number {
  const latest = new Map<string, Json>();
  for (const r of listReviews(ctx, repo, pr)) {
    if (r.state === 'PENDING' || r.state === 'COMMENTED' || r.state === 'DISMISSED') continue;
    latest.set(r.user.login, r);
  }
  return [...latest.values()].filter((r) => r.state === 'APPROVED' && (!dismissStale || r.commit_id === pr.head.sha)).length;
}

/** What keeps a pull request from being merged into its base by `method`. */
export function mergeVerdict(ctx: TwinContext, repo: Json, pr: Json, method: 'merge' | 'squash' | 'rebase'): Verdict {
  const policies = policiesFor(ctx, repo, `refs/heads/${pr.base.ref}`);
  if (!policies.length) return { refused: [], bypassed: [] };
  let unmodelled: string | undefined;
  const verdict = verdictOf(policies, (p) => {
    const out: string[] = [];
    if (p.update === 'deny') out.push('Cannot update this protected ref.');
    if (p.reviews) {
      const have = approvals(ctx, repo, pr, p.reviews.dismissStale);
      if (have < p.reviews.count) {
        out.push(
          p.reviews.count === 1
            ? 'At least 1 approving review is required by reviewers with write access.'
            : `At least ${p.reviews.count} approving reviews are required by reviewers with write access.`,
        );
      }
      if (p.reviews.threads && !p.bypass && listReviewComments(ctx, repo, pr).length) {
        unmodelled = 'Resolving review threads is not modelled, and this pull request has review comments while the branch requires conversation resolution.';
      }
    }
    if (p.checks) {
      out.push(...unmetChecks(ctx, repo, pr.head.sha, p.checks.contexts));
      if (p.checks.strict && !ancestors(ctx, repo, pr.head.sha).has(pr.base.sha)) out.push('Head branch was not up to date with the base branch.');
    }
    if (p.linear && method === 'merge') out.push('This branch must not contain merge commits.');
    return out;
  });
  return unmodelled ? { ...verdict, unmodelled } : verdict;
}
