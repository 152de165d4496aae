// Jira's rules for the generic layer: every REST v3 operation no hand-written route answers, the
// Jira way — JSON bodies checked against the spec and refused with 400 `{errorMessages: [],
// errors: {field: message}}`, records kept by resource (`/rest/api/3/issue/{issueIdOrKey}/worklog`
// → `issue.worklog`) below the issue or project the path names (which must exist in the twin's
// model, else Jira's 404), numeric string ids and a `self` URL, pages as `{startAt, maxResults,
// total, isLast, values: [...]}` (`startAt`/`maxResults`), 404 `{errorMessages: [...]}`.
// Operations on the records the hand-written model keeps (issues, projects, users, statuses…) are
// the model's: no generic write of them is simulated, they are refused honestly.

import type { TwinResponse } from '../../../twin-runtime/contract.js';
import { loadArtefacts } from '../../../twin-runtime/generic/artefacts.js';
import { classifyPagedRest } from '../../../twin-runtime/generic/classify.js';
import { GenericEngine } from '../../../twin-runtime/generic/engine.js';
import { typeOf, type FillField } from '../../../twin-runtime/generic/schema.js';
import type { GenericAdapter, GenericCall, Outcome } from '../../../twin-runtime/generic/types.js';
import type { InputProblem } from '../../../twin-runtime/generic/validate.js';
import { findIssue, findProject } from '../model/issues.js';
import { jiraTime, numericId } from '../model/records.js';
import { JiraError, issueNotFound } from './errors.js';

/** Resources whose records the hand-written model keeps in its own shape (model/records.ts). */
const MODEL_RESOURCES = new Set(['issue', 'project', 'user', 'users', 'myself', 'status', 'issuetype', 'priority', 'comment', 'search', 'issue.worklog']);

/**
 * What Jira computes or changes in the model's records, which a stored record would only pretend:
 * autocomplete and JQL function data, a project's features, roles and type (PUT moves the
 * project's `projectTypeKey`), links between two issues (the issues' `issuelinks` would not show
 * them).
 */
const COMPUTED = new Set(['jql.autocompletedata', 'jql.function.computation', 'project.features', 'project.role', 'project.type', 'issueLink']);

/** Registered only by Connect, OAuth 2.0 or Forge apps, never with an API token. */
const APPS_ONLY = new Set(['webhook', 'uiModifications']);

/** Site settings Jira answers from its defaults (a banner, time tracking, the user's locale): never empty, never 404. */
const SITE_SETTINGS = new Set([
  'announcementBanner',
  'application-properties',
  'configuration.timetracking',
  'configuration.timetracking.options',
  'filter.defaultShareScope',
  'mypreferences',
  'mypreferences.locale',
]);

/**
 * Collections every Jira site starts with (system fields, resolutions, project roles, link types,
 * the default screens, workflows and schemes): their records made here are kept, but a list
 * without Jira's defaults would be an empty result Jira never gives.
 */
const SITE_DEFAULTS = new Set([
  'field',
  'resolution',
  'role',
  'issueLinkType',
  'screens',
  'screenscheme',
  'workflow',
  'workflowscheme',
  'permissionscheme',
  'notificationscheme',
  'issuetypescheme',
  'issuetypescreenscheme',
  'fieldconfiguration',
  'fieldconfigurationscheme',
  'dashboard',
]);

