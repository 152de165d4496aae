// Pages: create, retrieve (with `filter_properties`), update (properties, icon, cover, lock,
// trash), and one property's items.

import type { TwinRequest, TwinRoute } from '../../../twin-runtime/contract.js';
import { jsonBody, pageRequest, pathId } from '../wire/params.js';
import { apiVersion } from '../wire/version.js';
import { getPage } from '../model/access.js';
import { pageMarkdown, updatePageMarkdown } from '../model/markdown.js';
import { createPage, movePage, pageView, propertyItem, updatePage } from '../model/pages.js';

function filterProperties(req: TwinRequest): string[] | undefined {
  const v = req.query.filter_properties;
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).map(String);
}

export const pageRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/pages',
    handler: (req, ctx) => ({ status: 200, body: pageView(ctx, createPage(ctx, jsonBody(req), apiVersion(req)), apiVersion(req)) }),
  },
  {
    method: 'GET',
    path: '/v1/pages/{page_id}',
    handler: (req, ctx) => ({ status: 200, body: pageView(ctx, getPage(ctx, pathId(req, 'page_id')), apiVersion(req), filterProperties(req)) }),
  },
  {
    method: 'PATCH',
    path: '/v1/pages/{page_id}',
    handler: (req, ctx) => ({ status: 200, body: pageView(ctx, updatePage(ctx, pathId(req, 'page_id'), jsonBody(req)), apiVersion(req)) }),
  },
  {
    method: 'POST',
    path: '/v1/pages/{page_id}/move',
    handler: (req, ctx) => ({ status: 200, body: pageView(ctx, movePage(ctx, pathId(req, 'page_id'), jsonBody(req), apiVersion(req)), apiVersion(req)) }),
  },
  { method: 'GET', path: '/v1/pages/{page_id}/markdown', handler: (req, ctx) => ({ status: 200, body: pageMarkdown(ctx, pathId(req, 'page_id')) }) },
  {
    method: 'PATCH',
    path: '/v1/pages/{page_id}/markdown',
    handler: (req, ctx) => ({ status: 200, body: updatePageMarkdown(ctx, pathId(req, 'page_id'), jsonBody(req)) }),
  },
  {
    method: 'GET',
    path: '/v1/pages/{page_id}/properties/{property_id}',
    handler: (req, ctx) => ({ status: 200, body: propertyItem(ctx, getPage(ctx, pathId(req, 'page_id')), req.params.property_id ?? '', pageRequest(req)) }),
  },
];
