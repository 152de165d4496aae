// What a REST operation does, read from its method, its template and its siblings (the rules
// Stripe's and GitHub's adapters start from):
//   …/{key}            GET retrieve (204-answers: check) · POST/PATCH update · PUT upsert · DELETE delete
//   …/collection       GET list (an array or list answer) or get-one · POST create · PUT/PATCH set-one · DELETE delete-one
//   …/{key}/verb       POST act on the record, when the verb's answer is the record's own kind;
//                      any other verb on a record (nothing listed at its path) is an action (`answer`)
// A POST on a static segment below a listed collection (`/v1/invoices/create_preview`) answers
// without state, as do answers that are not JSON objects.

import type { Action, Classification, OperationIndex } from './types.js';
import type { OperationEntry } from './spec-types.js';

export interface RestShape {
  action: Action;
  /** Parameters above the record (or the collection), outermost first. */
  scope: string[];
  key?: string;
  verb?: string;
  /** Template of the collection the operation works on (`/repos/{owner}/{repo}/releases`). */
  collection: string;
}

export const paramName = (seg: string): string | undefined => /^\{([^}]+)\}$/.exec(seg)?.[1];

export function indexOperations(entries: OperationEntry[]): OperationIndex {
  const byShape = new Map<string, OperationEntry>();
  for (const e of entries) byShape.set(`${e.method} ${e.path.replace(/\{[^}]+\}/g, '{}')}`, e);
  return { get: (method, template) => byShape.get(`${method} ${template.replace(/\{[^}]+\}/g, '{}')}`) };
}

const isCollectionAnswer = (e: OperationEntry | undefined) =>
  !!e && (e.response.kind === 'list' || e.response.kind === 'array' || e.response.kind === 'search');

export function classifyRest(entry: OperationEntry, index: OperationIndex): RestShape {
  const segs = entry.path.split('/');
  const last = segs[segs.length - 1]!;
  const params = segs.map(paramName).filter((p): p is string => p !== undefined);
  const kind = entry.response.kind;
  const jsonObject = kind === 'object';
  const parentPath = segs.slice(0, -1).join('/');
  const lastParam = paramName(last);

  if (lastParam) {
    const scope = params.slice(0, -1);
    const collection = parentPath;
    switch (entry.method) {
      case 'GET':
        if (kind === 'none') return { action: 'check', scope, key: lastParam, collection };
        if (isCollectionAnswer(entry)) return { action: 'list', scope: params, collection: entry.path };
        return { action: jsonObject ? 'retrieve' : 'answer', scope, key: lastParam, collection };
      case 'PUT':
        return { action: jsonObject || kind === 'none' ? 'upsert' : 'answer', scope, key: lastParam, collection };
      case 'DELETE':
        return { action: 'delete', scope, key: lastParam, collection };
      default:
        return { action: jsonObject ? 'update' : 'answer', scope, key: lastParam, collection };
    }
  }

  const parentLast = segs[segs.length - 2] ?? '';
  const parentParam = paramName(parentLast);
  switch (entry.method) {
    case 'GET':
      if (last === 'search' && kind !== 'array') return { action: kind === 'search' ? 'search' : 'answer', scope: params, collection: parentPath };
      if (isCollectionAnswer(entry)) return { action: 'list', scope: params, collection: entry.path };
      if (kind === 'none') return { action: 'check', scope: params, collection: entry.path };
      return { action: jsonObject ? 'get-one' : 'answer', scope: params, collection: entry.path };
    case 'POST': {
      if (kind !== 'object') return { action: 'answer', scope: params, collection: entry.path };
      if (isCollectionAnswer(index.get('GET', entry.path))) return { action: 'create', scope: params, collection: entry.path };
      if (parentParam) {
        const parent = index.get('GET', parentPath);
        // The verb answers the record's own kind (or neither shape is known: an SDK-only pair).
        const unknown = (e: OperationEntry) => e.response.ref === undefined && e.response.object === undefined;
        const sameKind =
          parent &&
          parent.response.kind === 'object' &&
          ((parent.response.ref !== undefined && parent.response.ref === entry.response.ref) ||
            (parent.response.object !== undefined && parent.response.object === entry.response.object) ||
            (unknown(parent) && unknown(entry)));
        if (sameKind) return { action: 'act', scope: params.slice(0, -1), key: parentParam, verb: last, collection: segs.slice(0, -2).join('/') };
        // A verb on a record (`…/{id}/verify`, `…/{repo}/merges`) that lists nothing there: an action.
        return { action: 'answer', scope: params, collection: entry.path };
      }
      // A verb on a listed collection (`/v1/invoices/create_preview`) keeps nothing.
      if (!parentParam && isCollectionAnswer(index.get('GET', parentPath))) return { action: 'answer', scope: params, collection: parentPath };
      return { action: 'create', scope: params, collection: entry.path };
    }
    case 'DELETE':
      return { action: 'delete-one', scope: params, collection: entry.path };
    default:
      return { action: kind === 'object' || kind === 'none' ? 'set-one' : 'answer', scope: params, collection: entry.path };
  }
}

/** `/repos/{owner}/{repo}/releases/{release_id}/assets` → `repos.releases.assets`. */
export function staticName(template: string): string {
  return template
    .split('/')
    .filter((s) => s && !paramName(s))
    .join('.');
}

/**
 * The REST classification of a provider whose list GETs answer a page object with one array field
 * (SendGrid's `{result: [...]}`, Jira's `{startAt, total, values: [...]}`): that GET is its
 * collection's list (read from `field`), and a create's key field is the one its item GET names.
 * `prefix` is the API's path prefix, left out of resource names.
 */
export function classifyPagedRest(entry: OperationEntry, index: OperationIndex, keyFieldFor: (param: string) => string, prefix: RegExp): Classification {
  const shape = classifyRest(entry, index);
  let action = shape.action;
  let field: string | undefined;
  const lists = entry.response.lists ?? [];
  if (entry.method === 'GET' && action === 'get-one' && lists.length === 1) {
    action = 'list';
    field = lists[0];
  }
  const collection = action === 'list' && !paramName(entry.path.split('/').pop()!) ? entry.path : shape.collection;
  let keyField: string | undefined;
  if (shape.key) keyField = keyFieldFor(shape.key);
  else if (action === 'create') {
    const item = index.get('GET', `${entry.path}/{x}`);
    const itemKey = item ? paramName(item.path.split('/').pop()!) : undefined;
    keyField = itemKey ? keyFieldFor(itemKey) : 'id';
  }
  return {
    action,
    resource: staticName(collection).replace(prefix, '') || 'root',
    scope: shape.scope,
    key: shape.key,
    keyField,
    verb: shape.verb,
    field,
  };
}
