// Saved filters: `POST /filter`, `GET|PUT|DELETE /filter/{id}`, `PUT|DELETE /filter/{id}/favourite`,
// `PUT /filter/{id}/owner`, `GET /filter/my`, `GET /filter/favourite`, `GET /filter/search`
// (`filterName`, `accountId`, offset pages). No share permissions are kept: a filter is its
// owner's (`sharePermissions` empty).

import type { TwinContext, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { changeOwner, createFilter, deleteFilter, requireFilter, setFavourite, updateFilter } from '../model/filters.js';
import type { Filter, User } from '../model/records.js';
import { userView } from '../model/views.js';
import { viewer } from '../model/workspace.js';
import { intParam, offsetPage, param } from '../wire/params.js';

const P = '/rest/api/3/filter';
const json = (status: number, body: unknown): TwinResponse => ({ status, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });

function filterView(ctx: TwinContext, f: Filter): Record<string, unknown> {
  const owner = ctx.store.get<User>('user', f.ownerAccountId);
  return {
    self: `${ctx.baseUrl}${P}/${f.id}`,
    id: f.id,
    name: f.name,
    ...(f.description ? { description: f.description } : {}),
    ...(owner ? { owner: userView(ctx, owner) } : {}),
    jql: f.jql,
    searchUrl: `${ctx.baseUrl}/rest/api/3/search?jql=${encodeURIComponent(f.jql)}`,
    favourite: f.favouriteOf.includes(viewer(ctx).accountId),
    favouritedCount: f.favouriteOf.length,
    sharePermissions: [],
    editPermissions: [],
    isWritable: f.ownerAccountId === viewer(ctx).accountId,
  };
}

export const filterRoutes: TwinRoute[] = [
  { method: 'POST', path: P, handler: (req, ctx) => json(200, filterView(ctx, createFilter(ctx, req.body))) },
  {
    method: 'GET',
    path: `${P}/my`,
    handler(req, ctx) {
      const me = viewer(ctx).accountId;
      const mine = ctx.store
        .list<Filter>('filter')
        .filter((f) => f.ownerAccountId === me || (param(req, 'includeFavourites') === 'true' && f.favouriteOf.includes(me)));
      return json(
        200,
        mine.map((f) => filterView(ctx, f)),
      );
    },
  },
  {
    method: 'GET',
    path: `${P}/favourite`,
    handler: (_req, ctx) =>
      json(
        200,
        ctx.store
          .list<Filter>('filter')
          .filter((f) => f.favouriteOf.includes(viewer(ctx).accountId))
          .map((f) => filterView(ctx, f)),
      ),
  },
  {
    method: 'GET',
    path: `${P}/search`,
    handler(req, ctx) {
      const name = String(param(req, 'filterName') ?? '').toLowerCase();
      const owner = param(req, 'accountId');
      const hits = ctx.store
        .list<Filter>('filter')
        .filter((f) => (name === '' || f.name.toLowerCase().includes(name)) && (typeof owner !== 'string' || owner === '' || f.ownerAccountId === owner))
        .sort((a, b) => a.name.localeCompare(b.name));
      const page = offsetPage(hits, intParam(req, 'startAt', 0), intParam(req, 'maxResults', 50, 100) || 50);
      return json(200, {
        self: `${ctx.baseUrl}${P}/search?startAt=${page.startAt}&maxResults=${page.maxResults}`,
        maxResults: page.maxResults,
        startAt: page.startAt,
        total: page.total,
        isLast: page.isLast,
        values: page.values.map((f) => filterView(ctx, f)),
      });
    },
  },
  { method: 'GET', path: `${P}/{id}`, handler: (req, ctx) => json(200, filterView(ctx, requireFilter(ctx, req.params.id!))) },
  { method: 'PUT', path: `${P}/{id}`, handler: (req, ctx) => json(200, filterView(ctx, updateFilter(ctx, req.params.id!, req.body))) },
  {
    method: 'DELETE',
    path: `${P}/{id}`,
    handler(req, ctx) {
      deleteFilter(ctx, req.params.id!);
      return { status: 204 };
    },
  },
  { method: 'PUT', path: `${P}/{id}/favourite`, handler: (req, ctx) => json(200, filterView(ctx, setFavourite(ctx, req.params.id!, true))) },
  { method: 'DELETE', path: `${P}/{id}/favourite`, handler: (req, ctx) => json(200, filterView(ctx, setFavourite(ctx, req.params.id!, false))) },
  {
    method: 'PUT',
    path: `${P}/{id}/owner`,
    handler(req, ctx) {
      changeOwner(ctx, req.params.id!, req.body.accountId);
      return { status: 204 };
    },
  },
];
