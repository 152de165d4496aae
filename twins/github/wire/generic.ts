// GitHub's rules for the generic layer: every api.github.com operation no hand-written route
// answers, the GitHub way — JSON bodies checked against the spec and refused with 422
// "Invalid request." (or 400 "Problems parsing JSON"), numeric ids and legacy node ids, canonical
// URLs built from the path, records kept below their owner and repository (which must exist), lists
// as arrays with `per_page`/`page` and a `Link` header, `404 Not Found` with the operation's own
// documentation_url, 204 after deletes, and the same wrapper as the hand-written routes (rate limit,
// headers, one transaction per request, URLs pointed at the twin).

import type { TwinResponse } from '../../../twin-runtime/contract.js';
import { loadArtefacts } from '../../../twin-runtime/generic/artefacts.js';
import { classifyRest, paramName, staticName } from '../../../twin-runtime/generic/classify.js';
import { GenericEngine } from '../../../twin-runtime/generic/engine.js';
import { PLACEHOLDER_URL, typeOf, type FillField } from '../../../twin-runtime/generic/schema.js';
import type { OperationEntry } from '../../../twin-runtime/generic/spec-types.js';
import type { GenericAdapter, GenericCall, GenericOperation, OperationIndex, Outcome } from '../../../twin-runtime/generic/types.js';
import type { InputProblem } from '../../../twin-runtime/generic/validate.js';
import { getOrg, getUser, simpleAccount, simpleUserByLogin, viewer, type Json } from '../model/accounts.js';
import { GitHubError, validationFailed } from './errors.js';
import { API, WEB, nextId, nodeId, now } from '../model/identity.js';
import { findRepository, requireRepository } from '../model/repositories.js';
import { jsonBody, linkHeader, queryString, reply, type Reply } from './http.js';

/** The body field a path parameter names (`release_id` → `id`, `team_slug` → `slug`). */
export function keyFieldFor(param: string): string {
  if (param === 'id' || /_id$/.test(param)) return 'id';
  if (param === 'number' || /_number$/.test(param)) return 'number';
  if (param === 'slug' || /_slug$/.test(param)) return 'slug';
  if (param === 'username') return 'login';
  if (param === 'tag') return 'tag_name';
  if (/_name$/.test(param)) return 'name';
  if (param === 'sha' || /_sha$/.test(param)) return 'sha';
  return param.replace(/[^A-Za-z0-9_]/g, '_');
}

const pascal = (s: string) => s.replace(/(^|[-_. ])(\w)/g, (_m, _p, c: string) => c.toUpperCase());

/** Path parameters whose values GitHub compares case-insensitively. */
const CASELESS = new Set(['owner', 'repo', 'org', 'username', 'enterprise']);

/** Fields that are the acting user when the schema says a user goes there. */
const ACTOR_FIELDS = new Set(['author', 'user', 'creator', 'owner', 'uploader', 'actor', 'sender', 'inviter']);

/**
 * The collection a record lives in: `/releases/tags/{tag}` answers a release, so its collection is
 * `/releases` (the list of the same items), not `/releases/tags`.
 */
function canonicalCollection(entry: OperationEntry, collection: string, index: OperationIndex): string {
  const segs = collection.split('/');
  const last = segs[segs.length - 1] ?? '';
  if (!last || paramName(last) || !entry.response.ref) return collection;
  const parent = segs.slice(0, -1).join('/');
  const list = index.get('GET', parent);
  return list?.response.kind === 'array' && list.response.ref === entry.response.ref ? parent : collection;
}

/**
 * What the spec cannot tell the engine about GitHub (read from paths only, no schema): records that
 * name commits, which only the twin's git model knows.
 */
function notSimulated(op: GenericOperation): string | undefined {
  const writes = op.action === 'create' || op.action === 'upsert' || op.action === 'set-one';
  if (writes && /\/(deployments|statuses|check-runs|check-suites)$/.test(op.entry.path)) {
    return 'GitHub resolves the ref to a commit of the repository, which the generic layer cannot.';
  }
  return undefined;
}

function docs(call: GenericCall): string {
  return call.op.entry.docs ?? 'https://docs.github.com/rest';
}

