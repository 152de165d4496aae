// Database views (table, board, list, calendar, timeline, gallery, form, chart, map, dashboard) of
// a data source, with a filter and sorts checked against its schema; a view query runs them once
// and keeps the matching page ids for paging until it expires (15 minutes) or is deleted.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { bodyInvalid, NotionError, validation } from '../wire/errors.js';
import { bodyId, field, isObject } from '../wire/params.js';
import { getDataSource, getDatabase, notionUrl, userRef } from './access.js';
import { queryPages } from './databases.js';
import { compileFilter, compileSorts } from './query.js';
import { newId, stamps, touch, type Stamps } from './records.js';
import { me } from './workspace.js';

export const VIEW = 'view';
export const VIEW_QUERY = 'view_query';
const VIEW_TYPES = ['table', 'board', 'list', 'calendar', 'timeline', 'gallery', 'form', 'chart', 'map', 'dashboard'];
const QUERY_TTL = 15 * 60_000;
const MAX_CONFIG = 20_000;

export interface View extends Stamps {
  id: string;
  database_id: string;
  data_source_id: string;
  name: string;
  type: string;
  filter: unknown;
  sorts: unknown;
  configuration: unknown;
}

export interface ViewQuery {
  id: string;
  view_id: string;
  page_ids: string[];
  expires_ms: number;
}

function check(ctx: TwinContext, dataSourceId: string, filter: unknown, sorts: unknown): void {
  const ds = getDataSource(ctx, dataSourceId);
  if (filter !== undefined && filter !== null) compileFilter(ctx, ds.properties, filter);
  if (sorts !== undefined && sorts !== null) compileSorts(ctx, ds.properties, sorts);
}

function configuration(raw: unknown): unknown {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw bodyInvalid('configuration', 'should be an object', raw);
  if (JSON.stringify(raw).length > MAX_CONFIG) throw validation('body failed validation: body.configuration is too large.');
  return raw;
}

export function createView(ctx: TwinContext, body: Record<string, unknown>): View {
  const ds = getDataSource(ctx, bodyId(field(body, 'data_source_id'), 'data_source_id'));
  const name = field(body, 'name');
  const type = field(body, 'type');
  if (typeof name !== 'string' || name === '') throw bodyInvalid('name', 'should be a non-empty string', name);
  if (typeof type !== 'string' || !VIEW_TYPES.includes(type)) throw bodyInvalid('type', `should be one of ${VIEW_TYPES.map((t) => `"${t}"`).join(', ')}`, type);
  check(ctx, ds.id, field(body, 'filter'), field(body, 'sorts'));
  const view: View = {
    id: newId(ctx),
    database_id: ds.database_id,
    data_source_id: ds.id,
    name,
    type,
    filter: field(body, 'filter') ?? null,
    sorts: field(body, 'sorts') ?? null,
    configuration: configuration(field(body, 'configuration')),
    ...stamps(ctx, me(ctx).id),
  };
  ctx.store.put(VIEW, view.id, view);
  return view;
}

export function getView(ctx: TwinContext, id: string): View {
  const v = ctx.store.get<View>(VIEW, id);
  if (!v || v.in_trash)
    throw new NotionError(
      404,
      'object_not_found',
      `Could not find view with ID: ${id}. Make sure the relevant pages and databases are shared with your integration.`,
    );
  return v;
}

export function updateView(ctx: TwinContext, id: string, body: Record<string, unknown>): View {
  const v = getView(ctx, id);
  const name = field(body, 'name');
  if (name !== undefined) {
    if (typeof name !== 'string' || name === '') throw bodyInvalid('name', 'should be a non-empty string', name);
    v.name = name;
  }
  const filter = field(body, 'filter');
  const sorts = field(body, 'sorts');
  check(ctx, v.data_source_id, filter, sorts);
  if (filter !== undefined) v.filter = filter;
  if (sorts !== undefined) v.sorts = sorts;
  if (field(body, 'configuration') !== undefined) v.configuration = configuration(field(body, 'configuration'));
  touch(ctx, v, me(ctx).id);
  ctx.store.put(VIEW, v.id, v);
  return v;
}

export function deleteView(ctx: TwinContext, id: string): View {
  const v = getView(ctx, id);
  v.in_trash = true;
  ctx.store.put(VIEW, v.id, v);
  return v;
}

export function listViews(ctx: TwinContext, query: Record<string, unknown>): View[] {
  const dbId = field(query, 'database_id');
  const dsId = field(query, 'data_source_id');
  if (dbId === undefined && dsId === undefined)
    throw validation('query failed validation: one of query.database_id or query.data_source_id should be defined.');
  const db = dbId !== undefined ? getDatabase(ctx, bodyId(dbId, 'database_id')).id : undefined;
  const ds = dsId !== undefined ? getDataSource(ctx, bodyId(dsId, 'data_source_id')).id : undefined;
  return ctx.store.list<View>(VIEW).filter((v) => !v.in_trash && (db === undefined || v.database_id === db) && (ds === undefined || v.data_source_id === ds));
}

export function viewView(v: View): Record<string, unknown> {
  return {
    object: 'view',
    id: v.id,
    parent: { type: 'database_id', database_id: v.database_id },
    name: v.name,
    type: v.type,
    created_time: v.created_time,
    last_edited_time: v.last_edited_time,
    url: `${notionUrl('', v.database_id)}?v=${v.id.replace(/-/g, '')}`,
    data_source_id: v.data_source_id,
    created_by: userRef(v.created_by),
    last_edited_by: userRef(v.last_edited_by),
    filter: v.filter,
    sorts: v.sorts,
    quick_filters: null,
    configuration: v.configuration,
  };
}

/** Run a view's filter and sorts now; the ids are kept for paging. */
export function runViewQuery(ctx: TwinContext, viewId: string): ViewQuery {
  const v = getView(ctx, viewId);
  const body: Record<string, unknown> = {};
  if (v.filter !== null) body.filter = v.filter;
  if (v.sorts !== null) body.sorts = v.sorts;
  const pages = queryPages(ctx, getDataSource(ctx, v.data_source_id), body);
  const q: ViewQuery = { id: newId(ctx), view_id: v.id, page_ids: pages.map((p) => p.id), expires_ms: ctx.clock.nowMs() + QUERY_TTL };
  ctx.store.put(VIEW_QUERY, q.id, q);
  return q;
}

export function getViewQuery(ctx: TwinContext, viewId: string, queryId: string): ViewQuery {
  const q = ctx.store.get<ViewQuery>(VIEW_QUERY, queryId);
  if (!q || q.view_id !== viewId) throw new NotionError(404, 'object_not_found', `Could not find view query with ID: ${queryId}.`);
  if (ctx.clock.nowMs() > q.expires_ms) throw new NotionError(404, 'object_not_found', `View query ${queryId} has expired: run the view again.`);
  return q;
}

export function deleteViewQuery(ctx: TwinContext, viewId: string, queryId: string): Record<string, unknown> {
  const q = getViewQuery(ctx, viewId, queryId);
  ctx.store.delete(VIEW_QUERY, q.id);
  return { object: 'view_query', id: q.id, deleted: true };
}

export function expiresAt(q: ViewQuery): string {
  return new Date(q.expires_ms).toISOString();
}
