// Search and comments.

import type { TwinRoute } from '../../../twin-runtime/contract.js';
import { NotionError, validation } from '../wire/errors.js';
import { canonicalId, jsonBody, pageRequest, paginate, pathId } from '../wire/params.js';
import { apiVersion } from '../wire/version.js';
import { commentsOn, commentView, createComment, deleteComment, getComment, updateComment } from '../model/comments.js';
import { databaseView, dataSourceView } from '../model/databases.js';
import { pageView } from '../model/pages.js';
import { hitId, search } from '../model/search.js';

export const searchRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/search',
    handler: (req, ctx) => {
      const api = apiVersion(req);
      const type = api.dataSources ? 'page_or_data_source' : 'page_or_database';
      const view = (h: ReturnType<typeof search>[number]) =>
        h.kind === 'page' ? pageView(ctx, h.page, api) : h.kind === 'data_source' ? dataSourceView(ctx, h.ds) : databaseView(ctx, h.db, api);
      return { status: 200, body: paginate(search(ctx, jsonBody(req), api), pageRequest(req), hitId, view, type) };
    },
  },
  { method: 'POST', path: '/v1/comments', handler: (req, ctx) => ({ status: 200, body: commentView(createComment(ctx, jsonBody(req))) }) },
  {
    method: 'GET',
    path: '/v1/comments',
    handler: (req, ctx) => {
      const raw = req.query.block_id;
      const id = canonicalId(raw);
      if (!id) throw validation(`query failed validation: query.block_id should be a valid uuid, instead was \`${JSON.stringify(raw ?? null)}\`.`);
      return { status: 200, body: paginate(commentsOn(ctx, id), pageRequest(req), (c) => c.id, commentView, 'comment') };
    },
  },
  {
    method: 'GET',
    path: '/v1/comments/{comment_id}',
    handler: (req, ctx) => ({ status: 200, body: commentView(getComment(ctx, pathId(req, 'comment_id'))) }),
  },
  {
    method: 'PATCH',
    path: '/v1/comments/{comment_id}',
    handler: (req, ctx) => ({ status: 200, body: commentView(updateComment(ctx, pathId(req, 'comment_id'), jsonBody(req))) }),
  },
  {
    method: 'DELETE',
    path: '/v1/comments/{comment_id}',
    handler: (req, ctx) => ({ status: 200, body: commentView(deleteComment(ctx, pathId(req, 'comment_id'))) }),
  },
  // Every request is answered synchronously (`allow_async` never defers), so no async task exists.
  {
    method: 'GET',
    path: '/v1/async_tasks/{task_id}',
    handler: (req) => {
      throw new NotionError(404, 'object_not_found', `Could not find async task with ID: ${pathId(req, 'task_id')}.`);
    },
  },
  // The workspace has no custom emojis; the list answers Notion's empty page.
  {
    method: 'GET',
    path: '/v1/custom_emojis',
    handler: () => ({ status: 200, body: { object: 'list', type: 'custom_emoji', results: [], has_more: false, next_cursor: null } }),
  },
];