export const githubGenericAdapter: GenericAdapter = {
  slug: 'github',
  scopeMode: 'prefix',
  pagingParams: new Set(['per_page', 'page']),

  classify(entry, index) {
    const shape = classifyRest(entry, index);
    const collection = canonicalCollection(entry, shape.collection, index);
    const segs = entry.path.split('/');
    // Several trailing parameters name one record together (`/user/starred/{owner}/{repo}`).
    let keyParams: string[] | undefined;
    if (shape.key) {
      const trailing: string[] = [];
      for (let i = segs.length - 1; i >= 0 && paramName(segs[i]!); i--) trailing.unshift(paramName(segs[i]!)!);
      if (trailing.length > 1 && shape.action !== 'list') keyParams = trailing;
    }
    const scope = keyParams ? shape.scope.filter((p) => !keyParams!.includes(p)) : shape.scope;
    let keyField: string | undefined;
    if (shape.key) keyField = keyParams ? undefined : keyFieldFor(shape.key);
    else if (shape.action === 'create') {
      const item = index.get('GET', `${entry.path}/{x}`);
      const itemKey = item ? paramName(item.path.split('/').pop()!) : undefined;
      keyField = itemKey ? keyFieldFor(itemKey) : 'id';
    }
    return {
      action: shape.action,
      resource: staticName(collection) || 'root',
      scope,
      key: shape.key,
      keyParams,
      keyField,
      verb: shape.verb,
    };
  },

  // `aroundGitHub` adds what every answer carries (rate limit, ETag, headers); `reply` renders the
  // body as the hand-written routes do (twin URLs, `Location` on a 201).
  pipeline: (_op, execute) => reply((req, ctx) => execute(req, ctx) as Reply),

  input(req) {
    const body = req.method === 'GET' || req.method === 'DELETE' ? (req.rawBody.length ? jsonBody(req) : {}) : jsonBody(req);
    // GitHub reads a malformed `page`/`per_page` as absent rather than refusing the call.
    const query = { ...req.query };
    for (const k of ['page', 'per_page']) if (query[k] !== undefined && !/^\d+$/.test(String(query[k]))) delete query[k];
    return { query, body: body as Record<string, unknown>, coerceBody: false };
  },

  refuse(call, problem: InputProblem) {
    // A path parameter of the wrong kind (a non-numeric id) names nothing: 404 as GitHub answers.
    if (problem.where === 'path') return new GitHubError(404, 'Not Found', { documentation_url: docs(call) });
    const field = problem.field.join('/properties/');
    const v = JSON.stringify(problem.value);
    let detail: string;
    switch (problem.kind) {
      case 'missing':
        detail = `"${problem.field[problem.field.length - 1]}" wasn't supplied.`;
        break;
      case 'type':
        detail = `For 'properties/${field}', ${v} is not ${problem.expected === 'integer' || problem.expected === 'object' || problem.expected === 'array' ? `an ${problem.expected}` : `a ${problem.expected}`}.`;
        break;
      case 'enum':
        detail = `For 'properties/${field}', ${v} is not one of ${JSON.stringify(problem.allowed ?? [])}.`;
        break;
      default:
        detail = `For 'properties/${field}', ${v} is not valid.`;
    }
    return new GitHubError(422, `Invalid request.\n\n${detail}`, { documentation_url: docs(call) });
  },

  missing: (call) => new GitHubError(404, 'Not Found', { documentation_url: docs(call) }),

  conflict(call) {
    return validationFailed({ resource: pascal(call.op.entry.response.ref ?? call.op.resource), code: 'already_exists', field: call.op.keyField ?? 'id' });
  },

  checkReferences(call) {
    const { owner, repo, org, username } = call.params;
    // A missing repository is this operation's 404 (its own documentation_url), as GitHub answers.
    if (owner !== undefined && repo !== undefined && !findRepository(call.ctx, owner, repo)) {
      throw new GitHubError(404, 'Not Found', { documentation_url: docs(call) });
    }
    if (org !== undefined && !getOrg(call.ctx, org)) throw new GitHubError(404, 'Not Found', { documentation_url: docs(call) });
    if (username !== undefined && call.op.key !== 'username' && !getUser(call.ctx, username) && !getOrg(call.ctx, username)) {
      throw new GitHubError(404, 'Not Found', { documentation_url: docs(call) });
    }
  },

  // checkReferences answers the operation's 404 for a repository, organization or user that is not there.
  checksParent: (_op, param) => param === 'owner' || param === 'repo' || param === 'org' || param === 'username',

  unsupported(op) {
    return notSimulated(op);
  },

  // Integer ids and numbers are minted (`fill`), URLs built from the path (`finish`); SHAs, string
  // ids (gists) and secrets are GitHub's to make.
  makes(_op, field, kind, schema) {
    if (kind === 'url') return true;
    if (kind !== 'key') return false;
    return (field === 'id' || field === 'number') && schema !== undefined && typeOf(schema) === 'integer';
  },

  normalize: (param, value) => (CASELESS.has(param) ? value.toLowerCase() : value),

  fill(call, field: FillField) {
    const t = typeOf(field.schema);
    const top = field.path.length === 0;
    // A record that is an account or a repository the path names (a followed user, a starred repository).
    if (top && /^(nullable-)?simple-user$/.test(field.ref ?? '') && call.params.username) {
      const named = simpleUserByLogin(call.ctx, call.params.username);
      if (named) return named;
    }
    if (
      (top || field.name === 'repository') &&
      /^(full-|minimal-|simple-|nullable-|nullable-minimal-)?repository$/.test(field.ref ?? '') &&
      call.params.owner &&
      call.params.repo
    ) {
      return requireRepository(call.ctx, call.params.owner, call.params.repo);
    }
    if (field.ref === 'simple-user' || (field.ref === 'nullable-simple-user' && ACTOR_FIELDS.has(field.name))) {
      return simpleAccount(viewer(call.ctx));
    }
    if (field.path.length !== 1) return undefined;
    if (field.name === 'target_commitish' && call.params.owner && call.params.repo) {
      return requireRepository(call.ctx, call.params.owner, call.params.repo).default_branch;
    }
    switch (field.name) {
      case 'id':
        return t === 'integer' ? nextId(call.ctx, call.op.resource) : undefined;
      case 'number':
        return t === 'integer' ? call.ctx.ids.sequence(`github:number:${call.op.resource}:${call.req.path}`) : undefined;
      case 'created_at':
      case 'updated_at':
        return t === 'string' ? now(call.ctx) : undefined;
      default:
        return undefined;
    }
  },

  newKey(call, record) {
    const field = call.op.keyField ?? 'id';
    const v = record[field] ?? record.id;
    if (v === undefined || v === null || v === '') {
      throw new GitHubError(422, `Invalid request.\n\n"${field}" wasn't supplied.`, { documentation_url: docs(call) });
    }
    return String(v);
  },

  finish(call, record, key) {
    const itemPath = call.op.action === 'create' ? `${call.req.path}/${key}` : call.req.path;
    const url = API + itemPath;
    const placeholder = (v: unknown) => v === undefined || v === '' || v === PLACEHOLDER_URL;
    for (const [field, value] of Object.entries(record)) {
      if (field === 'url' && placeholder(value)) record.url = url;
      else if (field === 'html_url' && placeholder(value)) record.html_url = WEB + itemPath.replace(/^\/repos\//, '/');
      else if (field.endsWith('_url') && placeholder(value)) record[field] = `${url}/${field.slice(0, -4)}`;
    }
    if (record.node_id === '' && typeof record.id === 'number') record.node_id = nodeId(pascal(call.op.entry.response.ref ?? call.op.resource), record.id);
    if ('published_at' in record && record.draft === false && !record.published_at) record.published_at = now(call.ctx);
  },

  touch(call, record) {
    if (typeof record.updated_at === 'string') record.updated_at = now(call.ctx);
  },

  listWindow(call) {
    const page = Math.max(1, Math.floor(Number(queryString(call.req, 'page') ?? 1)) || 1);
    const per = Math.min(100, Math.max(1, Math.floor(Number(queryString(call.req, 'per_page') ?? 30)) || 30));
    // No count (a `rel="last"` link would cost a scan of the collection): next/prev/first only.
    return { limit: per, offset: (page - 1) * per, order: 'seq', descending: false };
  },

  render(call, outcome: Outcome): TwinResponse {
    const status = call.op.entry.status;
    switch (outcome.kind) {
      case 'record':
        return status === 204 ? { status } : { status, body: outcome.record };
      case 'deleted':
      case 'none':
        return { status: status === 200 && outcome.kind === 'deleted' ? 204 : status };
      case 'page': {
        const w = outcome.window;
        const page = Math.floor((w.offset ?? 0) / w.limit) + 1;
        const link = linkHeader(call.req, call.ctx, page, undefined, outcome.hasMore);
        return { status, body: outcome.items.map((r) => r.body as Json), headers: link ? { link } : {} };
      }
      case 'answer':
        // A non-JSON answer (rendered markdown, a diff, a tarball) is empty here.
        return call.op.entry.response.kind === 'other' ? { status } : { status, body: outcome.body };
    }
  },
};

/** GitHub's generic surface over the generated table in twins/github/spec/. */
export const generic = new GenericEngine(githubGenericAdapter, loadArtefacts(import.meta.url));
