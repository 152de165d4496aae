// Databases and data sources: create, retrieve, update, query (`/v1/data_sources/{id}/query`, and
// the earlier `/v1/databases/{id}/query` over a database's one data source), templates.

import type { TwinContext, TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { validation } from '../wire/errors.js';
import { jsonBody, pageRequest, paginate, pathId } from '../wire/params.js';
import { apiVersion } from '../wire/version.js';
import { getDataSource, getDatabase } from '../model/access.js';
import { createDatabase, createDataSource, databaseView, dataSourceView, queryPages, updateDatabase, updateDataSource } from '../model/databases.js';
import { pageView } from '../model/pages.js';
import type { DataSource } from '../model/records.js';

function query(req: TwinRequest, ctx: TwinContext, ds: DataSource) {
  const api = apiVersion(req);
  const raw = req.query.filter_properties;
  const only = raw === undefined ? undefined : (Array.isArray(raw) ? raw : [raw]).map(String);
  const type = api.dataSources ? 'page_or_data_source' : 'page_or_database';
  return {
    status: 200,
    body: paginate(
      queryPages(ctx, ds, jsonBody(req)),
      pageRequest(req),
      (p) => p.id,
      (p) => pageView(ctx, p, api, only),
      type,
    ),
  };
}

export const databaseRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/databases',
    handler: (req, ctx) => ({ status: 200, body: databaseView(ctx, createDatabase(ctx, jsonBody(req), apiVersion(req)), apiVersion(req)) }),
  },
  {
    method: 'GET',
    path: '/v1/databases/{database_id}',
    handler: (req, ctx) => ({ status: 200, body: databaseView(ctx, getDatabase(ctx, pathId(req, 'database_id')), apiVersion(req)) }),
  },
  {
    method: 'PATCH',
    path: '/v1/databases/{database_id}',
    handler: (req, ctx) => ({
      status: 200,
      body: databaseView(ctx, updateDatabase(ctx, pathId(req, 'database_id'), jsonBody(req), apiVersion(req)), apiVersion(req)),
    }),
  },
  {
    method: 'POST',
    path: '/v1/databases/{database_id}/query',
    handler: (req, ctx) => {
      const db = getDatabase(ctx, pathId(req, 'database_id'));
      if (db.data_source_ids.length !== 1) throw validation('Databases with multiple data sources are not supported in this API version.');
      return query(req, ctx, getDataSource(ctx, db.data_source_ids[0]!));
    },
  },
  { method: 'POST', path: '/v1/data_sources', handler: (req, ctx) => ({ status: 200, body: dataSourceView(ctx, createDataSource(ctx, jsonBody(req))) }) },
  {
    method: 'GET',
    path: '/v1/data_sources/{data_source_id}',
    handler: (req, ctx) => ({ status: 200, body: dataSourceView(ctx, getDataSource(ctx, pathId(req, 'data_source_id'))) }),
  },
  {
    method: 'PATCH',
    path: '/v1/data_sources/{data_source_id}',
    handler: (req, ctx) => ({
      status: 200,
      body: dataSourceView(ctx, updateDataSource(ctx, getDataSource(ctx, pathId(req, 'data_source_id')), jsonBody(req))),
    }),
  },
  {
    method: 'POST',
    path: '/v1/data_sources/{data_source_id}/query',
    handler: (req, ctx) => query(req, ctx, getDataSource(ctx, pathId(req, 'data_source_id'))),
  },
  {
    method: 'GET',
    path: '/v1/data_sources/{data_source_id}/templates',
    handler: (req, ctx) => {
      getDataSource(ctx, pathId(req, 'data_source_id'));
      return { status: 200, body: { templates: [], has_more: false, next_cursor: null } };
    },
  },
];