/** Path parameters naming a record of the model; `checkReferences` answers Jira's 404 for a missing one. */
const ISSUE_PARAMS = new Set(['issueIdOrKey', 'issueId', 'issueKey']);
const PROJECT_PARAMS = new Set(['projectIdOrKey', 'projectKeyOrId', 'projectId', 'projectKey']);
const MODEL_PARAMS = new Set([...ISSUE_PARAMS, ...PROJECT_PARAMS, 'issueTypeId', 'commentId', 'worklogId']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The record field a path parameter names (`worklogId` → `id`, `id` → `id`). */
function keyFieldFor(param: string): string {
  if (param === 'id' || /(Id|IdOrKey|_id)$/.test(param)) return 'id';
  return param.replace(/[^A-Za-z0-9_]/g, '_');
}

function problemMessage(problem: InputProblem): string {
  switch (problem.kind) {
    case 'missing':
      return 'Field is required.';
    case 'type':
      return `Field must be ${problem.expected === 'integer' || problem.expected === 'object' || problem.expected === 'array' ? 'an' : 'a'} ${problem.expected}.`;
    case 'enum':
      return `Field must be one of: ${(problem.allowed ?? []).join(', ')}.`;
    default:
      return 'Field value is invalid.';
  }
}

const notFound = () => new JiraError(404, ['The requested resource was not found.']);

export const jiraGenericAdapter: GenericAdapter = {
  slug: 'jira',
  scopeMode: 'prefix',
  pagingParams: new Set(['startAt', 'maxResults']),

  classify(entry, index) {
    // A GET answering a page object (`{startAt, total, values: [...]}`, one array field) is its list.
    return classifyPagedRest(entry, index, keyFieldFor, /^rest\.(api\.3|atlassian-connect\.1)\.?/);
  },

  unsupported(op) {
    if (op.entry.excluded) return `${op.entry.excluded}: not simulated.`;
    const r = op.resource;
    if (MODEL_RESOURCES.has(r)) return `The twin's model keeps ${r} records in its own shape; this operation on them is not simulated.`;
    if (COMPUTED.has(r)) return 'Jira computes this from state the twin does not keep (or changes the modelled records it names): not simulated.';
    if (APPS_ONLY.has(r)) return 'Only Connect, OAuth 2.0 or Forge apps call this, never an API token: not simulated.';
    // PUT/DELETE /issue/properties/{key}: a property set on every issue a filter finds, as a long-running task.
    if (r === 'issue.properties' && !op.scope.length) return 'It sets or removes a property on the issues the model keeps, as a task: not simulated.';
    if (SITE_SETTINGS.has(r)) return 'Jira answers this site setting from its defaults, which the twin does not keep: not simulated.';
    if (SITE_DEFAULTS.has(r) && (op.action === 'list' || op.action === 'get-one'))
      return `A Jira site starts with its own ${r} records (system defaults the twin does not keep): listing them is not simulated.`;
    return undefined;
  },

  input(req) {
    if (req.rawBody.length && req.bodyKind !== 'none' && !isObject(req.body) && req.method !== 'GET' && req.method !== 'DELETE') {
      throw new JiraError(400, ['Unexpected character in the request body: it is not a JSON object.']);
    }
    const body = req.rawBody.length && req.bodyKind === 'json' && isObject(req.body) ? req.body : {};
    return { query: { ...req.query }, body, coerceBody: false };
  },

  refuse(_call, problem: InputProblem) {
    if (problem.where === 'path') return notFound();
    const field = problem.field.join('.') || 'body';
    return new JiraError(400, [], { [field]: problemMessage(problem) });
  },

  missing: () => notFound(),

  conflict: (call) => new JiraError(400, [], { [call.op.keyField ?? 'id']: 'A record with this value already exists.' }),

  checkReferences(call) {
    const { ctx } = call;
    for (const [param, value] of Object.entries(call.params)) {
      if (ISSUE_PARAMS.has(param) && !findIssue(ctx, value)) throw issueNotFound();
      if (PROJECT_PARAMS.has(param) && !findProject(ctx, value)) throw new JiraError(404, [`No project could be found with key '${value}'.`]);
      if (param === 'issueTypeId' && !ctx.store.get('issue_type', value)) throw new JiraError(404, [`Issue type with ID '${value}' does not exist.`]);
      if (param === 'commentId' && !ctx.store.get('comment', value)) throw new JiraError(404, [`Can not find a comment for id: ${value}.`]);
      if (param === 'worklogId' && !ctx.store.get('worklog', value)) throw new JiraError(404, [`Cannot find worklog with id: '${value}'.`]);
    }
  },

  checksParent: (op, param) => MODEL_PARAMS.has(param) && op.scope.includes(param),

  // Numeric string ids (`fill`, `newKey`) and `self` (`finish`); other keys come from the input.
  makes: (_op, field, kind) => (kind === 'key' && field === 'id') || (kind === 'url' && field === 'self'),

  fill(call, field: FillField) {
    if (field.path.length !== 1) return undefined;
    const t = typeOf(field.schema);
    switch (field.name) {
      case 'id':
        return t === 'integer' || t === 'number'
          ? Number(numericId(call.ctx, call.op.resource))
          : t === 'string'
            ? numericId(call.ctx, call.op.resource)
            : undefined;
      case 'created':
      case 'updated':
        return t === 'string' ? jiraTime(call.ctx) : undefined;
      default:
        return undefined;
    }
  },

  newKey(call, record) {
    const field = call.op.keyField ?? 'id';
    if (field === 'id' && (record.id === undefined || record.id === null || record.id === '')) {
      // Jira's ids are numeric strings, but some records type theirs as integers (field configurations, schemes).
      const { resolver } = generic;
      const prop = resolver.objectSchema(generic.recordSchema(call.op))?.properties?.id;
      const id = numericId(call.ctx, call.op.resource);
      record.id = prop && typeOf(resolver.flatten(prop)) === 'integer' ? Number(id) : id;
    }
    const v = record[field];
    if (v === undefined || v === null || v === '') throw new JiraError(400, [], { [field]: 'Field is required.' });
    return String(v);
  },

  finish(call, record, key) {
    if (call.op.action === 'create' && 'self' in record) record.self = `${call.ctx.baseUrl}${call.req.path}/${encodeURIComponent(key)}`;
  },

  touch(call, record) {
    if (typeof record.updated === 'string') record.updated = jiraTime(call.ctx);
  },

  listWindow(call) {
    const num = (name: string, dflt: number) => {
      const v = Number(call.query[name]);
      return Number.isFinite(v) && v >= 0 ? Math.floor(v) : dflt;
    };
    return { limit: Math.min(1000, Math.max(1, num('maxResults', 50))), offset: num('startAt', 0), order: 'seq', descending: false, total: true };
  },

  render(call: GenericCall, outcome: Outcome): TwinResponse {
    const status = call.op.entry.status;
    switch (outcome.kind) {
      case 'record':
        return status === 204 ? { status } : { status, body: outcome.record };
      case 'deleted':
      case 'none':
        return { status };
      case 'page': {
        const items = outcome.items.map((r) => r.body);
        if (!call.op.field) return { status, body: items };
        const startAt = outcome.window.offset ?? 0;
        const total = outcome.total ?? startAt + items.length;
        return { status, body: { startAt, maxResults: outcome.window.limit, total, isLast: !outcome.hasMore, [call.op.field]: items } };
      }
      case 'answer':
        return call.op.entry.response.kind === 'other' ? { status } : { status, body: outcome.body };
    }
  },
};

/** Jira's generic surface over the generated table in twins/jira/spec/. */
export const generic = new GenericEngine(jiraGenericAdapter, loadArtefacts(import.meta.url));
