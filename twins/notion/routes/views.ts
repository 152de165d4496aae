// Views and view queries.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { jsonBody, pageRequest, paginate, pathId } from '../wire/params.js';
import { createView, deleteView, deleteViewQuery, expiresAt, getView, getViewQuery, listViews, runViewQuery, updateView, viewView } from '../model/views.js';

const ref = (id: string) => ({ object: 'page', id });

export const viewRoutes: TwinRoute[] = [
  {
    method: 'GET',
    path: '/v1/views',
    handler: (req, ctx) => ({
      status: 200,
      body: paginate(
        listViews(ctx, req.query),
        pageRequest(req),
        (v) => v.id,
        (v) => ({ object: 'view', id: v.id }),
        'view',
      ),
    }),
  },
  { method: 'POST', path: '/v1/views', handler: (req, ctx) => ({ status: 200, body: viewView(createView(ctx, jsonBody(req))) }) },
  { method: 'GET', path: '/v1/views/{view_id}', handler: (req, ctx) => ({ status: 200, body: viewView(getView(ctx, pathId(req, 'view_id'))) }) },
  {
    method: 'PATCH',
    path: '/v1/views/{view_id}',
    handler: (req, ctx) => ({ status: 200, body: viewView(updateView(ctx, pathId(req, 'view_id'), jsonBody(req))) }),
  },
  {
    method: 'DELETE',
    path: '/v1/views/{view_id}',
    handler: (req, ctx) => {
      const v = deleteView(ctx, pathId(req, 'view_id'));
      return { status: 200, body: { object: 'view', id: v.id, parent: { type: 'database_id', database_id: v.database_id }, type: v.type } };
    },
  },
  {
    method: 'POST',
    path: '/v1/views/{view_id}/queries',
    handler: (req, ctx) => {
      const q = runViewQuery(ctx, pathId(req, 'view_id'));
      const first = paginate(q.page_ids, pageRequest(req), (id) => id, ref, 'page');
      return {
        status: 200,
        body: {
          object: 'view_query',
          id: q.id,
          view_id: q.view_id,
          expires_at: expiresAt(q),
          total_count: q.page_ids.length,
          results: first.results,
          next_cursor: first.next_cursor,
          has_more: first.has_more,
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/v1/views/{view_id}/queries/{query_id}',
    handler: (req, ctx) => ({
      status: 200,
      body: paginate(getViewQuery(ctx, pathId(req, 'view_id'), pathId(req, 'query_id')).page_ids, pageRequest(req), (id) => id, ref, 'page'),
    }),
  },
  {
    method: 'DELETE',
    path: '/v1/views/{view_id}/queries/{query_id}',
    handler: (req, ctx) => ({ status: 200, body: deleteViewQuery(ctx, pathId(req, 'view_id'), pathId(req, 'query_id')) }),
  },
];
